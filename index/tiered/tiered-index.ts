// The tiered index in memory: graph metadata and upper layers (always DRAM), and the level-0 nodes
// split into tiers, each a list of segments. Nodes are numbered so that each tier is a contiguous
// id range: tier 0 (DRAM) is [0, dramCount), tier 1 (CXL) is [dramCount, count).
import { StrataError } from '../../common/errors.js';
import type { Metric } from '../kernels/kernels.js';
import { adoptRegion } from '../../tiers/shared-region.js';
import { DEFAULT_SLOTS, nodesPerSegment, Segment, type SegmentShape } from './segment.js';

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
  readonly start: number;
  readonly end: number;
  readonly segments: Segment[];
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
  dramCount: number;
}

export interface TieredIndexParts {
  meta: IndexMeta;
  levels: Uint8Array;
  upperOffset: Int32Array;
  upperLinks: Uint32Array;
  labels: Float64Array;
}

export interface AllocateOptions {
  /** Largest segment, bytes (default 1 GiB; tests use small ones to exercise many segments). */
  segmentBytes?: number;
  slots?: number;
  /** At least this many segments for the CXL tier (one group per expander in near-data mode). */
  cxlSegments?: number;
}

export const DEFAULT_SEGMENT_BYTES = 1 << 30;

/**
 * Everything a worker thread needs to search the same index without copying it: the segments'
 * shared memories and the small DRAM-resident arrays, all backed by shared memory.
 */
export interface SharedIndexHandle {
  meta: IndexMeta;
  shape: SegmentShape;
  levels: Uint8Array;
  upperOffset: Int32Array;
  upperLinks: Uint32Array;
  labels: Float64Array;
  slotLocks: Int32Array;
  tiers: Array<{
    index: number;
    kind: TierKind;
    start: number;
    end: number;
    binding: TierBinding;
    segments: Array<{ start: number; count: number; memory: WebAssembly.Memory }>;
  }>;
}

function toShared<T extends Uint8Array | Int32Array | Uint32Array | Float64Array>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.constructor as new (b: SharedArrayBuffer) => T;
  const out = new Ctor(new SharedArrayBuffer(a.byteLength));
  (out as unknown as { set(x: T): void }).set(a);
  return out;
}

export class TieredIndex {
  readonly meta: IndexMeta;
  readonly levels: Uint8Array;
  readonly upperOffset: Int32Array;
  readonly upperLinks: Uint32Array;
  readonly labels: Float64Array;
  readonly tiers: Tier[];
  /** All segments by ascending start id. */
  readonly segments: Segment[];
  /** Segment number of each node. */
  readonly segOf: Uint16Array;
  readonly shape: SegmentShape;
  /** Slot ownership, in shared memory so that searchers on any thread can claim slots. */
  readonly slotLocks: Int32Array;

  private constructor(parts: TieredIndexParts, tiers: Tier[], shape: SegmentShape, slotLocks: Int32Array) {
    this.meta = parts.meta;
    this.levels = parts.levels;
    this.upperOffset = parts.upperOffset;
    this.upperLinks = parts.upperLinks;
    this.labels = parts.labels;
    this.tiers = tiers;
    this.shape = shape;
    this.segments = tiers.flatMap((t) => t.segments);
    if (this.segments.length > 0xffff) throw new StrataError('STRATA_INVALID_ARGUMENT', 'too many segments (max 65535): raise the segment size', {});
    this.segOf = new Uint16Array(parts.meta.count);
    this.segments.forEach((s, i) => this.segOf.fill(i, s.start, s.start + s.count));
    this.slotLocks = slotLocks;
  }

  /** Allocates empty segments for `parts.meta`; callers fill adjacency and vectors. */
  static allocate(parts: TieredIndexParts, opts: AllocateOptions = {}): TieredIndex {
    const m = parts.meta;
    const shape: SegmentShape = {
      dim: m.dim,
      adjStride: 1 + m.maxM0,
      slots: opts.slots ?? DEFAULT_SLOTS,
      batchMax: Math.max(64, m.maxM0, m.maxM),
    };
    const perSeg = nodesPerSegment(shape, opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES);
    const bounds: Array<[number, number]> = [
      [0, m.dramCount],
      [m.dramCount, m.count],
    ];
    const tiers: Tier[] = bounds.map(([start, end], index) => {
      const segments: Segment[] = [];
      const per = index === 1 && opts.cxlSegments ? Math.min(perSeg, Math.max(1, Math.ceil((end - start) / opts.cxlSegments))) : perSeg;
      for (let s = start; s < end; s += per) segments.push(new Segment(index, s, Math.min(per, end - s), shape, m.metric));
      return {
        index,
        kind: TIER_KINDS[index]!,
        start,
        end,
        segments,
        binding: { mode: 'unbound', node: null, pages: 0, pagesOnNode: null, pagesElsewhere: null, note: 'not bound' },
      };
    });
    const locks = new Int32Array(new SharedArrayBuffer(4 * shape.slots));
    return new TieredIndex(parts, tiers, shape, locks);
  }

  /** Moves the DRAM-resident arrays to shared memory (once) and describes the index for workers. */
  share(): SharedIndexHandle {
    const self = this as unknown as { levels: Uint8Array; upperOffset: Int32Array; upperLinks: Uint32Array; labels: Float64Array };
    self.levels = toShared(this.levels);
    self.upperOffset = toShared(this.upperOffset);
    self.upperLinks = toShared(this.upperLinks);
    self.labels = toShared(this.labels);
    return {
      meta: this.meta,
      shape: this.shape,
      levels: this.levels,
      upperOffset: this.upperOffset,
      upperLinks: this.upperLinks,
      labels: this.labels,
      slotLocks: this.slotLocks,
      tiers: this.tiers.map((t) => ({
        index: t.index,
        kind: t.kind,
        start: t.start,
        end: t.end,
        binding: t.binding,
        segments: t.segments.map((g) => ({ start: g.start, count: g.count, memory: g.region.memory })),
      })),
    };
  }

  /** The same index, in another thread, over the memory of a handle from share(). */
  static adopt(h: SharedIndexHandle): TieredIndex {
    const tiers: Tier[] = h.tiers.map((t) => ({
      index: t.index,
      kind: t.kind,
      start: t.start,
      end: t.end,
      binding: t.binding,
      segments: t.segments.map((g) => new Segment(t.index, g.start, g.count, h.shape, h.meta.metric, adoptRegion(g.memory))),
    }));
    return new TieredIndex(
      { meta: h.meta, levels: h.levels, upperOffset: h.upperOffset, upperLinks: h.upperLinks, labels: h.labels },
      tiers,
      h.shape,
      h.slotLocks,
    );
  }

  tierOf(node: number): number {
    return node < this.meta.dramCount ? 0 : 1;
  }

  segmentOf(node: number): Segment {
    return this.segments[this.segOf[node]!]!;
  }

  /** Neighbour count and u32 offset (in segmentOf(node).u32) of node's level-0 list. */
  neighbourBlock(node: number): { seg: Segment; at: number } {
    const seg = this.segmentOf(node);
    return { seg, at: seg.adjBase + (node - seg.start) * this.shape.adjStride };
  }

  vectorOf(node: number): Float32Array {
    const seg = this.segmentOf(node);
    const at = (seg.layout.vecOffset >>> 2) + (node - seg.start) * this.meta.dim;
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

  /** Bytes per tier: node records (+ upper layers, labels and levels, which live in DRAM). */
  tierBytes(): { dram: number; cxl: number; dramGraph: number } {
    const perNode = (this.shape.adjStride + this.meta.dim) * 4;
    const dramGraph = this.upperLinks.byteLength + this.upperOffset.byteLength + this.levels.byteLength + this.labels.byteLength;
    return {
      dram: this.meta.dramCount * perNode + dramGraph,
      cxl: (this.meta.count - this.meta.dramCount) * perNode,
      dramGraph,
    };
  }

  /** Resident bytes (whole regions, scratch included) per tier. */
  residentBytes(): number[] {
    return this.tiers.map((t) => t.segments.reduce((a, s) => a + s.region.bytes, 0));
  }
}
