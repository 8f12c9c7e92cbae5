// The distance kernels over a private block of rows (centroids, rotation rows, or a graph's vectors),
// for the work around the index rather than in it: k-means, encoding and filling the graph's free
// slots at build time, and per query the rotation of the query and its distances to every centroid.
// One instance per thread.
import { invalidArgument } from '../../common/errors.js';
import { allocateRegion } from '../../tiers/shared-region.js';
import { instantiateKernels, type BatchKernel, type KernelSet } from './kernels.js';

/**
 * Rows placed once in a shared memory, with a scratch block per thread, so that several threads'
 * RowScorers read the same rows without a copy each (the build's parallel passes).
 */
export interface SharedRows {
  readonly memory: WebAssembly.Memory;
  readonly dim: number;
  readonly rows: number;
  readonly rowsAt: number;
  readonly pick: number;
  /** Thread t's scratch starts at scratchAt + t × scratchBytes. */
  readonly scratchAt: number;
  readonly scratchBytes: number;
  readonly threads: number;
  /** Where the caller's extra block starts (shareRows' extraBytes), 16-byte aligned. */
  readonly extraAt: number;
}

const a16 = (x: number): number => Math.ceil(x / 16) * 16;

function sharedLayout(rowsBytes: number, dim: number, pick: number, threads: number): { scratchAt: number; scratchBytes: number; extraAt: number } {
  const scratchAt = a16(rowsBytes);
  // Each thread: its query, then its distances, then its picked ids.
  const scratchBytes = a16(4 * dim) + 2 * a16(4 * pick);
  return { scratchAt, scratchBytes, extraAt: a16(scratchAt + threads * scratchBytes) };
}

/** The bytes shareRows allocates for rowsBytes of rows (the rest as its arguments). */
export function sharedRowsBytes(rowsBytes: number, dim: number, pick: number, threads: number, extraBytes = 0): number {
  return sharedLayout(rowsBytes, dim, pick, threads).extraAt + extraBytes + 64;
}

/**
 * Copies rows into a new shared memory with room for `threads` scorers picking up to `pick` rows at
 * once, and `extraBytes` more for the caller's own use in the same memory (at extraAt).
 */
export function shareRows(rows: Float32Array, dim: number, pick: number, threads: number, extraBytes = 0): SharedRows {
  const rowsAt = 0;
  const { scratchAt, scratchBytes, extraAt } = sharedLayout(rows.byteLength, dim, pick, threads);
  const region = allocateRegion(extraAt + extraBytes + 64);
  new Float32Array(region.buffer, rowsAt, rows.length).set(rows);
  return { memory: region.memory, dim, rows: rows.length / dim, rowsAt, pick, scratchAt, scratchBytes, threads, extraAt };
}

/** Thread `thread`'s place in shared rows. */
export interface SharedSlot {
  readonly shared: SharedRows;
  readonly thread: number;
}

const isSlot = (x: Float32Array | SharedSlot): x is SharedSlot => !(x instanceof Float32Array);

export class RowScorer {
  readonly rows: number;
  readonly dim: number;
  private readonly kernels: KernelSet;
  private readonly f32: Float32Array;
  private readonly qAt: number;
  /** The identity ids score() reads; -1 over shared rows, which only scoreRows serves. */
  private readonly idsAt: number;
  private readonly rowsAt: number;
  private readonly outAt: number;
  private readonly pick: Uint32Array;
  private readonly pickAt: number;

  /**
   * Over a private copy of rows, or over a thread's slot of shared rows (dim and pick are then the
   * shared ones). pick: how many rows scoreRows may be asked to score at once (0: scoreRows unused).
   */
  constructor(rows: Float32Array | SharedSlot, dim: number, pick = 0) {
    this.dim = dim;
    let memory: WebAssembly.Memory;
    if (isSlot(rows)) {
      const s = rows.shared;
      if (s.dim !== dim || pick > s.pick || rows.thread >= s.threads)
        throw invalidArgument(
          'rows',
          `shared rows of ${s.dim} dims, ${s.pick} picks and ${s.threads} threads have no slot ${rows.thread} for ${dim} dims and ${pick} picks`,
        );
      this.rows = s.rows;
      this.rowsAt = s.rowsAt;
      this.idsAt = -1;
      this.qAt = s.scratchAt + rows.thread * s.scratchBytes;
      this.outAt = this.qAt + a16(4 * dim);
      this.pickAt = this.outAt + a16(4 * s.pick);
      memory = s.memory;
    } else {
      this.rows = rows.length / dim;
      this.qAt = 0;
      this.idsAt = a16(4 * dim);
      this.rowsAt = a16(this.idsAt + 4 * this.rows);
      this.outAt = a16(this.rowsAt + rows.byteLength);
      this.pickAt = a16(this.outAt + 4 * Math.max(this.rows, pick));
      memory = allocateRegion(this.pickAt + 4 * pick + 64).memory;
    }
    const buffer = memory.buffer as unknown as SharedArrayBuffer;
    this.pick = new Uint32Array(buffer, this.pickAt, pick);
    this.kernels = instantiateKernels(memory);
    this.f32 = new Float32Array(buffer);
    if (!isSlot(rows)) {
      const u32 = new Uint32Array(buffer);
      for (let i = 0; i < this.rows; i++) u32[(this.idsAt >>> 2) + i] = i;
      this.f32.set(rows, this.rowsAt >>> 2);
    }
  }

  /** Squared L2 (l2) or 1 - dot (ip) from q to every row; the view is overwritten by the next call. */
  score(q: ArrayLike<number>, kind: 'l2' | 'ip'): Float32Array {
    if (this.idsAt < 0) throw invalidArgument('rows', 'score() needs a private copy of the rows');
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
