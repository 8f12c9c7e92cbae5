// Judging one answer against exact ground truth: the recall rule shared by in-process search
// (index/search/recall.ts) and the load generator (loadgen/recall.ts).
//
// A result counts as a hit when its id is one of the true top k, or when it is a tie: another point
// as far as the true k-th neighbour (ann-benchmarks' rule, so equally distant points do not count as
// misses whichever of them the index returned). Ties are judged on ids wherever the ground truth can:
// an id listed beyond rank k is a tie only if its *true* distance is the k-th one, and an id the
// list does not hold at all is a tie only if the list is too short to rule it out (it ends inside
// the tie band) and its reported distance equals the k-th. A wrong id reported with a good distance
// is therefore a miss, not a hit.
//
// Duplicates: an id that appears twice in one answer counts once; the repeats are misses and are
// counted in `duplicates`. Recall is the share of distinct true neighbours found, and a result list
// that repeats an id found fewer of them; failing the whole run instead would hide how much it lost.

/** Slack on the k-th distance, as ann-benchmarks (float32 results against float64 ground truth). */
export const TIE_TOLERANCE = 1e-3;

/** One query's ground-truth row. */
export interface TruthRow {
  ids: ArrayLike<number>;
  /** Offset of this query's row in `ids` / `scores`. */
  at: number;
  /** Neighbours stored per query (>= k). */
  width: number;
  /** True scores (distances or similarities: ties are judged either way), row-major like `ids`; null: judge by ids only. */
  scores: ArrayLike<number> | null;
}

export interface Judgement {
  hits: number;
  /** Results that repeated an id already in the same answer (each a miss). */
  duplicates: number;
}

/** Hits among the first k of one answer; `scores` (reported, same convention as the truth) enable ties. */
export function judgeAnswer(t: TruthRow, k: number, ids: ArrayLike<number>, scores: ArrayLike<number> | null): Judgement {
  const n = Math.min(k, ids.length);
  const top = new Set<number>();
  for (let j = 0; j < k; j++) top.add(t.ids[t.at + j]!);
  const tieAware = t.scores !== null && scores !== null;
  const kth = tieAware ? t.scores![t.at + k - 1]! : 0;
  const isTie = (s: number): boolean => Math.abs(s - kth) <= TIE_TOLERANCE;
  // True scores of the listed neighbours beyond rank k, and whether the list reaches past the tie
  // band (then every tied point is in it, and an unlisted id cannot be a tie).
  const beyond = new Map<number, number>();
  let complete = false;
  if (tieAware) {
    for (let j = k; j < t.width; j++) beyond.set(t.ids[t.at + j]!, t.scores![t.at + j]!);
    complete = t.width > k && !isTie(t.scores![t.at + t.width - 1]!);
  }
  const seen = new Set<number>();
  let hits = 0;
  let duplicates = 0;
  for (let j = 0; j < n; j++) {
    const id = ids[j]!;
    if (id < 0) continue;
    if (seen.has(id)) {
      duplicates++;
      continue;
    }
    seen.add(id);
    if (top.has(id)) hits++;
    else if (tieAware) {
      const trueScore = beyond.get(id);
      if (trueScore !== undefined ? isTie(trueScore) : !complete && isTie(scores![j]!)) hits++;
    }
  }
  return { hits, duplicates };
}
