// A segment: one shared region holding a contiguous run of nodes of one tier — their level-0
// neighbour lists and their vectors — plus per-searcher scratch slots where the query, the ids of a
// batch and its distances sit, so the segment's own WASM kernel instance can reach all three.
import { allocateRegion, MAX_REGION_BYTES, type SharedRegion } from '../../tiers/shared-region.js';
import { instantiateKernels, type BatchKernel, type KernelSet } from '../kernels/kernels.js';
import type { Metric } from '../kernels/kernels.js';

/** Scratch slots per segment: how many searchers (threads × in-flight queries) can use it at once. */
export const DEFAULT_SLOTS = 64;

export interface SegmentShape {
  dim: number;
  /** u32 words per node in the neighbour list block: 1 + maxM0. */
  adjStride: number;
  slots: number;
  /** Largest batch of distances one kernel call computes. */
  batchMax: number;
}

const align = (x: number, a: number): number => Math.ceil(x / a) * a;

export interface SegmentLayout {
  slotBytes: number;
  adjOffset: number;
  vecOffset: number;
  bytes: number;
}

export function segmentLayout(shape: SegmentShape, nodes: number): SegmentLayout {
  const qBytes = align(shape.dim * 4, 64);
  const slotBytes = align(qBytes + 8 * shape.batchMax, 64);
  const adjOffset = align(slotBytes * shape.slots, 4096);
  const vecOffset = align(adjOffset + nodes * shape.adjStride * 4, 4096);
  return { slotBytes, adjOffset, vecOffset, bytes: align(vecOffset + nodes * shape.dim * 4, 4096) };
}

/** Nodes that fit one segment of at most maxBytes (and the wasm32 4 GiB cap). */
export function nodesPerSegment(shape: SegmentShape, maxBytes: number): number {
  const cap = Math.min(maxBytes, MAX_REGION_BYTES);
  const fixed = segmentLayout(shape, 0).bytes + 2 * 4096;
  const per = (shape.adjStride + shape.dim) * 4;
  return Math.max(1, Math.floor((cap - fixed) / per));
}

export class Segment {
  readonly region: SharedRegion;
  readonly tier: number;
  /** Global id of the first node and number of nodes held. */
  readonly start: number;
  readonly count: number;
  readonly shape: SegmentShape;
  readonly layout: SegmentLayout;
  readonly u8: Uint8Array;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
  readonly kernels: KernelSet;
  readonly distBatch: BatchKernel;
  /** u32 index of node `start`'s neighbour block. */
  readonly adjBase: number;
  readonly vecBytes: number;

  constructor(tier: number, start: number, count: number, shape: SegmentShape, metric: Metric, region?: SharedRegion) {
    this.tier = tier;
    this.start = start;
    this.count = count;
    this.shape = shape;
    this.layout = segmentLayout(shape, count);
    this.region = region ?? allocateRegion(this.layout.bytes);
    this.u8 = new Uint8Array(this.region.buffer);
    this.u32 = new Uint32Array(this.region.buffer);
    this.f32 = new Float32Array(this.region.buffer);
    this.kernels = instantiateKernels(this.region.memory);
    this.distBatch = metric === 'l2' ? this.kernels.l2Batch : this.kernels.ipBatch;
    this.adjBase = this.layout.adjOffset >>> 2;
    this.vecBytes = shape.dim * 4;
  }

  /** The bytes holding this segment's nodes (neighbour lists and vectors), for binding and checks. */
  dataView(): Uint8Array {
    return this.u8.subarray(this.layout.adjOffset, this.layout.bytes);
  }

  adjacencyBytes(): Uint8Array {
    return this.u8.subarray(this.layout.adjOffset, this.layout.adjOffset + this.count * this.shape.adjStride * 4);
  }

  vectorBytes(): Uint8Array {
    return this.u8.subarray(this.layout.vecOffset, this.layout.vecOffset + this.count * this.vecBytes);
  }

  slotQuery(slot: number): number {
    return slot * this.layout.slotBytes;
  }

  slotIds(slot: number): number {
    return slot * this.layout.slotBytes + Math.ceil((this.shape.dim * 4) / 64) * 64;
  }

  slotOut(slot: number): number {
    return this.slotIds(slot) + 4 * this.shape.batchMax;
  }
}
