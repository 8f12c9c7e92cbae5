// The tiered index in memory. Each kind of node record is a store split between the tiers, so each
// kind can sit where it pays (the plan, planner.ts, decides how much):
// - codes: a compact code of every vector, all in DRAM: the traversal computes on them;
// - neighbour lists: the most visited in DRAM, the rest in CXL;
// - full vectors: in CXL (re-rank only), or in DRAM for the first nodes when the budget allows;
// - labels (external ids): in CXL, read only for the answers.
// Nodes are numbered so that every store's DRAM part is a prefix of the ids. The upper layers are
// small and always in DRAM.
import { StrataError } from '../../common/errors.js';
import { stepsInOneTurn } from '../../common/turns.js';
import { availableParallelism } from 'node:os';
import { adoptRegion, allocateRegion } from '../../tiers/shared-region.js';
import { type Codec, type CodeSpec, createCodec } from '../codes/index.js';
import { type KernelChoice, kernelModule, type Metric } from '../kernels/kernels.js';
import { allocateFused, buildFused, type FusedHandle, NO_LANES, type PoolLayout, planFused, poolBytes, poolEnd, poolLayout } from './fused-region.js';
import { ListPool } from './list-pool.js';
import { NodeStore, type StoreLayout } from './node-store.js';
import { DEFAULT_SLOTS, nodesPerSegment, Segment, type SegmentShape } from './segment.js';
import type { UpperLayers } from './upper-layers.js';
import { ValueRuns } from './value-runs.js';
import { FilterLinks, type LinkBlockEntry, type LinkLookup } from '../filter-links/filter-links.js';
import { type ListCodeBook, listCodeStride } from '../codes/list-codes.js';
import { ListCodeStore } from './list-code-store.js';

export type TierKind = 'dram' | 'cxl';
export const TIER_KINDS: readonly TierKind[] = ['dram', 'cxl'];

export interface TierBinding {
  /** numa: bound to a real node and verified; emulated: cost model only; unbound: plain memory. */
  mode: 'numa' | 'emulated' | 'unbound';
  node: number | null;
  pages: number;
  /** Pages verified (move_pages) to be on `node`; null when not verified. */
  pagesOnNode: number | null;
  pagesElsewhere: number | null;
  note: string;
}

export interface Tier {
  readonly index: number;
  readonly kind: TierKind;
  /** Every segment of every store that lives in this tier. */
  readonly segments: Segment[];
  /** Other ranges of the fused region in this tier, bound and verified with its segments: the filter links' cold part, the list codes. */
  readonly ranges: Uint8Array[];
  binding: TierBinding;
}

export interface IndexMeta {
  dim: number;
  metric: Metric;
  count: number;
  maxM0: number;
  maxM: number;
  entry: number;
  maxLevel: number;
}

/** What lives where: the first `adjacencyInDram` nodes' neighbour lists and `vectorsInDram` vectors are in DRAM. */
export interface LayoutPlan {
  adjacencyInDram: number;
  vectorsInDram: number;
  /**
   * Promotion pool slots (list-pool.ts): DRAM copies of CXL-tier lists, first those of nodes
   * [adjacencyInDram, adjacencyInDram + poolLists), then whichever the live load visits most.
   */
  poolLists: number;
  /** The code every node has in DRAM, or null: the traversal then runs on full vectors. */
  code: CodeSpec | null;
  /** DRAM for value runs (value-runs.ts), reserved in the fused region; absent: none. */
  runBytes?: number;
}

export interface TieredIndexParts {
  meta: IndexMeta;
  plan: LayoutPlan;
  upper: UpperLayers;
  /** The code's trained parameters (null without a code). */
  codeParams: Float32Array | null;
}

export interface AllocateOptions {
  /** Largest segment, bytes (default 1 GiB; tests use small ones to exercise many segments). */
  segmentBytes?: number;
  slots?: number;
  /** At least this many segments for the CXL vectors (one group per expander in near-data mode). */
  cxlSegments?: number;
  /** Distance kernels: WASM SIMD (default) or their plain-JS twins (benchmarks attribute the kernels' share). */
  kernels?: KernelChoice;
  /**
   * Searcher lanes of the fused traversal region (fused-region.ts; default DEFAULT_FUSED_LANES).
   * 0 keeps every store in regions of its own, and every search on the JS beam.
   */
  fusedLanes?: number;
  /** Bytes of the filter links to place in the fused region (FilterLinks.regionBytes), so that the WASM traversal walks them. */
  linkBytes?: { dram: number; cold: number };
  /** Room for list codes (list-code-store.ts): their subspaces and blocks' bytes. */
  listCodeRoom?: { subspaces: number; bytes: number };
}

/** Lanes by default: one per thread that searches on a small host, and the engine's main thread. */
export const DEFAULT_FUSED_LANES = Math.min(16, availableParallelism() + 2);

export const DEFAULT_SEGMENT_BYTES = 1 << 30;
export const STORE_KINDS = ['adjacency', 'vectors', 'codes', 'labels'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];
/** What tierBytes counts: the stores, and the upper layers, promotion pool, value runs, filter links and list codes. */
export type TierPartKind = StoreKind | 'upper' | 'pool' | 'runs' | 'links' | 'listCodes';

interface StoreHandle {
  shape: SegmentShape;
  layout: StoreLayout;
  /** base: the segment's offset in a region it shares (the fused region), else null. */
  segments: Array<{ tier: number; start: number; count: number; memory: WebAssembly.Memory; base: number | null }>;
}

/** Everything a worker thread needs to search the same index without copying it. */
export interface SharedIndexHandle {
  meta: IndexMeta;
  plan: LayoutPlan;
  upper: UpperLayers;
  codeParams: Float32Array | null;
  slotLocks: Int32Array;
  stores: Record<string, StoreHandle | null>;
  fused: FusedHandle | null;
  pool: PoolHandle | null;
  bindings: TierBinding[];
  links: LinksHandle | null;
  listCodes: ListCodesHandle | null;
}

/** The list codes (list-code-store.ts) over shared memory. */
interface ListCodesHandle {
  book: ListCodeBook;
  stride: number;
  blocks: Uint8Array;
  margin: number;
}

/** The filter links (index/filter-links/filter-links.ts) over shared memory. */
interface LinksHandle {
  degree: number;
  payloadM: number;
  blocks: readonly LinkBlockEntry[];
  members: Uint32Array | null;
  lists: Uint32Array;
  lookup: LinkLookup;
}

/** The promotion pool's memory (the fused region's, or its own without one) and layout. */
export interface PoolHandle {
  memory: WebAssembly.Memory;
  layout: PoolLayout;
}

/** A code store's DRAM: its rows and one copy of the head (every segment holds one; the planner charges one). */
function codeStoreBytes(codes: NodeStore): [number, number] {
  const [dram, cxl] = codes.recordBytes();
  return [dram + (codes.segments[0]?.shape.headBytes ?? 0), cxl];
}

function toShared<T extends Uint8Array | Int32Array | Uint32Array | Float32Array>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.constructor as new (b: SharedArrayBuffer) => T;
  const out = new Ctor(new SharedArrayBuffer(a.byteLength));
  (out as unknown as { set(x: T): void }).set(a);
  return out;
}

function unbound(): TierBinding {
  return { mode: 'unbound', node: null, pages: 0, pagesOnNode: null, pagesElsewhere: null, note: 'not bound' };
}

export class TieredIndex {
  readonly meta: IndexMeta;
  readonly plan: LayoutPlan;
  upper: UpperLayers;
  codeParams: Float32Array | null;
  readonly adjacency: NodeStore;
  readonly vectors: NodeStore;
  readonly codes: NodeStore | null;
  readonly labelStore: NodeStore;
  /** This thread's instance of the code (queries are prepared with it). */
  readonly codec: Codec | null;
  readonly tiers: Tier[];
  readonly batchMax: number;
  /** Slot ownership, in shared memory so that searchers on any thread can claim slots. */
  readonly slotLocks: Int32Array;
  /** The fused traversal region (traversal records + neighbour lists + lanes), or null. */
  readonly fused: FusedHandle | null;
  /** The promotion pool (list-pool.ts), or null when the plan has none. */
  readonly pool: ListPool | null;
  private readonly poolHandle: PoolHandle | null;
  private labelView: Float64Array | null = null;
  private runs: ValueRuns | null | undefined;
  private linksValue: FilterLinks | null = null;
  private listCodesValue: ListCodeStore | null = null;
  /** Room for list codes kept at allocation (the fused region's area, or a memory of their own), and the subspaces the lanes' tables fit; null: none. */
  private listCodeRoom: { blocks: Uint8Array; subspaces: number } | null = null;

  private constructor(
    parts: TieredIndexParts,
    stores: Record<StoreKind, NodeStore | null>,
    codec: Codec | null,
    slotLocks: Int32Array,
    fused: FusedHandle | null,
    pool: PoolHandle | null,
    bindings?: TierBinding[],
  ) {
    this.fused = fused;
    this.poolHandle = pool;
    this.pool = pool ? new ListPool(pool.memory, pool.layout, stores.adjacency!, fused?.lanes ?? NO_LANES) : null;
    this.meta = parts.meta;
    this.plan = parts.plan;
    this.upper = parts.upper;
    this.codeParams = parts.codeParams;
    this.adjacency = stores.adjacency!;
    this.vectors = stores.vectors!;
    this.codes = stores.codes;
    this.labelStore = stores.labels!;
    this.codec = codec;
    this.batchMax = this.vectors.shape.batchMax;
    this.slotLocks = slotLocks;
    const all = [this.adjacency, this.vectors, this.codes, this.labelStore].filter((s): s is NodeStore => s !== null);
    this.tiers = TIER_KINDS.map((kind, index) => ({
      index,
      kind,
      segments: all.flatMap((s) => s.segments.filter((g) => g.tier === index)),
      ranges:
        index === 1 && fused !== null
          ? [
              ...(fused.links.coldBytes > 0 ? [new Uint8Array(fused.memory.buffer, fused.links.coldAt, fused.links.coldBytes)] : []),
              ...(fused.listCodes.bytes > 0 ? [new Uint8Array(fused.memory.buffer, fused.listCodes.at, fused.listCodes.bytes)] : []),
            ]
          : [],
      binding: bindings?.[index] ?? unbound(),
    }));
  }

  /** The base's list codes (list-code-store.ts), or null: it was laid out without them. */
  get listCodes(): ListCodeStore | null {
    return this.listCodesValue;
  }

  /**
   * Where list codes of `bytes` go: the room allocation kept for them (in the fused region, so
   * that the WASM traversal reads them), or null when it kept less.
   */
  listCodeArea(bytes: number): Uint8Array | null {
    const r = this.listCodeRoom;
    return r !== null && r.blocks.byteLength >= bytes ? r.blocks.subarray(0, bytes) : null;
  }

  /**
   * Gives the base its list codes, laid out in listCodeArea: the blocks of every node, of the
   * subspaces the room was kept for (the lanes' tables are sized for them). Workers see the store
   * share() hands them.
   */
  attachListCodes(store: ListCodeStore): void {
    const r = this.listCodeRoom;
    const fits =
      r !== null &&
      store.blocks.buffer === r.blocks.buffer &&
      store.blocks.byteOffset === r.blocks.byteOffset &&
      store.subspaces === r.subspaces &&
      store.stride === listCodeStride(store.subspaces, this.meta.maxM0) &&
      store.blocks.byteLength === this.meta.count * store.stride &&
      store.blocks.byteLength <= r.blocks.byteLength;
    if (!fits) throw new StrataError('STRATA_INVALID_ARGUMENT', 'list codes must be laid out in the room the index kept for them', { field: 'listCodes' });
    this.listCodesValue = store;
  }

  /** The base's filter links (index/filter-links/), or null: it was built without them. */
  get links(): FilterLinks | null {
    return this.linksValue;
  }

  /**
   * Gives the base its filter links (the build's, or its directory's), before it is shared: copied
   * into the fused region where it kept them room, so that the WASM traversal walks them too.
   */
  attachLinks(links: FilterLinks | null): void {
    stepsInOneTurn(this.attachLinkSteps(links));
  }

  /** attachLinks, yielding between the copy's steps (FilterLinks.placeInSteps). */
  *attachLinkSteps(links: FilterLinks | null): Generator<void, void, void> {
    const f = this.fused;
    const need = links?.regionBytes();
    this.linksValue =
      links !== null && f !== null && need !== undefined && f.links.bytes >= need.dram && f.links.coldBytes >= need.cold
        ? yield* links.placeInSteps(f.memory.buffer, f.links.at, f.links.coldAt)
        : links;
  }

  /**
   * The value runs of this base (value-runs.ts), placed by the thread that resolves filters; null
   * without a fused region with room for them, or when the scan's records are not one DRAM segment.
   */
  get valueRuns(): ValueRuns | null {
    if (this.runs !== undefined) return this.runs;
    const f = this.fused;
    const trav = this.codes ?? this.vectors;
    const dram = trav.segments.length === 1 && trav.segments[0]!.tier === 0 ? trav.segments[0]! : null;
    this.runs =
      f !== null && f.runs.bytes > 0 && dram !== null && dram.region.memory === f.memory
        ? new ValueRuns(new Uint8Array(f.memory.buffer), f.runs.at, f.runs.bytes, dram.layout.recordOffset, trav.shape.stride)
        : null;
    return this.runs;
  }

  static shapes(parts: TieredIndexParts, codec: Codec | null, slots: number): Record<StoreKind, SegmentShape | null> {
    const m = parts.meta;
    const batchMax = Math.max(64, m.maxM0, m.maxM);
    const base = { headBytes: 0, batchMax, slots };
    return {
      adjacency: { ...base, kind: 'adjacency', stride: 4 * (1 + m.maxM0), queryBytes: 0 },
      vectors: { ...base, kind: 'vectors', stride: 4 * m.dim, queryBytes: 4 * m.dim },
      codes: codec ? { ...base, kind: 'codes', stride: codec.spec.stride, queryBytes: codec.queryBytes, headBytes: codec.headBytes } : null,
      labels: { ...base, kind: 'labels', stride: 8, queryBytes: 0 },
    };
  }

  /** Allocates empty stores for `parts`; callers fill them (layout) or read them from a file (load). */
  static allocate(partsIn: TieredIndexParts, opts: AllocateOptions = {}): TieredIndex {
    let parts = partsIn;
    const m = parts.meta;
    const p = parts.plan;
    if (p.adjacencyInDram < 0 || p.adjacencyInDram > m.count || p.vectorsInDram < 0 || p.vectorsInDram > m.count) {
      throw new StrataError('STRATA_INVALID_ARGUMENT', `layout plan out of range for ${m.count} nodes`, { field: 'plan' });
    }
    const codec = p.code && parts.codeParams ? createCodec(p.code, parts.codeParams) : null;
    const shapes = TieredIndex.shapes(parts, codec, opts.slots ?? DEFAULT_SLOTS);
    const segBytes = opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    const layoutOf = (shape: SegmentShape, split: number, cxlSegments = 1): StoreLayout => {
      const per = nodesPerSegment(shape, segBytes);
      const cxl = m.count - split;
      const perCxl = cxlSegments > 1 ? Math.min(per, Math.max(1, Math.ceil(cxl / cxlSegments))) : per;
      return { split, perDram: per, perCxl };
    };
    const layouts: Record<StoreKind, StoreLayout> = {
      adjacency: layoutOf(shapes.adjacency!, p.adjacencyInDram),
      vectors: layoutOf(shapes.vectors!, p.vectorsInDram, opts.cxlSegments ?? 1),
      codes: layoutOf(shapes.codes ?? shapes.vectors!, m.count),
      labels: layoutOf(shapes.labels!, 0),
    };
    // The traversal's records and the neighbour lists share one memory when they can (fused-region.ts).
    const travKind: StoreKind = shapes.codes ? 'codes' : 'vectors';
    // In the fused region a store has one segment per tier whatever its size (the region's 4 GiB is
    // the limit), unless the caller asked for a segment size (tests exercising many segments) or for
    // several CXL vector segments (one per expander group in near-data mode).
    const keep = (name: StoreKind): boolean => opts.segmentBytes !== undefined || (name === 'vectors' && (opts.cxlSegments ?? 1) > 1);
    const whole = (name: StoreKind, l: StoreLayout): StoreLayout =>
      keep(name) ? l : { split: l.split, perDram: Math.max(1, m.count), perCxl: Math.max(1, m.count) };
    const fusedStores = (['adjacency', travKind] as const).map((name) => ({ name, shape: shapes[name]!, layout: whole(name, layouts[name]) }));
    const lanes = opts.fusedLanes ?? DEFAULT_FUSED_LANES;
    const adjSplit = layouts.adjacency.split;
    const poolSlots = Math.min(p.poolLists, m.count - adjSplit);
    const poolWant = poolSlots > 0 ? { slots: poolSlots, adjStride: shapes.adjacency!.stride, split: adjSplit } : null;
    const placed =
      opts.kernels !== 'js' && kernelModule() !== null
        ? allocateFused((base) =>
            planFused(fusedStores, m.count, shapes.adjacency!.batchMax, lanes, parts.upper, poolWant, base, p.runBytes ?? 0, opts.linkBytes, opts.listCodeRoom),
          )
        : null;
    const fusedPlan = placed?.plan ?? null;
    const built = placed ? buildFused(placed.plan, placed.region, fusedStores, m.count, parts.upper) : null;
    if (built) for (const s of fusedStores) layouts[s.name] = s.layout;
    // The upper layers now live in the region (the JS steps read the same arrays there).
    if (built) parts = { ...parts, upper: built.upper };
    const make = (kind: StoreKind): NodeStore | null => {
      const shape = shapes[kind];
      if (!shape) return null;
      return new NodeStore(shape, m.count, layouts[kind], built?.segments.get(kind), opts.kernels);
    };
    const stores: Record<StoreKind, NodeStore | null> = {
      adjacency: make('adjacency'),
      vectors: make('vectors'),
      codes: make('codes'),
      labels: make('labels'),
    };
    const fused: FusedHandle | null =
      built && fusedPlan
        ? {
            memory: built.region.memory,
            lanes: fusedPlan.lanes,
            laneLocks: new Int32Array(new SharedArrayBuffer(4 * lanes)),
            pool: fusedPlan.pool,
            runs: fusedPlan.runs,
            links: fusedPlan.links,
            listCodes: fusedPlan.listCodes,
          }
        : null;
    // Without a fused region the pool has a memory of its own: the JS steps still serve (and count)
    // its lists as DRAM, so both drivers price a search alike.
    let pool: PoolHandle | null = null;
    if (fused?.pool) pool = { memory: fused.memory, layout: fused.pool };
    else if (poolWant) {
      const layout = poolLayout(0, poolWant.slots, poolWant.adjStride, poolWant.split);
      pool = { memory: allocateRegion(poolEnd(layout)).memory, layout };
    }
    // The code's head (what the kernel reads beside the rows) is derived from its parameters, not
    // stored: every code segment gets it here, before any row is read or written.
    if (codec && stores.codes) for (const seg of stores.codes.segments) codec.writeHead(seg.headBytes());
    const index = new TieredIndex(parts, stores, codec, new Int32Array(new SharedArrayBuffer(4 * (opts.slots ?? DEFAULT_SLOTS))), fused, pool);
    // List codes live in the fused region where there is one (the WASM beam reads them there);
    // without one, in a memory of their own for the JS steps; a region without room takes none.
    const lc = opts.listCodeRoom;
    if (lc !== undefined && lc.bytes > 0) {
      if (fused === null) index.listCodeRoom = { blocks: new Uint8Array(new SharedArrayBuffer(lc.bytes)), subspaces: lc.subspaces };
      else if (fused.listCodes.bytes >= lc.bytes)
        index.listCodeRoom = { blocks: new Uint8Array(fused.memory.buffer, fused.listCodes.at, lc.bytes), subspaces: lc.subspaces };
    }
    return index;
  }

  /** Moves the small DRAM arrays to shared memory (once) and describes the index for workers. */
  share(): SharedIndexHandle {
    this.upper = {
      ids: toShared(this.upper.ids),
      levels: toShared(this.upper.levels),
      offsets: toShared(this.upper.offsets),
      links: toShared(this.upper.links),
    };
    if (this.codeParams) this.codeParams = toShared(this.codeParams);
    const handle = (s: NodeStore | null): StoreHandle | null =>
      s && {
        shape: s.shape,
        layout: s.layout(),
        segments: s.segments.map((g) => ({
          tier: g.tier,
          start: g.start,
          count: g.count,
          memory: g.region.memory,
          base: g.sharesRegion ? g.base : null,
        })),
      };
    return {
      meta: this.meta,
      plan: this.plan,
      upper: this.upper,
      codeParams: this.codeParams,
      slotLocks: this.slotLocks,
      stores: { adjacency: handle(this.adjacency), vectors: handle(this.vectors), codes: handle(this.codes), labels: handle(this.labelStore) },
      fused: this.fused,
      pool: this.poolHandle,
      bindings: this.tiers.map((t) => t.binding),
      links: this.shareLinks(),
      listCodes: this.shareListCodes(),
    };
  }

  private shareListCodes(): ListCodesHandle | null {
    const l = this.listCodesValue;
    if (l === null) return null;
    const book = { dim: l.book.dim, subspaces: l.book.subspaces, centroids: toShared(l.book.centroids) };
    this.listCodesValue = new ListCodeStore(book, l.stride, l.blocks, l.margin);
    return { book, stride: l.stride, blocks: l.blocks, margin: l.margin };
  }

  private linksBytes(): [number, number] {
    const b = this.linksValue?.bytes();
    return b ? [b.dram, b.cxl] : [0, 0];
  }

  private shareLinks(): LinksHandle | null {
    const l = this.linksValue;
    if (l === null) return null;
    const k = l.lookup;
    const lookup = { nodeFrom: toShared(k.nodeFrom), memberBlock: toShared(k.memberBlock), memberList: toShared(k.memberList), entries: toShared(k.entries) };
    const members = l.heldMembers === null ? null : toShared(l.heldMembers);
    const h = { degree: l.degree, payloadM: l.payloadM, blocks: l.blocks, members, lists: toShared(l.lists), lookup };
    this.linksValue = new FilterLinks(h.degree, h.payloadM, h.blocks, h.members, h.lists, lookup);
    return h;
  }

  /** The same index, in another thread, over the memory of a handle from share(). */
  static adopt(h: SharedIndexHandle): TieredIndex {
    const store = (sh: StoreHandle | null | undefined): NodeStore | null =>
      sh
        ? new NodeStore(
            sh.shape,
            h.meta.count,
            sh.layout,
            sh.segments.map((g) => new Segment(g.tier, g.start, g.count, sh.shape, adoptRegion(g.memory), 'wasm', g.base)),
          )
        : null;
    const codec = h.plan.code && h.codeParams ? createCodec(h.plan.code, h.codeParams) : null;
    const stores: Record<StoreKind, NodeStore | null> = {
      adjacency: store(h.stores['adjacency']),
      vectors: store(h.stores['vectors']),
      codes: store(h.stores['codes']),
      labels: store(h.stores['labels']),
    };
    const index = new TieredIndex(
      { meta: h.meta, plan: h.plan, upper: h.upper, codeParams: h.codeParams },
      stores,
      codec,
      h.slotLocks,
      h.fused,
      h.pool,
      h.bindings,
    );
    const l = h.links;
    // The arrays are the sharing thread's, in the fused region where it placed them: used as they are.
    if (l !== null) index.linksValue = new FilterLinks(l.degree, l.payloadM, l.blocks, l.members, l.lists, l.lookup);
    const c = h.listCodes;
    if (c !== null) index.listCodesValue = new ListCodeStore(c.book, c.stride, c.blocks, c.margin);
    return index;
  }

  /** External labels by node (a view of the label store when it is one segment). */
  get labels(): Float64Array {
    if (this.labelView === null) {
      const segs = this.labelStore.segments;
      if (segs.length === 1) {
        const s = segs[0]!;
        this.labelView = new Float64Array(s.region.buffer, s.layout.recordOffset, s.count);
      } else {
        this.labelView = new Float64Array(this.meta.count);
        for (const s of segs) this.labelView.set(new Float64Array(s.region.buffer, s.layout.recordOffset, s.count), s.start);
      }
    }
    return this.labelView;
  }

  /** Node's level-0 neighbour list: count at seg.u32[at], ids after it. */
  neighbourBlock(node: number): { seg: Segment; at: number } {
    const seg = this.adjacency.segmentOf(node);
    return { seg, at: seg.recordBase + (node - seg.start) * (this.adjacency.shape.stride >>> 2) };
  }

  vectorOf(node: number): Float32Array {
    const seg = this.vectors.segmentOf(node);
    const at = seg.recordBase + (node - seg.start) * this.meta.dim;
    return seg.f32.subarray(at, at + this.meta.dim);
  }

  /** Claims a free scratch slot (in every segment at once); throws when all are taken. */
  acquireSlot(): number {
    for (let i = 0; i < this.slotLocks.length; i++) {
      if (Atomics.compareExchange(this.slotLocks, i, 0, 1) === 0) return i;
    }
    throw new StrataError('STRATA_INVALID_ARGUMENT', `all ${this.slotLocks.length} searcher slots are in use`, { slots: this.slotLocks.length });
  }

  releaseSlot(slot: number): void {
    Atomics.store(this.slotLocks, slot, 0);
  }

  /** Claims a free lane of the fused region; -1 when there is none (the searcher then runs the JS beam). */
  acquireLane(): number {
    const locks = this.fused?.laneLocks;
    if (!locks) return -1;
    for (let i = 0; i < locks.length; i++) {
      if (Atomics.compareExchange(locks, i, 0, 1) === 0) return i;
    }
    return -1;
  }

  releaseLane(lane: number): void {
    if (lane >= 0 && this.fused) Atomics.store(this.fused.laneLocks, lane, 0);
  }

  /** Neighbour-list tier of node as a search pays it: 0 for the DRAM prefix and the pool's tenants. */
  listTier(node: number): number {
    if (node < this.adjacency.split) return 0;
    return this.pool?.has(node) ? 0 : 1;
  }

  /** Record bytes per tier and per kind (upper layers, the promotion pool and value runs counted in DRAM). */
  tierBytes(): { dram: number; cxl: number; byKind: Record<TierPartKind, [number, number]> } {
    const upper = this.upper.ids.byteLength + this.upper.levels.byteLength + this.upper.offsets.byteLength + this.upper.links.byteLength;
    const pl = this.poolHandle?.layout;
    const byKind = {
      pool: [pl ? poolBytes(pl) : 0, 0] as [number, number],
      adjacency: this.adjacency.recordBytes(),
      vectors: this.vectors.recordBytes(),
      // The rows, and the head the planner charges with them (rq's centroids; one copy, as planned).
      codes: this.codes ? codeStoreBytes(this.codes) : ([0, 0] as [number, number]),
      labels: this.labelStore.recordBytes(),
      upper: [upper, 0] as [number, number],
      // The room the plan kept for them in the fused region, as the planner charged it.
      runs: [this.plan.runBytes ?? 0, 0] as [number, number],
      // The blocks' entries in DRAM (a linked walk's seeds); the lists and the lookup cold, read as CXL.
      links: this.linksBytes(),
      // Cold, read with their lists from the CXL tier; the query's table is lane scratch.
      listCodes: [0, this.listCodesValue?.blocks.byteLength ?? 0] as [number, number],
    };
    let dram = 0;
    let cxl = 0;
    for (const [d, c] of Object.values(byKind)) {
      dram += d;
      cxl += c;
    }
    return { dram, cxl, byKind };
  }

  /** Resident bytes (whole regions, scratch included) per tier. */
  residentBytes(): number[] {
    const lanes = this.fused ? this.fused.lanes.lanes * this.fused.lanes.laneBytes : 0;
    const { upper, pool, links, listCodes } = this.tierBytes().byKind;
    const held = this.linksValue?.heldBytes ?? 0;
    return this.tiers.map(
      (t) => t.segments.reduce((a, s) => a + s.spanBytes, 0) + (t.index === 0 ? upper[0] + pool[0] + lanes + held : 0) + links[t.index]! + listCodes[t.index]!,
    );
  }
}
