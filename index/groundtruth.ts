// Exact k nearest neighbours by brute force in float64: the recall oracle for generated sets.
import type { Metric } from './kernels/kernels.js';
import { distanceRef } from './kernels/reference.js';

export interface GroundTruth {
  k: number;
  ids: Int32Array;
  /** Euclidean (not squared) for l2, as TEXMEX/ann-benchmarks store it; 1 - dot otherwise. */
  distances: Float32Array;
}

export function bruteForceKnn(base: Float32Array, queries: Float32Array, dim: number, k: number, metric: Metric): GroundTruth {
  const n = base.length / dim;
  const nq = queries.length / dim;
  const kk = Math.min(k, n);
  const ids = new Int32Array(nq * kk);
  const distances = new Float32Array(nq * kk);
  const bestD = new Float64Array(kk);
  const bestI = new Int32Array(kk);
  for (let q = 0; q < nq; q++) {
    let filled = 0;
    for (let i = 0; i < n; i++) {
      const d = distanceRef(metric, queries, q * dim, base, i * dim, dim);
      if (filled < kk || d < bestD[filled - 1]!) {
        // insertion into a sorted list: k is small; ties keep the smaller id first
        let p = filled < kk ? filled++ : kk - 1;
        while (p > 0 && bestD[p - 1]! > d) {
          bestD[p] = bestD[p - 1]!;
          bestI[p] = bestI[p - 1]!;
          p--;
        }
        bestD[p] = d;
        bestI[p] = i;
      }
    }
    for (let j = 0; j < kk; j++) {
      ids[q * kk + j] = bestI[j]!;
      distances[q * kk + j] = metric === 'l2' ? Math.sqrt(bestD[j]!) : bestD[j]!;
    }
  }
  return { k: kk, ids, distances };
}
