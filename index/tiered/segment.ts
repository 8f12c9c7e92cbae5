// A segment: one shared memory region holding one kind of record (level-0 neighbour lists, full
// vectors, or compact codes) for a contiguous run of nodes of one tier. Segments that are computed
// on (vectors, codes) also hold per-searcher scratch slots, where a query's prepared form, the ids
// of a batch and its distances sit, so the segment's own WASM kernel instance reaches all three:
// the records never leave the memory they live in.
import { allocateRegion, MAX_REGION_BYTES, type SharedRegion } from '../../tiers/shared-region.js';
import { headSpan } from '../codes/codec.js';
import { instantiateKernels, jsKernels, type KernelChoice, type KernelSet } from '../kernels/kernels.js';

/** Scratch slots per segment: how many searchers (threads × in-flight queries) can use it at once. */
export const DEFAULT_SLOTS = 64;

export type RecordKind = 'adjacency' | 'vectors' | 'codes' | 'labels';

export interface SegmentShape {
  kind: RecordKind;
  /** Bytes per node record (a multiple of 4 for neighbour lists and vectors; code rows may be any size). */
  stride: number;
  /** Read-only bytes before the records: a code's parameters (0 for the other kinds). */
  headBytes: number;
  /** Bytes of a slot's query area (0: the segment is never computed on, so it has no slots). */
  queryBytes: number;
  /** Largest batch of distances one kernel call computes. */
  batchMax: number;
  slots: number;
}

export interface SegmentLayout {
  slotBytes: number;
  /** Byte offset of the head (code parameters) and of the first record. */
  headOffset: number;
  recordOffset: number;
  bytes: number;
}

const align = (x: number, a: number): number => Math.ceil(x / a) * a;

export function segmentLayout(shape: SegmentShape, nodes: number): SegmentLayout {
  const slotBytes = shape.queryBytes > 0 ? align(shape.queryBytes, 64) + align(8 * shape.batchMax, 64) : 0;
  // Data starts on a page so that it can be bound to a NUMA node apart from the scratch.
  const headOffset = align(slotBytes * shape.slots, 4096);
  const recordOffset = headOffset + headSpan(shape.headBytes);
  return { slotBytes, headOffset, recordOffset, bytes: align(recordOffset + nodes * shape.stride, 4096) };
}

/** Nodes that fit one segment of at most maxBytes (and the wasm32 4 GiB cap). */
export function nodesPerSegment(shape: SegmentShape, maxBytes: number): number {
  const cap = Math.min(maxBytes, MAX_REGION_BYTES);
  const fixed = segmentLayout(shape, 0).bytes + 2 * 4096;
  return Math.max(1, Math.floor((cap - fixed) / shape.stride));
}

export class Segment {
  readonly region: SharedRegion;
  readonly tier: number;
  /** Global id of the first node, and the number of nodes held. */
  readonly start: number;
  readonly count: number;
  readonly shape: SegmentShape;
  readonly layout: SegmentLayout;
  readonly u8: Uint8Array;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
  /** Over the whole memory, for the few unaligned reads (code rows' factors on the re-rank path). */
  readonly dv: DataView;
  /** The segment's own kernel instance (null for neighbour lists, which are only read). */
  readonly kernels: KernelSet | null;
  /** u32 index of node `start`'s record (neighbour lists are read word by word). */
  readonly recordBase: number;
  /** Byte offset of the segment in its region (0 unless it shares one). */
  readonly base: number;
  readonly sharesRegion: boolean;
  /** Offsets of a slot's id list and results from the slot's start (read on every hop). */
  private readonly idsAt: number;
  private readonly outAt: number;

  /**
   * `placedAt` puts the segment inside a region it shares with others (page-aligned): the fused
   * traversal region holds the codes, the neighbour lists and the searchers' lanes in one memory,
   * so that one WASM call can run a whole beam. Layout offsets are absolute in the region.
   */
  constructor(
    tier: number,
    start: number,
    count: number,
    shape: SegmentShape,
    region?: SharedRegion,
    kernels: KernelChoice = 'wasm',
    /** Byte offset in a region shared with other segments; null: the segment has the region to itself. */
    placedAt: number | null = null,
  ) {
    this.base = placedAt ?? 0;
    this.sharesRegion = placedAt !== null;
    const base = this.base;
    this.tier = tier;
    this.start = start;
    this.count = count;
    this.shape = shape;
    const own = segmentLayout(shape, count);
    this.layout = { ...own, headOffset: base + own.headOffset, recordOffset: base + own.recordOffset };
    this.region = region ?? allocateRegion(own.bytes);
    this.u8 = new Uint8Array(this.region.buffer);
    this.u32 = new Uint32Array(this.region.buffer);
    this.f32 = new Float32Array(this.region.buffer);
    this.dv = new DataView(this.region.buffer);
    this.kernels = shape.queryBytes > 0 ? (kernels === 'js' ? jsKernels(this.region.memory) : instantiateKernels(this.region.memory)) : null;
    this.recordBase = this.layout.recordOffset >>> 2;
    this.idsAt = align(shape.queryBytes, 64);
    this.outAt = this.idsAt + 4 * shape.batchMax;
  }

  /** Everything read from the index file (head + records): what is bound to a node and checked. */
  dataView(): Uint8Array {
    return this.u8.subarray(this.layout.headOffset, this.base + this.layout.bytes);
  }

  /** Bytes of the region this segment occupies (the whole region unless it shares one). */
  get spanBytes(): number {
    return this.sharesRegion ? this.layout.bytes : this.region.bytes;
  }

  headBytes(): Uint8Array {
    return this.u8.subarray(this.layout.headOffset, this.layout.headOffset + this.shape.headBytes);
  }

  recordBytes(): Uint8Array {
    return this.u8.subarray(this.layout.recordOffset, this.layout.recordOffset + this.count * this.shape.stride);
  }

  /** Byte offsets of a slot's query area, id list and results. */
  slotQuery(slot: number): number {
    return this.base + slot * this.layout.slotBytes;
  }

  slotIds(slot: number): number {
    return this.base + slot * this.layout.slotBytes + this.idsAt;
  }

  slotOut(slot: number): number {
    return this.base + slot * this.layout.slotBytes + this.outAt;
  }
}
