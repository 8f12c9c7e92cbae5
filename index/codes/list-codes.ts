// List codes: a FastScan-style 4-bit product-quantisation code of each neighbour in a node's
// neighbour list, laid out so that one SIMD pass (listEstimates, index/kernels/list-code-kernel.as.ts)
// estimates the query's distance to all of them at once. Every 2-dim subspace has 16 centroids, so a
// neighbour's code is one nibble per subspace, and the query's table of a subspace (16 u8 distances)
// fits one v128: a swizzle looks up 16 neighbours' nibbles in it in one instruction. The codes of 32
// neighbours interleave into 16 bytes per subspace (neighbours j and 16 + j share byte j, low and
// high nibble), the block the kernel reads.
// listEstimatesJs below is the JS twin of listEstimates (the twins table in index/README.md).
import { invalidArgument } from '../../common/errors.js';
import { kmeans } from './kmeans.js';

export const LIST_CODE = { sub: 2, centroids: 16, block: 32 } as const;

export interface ListCodeBook {
  readonly dim: number;
  readonly subspaces: number;
  /** subspaces × 16 × 2 f32 (a 1-dim last subspace padded with 0) */
  readonly centroids: Float32Array;
}

/** Rows k-means trains on by default: 16 centroids in 2 dims settle long before this many points. */
const SAMPLE_ROWS = 4096;
const ITERATIONS = 12;
/**
 * The kernel sums one u8 table entry per subspace in u16 lanes: 255 × 256 < 65536, so up to 256
 * subspaces (512 dims) cannot overflow. Training refuses wider vectors rather than wrap silently.
 */
const MAX_SUBSPACES = 256;

/** Row i's first and second coordinate of subspace s (the second is 0 past the last dimension). */
const first = (vectors: Float32Array, dim: number, i: number, s: number): number => vectors[i * dim + s * LIST_CODE.sub]!;
const second = (vectors: Float32Array, dim: number, i: number, s: number): number => {
  const d = s * LIST_CODE.sub + 1;
  return d < dim ? vectors[i * dim + d]! : 0;
};

/** k-means (index/codes/kmeans.ts `kmeans`) per 2-dim subspace on up to `sample` rows, strided through the set. */
export function trainListCodes(vectors: Float32Array, dim: number, seed: number, sample = SAMPLE_ROWS): ListCodeBook {
  if (!Number.isInteger(dim) || dim < 1) throw invalidArgument('listCodes', `dimension ${dim}: expected a positive integer`);
  const n = Math.floor(vectors.length / dim);
  if (n === 0) throw invalidArgument('listCodes', 'cannot train list codes on no vectors');
  const subspaces = Math.ceil(dim / LIST_CODE.sub);
  if (subspaces > MAX_SUBSPACES) throw invalidArgument('listCodes', `${dim} dimensions: list codes take at most ${MAX_SUBSPACES * LIST_CODE.sub}`);
  // Strided rather than the first rows: a file written cluster by cluster would otherwise train on
  // its first clusters only.
  const rows = Math.max(1, Math.min(n, Math.floor(sample)));
  const data = new Float32Array(rows * LIST_CODE.sub);
  const k = LIST_CODE.centroids;
  const centroids = new Float32Array(subspaces * k * LIST_CODE.sub);
  for (let s = 0; s < subspaces; s++) {
    for (let r = 0; r < rows; r++) {
      const i = Math.floor((r * n) / rows);
      data[2 * r] = first(vectors, dim, i, s);
      data[2 * r + 1] = second(vectors, dim, i, s);
    }
    // A padded subspace trains on pairs whose second value is 0, so its centroids' second values are 0 too (means of zeros).
    const found = kmeans(data, LIST_CODE.sub, k, ITERATIONS, (seed ^ Math.imul(s + 1, 0x9e3779b9)) >>> 0);
    const at = s * k * LIST_CODE.sub;
    centroids.set(found.centroids, at);
    // Fewer rows than centroids: the spare entries repeat centroid 0. encodeListCodes keeps the
    // first of equally near centroids, so they are never chosen, and they widen no table's range.
    for (let j = found.k; j < k; j++) centroids.copyWithin(at + j * LIST_CODE.sub, at, at + LIST_CODE.sub);
  }
  return { dim, subspaces, centroids };
}

/** Each row's nearest centroid per subspace: n × subspaces bytes (values 0..15). */
export function encodeListCodes(book: ListCodeBook, vectors: Float32Array, n: number): Uint8Array {
  const { dim, subspaces, centroids } = book;
  if (vectors.length < n * dim) throw invalidArgument('listCodes', `${n} rows of ${dim} dimensions need ${n * dim} values, got ${vectors.length}`);
  const out = new Uint8Array(n * subspaces);
  for (let i = 0; i < n; i++) {
    for (let s = 0; s < subspaces; s++) {
      const a = first(vectors, dim, i, s);
      const b = second(vectors, dim, i, s);
      const c = s * LIST_CODE.centroids * LIST_CODE.sub;
      let best = 0;
      let bestD = Number.POSITIVE_INFINITY;
      for (let j = 0; j < LIST_CODE.centroids; j++) {
        const d = (a - centroids[c + 2 * j]!) ** 2 + (b - centroids[c + 2 * j + 1]!) ** 2;
        if (d < bestD) {
          bestD = d;
          best = j;
        }
      }
      out[i * subspaces + s] = best;
    }
  }
  return out;
}

/** Bytes of one node's block for lists of up to maxDegree neighbours: ceil(maxDegree / 32) × subspaces × 16. */
export function listCodeStride(subspaces: number, maxDegree: number): number {
  return Math.ceil(maxDegree / LIST_CODE.block) * subspaces * LIST_CODE.centroids;
}

/**
 * Writes one list's block at out[at..]: for block b (neighbours 32b … 32b+31) and subspace s, the 16 bytes at
 * at + (b × subspaces + s) × 16 hold, in byte j, code(nb[32b + j]) in the low nibble and code(nb[32b + 16 + j])
 * in the high nibble; slots past deg are 0. `codes` is encodeListCodes' output, nb the neighbour node numbers
 * (rows of codes). Zero the whole stride first.
 */
export function layoutListBlock(codes: Uint8Array, subspaces: number, nb: ArrayLike<number>, deg: number, out: Uint8Array, at: number, stride: number): void {
  const half = LIST_CODE.block / 2;
  if (listCodeStride(subspaces, deg) > stride) throw invalidArgument('listCodes', `${deg} neighbours do not fit a list block of ${stride} bytes`);
  out.fill(0, at, at + stride);
  for (let k = 0; k < deg; k++) {
    const row = nb[k]! * subspaces;
    const b = Math.floor(k / LIST_CODE.block);
    const j = k % LIST_CODE.block;
    const shift = j < half ? 0 : 4;
    let p = at + b * subspaces * LIST_CODE.centroids + (j % half);
    for (let s = 0; s < subspaces; s++, p += LIST_CODE.centroids) out[p] = out[p]! | ((codes[row + s]! & 0x0f) << shift);
  }
}

/**
 * The query's lookup table: subspaces × 16 u8 into out, and {lo, scale} (both already Math.fround-ed f32 values)
 * such that a neighbour's estimated distance is lo + acc / scale, acc the u16 sum over subspaces of
 * lut[s × 16 + code_s]. metric 'ip' distance is 1 - dot(q, x) (the caller normalises for cosine), 'l2' is the
 * squared L2 distance. Each subspace's 16 entries are shifted by their minimum (summed into lo) and scaled by one
 * shared scale = 255 / (largest range over subspaces) (scale 1 when every range is 0), rounded to nearest.
 */
export function prepareListLut(book: ListCodeBook, query: Float32Array, metric: 'l2' | 'ip', out: Uint8Array): { lo: number; scale: number } {
  const { dim, subspaces, centroids } = book;
  const k = LIST_CODE.centroids;
  if (query.length < dim) throw invalidArgument('listCodes', `a query of ${query.length} values for ${dim} dimensions`);
  if (out.length < subspaces * k) throw invalidArgument('listCodes', `a table of ${out.length} bytes for ${subspaces} subspaces`);
  // Each subspace's distance term per centroid, in f64: 1 - dot sums to 1 - Σ dot_s, so the 1 goes to lo.
  const table = new Float64Array(subspaces * k);
  let lo = metric === 'ip' ? 1 : 0;
  let range = 0;
  for (let s = 0; s < subspaces; s++) {
    const a = first(query, dim, 0, s);
    const b = second(query, dim, 0, s);
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < k; j++) {
      const c = (s * k + j) * LIST_CODE.sub;
      const x = centroids[c]!;
      const y = centroids[c + 1]!;
      const t = metric === 'ip' ? -(a * x + b * y) : (a - x) ** 2 + (b - y) ** 2;
      table[s * k + j] = t;
      if (t < min) min = t;
      if (t > max) max = t;
    }
    for (let j = 0; j < k; j++) table[s * k + j]! -= min;
    lo += min;
    if (max - min > range) range = max - min;
  }
  const scale = Math.fround(range > 0 ? 255 / range : 1);
  // The entries meet the f32 scale the estimate divides by, so each is off by at most half a step.
  // (t × scale stays within 255 up to f32's relative error, far from rounding to 256; the clamp is
  // only a guard against that ever changing.)
  for (let i = 0; i < subspaces * k; i++) out[i] = Math.min(255, Math.round(table[i]! * scale));
  return { lo: Math.fround(lo), scale };
}

/**
 * JS twin of listEstimates (index/kernels/list-code-kernel.as.ts): for each of `blocks` 32-neighbour blocks at
 * u8[block + b × subspaces × 16 …], the u16 sums over subspaces of the table at table[lut …] looked up with each
 * neighbour's nibble, to out[outAt + b × 32 + j] (neighbour j of block b). The table may be its own array
 * (the JS steps keep a query's in its state) or the blocks' memory (as the kernel reads it).
 */
export function listEstimatesJs(
  table: Uint8Array,
  lut: number,
  u8: Uint8Array,
  block: number,
  subspaces: number,
  blocks: number,
  out: Uint16Array,
  outAt: number,
): void {
  const k = LIST_CODE.centroids;
  for (let b = 0; b < blocks; b++) {
    const base = block + b * subspaces * k;
    for (let j = 0; j < k; j++) {
      let low = 0;
      let high = 0;
      for (let s = 0; s < subspaces; s++) {
        const byte = u8[base + s * k + j]!;
        low += table[lut + s * k + (byte & 0x0f)]!;
        high += table[lut + s * k + (byte >>> 4)]!;
      }
      out[outAt + b * LIST_CODE.block + j] = low;
      out[outAt + b * LIST_CODE.block + 16 + j] = high;
    }
  }
}
