// The fused traversal region: the traversal records (codes, or vectors when there are none), every
// neighbour list, the upper layers and a few searcher lanes in ONE shared WebAssembly.Memory. A WASM
// instance reaches one memory only, so this is what lets a whole traversal run in one call
// (index/kernels/traverse.as.ts `traverse`) instead of one JS step and one kernel call per hop. Tiers stay what
// they were: each segment is a range of the region starting on a huge-page boundary, bound to its
// tier's NUMA node on its own (memory-binding.ts binds ranges), and priced by its tier. Lanes are per-searcher scratch: a visited tag per node, the beam,
// the hop's id lists, and the filtered walk's bitset and frontier; they count as DRAM. The promotion pool (list-pool.ts) sits beside the
// upper layers, in DRAM: copies of CXL lists and their lookup table. After the lanes: the value runs'
// area, then the filter links' blocks' entries, and last, from a huge page of their own, the links'
// lists and lookup: cold, a range of the CXL tier (FilterLinks.placeIn).
import { CONTROL_BYTES, COVER_MAX } from '../kernels/control-block.js';
import { BEAM_MAX_EF } from '../kernels/control-block.js';
import { RUNS_PER_SCAN } from './value-runs.js';
import { addressesReadable, viewAddress } from '../../tiers/numa.js';
import { allocateRegion, MAX_REGION_BYTES, type SharedRegion } from '../../tiers/shared-region.js';
import { NodeStore, type StoreLayout } from './node-store.js';
import { Segment, type SegmentShape, segmentLayout } from './segment.js';
import type { UpperLayers } from './upper-layers.js';

/** Largest ef the fused beam serves (its lane's beam is sized for it); larger ones run the JS beam. */
export const FUSED_MAX_EF = BEAM_MAX_EF;

/**
 * Most frontier entries a lane keeps for the filtered walk (8 bytes each). The walk's frontier holds
 * at most every node once, so an index up to this size never overflows it; on a larger one a walk
 * that outgrows it is walked again by the JS steps, whose frontier grows.
 */
export const FUSED_MAX_FRONTIER = 1 << 20;

export interface LaneLayout {
  lanes: number;
  /** Byte offset of lane 0, and bytes per lane. */
  laneBase: number;
  laneBytes: number;
  /** Offsets within a lane. */
  visitedAt: number;
  /** The beam (search/beam.ts's twin): beamCap f32 distances, then beamCap u32 ids. */
  beamAt: number;
  beamCap: number;
  scratchAt: number;
  maxDegree: number;
  /** The filtered walk's bitset of matching nodes (a word per 32 nodes, copied in per query). */
  filterAt: number;
  /** Its frontier: frontierCap f32 distances, then frontierCap u32 ids; 0 entries: filtered walks run in JS. */
  frontierAt: number;
  frontierCap: number;
  /** The scan's value runs: RUNS_PER_SCAN descriptors of three u32 (value-runs.ts). */
  runsAt: number;
  /** The links' walk's covering blocks: up to COVER_MAX u32 ids, copied in per query. */
  coverAt: number;
  /** The list codes' lookup table (16 bytes a subspace, written per query) and a hop's estimates (a u16 per neighbour slot). */
  lutAt: number;
  estAt: number;
}

/** No lanes (an index without a fused region): what the promotion pool watches then. */
export const NO_LANES: LaneLayout = {
  lanes: 0,
  laneBase: 0,
  laneBytes: 0,
  visitedAt: 0,
  beamAt: 0,
  beamCap: 0,
  scratchAt: 0,
  maxDegree: 0,
  filterAt: 0,
  frontierAt: 0,
  frontierCap: 0,
  runsAt: 0,
  coverAt: 0,
  lutAt: 0,
  estAt: 0,
};

/** Where the promotion pool's arrays are in the region (byte offsets), and their sizes. */
export interface PoolLayout {
  slots: number;
  /** Words per list (the adjacency stride / 4). */
  words: number;
  /** First node of the CXL range: counters are indexed by node - split. */
  split: number;
  listsAt: number;
  /** Lookup table: `capacity` u64 entries (low word node + 1, 0 = empty; high word the slot). */
  tableAt: number;
  capacity: number;
  /** The node each slot holds (-1: none), as i32. */
  ownersAt: number;
}

/** What workers need to rebuild the same view of the region. */
export interface FusedHandle {
  memory: WebAssembly.Memory;
  lanes: LaneLayout;
  laneLocks: Int32Array;
  pool: PoolLayout | null;
  /** The value runs' area (value-runs.ts): byte offset and capacity; bytes 0: none. */
  runs: { at: number; bytes: number };
  /** The filter links' areas (FilterLinks.placeIn), each a byte offset and capacity; bytes 0: none. */
  links: LinksArea;
  /** The list codes' blocks (list-code-store.ts): cold, a range of the CXL tier; bytes 0: none. */
  listCodes: { at: number; bytes: number };
}

/**
 * Where the filter links lie in the region: their DRAM part (the blocks' entries) after the value
 * runs, and their cold part (lists and lookup) from a huge-page boundary, whole pages of it, so that
 * a CXL host binds that range to its node without moving anything else (memory-binding.ts).
 */
export interface LinksArea {
  at: number;
  bytes: number;
  coldAt: number;
  coldBytes: number;
}

/** The pool's arrays laid out from byte `at`; returns the layout and the end. */
export function poolLayout(at: number, slots: number, adjStride: number, split: number): PoolLayout {
  const listsAt = align(at, 64);
  const tableAt = align(listsAt + slots * adjStride, 64);
  const capacity = 2 * slots;
  const ownersAt = align(tableAt + 8 * capacity, 64);
  return { slots, words: adjStride >>> 2, split, listsAt, tableAt, capacity, ownersAt };
}

export const poolEnd = (p: PoolLayout): number => p.ownersAt + 4 * p.slots;

/** The pool's bytes (its arrays, not the padding between them): what the planner budgets. */
export const poolBytes = (p: PoolLayout): number => p.slots * (4 * p.words + 8 * (p.capacity / p.slots) + 4);

const align = (x: number, a: number): number => Math.ceil(x / a) * a;
/** A transparent huge page (x86-64, and arm64 with 4 KiB pages). */
export const HUGE_PAGE = 2 << 20;
/** A base page: a bound range is whole pages, so that its policy holds on every one it touches. */
const PAGE = 4096;

/**
 * A lane's arrays; `filtered` false leaves out the filtered walk's bitset and frontier; `subspaces`,
 * the list codes' (0: none), sizes their lookup table.
 */
export function laneLayout(count: number, maxDegree: number, lanes: number, laneBase: number, filtered = true, subspaces = 0): LaneLayout {
  const visitedAt = CONTROL_BYTES;
  const beamCap = FUSED_MAX_EF + 1;
  const beamAt = align(visitedAt + count, 64);
  const scratchAt = align(beamAt + 8 * beamCap, 64);
  const filterAt = align(scratchAt + 6 * 4 * maxDegree, 64);
  const frontierAt = align(filterAt + (filtered ? 4 * Math.ceil(count / 32) : 0), 64);
  const frontierCap = filtered ? Math.min(count, FUSED_MAX_FRONTIER) : 0;
  const runsAt = align(frontierAt + 8 * frontierCap, 64);
  const coverAt = align(runsAt + 12 * RUNS_PER_SCAN, 64);
  const lutAt = align(coverAt + 4 * COVER_MAX, 64);
  const estAt = align(lutAt + 16 * subspaces, 64);
  const laneBytes = align(estAt + 2 * align(maxDegree, 32), PAGE);
  return { lanes, laneBase, laneBytes, visitedAt, beamAt, beamCap, scratchAt, maxDegree, filterAt, frontierAt, frontierCap, runsAt, coverAt, lutAt, estAt };
}

export interface FusedPlan {
  bytes: number;
  /** Byte offset of the upper layers' arrays. */
  upperAt: number;
  pool: PoolLayout | null;
  /** Byte offset of each segment run, per store, in NodeStore.runs order. */
  bases: Map<string, number[]>;
  lanes: LaneLayout;
  /** The value runs' area, after the lanes (value-runs.ts). */
  runs: { at: number; bytes: number };
  /** The filter links' areas, after the runs. */
  links: LinksArea;
  /** The list codes' blocks, last, from a huge page of their own. */
  listCodes: { at: number; bytes: number };
}

/**
 * Places the given stores' segments and `lanes` lanes in one region, or returns null when that is
 * not possible: more than one segment per tier in a store (the beam addresses a DRAM and a CXL
 * segment), or more than a wasm32 memory holds.
 */
export function planFused(
  stores: Array<{ name: string; shape: SegmentShape; layout: StoreLayout }>,
  count: number,
  maxDegree: number,
  lanes: number,
  upper: UpperLayers,
  pool: { slots: number; adjStride: number; split: number } | null = null,
  /** Offset of the first range: what brings it onto a huge-page boundary of the address space. */
  base = 0,
  /** Bytes for the value runs (value-runs.ts), left out when the region cannot hold them. */
  runBytes = 0,
  /** Bytes for the filter links (FilterLinks.regionBytes), left out when the region cannot hold them. */
  linkBytes: { dram: number; cold: number } = { dram: 0, cold: 0 },
  /** The list codes' subspaces and block bytes (list-code-store.ts); none when the region cannot hold them. */
  listCodes: { subspaces: number; bytes: number } = { subspaces: 0, bytes: 0 },
): FusedPlan | null {
  if (lanes <= 0 || count === 0) return null;
  let at = base;
  // Huge pages are counted from `base`, the region offset that sits on one in the address space.
  const onHugePage = (x: number): number => base + align(x - base, HUGE_PAGE);
  const bases = new Map<string, number[]>();
  for (const s of stores) {
    const runs = NodeStore.runs(count, s.layout);
    if (runs.filter((r) => r.tier === 0).length > 1 || runs.filter((r) => r.tier === 1).length > 1) return null;
    const list: number[] = [];
    for (const r of runs) {
      list.push(at);
      // Each range starts on a huge-page boundary, so that a transparent huge page faulted in for one
      // range (the code head, the upper layers) never covers the start of another tier's range
      // before that range is bound. The padding is address space, never touched.
      at = onHugePage(at + segmentLayout(s.shape, r.count).bytes);
    }
    bases.set(s.name, list);
  }
  const upperAt = at;
  at += upperSpan(upper);
  const poolAt = pool && pool.slots > 0 ? poolLayout(at, pool.slots, pool.adjStride, pool.split) : null;
  if (poolAt) at = poolEnd(poolAt);
  at = onHugePage(at);
  // Lanes without the filtered walk's room rather than no region: only filtered walks then run in JS.
  const fits = (l: LaneLayout): boolean => at + lanes * l.laneBytes <= MAX_REGION_BYTES - 65536;
  let lane = laneLayout(count, maxDegree, lanes, at, true, listCodes.subspaces);
  if (!fits(lane)) lane = laneLayout(count, maxDegree, lanes, at, false, listCodes.subspaces);
  if (!fits(lane)) return null;
  const runsAt = at + lanes * lane.laneBytes;
  const runs = { at: runsAt, bytes: runsAt + runBytes <= MAX_REGION_BYTES - 65536 ? runBytes : 0 };
  const linksAt = align(runsAt + runs.bytes, 64);
  const coldAt = onHugePage(linksAt + linkBytes.dram);
  const coldBytes = align(linkBytes.cold, PAGE);
  const fitsLinks = linkBytes.cold > 0 && coldAt + coldBytes <= MAX_REGION_BYTES - 65536;
  const links = fitsLinks ? { at: linksAt, bytes: linkBytes.dram, coldAt, coldBytes } : { at: linksAt, bytes: 0, coldAt: linksAt, coldBytes: 0 };
  const lcAt = onHugePage(links.coldAt + links.coldBytes);
  const lcBytes = align(listCodes.bytes, PAGE);
  const lc = listCodes.bytes > 0 && lcAt + lcBytes <= MAX_REGION_BYTES - 65536 ? { at: lcAt, bytes: lcBytes } : { at: 0, bytes: 0 };
  return { bytes: lc.bytes > 0 ? lc.at + lc.bytes : links.coldAt + links.coldBytes, upperAt, pool: poolAt, bases, lanes: lane, runs, links, listCodes: lc };
}

const upperSpan = (u: UpperLayers): number =>
  align(u.ids.byteLength, 64) + align(u.offsets.byteLength, 64) + align(u.links.byteLength, 64) + u.levels.byteLength;

/** The upper layers copied into the region at `at`: the same arrays, as views of the region. */
function placeUpper(region: SharedRegion, at: number, u: UpperLayers): UpperLayers {
  const buf = region.buffer;
  const ids = new Int32Array(buf, at, u.ids.length);
  const offsets = new Int32Array(buf, align(at + ids.byteLength, 64), u.offsets.length);
  const links = new Uint32Array(buf, align(offsets.byteOffset + offsets.byteLength, 64), u.links.length);
  const levels = new Uint8Array(buf, align(links.byteOffset + links.byteLength, 64), u.levels.length);
  ids.set(u.ids);
  offsets.set(u.offsets);
  links.set(u.links);
  levels.set(u.levels);
  return { ids, levels, offsets, links };
}

/**
 * Allocates a region for `replan(0)` and places it so that its ranges' huge-page boundaries are the
 * address space's: a WebAssembly.Memory starts on one of its own pages, not on a huge page, so the
 * ranges are shifted by the region's misalignment (read through the NUMA addon; where it is not
 * loaded nothing is bound and the plan stays as it is). Without this a huge page faulted in for the
 * DRAM ranges would cover the start of a CXL range, and binding that range would have to split it.
 */
export function allocateFused(
  replan: (base: number) => FusedPlan | null,
  addressOf: ((view: Uint8Array) => number) | null = addressesReadable() ? (v) => viewAddress(v) ?? 0 : null,
): { plan: FusedPlan; region: SharedRegion } | null {
  const plan = replan(0);
  if (!plan) return null;
  if (addressOf === null || plan.bytes + HUGE_PAGE > MAX_REGION_BYTES) return { plan, region: allocateRegion(plan.bytes) };
  const region = allocateRegion(plan.bytes + HUGE_PAGE);
  const shift = (HUGE_PAGE - (addressOf(new Uint8Array(region.buffer, 0, 1)) % HUGE_PAGE)) % HUGE_PAGE;
  const shifted = shift === 0 ? plan : replan(shift);
  return shifted && shifted.bytes <= region.bytes ? { plan: shifted, region } : { plan, region };
}

/** Builds each store's segments inside the allocated region and copies the upper layers in. */
export function buildFused(
  plan: FusedPlan,
  region: SharedRegion,
  stores: Array<{ name: string; shape: SegmentShape; layout: StoreLayout }>,
  count: number,
  upper: UpperLayers,
): { region: SharedRegion; segments: Map<string, Segment[]>; upper: UpperLayers } {
  const segments = new Map<string, Segment[]>();
  for (const s of stores) {
    const bases = plan.bases.get(s.name)!;
    segments.set(
      s.name,
      NodeStore.runs(count, s.layout).map((r, i) => new Segment(r.tier, r.start, r.count, s.shape, region, 'wasm', bases[i]!)),
    );
  }
  return { region, segments, upper: placeUpper(region, plan.upperAt, upper) };
}
