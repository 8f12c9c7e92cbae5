// A random rotation for residual codes: rows of a random orthogonal matrix of size dims, cut to the
// input's dim columns (dims >= dim, padded to the kernels' 16-dimension step). Its columns are
// orthonormal, so inner products and distances survive it exactly, and it spreads every vector's
// energy evenly over the coordinates: quantisation error becomes isotropic, which is what ranking
// by an estimated distance needs (RaBitQ's observation; a PCA basis gave lower error here but worse
// recall, because the error then concentrates in the directions neighbours differ in).
import { gaussian, mulberry32 } from '../../common/random.js';

/** dims × dim row-major: row i is the i-th rotated coordinate's weights over the input dimensions. */
export function randomRotation(dim: number, dims: number, seed: number): Float32Array {
  const g = gaussian(mulberry32(seed));
  const n = dims;
  const q = new Float64Array(n * n);
  for (let i = 0; i < q.length; i++) q[i] = g();
  // Modified Gram-Schmidt over the rows; a (measure-zero) degenerate row is redrawn.
  for (let i = 0; i < n; i++) {
    for (;;) {
      for (let j = 0; j < i; j++) {
        let d = 0;
        for (let k = 0; k < n; k++) d += q[i * n + k]! * q[j * n + k]!;
        for (let k = 0; k < n; k++) q[i * n + k] = q[i * n + k]! - d * q[j * n + k]!;
      }
      let s = 0;
      for (let k = 0; k < n; k++) s += q[i * n + k]! ** 2;
      if (s > 1e-12) {
        const inv = 1 / Math.sqrt(s);
        for (let k = 0; k < n; k++) q[i * n + k] = q[i * n + k]! * inv;
        break;
      }
      for (let k = 0; k < n; k++) q[i * n + k] = g();
    }
  }
  const out = new Float32Array(dims * dim);
  for (let i = 0; i < dims; i++) for (let k = 0; k < dim; k++) out[i * dim + k] = q[i * n + k]!;
  return out;
}
