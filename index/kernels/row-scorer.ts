// The distance kernels over a private block of rows (centroids, rotation rows, or a graph's vectors),
// for the work around the index rather than in it: k-means, encoding and filling the graph's free
// slots at build time, and per query the rotation of the query and its distances to every centroid.
// One instance per thread.
import { allocateRegion, type SharedRegion } from '../../tiers/shared-region.js';
import { instantiateKernels, type BatchKernel, type KernelSet } from './kernels.js';

export class RowScorer {
  readonly rows: number;
  readonly dim: number;
  private readonly region: SharedRegion;
  private readonly kernels: KernelSet;
  private readonly f32: Float32Array;
  private readonly qAt: number;
  private readonly idsAt: number;
  private readonly rowsAt: number;
  private readonly outAt: number;
  private readonly pickAt: number;
  private readonly pick: Uint32Array;

  /** pick: how many rows scoreRows may be asked to score at once (0: scoreRows unused). */
  constructor(rows: Float32Array, dim: number, pick = 0) {
    this.dim = dim;
    this.rows = rows.length / dim;
    const a16 = (x: number): number => Math.ceil(x / 16) * 16;
    this.qAt = 0;
    this.idsAt = a16(4 * dim);
    this.rowsAt = a16(this.idsAt + 4 * this.rows);
    this.outAt = a16(this.rowsAt + rows.byteLength);
    this.pickAt = a16(this.outAt + 4 * Math.max(this.rows, pick));
    this.region = allocateRegion(this.pickAt + 4 * pick + 64);
    this.pick = new Uint32Array(this.region.buffer, this.pickAt, pick);
    this.kernels = instantiateKernels(this.region.memory);
    this.f32 = new Float32Array(this.region.buffer);
    const u32 = new Uint32Array(this.region.buffer);
    for (let i = 0; i < this.rows; i++) u32[(this.idsAt >>> 2) + i] = i;
    this.f32.set(rows, this.rowsAt >>> 2);
  }

  /** Squared L2 (l2) or 1 - dot (ip) from q to every row; the view is overwritten by the next call. */
  score(q: ArrayLike<number>, kind: 'l2' | 'ip'): Float32Array {
    const f32 = this.f32;
    const q4 = this.qAt >>> 2;
    for (let i = 0; i < this.dim; i++) f32[q4 + i] = q[i]!;
    const k: BatchKernel = kind === 'l2' ? this.kernels.l2Batch : this.kernels.ipBatch;
    k(this.qAt, this.rowsAt, 4 * this.dim, this.idsAt, this.rows, this.dim, this.outAt);
    return f32.subarray(this.outAt >>> 2, (this.outAt >>> 2) + this.rows);
  }

  /**
   * Squared L2 (l2) or 1 - dot (ip) from row `from` to the first n rows listed in ids (n at most the
   * constructor's pick); the view is overwritten by the next call.
   */
  scoreRows(from: number, ids: ArrayLike<number>, n: number, kind: 'l2' | 'ip'): Float32Array {
    for (let i = 0; i < n; i++) this.pick[i] = ids[i]!;
    const k: BatchKernel = kind === 'l2' ? this.kernels.l2Batch : this.kernels.ipBatch;
    k(this.rowsAt + 4 * this.dim * from, this.rowsAt, 4 * this.dim, this.pickAt, n, this.dim, this.outAt);
    return this.f32.subarray(this.outAt >>> 2, (this.outAt >>> 2) + n);
  }

  /** Index of the nearest row by squared L2, and that distance. */
  nearest(q: ArrayLike<number>): { row: number; distance: number } {
    const d = this.score(q, 'l2');
    let best = 0;
    for (let i = 1; i < d.length; i++) if (d[i]! < d[best]!) best = i;
    return { row: best, distance: d[best]! };
  }
}
