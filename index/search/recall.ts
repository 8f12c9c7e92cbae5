// recall@k against ground truth. With true distances at hand it counts as ann-benchmarks does: a
// result is a hit when its distance is within the true k-th distance (+1e-3), so ties don't hurt.
import { invalidArgument } from '../../common/errors.js';
import type { Metric } from '../kernels/kernels.js';

export interface RecallInput {
  k: number;
  /** Result labels, k per query (missing results as -1). */
  results: Float64Array;
  /** Result distances in the index's convention (squared l2 / 1 - dot), k per query; for tie-aware recall. */
  resultDistances?: Float32Array;
  metric: Metric;
  gtIds: Int32Array;
  gtDim: number;
  /** Ground-truth distances (Euclidean, not squared, for l2), gtDim per query. */
  gtDistances?: Float32Array;
}

export interface RecallResult {
  mean: number;
  perQuery: Float64Array;
  tieAware: boolean;
}

export function recallAtK(r: RecallInput): RecallResult {
  const { k, gtDim } = r;
  const nq = r.results.length / k;
  if (gtDim < k) throw invalidArgument('k', `the ground truth holds ${gtDim} neighbours per query, fewer than k = ${k}`);
  const perQuery = new Float64Array(nq);
  const tieAware = r.gtDistances !== undefined && r.resultDistances !== undefined;
  let sum = 0;
  for (let q = 0; q < nq; q++) {
    let hits = 0;
    if (tieAware) {
      const kth = r.gtDistances![q * gtDim + k - 1]!;
      for (let j = 0; j < k; j++) {
        if (r.results[q * k + j]! < 0) continue;
        const d = r.resultDistances![q * k + j]!;
        const conv = r.metric === 'l2' ? Math.sqrt(Math.max(0, d)) : d;
        if (conv <= kth + 1e-3) hits++;
      }
    } else {
      const truth = new Set<number>();
      for (let j = 0; j < k; j++) truth.add(r.gtIds[q * gtDim + j]!);
      for (let j = 0; j < k; j++) if (truth.has(r.results[q * k + j]!)) hits++;
    }
    perQuery[q] = hits / k;
    sum += hits / k;
  }
  return { mean: nq > 0 ? sum / nq : 0, perQuery, tieAware };
}
