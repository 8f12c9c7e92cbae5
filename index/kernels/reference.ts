// Float64 reference distances: the oracle the kernels are tested against and the exact scorer
// for brute-force ground truth. Same conventions as hnswlib: l2 is squared, ip is 1 - dot.
import type { Metric } from './kernels.js';

export function l2Ref(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, dim: number): number {
  let s = 0;
  for (let i = 0; i < dim; i++) {
    const t = a[ao + i]! - b[bo + i]!;
    s += t * t;
  }
  return s;
}

export function ipRef(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, dim: number): number {
  let s = 0;
  for (let i = 0; i < dim; i++) s += a[ao + i]! * b[bo + i]!;
  return 1 - s;
}

export function distanceRef(metric: Metric, a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, dim: number): number {
  return metric === 'l2' ? l2Ref(a, ao, b, bo, dim) : ipRef(a, ao, b, bo, dim);
}

/** Unit-normalise rows in place (cosine is inner product over normalised vectors); zero rows stay zero. */
export function normalizeRows(v: Float32Array, dim: number): void {
  for (let o = 0; o < v.length; o += dim) {
    let s = 0;
    for (let i = 0; i < dim; i++) s += v[o + i]! * v[o + i]!;
    if (s > 0) {
      const inv = 1 / Math.sqrt(s);
      for (let i = 0; i < dim; i++) v[o + i] = v[o + i]! * inv;
    }
  }
}
