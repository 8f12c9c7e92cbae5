// One kind of node record (neighbour lists, vectors or codes) for every node, as a list of segments:
// nodes [0, split) in the DRAM tier, [split, count) in the CXL tier. Segments of one tier hold equal
// runs of nodes, so a node's segment is found by arithmetic: a per-node lookup table would cost DRAM
// for every node of every store.
import type { KernelChoice } from '../kernels/kernels.js';
import { Segment, type SegmentShape } from './segment.js';

export interface StoreLayout {
  /** First node of the CXL tier. */
  split: number;
  /** Nodes per segment in each tier. */
  perDram: number;
  perCxl: number;
}

export class NodeStore {
  readonly segments: Segment[];
  readonly split: number;
  readonly count: number;
  private readonly perDram: number;
  private readonly perCxl: number;
  private readonly dramSegments: number;

  constructor(
    readonly shape: SegmentShape,
    count: number,
    layout: StoreLayout,
    segments?: Segment[],
    kernels: KernelChoice = 'wasm',
  ) {
    this.count = count;
    this.split = layout.split;
    this.perDram = Math.max(1, layout.perDram);
    this.perCxl = Math.max(1, layout.perCxl);
    this.dramSegments = Math.ceil(layout.split / this.perDram);
    this.segments = segments ?? NodeStore.runs(count, layout).map((r) => new Segment(r.tier, r.start, r.count, shape, undefined, kernels));
  }

  /** The segments' node runs for `count` nodes in `layout`: DRAM runs first. */
  static runs(count: number, layout: StoreLayout): Array<{ tier: number; start: number; count: number }> {
    const perDram = Math.max(1, layout.perDram);
    const perCxl = Math.max(1, layout.perCxl);
    const out: Array<{ tier: number; start: number; count: number }> = [];
    for (let s = 0; s < layout.split; s += perDram) out.push({ tier: 0, start: s, count: Math.min(perDram, layout.split - s) });
    for (let s = layout.split; s < count; s += perCxl) out.push({ tier: 1, start: s, count: Math.min(perCxl, count - s) });
    return out;
  }

  /** Index (in `segments`) of the segment holding node id. */
  segmentIndex(id: number): number {
    return id < this.split ? (id / this.perDram) | 0 : this.dramSegments + (((id - this.split) / this.perCxl) | 0);
  }

  segmentOf(id: number): Segment {
    return this.segments[this.segmentIndex(id)]!;
  }

  tierOf(id: number): number {
    return id < this.split ? 0 : 1;
  }

  layout(): StoreLayout {
    return { split: this.split, perDram: this.perDram, perCxl: this.perCxl };
  }

  /** Bytes of records per tier. */
  recordBytes(): [number, number] {
    return [this.split * this.shape.stride, (this.count - this.split) * this.shape.stride];
  }
}
