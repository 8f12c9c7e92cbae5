// Random rotations for residual codes. A rotation spreads every vector's energy evenly over the
// coordinates, so quantisation error becomes isotropic, which is what ranking by an estimated
// distance needs (RaBitQ's observation; a PCA basis gave lower error here but worse recall, because
// the error then concentrates in the directions neighbours differ in). Two kinds:
// - dense: rows of a random orthogonal matrix of size dims, cut to the input's dim columns (index
//   format 3); rotating a query is a dims × dim product, ~2 µs at 128-d;
// - hadamard (format 4 on): HADAMARD_ROUNDS rounds of random signs then a normalised Walsh-Hadamard
//   transform, O(dims·log dims) and stored as signs only (a few hundred bytes instead of 64 KB), as
//   RaBitQ's own library rotates. dims is a multiple of 16, not always a power of two: with p the
//   largest power of two ≤ dims, a round transforms [0, p) and then [dims - p, dims); each block is
//   orthogonal, so their product is, and the overlap mixes the two ends.
// Both are orthogonal on the input padded with zeros to dims, so inner products and distances
// survive them exactly.
import { gaussian, mulberry32, randomOrthogonal } from '../../common/random.js';

export type RotationKind = 'dense' | 'hadamard';
export const HADAMARD_ROUNDS = 3;

/** Floats a rotation's parameters take in codes.bin. */
export function rotationParamsLength(kind: RotationKind, dim: number, dims: number): number {
  return kind === 'dense' ? dims * dim : HADAMARD_ROUNDS * dims;
}

/** Parameters of a new rotation: the dense matrix (dims × dim, row-major) or the rounds' signs (±1). */
export function randomRotationParams(kind: RotationKind, dim: number, dims: number, seed: number): Float32Array {
  if (kind === 'hadamard') {
    const rnd = mulberry32(seed);
    return Float32Array.from({ length: HADAMARD_ROUNDS * dims }, () => (rnd() < 0.5 ? -1 : 1));
  }
  const q = randomOrthogonal(dims, gaussian(mulberry32(seed)));
  const out = new Float32Array(dims * dim);
  for (let i = 0; i < dims; i++) for (let k = 0; k < dim; k++) out[i * dim + k] = q[i * dims + k]!;
  return out;
}

/** The largest power of two ≤ n: the Walsh-Hadamard block size. */
export function hadamardBlock(n: number): number {
  let p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

/** In-place normalised Walsh-Hadamard transform of x[at, at + p): symmetric and its own inverse. */
function fwht(x: Float64Array, at: number, p: number): void {
  for (let h = 1; h < p; h <<= 1) {
    for (let i = at; i < at + p; i += h << 1) {
      for (let j = i; j < i + h; j++) {
        const a = x[j]!;
        const b = x[j + h]!;
        x[j] = a + b;
        x[j + h] = a - b;
      }
    }
  }
  const s = 1 / Math.sqrt(p);
  for (let j = at; j < at + p; j++) x[j]! *= s;
}

/** P·v and Pᵀ·y in float64, for encoding, decoding and the tests' references (not the query path). */
export class Rotation {
  private readonly block: number;
  private readonly work: Float64Array;

  constructor(
    readonly kind: RotationKind,
    readonly dim: number,
    readonly dims: number,
    /** rotationParamsLength(kind, dim, dims) floats. */
    readonly params: Float32Array,
  ) {
    this.block = hadamardBlock(dims);
    this.work = new Float64Array(dims);
  }

  /** out[0, dims) = P·v, for v of dim values (zero-padded to dims). */
  apply(v: ArrayLike<number>, out: Float64Array): void {
    const { dim, dims, params } = this;
    if (this.kind === 'dense') {
      for (let i = 0; i < dims; i++) {
        let s = 0;
        const o = i * dim;
        for (let d = 0; d < dim; d++) s += params[o + d]! * v[d]!;
        out[i] = s;
      }
      return;
    }
    for (let d = 0; d < dims; d++) out[d] = d < dim ? v[d]! : 0;
    const p = this.block;
    for (let r = 0; r < HADAMARD_ROUNDS; r++) {
      for (let d = 0; d < dims; d++) out[d]! *= params[r * dims + d]!;
      fwht(out, 0, p);
      if (p < dims) fwht(out, dims - p, p);
    }
  }

  /** out[0, dim) = the first dim coordinates of Pᵀ·y (y of dims values): the inverse on the input's span. */
  applyTransposed(y: ArrayLike<number>, out: Float64Array): void {
    const { dim, dims, params } = this;
    if (this.kind === 'dense') {
      out.fill(0, 0, dim);
      for (let i = 0; i < dims; i++) {
        const t = y[i]!;
        if (t === 0) continue;
        for (let d = 0; d < dim; d++) out[d]! += params[i * dim + d]! * t;
      }
      return;
    }
    const x = this.work;
    for (let d = 0; d < dims; d++) x[d] = y[d]!;
    const p = this.block;
    for (let r = HADAMARD_ROUNDS - 1; r >= 0; r--) {
      if (p < dims) fwht(x, dims - p, p);
      fwht(x, 0, p);
      for (let d = 0; d < dims; d++) x[d]! *= params[r * dims + d]!;
    }
    for (let d = 0; d < dim; d++) out[d] = x[d]!;
  }
}
