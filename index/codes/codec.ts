// A compact code: how vectors are encoded into DRAM-resident rows, and how a query is prepared so
// that the one code kernel (codeBatch) estimates distances to those rows. Two kinds (docs/codes.md):
// - sq8: per-dimension scalar int8, the precise one;
// - rq2/rq3/rq4: residual codes in the manner of RaBitQ: each vector as its nearest k-means centroid
//   plus a randomly rotated residual quantised to 2-4 bits with a per-vector scale; small enough for
//   a 10% DRAM budget, with an error bound from that scale.
import type { Metric } from '../kernels/kernels.js';
import { PREPARED } from '../kernels/prepared-query.js';
import { planeBytes, planesFor } from './planes.js';
import type { RotationKind } from './rotation.js';

export type CodeKind = 'sq8' | 'rq4' | 'rq3' | 'rq2';
export const CODE_KINDS: readonly CodeKind[] = ['sq8', 'rq4', 'rq3', 'rq2'];

export interface CodeSpec {
  kind: CodeKind;
  /** Input dimensions, and the coded (padded, rotated) dimensions: a multiple of 16 (planes.ts lays them out). */
  dim: number;
  dims: number;
  bits: number;
  /** l2, or ip (cosine is ip over normalised vectors). */
  metric: 'l2' | 'ip';
  /** Centroids residuals are taken from (rq); 0 for sq8. */
  centroids: number;
  /** Bytes per code row. */
  stride: number;
  /** How rq codes rotate (codes/rotation.ts): absent means dense, as index format 3 stored it. */
  rotation?: RotationKind;
}

export interface Codec {
  readonly spec: CodeSpec;
  /** The trained parameters, as stored in the index file. */
  readonly params: Float32Array;
  /** Bytes of a prepared query (a segment slot's query area). */
  readonly queryBytes: number;
  /**
   * Read-only bytes the kernel reads in every code segment, just before the rows (the centroids of
   * rq codes, whose query table the kernel fills lazily); 0 when there are none.
   */
  readonly headBytes: number;
  /** Writes those bytes into a segment's head (headBytes long). */
  writeHead(out: Uint8Array): void;
  /** Encodes rows [from, from + count) of vectors into out (count × stride bytes). */
  encode(vectors: Float32Array, from: number, count: number, out: Uint8Array): void;
  /** Prepares q into out (queryBytes): what the kernel reads. */
  prepare(q: Float32Array, out: Uint8Array): void;
  /**
   * The vector a code row stands for, in float64: the reference the kernel's estimates are tested
   * against (the estimate is the distance to this reconstruction, up to the weights' rounding).
   */
  decode(row: Uint8Array): Float64Array;
  /**
   * Half-width of the interval the true distance lies in around the estimate, for the row at byte
   * rowAt of the memory under dv and the query prepared at byte prepAt of it (docs/codes.md: how it
   * is derived, and how often it held when measured).
   */
  errorBound(dv: DataView, rowAt: number, prepAt: number, estimate: number): number;
}

/** Bound multiplier: the estimate's error in units of its standard deviation (coverage measured in tests). */
export const BOUND_SIGMAS = 3;

/**
 * The re-rank prunes a candidate when its estimate minus this many standard deviations is above the
 * k-th exact distance (traversal.ts selectByBound). Measured at ef 64, 10% DRAM, rq3 (docs/codes.md):
 * 3σ re-scored 24.4 / 32.0 / 30.6 vectors per query (SIFT / clustered / angular) at recall@10
 * +0.003 / −0.0009 / −0.0030 against full precision; 2.5σ 21.4 / 26.9 / 27.1 at −0.0010 / −0.0020 /
 * −0.0047; 2σ 22.9 re-scored on the clustered set at −0.0060. 2.5σ is the widest that keeps every
 * set's distance computations ≥ 97% in DRAM; the recall it gives up is what the figures show.
 */
export const PRUNE_SIGMAS = 2.5;

export const pad16 = (d: number): number => Math.ceil(d / 16) * 16;
export const codeMetric = (m: Metric): 'l2' | 'ip' => (m === 'l2' ? 'l2' : 'ip');

/** The fixed part of a prepared query: where things sit in a row, and the estimate's constants. */
export interface PreparedHeader {
  bits: number;
  dims: number;
  planesOffset: number;
  scaleOffset: number;
  betaOffset: number;
  centroidOffset: number;
  gammaW: number;
  constA: number;
  mSumW: number;
  tableOffset: number;
  /**
   * A centroid table filled lazily by the kernel: entries start as NaN and the kernel computes
   * T[c] from the float query (at queryOffset in the slot) and centroid c (headBack bytes before
   * the rows) the first time a row of centroid c is scored. A query meets only the centroids near
   * its path, so most of the table is never computed.
   */
  lazyTable?: { queryOffset: number; headBack: number; dim: number; metric: 'l2' | 'ip' };
}

/** The head's size as a segment lays it out (tiered/segment.ts): the rows start on the next 64 bytes after it. */
export const headSpan = (headBytes: number): number => Math.ceil(headBytes / 64) * 64;

/** Writes the header codeBatch reads (laid out by kernels/prepared-query.ts). */
export function writePreparedHeader(out: Uint8Array, h: PreparedHeader): void {
  const dv = new DataView(out.buffer, out.byteOffset, PREPARED.weights);
  const P = PREPARED;
  dv.setUint32(
    P.planes,
    planesFor(h.bits).reduce((m, p) => m | p.kind, 0),
    true,
  );
  dv.setInt32(P.dims, h.dims, true);
  dv.setUint32(P.planesOffset, h.planesOffset, true);
  dv.setInt32(P.scaleOffset, h.scaleOffset, true);
  dv.setInt32(P.betaOffset, h.betaOffset, true);
  dv.setInt32(P.centroidOffset, h.centroidOffset, true);
  dv.setFloat32(P.gammaW, h.gammaW, true);
  dv.setFloat32(P.constA, h.constA, true);
  dv.setFloat64(P.mSumW, h.mSumW, true);
  dv.setUint32(P.tableOffset, h.tableOffset, true);
  const lazy = h.lazyTable;
  dv.setUint32(P.queryOffset, lazy ? lazy.queryOffset : 0, true);
  dv.setUint32(P.headBack, lazy ? lazy.headBack : 0, true);
  dv.setInt32(P.dim, lazy ? lazy.dim : 0, true);
  dv.setUint32(P.tableKind, lazy?.metric === 'ip' ? 1 : 0, true);
}

/** Bytes of the prepared query's weights: one i16 per (padded) dimension, for every code kind. */
export function weightBytes(dims: number): number {
  return 2 * dims;
}

/** The largest integer weight: keeps every i32 lane of the kernel's accumulator in range (see writeWeights). */
export function weightLimit(bits: number, dims: number): number {
  // Values of at most 4 bits are summed as one i32 in the kernel (hsumI), bytes lane by lane in f64:
  // below ~4,000 dimensions the i16 range binds first either way.
  const terms = bits <= 4 ? dims : Math.ceil(dims / 4);
  return Math.min(32767, Math.floor(2147483647 / (terms * ((1 << bits) - 1))));
}

/**
 * Quantises per-dimension query weights to i16 for the kernel's integer dot product and writes them
 * in natural dimension order, one per dimension: the kernel assembles a value from its planes before
 * it multiplies (a value of the rq codes from its crumb and bit, say). Returns W (weight = W ×
 * integer) and the sum of the integer weights. The bound keeps the kernel's i32 sums in range: the
 * whole dot product for values of at most 4 bits, each lane's quarter of the dimensions for bytes.
 */
export function writeWeights(out: Uint8Array, v: Float64Array, bits: number, dims: number): { W: number; sumW: number } {
  // Once per query on the search path: plain loops over one typed-array type (monomorphic), no
  // allocation per call. v holds at least dims values (zero past the input's dimensions).
  let vmax = 0;
  for (let i = 0; i < dims; i++) {
    const a = Math.abs(v[i]!);
    if (a > vmax) vmax = a;
  }
  const limit = weightLimit(bits, dims);
  const W = vmax > 0 ? vmax / limit : 1;
  const inv = 1 / W;
  // The weights start at PREPARED.weights (even): an i16 view writes them directly when out is aligned.
  const aligned = (out.byteOffset & 1) === 0;
  const w16 = aligned ? new Int16Array(out.buffer, out.byteOffset + PREPARED.weights, dims) : null;
  const dv = aligned ? null : new DataView(out.buffer, out.byteOffset, out.byteLength);
  let sumW = 0;
  for (let i = 0; i < dims; i++) {
    const wi = Math.round(v[i]! * inv);
    sumW += wi;
    if (w16 !== null) w16[i] = wi;
    else dv!.setInt16(PREPARED.weights + 2 * i, wi, true);
  }
  return { W, sumW };
}

/**
 * Bytes of the prepared-query area: header, weights, the centroid table and, when there is a
 * table, the float query the kernel fills it from.
 */
export function preparedLayout(dims: number, centroids: number, dim = 0): { tableOffset: number; queryOffset: number; bytes: number } {
  // The last step of a short crumb block reads up to 8 bytes of weights past the last dimension's
  // (times zero values): the slack keeps those reads inside the query's own area.
  const tableOffset = Math.ceil((PREPARED.weights + weightBytes(dims) + 16) / 16) * 16;
  const queryOffset = Math.ceil((tableOffset + 4 * centroids) / 16) * 16;
  return { tableOffset, queryOffset, bytes: queryOffset + (centroids > 0 ? 4 * dim : 0) + 16 };
}

export function planesBytes(bits: number, dims: number): number {
  return planesFor(bits).reduce((a, p) => a + planeBytes(p.kind, dims), 0);
}
