// The fused traversal.
// A whole traversal run to completion in WASM: the entry point, greedy descent through the upper
// layers, then the level-0 beam of width ef, or with a bitset of matching nodes the filtered walk
// (PHASE.FILTERED of index/search/traversal.ts: an unbounded frontier, answers from matches alone),
// or from a scarce entry the same walk on matches only through the filter links (FILTER_PLAN.LINKED). It serves an index whose traversal records (codes, or
// vectors without codes), neighbour lists, upper layers and a searcher's lane (visited tags, heaps,
// scratch) share one memory (index/tiered/fused-region.ts). Twin of the JS steps in
// index/search/traversal.ts (next/apply for ENTRY, UPPER, LEVEL0 and FILTERED, expand, foresee, expandFiltered, requestLinked, requestLikely): the same
// requests, pops, pushes and comparisons in the same order, so both return the same answers;
// test/index/search/fused-traversal.test.ts and fused-filtered.test.ts hold them to it. It only counts memory accesses: index/search/fused-traversal.ts
// prices the counts with the one accountant.
// The control block layout comes from control-block.ts, the table the JS side reads too.
import {
  B_ADJ0,
  B_ADJ1,
  B_ADJ_SPLIT,
  B_ADJ_STRIDE,
  B_BASE0,
  B_BASE1,
  B_BEAM,
  B_BEAM_CAP,
  B_BEAM_N,
  B_COUNTED,
  B_COUNT_LISTS,
  B_DIM,
  B_DIST,
  B_EF,
  B_ENTRY,
  B_EPOCH,
  B_FILTER,
  B_MATCHED,
  B_NODES,
  BEAM_MAX_EF,
  LINK_LOOKUP_READS,
  B_SEEDED,
  RESEED_MIN_SHARE,
  SEED_AFTER,
  SEED_MIN_SHARE,
  WALK_BOOST,
  WALK_END_OVERFLOW,
  WALK_END_SCARCE,
  WALK_SCARCE,
  B_SCAN_IF_SCARCE,
  B_FRONTIER,
  B_FRONTIER_CAP,
  B_GROUPS,
  B_HIDDEN,
  B_HIDDEN_BYTES,
  B_HITS,
  B_HOPS,
  B_ISSUED,
  B_KIND,
  B_MAX_DEG,
  B_MAX_LEVEL,
  B_MAX_M,
  B_MISS,
  B_MISS_BYTES,
  B_MLP,
  B_OVERFLOW,
  B_POOL_CAP,
  B_POOL_LISTS,
  B_POOL_TABLE,
  B_PREFETCH,
  B_Q0,
  B_Q1,
  B_SCRATCH,
  B_SPLIT,
  B_STRIDE,
  B_UP_COUNT,
  B_UP_IDS,
  B_UP_LINKS,
  B_UP_OFFSETS,
  B_VISITED,
  B_WASTE_BYTES,
  B_REQUEST_CAP,
  B_LINK_LISTS,
  B_LINK_FROM,
  B_LINK_NODES,
  B_LINK_BLOCK,
  B_LINK_LIST,
  B_LINK_ENTRIES,
  B_COVER,
  B_COVER_N,
  B_LINKED,
  B_LINK_MISS,
  B_LINK_HIDDEN,
  B_LINK_WASTE_BYTES,
  CONTROL_LINK_OUTPUTS_FROM,
  CONTROL_LINK_OUTPUTS_TO,
  CONTROL_LC_OUTPUTS_FROM,
  CONTROL_LC_OUTPUTS_TO,
  B_LC_BLOCKS,
  B_LC_STRIDE,
  B_LC_SUB,
  B_LC_LUT,
  B_LC_EST,
  B_LC_LO,
  B_LC_SCALE,
  B_LC_MARGIN,
  B_LC_MISS,
  B_LC_HIDDEN,
  B_LC_SKIPPED,
  CONTROL_OUTPUTS_FROM,
  CONTROL_OUTPUTS_TO,
  DEGREE_MASK,
} from './control-block.generated.as';
import { codeBatch } from './code-kernel.as';
import { listEstimates } from './list-code-kernel.as';
import { ipBatch, keepLoads, l2Batch } from './vector-kernels.as';

// The beam (Beam of index/search/beam.ts over lane memory): at most ef entries sorted by distance,
// a new one placed after any equal ones; an entry's id carries TAKEN once the search took it for
// expansion (node ids stay below 2^31). One sorted array replaces HNSW's candidate min-heap and
// result max-heap: a candidate that falls out of the best ef could never be expanded anyway (the
// strict order stops at the first candidate beyond the ef-th distance), the next candidate is the
// first entry not taken, and the answer leaves already sorted.
const TAKEN: u32 = 0x80000000;
let beamD: usize = 0;
let beamI: usize = 0;
let beamN: i32 = 0;
/** No entry before it is untaken. */
let beamCursor: i32 = 0;

/** The first entry from `from` not taken, or beamN. */
@inline function untakenFrom(from: i32): i32 {
  let k = from;
  while (k < beamN && (load<u32>(beamI + (<usize>k << 2)) & TAKEN) != 0) k++;
  return k;
}

/** Places (d, id) in the beam of width ef (the caller checked it belongs: fewer than ef, or nearer than the last). */
@inline function beamInsert(d: f32, id: u32, ef: i32): void {
  let p = beamN;
  if (beamN < ef) beamN++;
  else p--;
  while (p > 0) {
    const dp = load<f32>(beamD + (<usize>(p - 1) << 2));
    if (dp <= d) break;
    store<f32>(beamD + (<usize>p << 2), dp);
    store<u32>(beamI + (<usize>p << 2), load<u32>(beamI + (<usize>(p - 1) << 2)));
    p--;
  }
  store<f32>(beamD + (<usize>p << 2), d);
  store<u32>(beamI + (<usize>p << 2), id);
  if (p < beamCursor) beamCursor = p;
}

@inline export function addU32(at: usize, v: u32): void {
  store<u32>(at, load<u32>(at) + v);
}

/** `reads` reads of `bytes` in all into a pair of outputs: the count at `at`, the bytes in the word after (control-block.ts keeps each pair so). */
@inline function addReads(at: usize, reads: u32, bytes: u32): void {
  addU32(at, reads);
  addU32(at + 4, bytes);
}

@inline export function distances(b: usize, q: usize, base: usize, ids: usize, n: i32, out: usize): void {
  const kind = load<u32>(b, B_KIND);
  if (kind == 0) codeBatch(q, base, <usize>load<u32>(b, B_STRIDE), ids, n, out);
  else if (kind == 1) l2Batch(q, base, <usize>load<u32>(b, B_STRIDE), ids, n, load<i32>(b, B_DIM), out);
  else ipBatch(q, base, <usize>load<u32>(b, B_STRIDE), ids, n, load<i32>(b, B_DIM), out);
}

/**
 * Distances of the m nodes of the request array (scratch 0) into the distance array (scratch 5), in
 * request order: one kernel call per traversal segment the request touches (Scorer.stage,
 * computeLocal and gather are the twin), counted per segment.
 */
function score(b: usize, m: i32): void {
  const maxDeg = <usize>load<u32>(b, B_MAX_DEG);
  const order = <usize>load<u32>(b, B_SCRATCH);
  const ids0 = order + (maxDeg << 2);
  const ids1 = ids0 + (maxDeg << 2);
  const out0 = ids1 + (maxDeg << 2);
  const out1 = out0 + (maxDeg << 2);
  const dist = out1 + (maxDeg << 2);
  const split = load<u32>(b, B_SPLIT);
  const mlp = load<f64>(b, B_MLP);
  if (load<u32>(b, B_BASE1) == 0) {
    // One traversal segment (no CXL part: codes always): the request is already its id list.
    distances(b, <usize>load<u32>(b, B_Q0), <usize>load<u32>(b, B_BASE0), order, m, dist);
    addU32(b + B_DIST, m);
    store<f64>(b + B_GROUPS, load<f64>(b + B_GROUPS) + Math.ceil(<f64>m / mlp));
    return;
  }
  let m0: i32 = 0;
  let m1: i32 = 0;
  for (let j = 0; j < m; j++) {
    const nb = load<u32>(order + (<usize>j << 2));
    if (nb < split) {
      store<u32>(ids0 + (<usize>m0 << 2), nb);
      m0++;
    } else {
      store<u32>(ids1 + (<usize>m1 << 2), nb - split);
      m1++;
    }
  }
  if (m0 > 0) {
    distances(b, <usize>load<u32>(b, B_Q0), <usize>load<u32>(b, B_BASE0), ids0, m0, out0);
    addU32(b + B_DIST, m0);
    store<f64>(b + B_GROUPS, load<f64>(b + B_GROUPS) + Math.ceil(<f64>m0 / mlp));
  }
  if (m1 > 0) {
    distances(b, <usize>load<u32>(b, B_Q1), <usize>load<u32>(b, B_BASE1), ids1, m1, out1);
    addU32(b + B_DIST + 4, m1);
    store<f64>(b + B_GROUPS + 8, load<f64>(b + B_GROUPS + 8) + Math.ceil(<f64>m1 / mlp));
  }
  let i0: usize = 0;
  let i1: usize = 0;
  for (let j = 0; j < m; j++) {
    let d: f32;
    if (load<u32>(order + (<usize>j << 2)) < split) {
      d = load<f32>(out0 + (i0 << 2));
      i0++;
    } else {
      d = load<f32>(out1 + (i1 << 2));
      i1++;
    }
    store<f32>(dist + (<usize>j << 2), d);
  }
}

/**
 * The pool slot holding node's list, or -1 (ListPool.position is the twin). An entry is read whole
 * (one aligned 8-byte load), so a hit always pairs a node with its own slot.
 */
@inline function poolSlot(table: usize, cap: u32, node: u32): i32 {
  let j = <u32>((<u64>(node * 0x9e3779b1) * <u64>cap) >> 32);
  for (let probes: u32 = 0; probes < cap; probes++) {
    const e = load<u64>(table + (<usize>j << 3));
    const key = <u32>e;
    if (key == 0) return -1;
    if (key == node + 1) return <i32>(e >> 32);
    j = j + 1 == cap ? 0 : j + 1;
  }
  return -1;
}

/** The tier listOf found its list in (0: the DRAM prefix or a pool slot, 1: the CXL home). */
let listTier: usize = 0;

/** Address of node's level-0 list: the DRAM prefix, a pool tenant's slot, or its CXL home (sets listTier). */
@inline function listOf(node: u32, split: u32, adj0: usize, adj1: usize, stride: usize, poolTable: usize, poolCap: u32, poolLists: usize): usize {
  if (node < split) {
    listTier = 0;
    return adj0 + <usize>node * stride;
  }
  if (poolTable != 0) {
    const s = poolSlot(poolTable, poolCap, node);
    if (s >= 0) {
      listTier = 0;
      return poolLists + <usize>s * stride;
    }
  }
  listTier = 1;
  return adj1 + <usize>(node - split) * stride;
}

/**
 * Position of v in the ascending u32 ids at `ids` (count of them), or -1: a node's place in the
 * upper ids (upperIndexOf in upper-layers.ts is the twin), a block in the cover.
 */
@inline function indexIn(ids: usize, count: i32, v: u32): i32 {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const x = load<u32>(ids + (<usize>mid << 2));
    if (x == v) return mid;
    if (x < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * The address of node's list on an upper level (upperBlock in upper-layers.ts is the twin), its read
 * counted as a hop and a DRAM list read: the upper layers always live in DRAM.
 */
@inline function readUpper(b: usize, upIds: usize, upCount: i32, upOffsets: usize, upLinks: usize, maxM: usize, node: u32, level: i32): usize {
  const at = upLinks + ((<usize>load<u32>(upOffsets + (<usize>indexIn(upIds, upCount, node) << 2)) + <usize>(level - 1) * (1 + maxM)) << 2);
  addU32(b + B_HOPS, 1);
  addU32(b + B_MISS, 1);
  addU32(b + B_MISS_BYTES, (load<u32>(at) + 1) << 2);
  return at;
}

/** Bytes of the level-0 list at `list` (its degree word and neighbours). */
@inline function listBytes(list: usize): u32 {
  return ((load<u32>(list) & DEGREE_MASK) + 1) << 2;
}

/** Appends the neighbour at `at` to the request at `order` (m so far) unless visited, marking it; the new m. */
@inline function visit(at: usize, visited: usize, epoch: u8, order: usize, m: usize): usize {
  const nb = load<u32>(at);
  const tag = visited + <usize>nb;
  if (load<u8>(tag) == epoch) return m;
  store<u8>(tag, epoch);
  store<u32>(order + (m << 2), nb);
  return m + 1;
}

/**
 * The unvisited neighbours of the list at `list` (degree deg) to the request at `order`, marking
 * them; how many. Four a turn: V8 checks the stack at every loop turn, which in a body this small
 * was a fifth of the traversal's time.
 */
@inline function requestUnvisited(list: usize, deg: u32, visited: usize, epoch: u8, order: usize): usize {
  let m: usize = 0;
  let j: usize = 1;
  for (; j + 3 <= <usize>deg; j += 4) {
    m = visit(list + (j << 2), visited, epoch, order, m);
    m = visit(list + ((j + 1) << 2), visited, epoch, order, m);
    m = visit(list + ((j + 2) << 2), visited, epoch, order, m);
    m = visit(list + ((j + 3) << 2), visited, epoch, order, m);
  }
  for (; j <= <usize>deg; j++) m = visit(list + (j << 2), visited, epoch, order, m);
  return m;
}

/**
 * Counts a level-0 list read at `list` (served from `tier`; `hit`: foreseen, its latency hidden) and
 * returns its degree. A counted list (sampled query, CXL-range node) is counted where it lives: the
 * slot copy (DRAM) or the home record (a CXL line dirtied).
 */
@inline function readList(b: usize, list: usize, tier: usize, counted: bool, hit: bool): u32 {
  const word = load<u32>(list);
  const deg = word & DEGREE_MASK;
  if (counted && word < 0xffff0000) {
    store<u32>(list, word + 0x10000);
    if (tier == 1) addU32(b + B_COUNTED, 1);
  }
  const bytes = (deg + 1) << 2;
  if (hit) {
    addU32(b + B_HITS, 1);
    addU32(b + B_HIDDEN + (tier << 2), 1);
    addU32(b + B_HIDDEN_BYTES + (tier << 2), bytes);
  } else {
    addU32(b + B_MISS + (tier << 2), 1);
    addU32(b + B_MISS_BYTES + (tier << 2), bytes);
  }
  return deg;
}

/** Loads every line of a record of `stride` bytes (see the beam's foreseeing); returns them folded. */
@inline function touchRecord(list: usize, stride: usize): u32 {
  let sink: u32 = 0;
  for (let off: usize = 0; off < stride; off += 64) sink ^= load<u8>(list + off);
  return sink ^ load<u8>(list + stride - 1);
}

// The node a level-0 loop took one step ahead (CXL-ANNS foreseeing), -1: none; its distance, and
// its list's address and tier (looked up when taken: a pool slot cannot be refilled while a
// traversal runs). The beam and the filtered walk both keep it here.
let foreseen: i64 = -1;
let foreseenD: f32 = 0;
let foreseenList: usize = 0;
let foreseenTier: usize = 0;

/** Takes node f (at distance d) one step ahead: its list is looked up now and fetched while this step scores. */
@inline function foresee(b: usize, f: u32, d: f32, adjSplit: u32, adj0: usize, adj1: usize, adjStride: usize, poolTable: usize, poolCap: u32, poolLists: usize): void {
  foreseen = <i64>f;
  foreseenD = d;
  foreseenList = listOf(f, adjSplit, adj0, adj1, adjStride, poolTable, poolCap, poolLists);
  foreseenTier = listTier;
  addU32(b + B_ISSUED, 1);
}

/** Ends the foreseen node's turn: expanded now where `keep`, else dropped, its list's bytes moved for nothing. */
@inline function takeForeseen(b: usize, keep: bool): bool {
  if (foreseen < 0) return false;
  if (!keep) addU32(b + B_WASTE_BYTES + (foreseenTier << 2), listBytes(foreseenList));
  foreseen = -1;
  return keep;
}

/** The list of node c to read: the foreseen one's when hit, else looked up (listTier set either way). */
@inline function listToRead(hit: bool, c: u32, adjSplit: u32, adj0: usize, adj1: usize, adjStride: usize, poolTable: usize, poolCap: u32, poolLists: usize): usize {
  if (!hit) return listOf(c, adjSplit, adj0, adj1, adjStride, poolTable, poolCap, poolLists);
  listTier = foreseenTier;
  return foreseenList;
}

// The filtered walk's two heaps, both MinHeap of index/search/heaps.ts over lane memory (the same
// pushes and pops with the same comparisons, so that equal distances leave in the same order). The
// frontier holds distances, the nearest on top; the matches, in the beam's arrays, hold them negated:
// negation is exact and flips every comparison, so this is MaxHeap's order, the farthest on top.
let matchD: usize = 0;
let matchI: usize = 0;
let matchN: i32 = 0;
let frontD: usize = 0;
let frontI: usize = 0;
let frontN: i32 = 0;
/** Whether walkEf found the entry scarce in a filter of most points (SEED_MIN_SHARE): the walk is seeded. */
let walkScarce = false;
/** A seeded walk leaves out non-matches nearer than its nearest match (`nearestD`) (Traversal.apply's hole). */
let holeOn = false;
let nearestD: f32 = Infinity;

/** Adds (dist, id) to the heap of n entries at d (distances) and i (ids). */
@inline export function heapPush(d: usize, i: usize, n: i32, dist: f32, id: u32): void {
  let k = n;
  while (k > 0) {
    const p = (k - 1) >> 1;
    const dp = load<f32>(d + (<usize>p << 2));
    if (dp <= dist) break;
    store<f32>(d + (<usize>k << 2), dp);
    store<u32>(i + (<usize>k << 2), load<u32>(i + (<usize>p << 2)));
    k = p;
  }
  store<f32>(d + (<usize>k << 2), dist);
  store<u32>(i + (<usize>k << 2), id);
}

/** Removes the root of the heap at d and i, which holds n entries once it is gone. */
@inline export function heapPop(d: usize, i: usize, n: i32): void {
  if (n == 0) return;
  const ld = load<f32>(d + (<usize>n << 2));
  const li = load<u32>(i + (<usize>n << 2));
  let k = 0;
  for (;;) {
    let c = 2 * k + 1;
    if (c >= n) break;
    if (c + 1 < n && load<f32>(d + (<usize>(c + 1) << 2)) < load<f32>(d + (<usize>c << 2))) c++;
    const dc = load<f32>(d + (<usize>c << 2));
    if (dc >= ld) break;
    store<f32>(d + (<usize>k << 2), dc);
    store<u32>(i + (<usize>k << 2), load<u32>(i + (<usize>c << 2)));
    k = c;
  }
  store<f32>(d + (<usize>k << 2), ld);
  store<u32>(i + (<usize>k << 2), li);
}

@inline function matches(bits: usize, id: u32): bool {
  return ((load<u32>(bits + (<usize>(id >>> 5) << 2)) >>> (id & 31)) & 1) != 0;
}

/**
 * The walk's ef from the matches' share at its entry, start and its level-0 list, or -1 where they
 * are scarce there (by the caller's divisor) and the caller asked to scan instead (index/search/walk-ef.ts's entryScarce and
 * walkEf, with Traversal.startLevel0, are the twin).
 */
function walkEf(b: usize, bits: usize, start: u32, list: usize): i32 {
  walkScarce = false;
  const ef = load<i32>(b, B_EF);
  const deg = load<u32>(list) & DEGREE_MASK;
  let local: f64 = matches(bits, start) ? 1 : 0;
  for (let j: usize = 1; j <= <usize>deg; j++) if (matches(bits, load<u32>(list + (j << 2)))) local += 1;
  const matched = <f64>load<u32>(b, B_MATCHED);
  const nodes = <f64>load<u32>(b, B_NODES);
  const ask = load<u32>(b, B_SCAN_IF_SCARCE);
  if (ask != 0) return local * nodes * <f64>ask < matched * <f64>(deg + 1) ? -1 : ef;
  if (local * nodes * WALK_SCARCE >= matched * <f64>(deg + 1)) return ef;
  walkScarce = matched >= SEED_MIN_SHARE * nodes;
  const wide = <i32>Math.floor((<f64>ef * <f64>WALK_BOOST * matched) / nodes);
  return max(ef, min(BEAM_MAX_EF, wide));
}

/**
 * The filtered walk from the descent's node (Traversal.startLevel0's FILTERED case, expandFiltered,
 * requestUnvisited and apply's FILTERED case are the twin): the nearest frontier node is expanded
 * until it is farther than the ef-th match or none is left; a scored node enters the frontier while
 * the matches are fewer than ef or it beats the ef-th, and the matches when its bit is set. Every
 * list is foreseen as the beam's are (the frontier's nearest fetched a step ahead). Where the entry
 * is scarce in matches and the caller gave covering blocks, it is the links' walk (LINKED: the
 * blocks' entries first, then each node's matching neighbours and its links in the cover; a foreseen
 * node's link lists come with its neighbour list); where it gave none and asked to scan, it stops
 * at once (WALK_END_SCARCE, the descent's node in the beam's first entry); where it did neither and
 * the filter holds most points, the walk is seeded by a walk on level 1 (seedWalk) and steps around
 * the gap from there. Leaves the matches' heap
 * in the beam's arrays (distances negated); a frontier that would outgrow its capacity stops the
 * walk with overflow set (WALK_END).
 */
function filteredWalk(b: usize, start: u32, startDist: f32): void {
  const maxDeg = <usize>load<u32>(b, B_MAX_DEG);
  const order = <usize>load<u32>(b, B_SCRATCH);
  const dist = order + 5 * (maxDeg << 2);
  // Scratch 1 (the per-segment ids, free between requests) holds a node's link offsets.
  const offsets = order + (maxDeg << 2);
  const adjSplit = load<u32>(b, B_ADJ_SPLIT);
  const adj0 = <usize>load<u32>(b, B_ADJ0);
  const adj1 = <usize>load<u32>(b, B_ADJ1);
  const adjStride = <usize>load<u32>(b, B_ADJ_STRIDE);
  const poolTable = <usize>load<u32>(b, B_POOL_TABLE);
  const poolCap = load<u32>(b, B_POOL_CAP);
  const poolLists = <usize>load<u32>(b, B_POOL_LISTS);
  const countLists = poolTable != 0 && load<u32>(b, B_COUNT_LISTS) != 0;
  const visited = <usize>load<u32>(b, B_VISITED);
  let epoch = load<u8>(b, B_EPOCH);
  const bits = <usize>load<u32>(b, B_FILTER);
  const cap = load<i32>(b, B_FRONTIER_CAP);
  let ef = walkEf(b, bits, start, listOf(start, adjSplit, adj0, adj1, adjStride, poolTable, poolCap, poolLists));
  const matched = <f64>load<u32>(b, B_MATCHED);
  const nodes = <f64>load<u32>(b, B_NODES);
  // A plain walk of a filter of most points may still find itself in a gap (Traversal.reseed).
  let reseed = ef >= 0 && !walkScarce && load<u32>(b, B_SCAN_IF_SCARCE) == 0 && load<i32>(b, B_MAX_LEVEL) > 0 && matched >= RESEED_MIN_SHARE * nodes;
  let holeHops = 0;
  const linked = ef < 0 && load<u32>(b, B_COVER_N) > 0;
  if (ef < 0 && !linked) {
    // The descent's node goes back in the beam's first entry: a caller walking the links from it
    // need not descend again.
    const beam = <usize>load<u32>(b, B_BEAM);
    store<f32>(beam, startDist);
    store<u32>(beam + (<usize>load<u32>(b, B_BEAM_CAP) << 2), start);
    store<i32>(b + B_BEAM_N, 0);
    store<u32>(b + B_OVERFLOW, WALK_END_SCARCE);
    return;
  }
  if (linked) {
    // The links' walk keeps the query's ef (Traversal.startLevel0).
    ef = load<i32>(b, B_EF);
    store<u32>(b + B_LINKED, 1);
  }
  matchD = <usize>load<u32>(b, B_BEAM);
  matchI = matchD + (<usize>load<u32>(b, B_BEAM_CAP) << 2);
  frontD = <usize>load<u32>(b, B_FRONTIER);
  frontI = frontD + (<usize>cap << 2);
  startWalk(visited, epoch, bits, start, startDist);
  let overflow: u32 = 0;
  // The descent's node is on level 1: the walk there finds the matches beyond the gap.
  if (!linked && walkScarce && load<i32>(b, B_MAX_LEVEL) > 0) overflow = seedFromLevel1(b, cap, bits, order, dist, visited, epoch);
  if (linked) {
    const m = requestSeeds(b, visited, epoch, order);
    if (m > 0) {
      score(b, <i32>m);
      overflow = applyWalk(m, ef, cap, bits, order, dist);
    }
  }
  const prefetch = load<u32>(b, B_PREFETCH) != 0;
  foreseen = -1;
  let sink: u32 = 0;
  while (overflow == 0) {
    // The node taken one step ahead is expanded first (relaxed order: Traversal.expandFiltered is
    // the twin), unless it is beyond the ef-th match by now; then the frontier's nearest. A dropped
    // node's link lists were fetched for nothing too (Traversal.dropForeseen).
    const f = foreseen;
    const keep = matchN < ef || foreseenD <= -load<f32>(matchD);
    if (linked && f >= 0 && !keep) addU32(b + B_LINK_WASTE_BYTES, linkBytesOf(b, <u32>f, offsets));
    const hit = takeForeseen(b, keep);
    let c: u32 = hit ? <u32>f : 0;
    let cd = foreseenD;
    if (!hit) {
      if (frontN == 0) break;
      c = load<u32>(frontI);
      cd = load<f32>(frontD);
      if (matchN >= ef && cd > -load<f32>(matchD)) break;
      heapPop(frontD, frontI, --frontN);
    }
    if (reseed && cd < nearestD && !matches(bits, c) && ++holeHops >= SEED_AFTER) {
      // Start again, seeded from level 1 as the entry would have been (Traversal.reseed is the twin).
      if (hit) addU32(b + B_WASTE_BYTES + (foreseenTier << 2), listBytes(foreseenList));
      reseed = false;
      epoch = nextEpoch(b, visited);
      startWalk(visited, epoch, bits, start, startDist);
      overflow = seedFromLevel1(b, cap, bits, order, dist, visited, epoch);
      ef = max(ef, min(BEAM_MAX_EF, <i32>Math.floor((<f64>ef * <f64>WALK_BOOST * matched) / nodes)));
      continue;
    }
    addU32(b + B_HOPS, 1);
    const list = listToRead(hit, c, adjSplit, adj0, adj1, adjStride, poolTable, poolCap, poolLists);
    const deg = readList(b, list, listTier, c >= adjSplit && countLists, hit);
    if (prefetch && frontN > 0) {
      // Traversal.foreseeFrontier is the twin: the frontier's nearest is taken now.
      const next = load<u32>(frontI);
      const nextD = load<f32>(frontD);
      heapPop(frontD, frontI, --frontN);
      foresee(b, next, nextD, adjSplit, adj0, adj1, adjStride, poolTable, poolCap, poolLists);
    }
    const m = linked ? requestLinked(b, list, deg, c, hit, bits, visited, epoch, order, offsets) : requestUnvisited(list, deg, visited, epoch, order);
    // As the beam's walk: touch the foreseen record's lines just before the scoring.
    if (foreseen >= 0) sink ^= touchRecord(foreseenList, adjStride);
    if (m == 0) continue;
    score(b, <i32>m);
    overflow = applyWalk(m, ef, cap, bits, order, dist);
  }
  if (linked && foreseen >= 0) addU32(b + B_LINK_WASTE_BYTES, linkBytesOf(b, <u32>foreseen, offsets));
  takeForeseen(b, false);
  keepLoads(sink);
  store<i32>(b + B_BEAM_N, matchN);
  store<u32>(b + B_OVERFLOW, overflow);
}

/**
 * A walk's start from the descent's node (Traversal.startWalk is the twin): visited, in the
 * frontier, and in the matches if it is one; no hole.
 */
function startWalk(visited: usize, epoch: u8, bits: usize, start: u32, startDist: f32): void {
  store<u8>(visited + <usize>start, epoch);
  frontN = 0;
  matchN = 0;
  heapPush(frontD, frontI, frontN++, startDist, start);
  holeOn = false;
  nearestD = Infinity;
  if (matches(bits, start)) {
    heapPush(matchD, matchI, matchN++, -startDist, start);
    nearestD = startDist;
  }
}

/**
 * The seeded walk's level-1 part, then its matches as the level-0 frontier, with the hole
 * (Traversal.startSeed, expandSeed and endSeed are the twin). Returns what seedWalk does.
 */
function seedFromLevel1(b: usize, cap: i32, bits: usize, order: usize, dist: usize, visited: usize, epoch: u8): u32 {
  store<u32>(b + B_SEEDED, 1);
  const overflow = seedWalk(b, load<i32>(b, B_EF), cap, bits, order, dist, visited, epoch);
  frontN = 0;
  for (let j = 0; j < matchN; j++) heapPush(frontD, frontI, frontN++, -load<f32>(matchD + (<usize>j << 2)), load<u32>(matchI + (<usize>j << 2)));
  holeOn = true;
  return overflow;
}

/**
 * A fresh visited epoch in the middle of a query (the caller's next query goes on from it): a wrap
 * clears the tags, as FusedTraversal does between queries.
 */
function nextEpoch(b: usize, visited: usize): u8 {
  let e = <u32>load<u8>(b, B_EPOCH) + 1;
  if (e > 255) {
    memory.fill(visited, 0, <usize>load<u32>(b, B_NODES));
    e = 1;
  }
  store<u8>(b + B_EPOCH, <u8>e);
  return <u8>e;
}

/**
 * A walk's scored request (apply's FILTERED case is the twin): a node enters the frontier while the
 * matches are fewer than ef or it beats the ef-th (in a seeded walk, a non-match only where it is no
 * nearer than the nearest match), and the matches when its bit is set. Returns WALK_END_OVERFLOW
 * where the frontier (cap entries) is full, else 0.
 */
function applyWalk(m: usize, ef: i32, cap: i32, bits: usize, order: usize, dist: usize): u32 {
  for (let jj: usize = 0; jj < m; jj++) {
    const d = load<f32>(dist + (jj << 2));
    if (matchN >= ef && d >= -load<f32>(matchD)) continue;
    const id = load<u32>(order + (jj << 2));
    const match = matches(bits, id);
    if (!match && holeOn && d < nearestD) continue;
    if (frontN >= cap) return WALK_END_OVERFLOW;
    heapPush(frontD, frontI, frontN++, d, id);
    if (match) {
      heapPush(matchD, matchI, matchN++, -d, id);
      if (matchN > ef) heapPop(matchD, matchI, --matchN);
      if (d < nearestD) nearestD = d;
    }
  }
  return 0;
}

/**
 * A seeded walk's level-1 part (Traversal.expandSeed is the twin): from the frontier and matches
 * as the walk starts them, the filtered walk on the upper layers' level-1 lists (always DRAM,
 * nothing foreseen) at the query's ef. Returns what applyWalk does.
 */
function seedWalk(b: usize, ef: i32, cap: i32, bits: usize, order: usize, dist: usize, visited: usize, epoch: u8): u32 {
  const upIds = <usize>load<u32>(b, B_UP_IDS);
  const upCount = load<i32>(b, B_UP_COUNT);
  const upOffsets = <usize>load<u32>(b, B_UP_OFFSETS);
  const upLinks = <usize>load<u32>(b, B_UP_LINKS);
  const maxM = <usize>load<u32>(b, B_MAX_M);
  let overflow: u32 = 0;
  while (overflow == 0) {
    if (frontN == 0) break;
    const c = load<u32>(frontI);
    if (matchN >= ef && load<f32>(frontD) > -load<f32>(matchD)) break;
    heapPop(frontD, frontI, --frontN);
    const at = readUpper(b, upIds, upCount, upOffsets, upLinks, maxM, c, 1);
    const n = load<u32>(at);
    let m: usize = 0;
    for (let j: usize = 1; j <= <usize>n; j++) m = visit(at + (j << 2), visited, epoch, order, m);
    if (m == 0) continue;
    score(b, <i32>m);
    overflow = applyWalk(m, ef, cap, bits, order, dist);
  }
  return overflow;
}


/**
 * Node c's lists in the covering blocks, each: its word offset in linkLists is written to `out`
 * (FilterLinks.listsIn is the twin); how many.
 */
function linksIn(b: usize, c: u32, out: usize): i32 {
  if (c >= load<u32>(b, B_LINK_NODES)) return 0;
  const from = <usize>load<u32>(b, B_LINK_FROM);
  const block = <usize>load<u32>(b, B_LINK_BLOCK);
  const list = <usize>load<u32>(b, B_LINK_LIST);
  const cover = <usize>load<u32>(b, B_COVER);
  const coverN = load<i32>(b, B_COVER_N);
  let n = 0;
  for (let k = <usize>load<u32>(from + (<usize>c << 2)), end = <usize>load<u32>(from + ((<usize>c + 1) << 2)); k < end; k++) {
    if (indexIn(cover, coverN, load<u32>(block + (k << 2))) < 0) continue;
    store<u32>(out + (<usize>n << 2), load<u32>(list + (k << 2)));
    n++;
  }
  return n;
}

/**
 * Bytes of c's lookup in the links (its two bounds, then its memberships: two dependent reads of
 * the CXL tier, FilterLinks.lookupBytes is the twin); 0 for a node the links do not reach.
 */
function lookupBytesOf(b: usize, c: u32): u32 {
  if (c >= load<u32>(b, B_LINK_NODES)) return 0;
  const from = <usize>load<u32>(b, B_LINK_FROM);
  return 8 + ((load<u32>(from + ((<usize>c + 1) << 2)) - load<u32>(from + (<usize>c << 2))) << 3);
}

/** Bytes of c's lookup and its lists in the covering blocks (a foreseen node dropped: fetched for nothing). */
function linkBytesOf(b: usize, c: u32, scratch: usize): u32 {
  const lists = <usize>load<u32>(b, B_LINK_LISTS);
  const n = linksIn(b, c, scratch);
  let bytes: u32 = lookupBytesOf(b, c);
  for (let j = 0; j < n; j++) bytes += (load<u32>(lists + (<usize>load<u32>(scratch + (<usize>j << 2)) << 2)) + 1) << 2;
  return bytes;
}

/** The links' walk's first request (Traversal.requestSeeds): the covering blocks' entries, unvisited, up to requestCap. */
function requestSeeds(b: usize, visited: usize, epoch: u8, order: usize): usize {
  const reqCap = <usize>load<u32>(b, B_REQUEST_CAP);
  const entries = <usize>load<u32>(b, B_LINK_ENTRIES);
  const cover = <usize>load<u32>(b, B_COVER);
  const coverN = load<i32>(b, B_COVER_N);
  let m: usize = 0;
  for (let j = 0; j < coverN && m < reqCap; j++) m = visit(entries + (<usize>load<u32>(cover + (<usize>j << 2)) << 2), visited, epoch, order, m);
  return m;
}

/**
 * The links' expansion of c (Traversal.requestLinked): its list's matching unvisited neighbours,
 * then its links in the covering blocks, matching or not, while the request has room (requestCap);
 * its lookup and each link list read counted, their latency hidden where c was foreseen.
 */
function requestLinked(b: usize, list: usize, deg: u32, c: u32, hit: bool, bits: usize, visited: usize, epoch: u8, order: usize, offsets: usize): usize {
  const reqCap = <usize>load<u32>(b, B_REQUEST_CAP);
  const lists = <usize>load<u32>(b, B_LINK_LISTS);
  let m: usize = 0;
  for (let j: usize = 1; j <= <usize>deg; j++) {
    const at = list + (j << 2);
    if (matches(bits, load<u32>(at))) m = visit(at, visited, epoch, order, m);
  }
  // c's lookup first (two reads: its bounds, then its memberships), hidden where c was foreseen.
  const lookup = lookupBytesOf(b, c);
  if (lookup > 0) addReads(b + (hit ? B_LINK_HIDDEN : B_LINK_MISS), LINK_LOOKUP_READS, lookup);
  const nl = linksIn(b, c, offsets);
  for (let k = 0; k < nl && m < reqCap; k++) {
    const r = lists + (<usize>load<u32>(offsets + (<usize>k << 2)) << 2);
    const ld = load<u32>(r);
    const bytes = (ld + 1) << 2;
    addReads(b + (hit ? B_LINK_HIDDEN : B_LINK_MISS), 1, bytes);
    for (let j: usize = 1; j <= <usize>ld && m < reqCap; j++) m = visit(r + (j << 2), visited, epoch, order, m);
  }
  return m;
}

/**
 * requestUnvisited for a full beam over list codes (Traversal.requestLikely is the twin): node c's
 * block estimates its whole list in one pass, and an unvisited neighbour whose estimate exceeds the
 * bound by more than the margin is left unscored and unvisited. The block comes with the list: its
 * read is hidden where the list was foreseen.
 */
function requestLikely(b: usize, blocks: usize, c: u32, list: usize, deg: u32, visited: usize, epoch: u8, order: usize, bound: f32, hit: bool): usize {
  const sub = load<i32>(b, B_LC_SUB);
  const nBlocks = <i32>((deg + 31) >> 5);
  const est = <usize>load<u32>(b, B_LC_EST);
  listEstimates(<usize>load<u32>(b, B_LC_LUT), blocks + <usize>c * <usize>load<u32>(b, B_LC_STRIDE), sub, nBlocks, est);
  const bytes = <u32>(nBlocks * sub * 16);
  addReads(b + (hit ? B_LC_HIDDEN : B_LC_MISS), 1, bytes);
  const limit: f32 = (bound + load<f32>(b, B_LC_MARGIN) - load<f32>(b, B_LC_LO)) * load<f32>(b, B_LC_SCALE);
  let m: usize = 0;
  let skipped: u32 = 0;
  for (let j: usize = 1; j <= <usize>deg; j++) {
    const nb = load<u32>(list + (j << 2));
    const tag = visited + <usize>nb;
    if (load<u8>(tag) == epoch) continue;
    if (<f32>load<u16>(est + ((j - 1) << 1)) > limit) {
      skipped++;
      continue;
    }
    store<u8>(tag, epoch);
    store<u32>(order + (m << 2), nb);
    m++;
  }
  addU32(b + B_LC_SKIPPED, skipped);
  return m;
}

/** Runs the traversal described by the control block at b; the answer is the beam, sorted, or the filtered walk's matches (see the block). */
export function traverse(b: usize): void {
  for (let o: usize = CONTROL_OUTPUTS_FROM; o < CONTROL_OUTPUTS_TO; o += 4) store<u32>(b + o, 0);
  for (let o: usize = CONTROL_LINK_OUTPUTS_FROM; o < CONTROL_LINK_OUTPUTS_TO; o += 4) store<u32>(b + o, 0);
  for (let o: usize = CONTROL_LC_OUTPUTS_FROM; o < CONTROL_LC_OUTPUTS_TO; o += 4) store<u32>(b + o, 0);
  const maxDeg = <usize>load<u32>(b, B_MAX_DEG);
  const order = <usize>load<u32>(b, B_SCRATCH);
  const dist = order + 5 * (maxDeg << 2);

  // Entry point and greedy descent (Traversal.next/apply, ENTRY and UPPER).
  let cur = load<u32>(b, B_ENTRY);
  store<u32>(order, cur);
  score(b, 1);
  let curDist = load<f32>(dist);
  const upIds = <usize>load<u32>(b, B_UP_IDS);
  const upCount = load<i32>(b, B_UP_COUNT);
  const upOffsets = <usize>load<u32>(b, B_UP_OFFSETS);
  const upLinks = <usize>load<u32>(b, B_UP_LINKS);
  const maxM = <usize>load<u32>(b, B_MAX_M);
  for (let level = load<i32>(b, B_MAX_LEVEL); level > 0; ) {
    const at = readUpper(b, upIds, upCount, upOffsets, upLinks, maxM, cur, level);
    const n = load<u32>(at);
    if (n == 0) {
      level--;
      continue;
    }
    for (let j: usize = 0; j < <usize>n; j++) store<u32>(order + (j << 2), load<u32>(at + ((j + 1) << 2)));
    score(b, <i32>n);
    let changed = false;
    for (let j: usize = 0; j < <usize>n; j++) {
      const d = load<f32>(dist + (j << 2));
      if (d < curDist) {
        curDist = d;
        cur = load<u32>(order + (j << 2));
        changed = true;
      }
    }
    if (!changed) level--;
  }
  if (load<u32>(b, B_FILTER) != 0) {
    filteredWalk(b, cur, curDist);
    return;
  }

  // Level-0 beam (Traversal.startLevel0, expand, foresee and apply's LEVEL0 case).
  const adjSplit = load<u32>(b, B_ADJ_SPLIT);
  const adj0 = <usize>load<u32>(b, B_ADJ0);
  const adj1 = <usize>load<u32>(b, B_ADJ1);
  const adjStride = <usize>load<u32>(b, B_ADJ_STRIDE);
  const ef = load<i32>(b, B_EF);
  const prefetch = load<u32>(b, B_PREFETCH) != 0;
  const visited = <usize>load<u32>(b, B_VISITED);
  const epoch = load<u8>(b, B_EPOCH);
  beamD = <usize>load<u32>(b, B_BEAM);
  beamI = beamD + (<usize>load<u32>(b, B_BEAM_CAP) << 2);
  store<u8>(visited + <usize>cur, epoch);
  beamN = 0;
  beamCursor = 0;
  beamInsert(curDist, cur, ef);
  let lowerBound = curDist;
  const poolTable = <usize>load<u32>(b, B_POOL_TABLE);
  const poolCap = load<u32>(b, B_POOL_CAP);
  const poolLists = <usize>load<u32>(b, B_POOL_LISTS);
  const countLists = poolTable != 0 && load<u32>(b, B_COUNT_LISTS) != 0;
  const lcBlocks = <usize>load<u32>(b, B_LC_BLOCKS);
  const lcStride = <usize>load<u32>(b, B_LC_STRIDE);
  foreseen = -1;
  let sink: u32 = 0;
  for (;;) {
    // The candidate taken one step ahead is expanded first (relaxed order: Traversal.expand is the
    // twin), unless the strict order would never expand it; then the first entry not taken.
    const f = foreseen;
    const hit = takeForeseen(b, foreseenD <= lowerBound);
    let c: u32 = hit ? <u32>f : 0;
    if (!hit) {
      beamCursor = untakenFrom(beamCursor);
      if (beamCursor >= beamN) break;
      c = load<u32>(beamI + (<usize>beamCursor << 2));
      store<u32>(beamI + (<usize>beamCursor << 2), c | TAKEN);
    }
    addU32(b + B_HOPS, 1);
    const list = listToRead(hit, c, adjSplit, adj0, adj1, adjStride, poolTable, poolCap, poolLists);
    const deg = readList(b, list, listTier, c >= adjSplit && countLists, hit);
    const k = prefetch ? untakenFrom(beamCursor) : beamN;
    if (k < beamN) {
      // CXL-ANNS foreseeing (Traversal.foresee is the twin): the next candidate is taken now.
      const next = load<u32>(beamI + (<usize>k << 2));
      store<u32>(beamI + (<usize>k << 2), next | TAKEN);
      foresee(b, next, load<f32>(beamD + (<usize>k << 2)), adjSplit, adj0, adj1, adjStride, poolTable, poolCap, poolLists);
    }
    const m = lcBlocks != 0 && beamN >= ef ? requestLikely(b, lcBlocks, c, list, deg, visited, epoch, order, lowerBound, hit) : requestUnvisited(list, deg, visited, epoch, order);
    if (foreseen >= 0) {
      // Touch every line of the foreseen list's record (a 132-byte record spans three) with loads
      // nothing here waits for. WASM has no prefetch, and a load that misses holds retirement once
      // the reorder buffer fills, so these go out just before the scoring touches its rows: the
      // misses then overlap one another instead of stalling the hop twice. Reading the degree first
      // to touch only the list's own lines made every later instruction wait for the miss.
      sink ^= touchRecord(foreseenList, adjStride);
      // Its list codes' block too (the whole stride: reading the degree first would wait on the list).
      if (lcBlocks != 0) sink ^= touchRecord(lcBlocks + <usize>foreseen * lcStride, lcStride);
    }
    if (m == 0) continue;
    score(b, <i32>m);
    for (let jj: usize = 0; jj < m; jj++) {
      const d = load<f32>(dist + (jj << 2));
      if (beamN < ef || d < lowerBound) {
        beamInsert(d, load<u32>(order + (jj << 2)), ef);
        lowerBound = load<f32>(beamD + (<usize>(beamN - 1) << 2));
      }
    }
  }
  takeForeseen(b, false);
  keepLoads(sink);
  store<u32>(b + B_OVERFLOW, 0);
  // The beam leaves sorted, nearest first: only the TAKEN marks go.
  for (let k = 0; k < beamN; k++) store<u32>(beamI + (<usize>k << 2), load<u32>(beamI + (<usize>k << 2)) & ~TAKEN);
  store<i32>(b + B_BEAM_N, beamN);
}
