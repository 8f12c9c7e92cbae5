// recall@k of in-process results (the index's distance conventions) against ground truth, by the
// tie-aware rule of datasets/recall.ts (shared with the load generator, which judges server answers).
import { invalidArgument } from '../../common/errors.js';
import { judgeAnswer, type TruthRow } from '../../datasets/index.js';
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
  /** Results, over all queries, that repeated an id of the same answer. */
  duplicates: number;
}

export function recallAtK(r: RecallInput): RecallResult {
  const { k, gtDim } = r;
  const nq = r.results.length / k;
  if (gtDim < k) throw invalidArgument('k', `the ground truth holds ${gtDim} neighbours per query, fewer than k = ${k}`);
  const perQuery = new Float64Array(nq);
  const tieAware = r.gtDistances !== undefined && r.resultDistances !== undefined;
  const reported = new Float64Array(k);
  let sum = 0;
  let duplicates = 0;
  for (let q = 0; q < nq; q++) {
    if (tieAware) {
      for (let j = 0; j < k; j++) {
        const d = r.resultDistances![q * k + j]!;
        reported[j] = r.metric === 'l2' ? Math.sqrt(Math.max(0, d)) : d;
      }
    }
    const truth: TruthRow = { ids: r.gtIds, at: q * gtDim, width: gtDim, scores: tieAware ? r.gtDistances! : null };
    const j = judgeAnswer(truth, k, r.results.subarray(q * k, (q + 1) * k), tieAware ? reported : null);
    perQuery[q] = j.hits / k;
    sum += j.hits / k;
    duplicates += j.duplicates;
  }
  return { mean: nq > 0 ? sum / nq : 0, perQuery, tieAware, duplicates };
}
