// A random rotation for residual codes: rows of a random orthogonal matrix of size dims, cut to the
// input's dim columns (dims >= dim, padded to the kernels' 16-dimension step). Its columns are
// orthonormal, so inner products and distances survive it exactly, and it spreads every vector's
// energy evenly over the coordinates: quantisation error becomes isotropic, which is what ranking
// by an estimated distance needs (RaBitQ's observation; a PCA basis gave lower error here but worse
// recall, because the error then concentrates in the directions neighbours differ in).
import { gaussian, mulberry32, randomOrthogonal } from '../../common/random.js';

/** dims × dim row-major: row i is the i-th rotated coordinate's weights over the input dimensions. */
export function randomRotation(dim: number, dims: number, seed: number): Float32Array {
  const g = gaussian(mulberry32(seed));
  const n = dims;
  const q = randomOrthogonal(n, g);
  const out = new Float32Array(dims * dim);
  for (let i = 0; i < dims; i++) for (let k = 0; k < dim; k++) out[i * dim + k] = q[i * n + k]!;
  return out;
}
