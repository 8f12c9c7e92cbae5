// recall@k of the answers a server sent, judged against ground truth.
//
// Tie-aware (ann-benchmarks): a result is a hit when its score is at least as good as the true k-th
// neighbour's, within 1e-3, so that equally distant points (ties) do not count as misses whichever of
// them the index returned. It needs true scores in the server's convention: Qdrant's Euclid score is
// the Euclidean distance (smaller is better), Dot and Cosine are similarities (larger is better).
// Without them recall falls back to comparing ids with the true top k.

export const TIE_EPSILON = 1e-3;

/** Which way scores improve: Euclid scores are distances, Dot and Cosine similarities. */
export type ScoreOrder = 'distance' | 'similarity';

export interface GroundTruth {
  /** Neighbours stored per query (>= the k recall is taken at). */
  dim: number;
  count: number;
  /** Neighbour ids as the server reports them (the input's ids or row numbers), `dim` per query. */
  ids: ArrayLike<number>;
  /** True scores in the server's convention, `dim` per query; null: recall by ids. */
  scores: Float32Array | null;
  order: ScoreOrder;
}

/** recall@k of one query's answer (ids and scores in answer order). */
export function queryRecall(gt: GroundTruth, q: number, k: number, ids: ArrayLike<number>, scores: ArrayLike<number>): number {
  const n = Math.min(k, ids.length);
  let hits = 0;
  if (gt.scores !== null) {
    const kth = gt.scores[q * gt.dim + k - 1]!;
    for (let j = 0; j < n; j++) {
      if (ids[j]! < 0) continue;
      const s = scores[j]!;
      if (gt.order === 'distance' ? s <= kth + TIE_EPSILON : s >= kth - TIE_EPSILON) hits++;
    }
  } else {
    const truth = new Set<number>();
    for (let j = 0; j < k; j++) truth.add(gt.ids[q * gt.dim + j]!);
    const seen = new Set<number>();
    for (let j = 0; j < n; j++) {
      const id = ids[j]!;
      if (truth.has(id) && !seen.has(id)) hits++;
      seen.add(id);
    }
  }
  return hits / k;
}

export interface RecallSummary {
  mean: number;
  /** Nearest-rank percentiles of the per-query recall: 5% of queries did worse than p5. */
  p5: number;
  p50: number;
  min: number;
  /** Distinct queries judged. */
  queries: number;
  tieAware: boolean;
}

/** p-th percentile by nearest rank (p in 0..100) of an ascending array. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function summarizeRecall(perQuery: readonly number[], tieAware: boolean): RecallSummary | null {
  if (perQuery.length === 0) return null;
  const sorted = Float64Array.from(perQuery).sort();
  let sum = 0;
  for (const r of perQuery) sum += r;
  return { mean: sum / perQuery.length, p5: nearestRank(sorted, 5), p50: nearestRank(sorted, 50), min: sorted[0]!, queries: perQuery.length, tieAware };
}

/** Recall over every query that got an answer (firstIds[q] undefined: never answered). */
export function recallOfAnswers(
  gt: GroundTruth,
  k: number,
  firstIds: ReadonlyArray<Float64Array | undefined>,
  firstScores: ReadonlyArray<Float64Array | undefined>,
): RecallSummary | null {
  const per: number[] = [];
  for (let q = 0; q < firstIds.length && q < gt.count; q++) {
    const ids = firstIds[q];
    if (ids !== undefined) per.push(queryRecall(gt, q, k, ids, firstScores[q]!));
  }
  return summarizeRecall(per, gt.scores !== null);
}
