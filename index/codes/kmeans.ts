// k-means (Lloyd's iterations, k-means++-style seeding) on a sample, with the SIMD kernels doing the
// assignment. Residual codes centre every vector on its nearest centroid, so that the code spends
// its bits on what distinguishes a vector from its neighbourhood rather than on where the
// neighbourhood is.
import { mulberry32 } from '../../common/random.js';
import { RowScorer } from '../kernels/row-scorer.js';

export interface KMeansResult {
  centroids: Float32Array;
  k: number;
}

export function kmeans(data: Float32Array, dim: number, k: number, iterations: number, seed: number): KMeansResult {
  const n = data.length / dim;
  const kk = Math.max(1, Math.min(k, n));
  const rnd = mulberry32(seed);
  const c = new Float32Array(kk * dim);
  // Seeding: the first centre at random, each next one drawn proportionally to the squared distance
  // to the nearest chosen centre (over a subsample, to keep seeding linear).
  const first = Math.floor(rnd() * n);
  c.set(data.subarray(first * dim, first * dim + dim), 0);
  const best = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  for (let j = 1; j < kk; j++) {
    const prev = c.subarray((j - 1) * dim, j * dim);
    let total = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let d = 0; d < dim; d++) {
        const t = data[i * dim + d]! - prev[d]!;
        s += t * t;
      }
      if (s < best[i]!) best[i] = s;
      total += best[i]!;
    }
    let u = rnd() * total;
    let pick = n - 1;
    for (let i = 0; i < n; i++) {
      u -= best[i]!;
      if (u <= 0) {
        pick = i;
        break;
      }
    }
    c.set(data.subarray(pick * dim, pick * dim + dim), j * dim);
  }
  const assign = new Int32Array(n);
  const sums = new Float64Array(kk * dim);
  const counts = new Int32Array(kk);
  for (let it = 0; it < iterations; it++) {
    const scorer = new RowScorer(c, dim);
    let moved = 0;
    for (let i = 0; i < n; i++) {
      const { row } = scorer.nearest(data.subarray(i * dim, i * dim + dim));
      if (row !== assign[i]) moved++;
      assign[i] = row;
    }
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const a = assign[i]!;
      counts[a]!++;
      for (let d = 0; d < dim; d++) sums[a * dim + d]! += data[i * dim + d]!;
    }
    for (let j = 0; j < kk; j++) {
      if (counts[j] === 0) {
        // An empty cluster restarts on a random point rather than staying dead.
        const r = Math.floor(rnd() * n);
        c.set(data.subarray(r * dim, r * dim + dim), j * dim);
        continue;
      }
      for (let d = 0; d < dim; d++) c[j * dim + d] = sums[j * dim + d]! / counts[j]!;
    }
    if (it > 0 && moved === 0) break;
  }
  return { centroids: c, k: kk };
}
