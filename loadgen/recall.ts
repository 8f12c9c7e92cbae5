// recall@k of the answers a server sent, judged against ground truth.
//
// The rule is datasets/recall.ts's (in-process recall uses it too): a hit is a true top-k id, or a tie at the true k-th score
// (judged on the true score of a listed id, and on the reported score only where the list is too
// short to rule an id out); an id repeated in one answer counts once. Tie-aware recall needs true
// scores in the server's convention: Qdrant's Euclid score is the Euclidean distance, Dot and Cosine
// are similarities (ties are judged within TIE_EPSILON either way). Without them recall compares ids
// with the true top k.
import { judgeAnswer, TIE_TOLERANCE, type Judgement } from '../datasets/index.js';

export const TIE_EPSILON = TIE_TOLERANCE;

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

/** Hits and repeated ids in one query's answer (ids and scores in answer order). */
export function judgeQuery(gt: GroundTruth, q: number, k: number, ids: ArrayLike<number>, scores: ArrayLike<number>): Judgement {
  return judgeAnswer({ ids: gt.ids, at: q * gt.dim, width: gt.dim, scores: gt.scores }, k, ids, scores);
}

/** recall@k of one query's answer (ids and scores in answer order). */
export function queryRecall(gt: GroundTruth, q: number, k: number, ids: ArrayLike<number>, scores: ArrayLike<number>): number {
  return judgeQuery(gt, q, k, ids, scores).hits / k;
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
  /** Results that repeated an id already in the same answer (counted once, the repeats as misses). */
  duplicates: number;
}

/** p-th percentile by nearest rank (p in 0..100) of an ascending array. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function summarizeRecall(perQuery: readonly number[], tieAware: boolean, duplicates = 0): RecallSummary | null {
  if (perQuery.length === 0) return null;
  const sorted = Float64Array.from(perQuery).sort();
  let sum = 0;
  for (const r of perQuery) sum += r;
  return {
    mean: sum / perQuery.length,
    p5: nearestRank(sorted, 5),
    p50: nearestRank(sorted, 50),
    min: sorted[0]!,
    queries: perQuery.length,
    tieAware,
    duplicates,
  };
}

/** Recall over every query that got an answer (firstIds[q] undefined: never answered). */
export function recallOfAnswers(
  gt: GroundTruth,
  k: number,
  firstIds: ReadonlyArray<Float64Array | undefined>,
  firstScores: ReadonlyArray<Float64Array | undefined>,
): RecallSummary | null {
  const per: number[] = [];
  let duplicates = 0;
  for (let q = 0; q < firstIds.length && q < gt.count; q++) {
    const ids = firstIds[q];
    if (ids === undefined) continue;
    const j = judgeQuery(gt, q, k, ids, firstScores[q]!);
    per.push(j.hits / k);
    duplicates += j.duplicates;
  }
  return summarizeRecall(per, gt.scores !== null, duplicates);
}

export interface FilteredRecall {
  recall: RecallSummary | null;
  /** Queries answered with fewer than k points while at least k match: the short answers filtered search must never give. */
  shortAnswers: number;
}

/**
 * Recall of filtered answers: a query whose filter matches fewer than k points is judged on those it
 * matches (all of them is recall 1; none matching, an empty answer is). Ground-truth rows past the
 * matched count are padding (id -1), which no answer holds.
 */
export function recallOfFilteredAnswers(
  gt: GroundTruth,
  matched: ArrayLike<number>,
  k: number,
  firstIds: ReadonlyArray<Float64Array | undefined>,
  firstScores: ReadonlyArray<Float64Array | undefined>,
): FilteredRecall {
  const per: number[] = [];
  let duplicates = 0;
  let shortAnswers = 0;
  for (let q = 0; q < firstIds.length && q < gt.count; q++) {
    const ids = firstIds[q];
    if (ids === undefined) continue;
    const want = Math.min(k, matched[q]!);
    if (ids.length < want) shortAnswers += matched[q]! >= k ? 1 : 0;
    const j = judgeQuery(gt, q, k, ids, firstScores[q]!);
    per.push(want === 0 ? (ids.length === 0 ? 1 : 0) : Math.min(1, j.hits / want));
    duplicates += j.duplicates;
  }
  return { recall: summarizeRecall(per, gt.scores !== null, duplicates), shortAnswers };
}
