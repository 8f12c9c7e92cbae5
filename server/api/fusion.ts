// Fusion of a query's prefetch answers (Qdrant's `fusion` and `rrf`): each answer a list of points,
// best first, merged into one list scored larger-better. RRF scores a point by its rank in each
// list; DBSF by its score, each list's scores normalised by their own spread (mean ± 3 standard
// deviations), so that lists on different scales (distances, similarities) add up.
import type { FusionAsk } from './query-input.js';

/** A point of a stage's answer: its id (internal, or the router's external one) and its score. */
export interface Ranked<I = number> {
  readonly id: I;
  readonly score: number;
  /** The payload value it was ordered by (an order_by stage), else absent. */
  readonly orderValue?: number;
}

/** A list's contribution to a point at 0-based `rank`: weight stretches the ranks (Qdrant's weighted RRF). */
function rrfTerm(rank: number, k: number, weight: number): number {
  return weight <= 0 ? 0 : 1 / ((rank + 1) / weight + k - 1);
}

/** Each list's scores mapped onto [0, 1] at its mean ± 3 sample standard deviations (one score: 0.5). */
function spread<I>(list: readonly Ranked<I>[], sign: number): Float64Array {
  const out = new Float64Array(list.length);
  if (list.length < 2) return out.fill(0.5);
  let mean = 0;
  for (const p of list) mean += (sign * p.score) / list.length;
  let sq = 0;
  for (const p of list) sq += (sign * p.score - mean) ** 2;
  const sd = Math.sqrt(sq / (list.length - 1));
  if (sd === 0) return out.fill(0.5);
  for (let i = 0; i < list.length; i++) out[i] = (sign * list[i]!.score - (mean - 3 * sd)) / (6 * sd);
  return out;
}

/** Internal ids in their order: what breaks a fused tie in one server. */
export const byNumber = (a: number, b: number): number => a - b;

/**
 * The lists fused, best first (ties by `tie` of the ids). `smallerBetter[i]`: list i's scores are
 * distances, whose normalisation DBSF turns round so that a nearer point counts more.
 */
export function fuse<I>(lists: readonly (readonly Ranked<I>[])[], f: FusionAsk, smallerBetter: readonly boolean[], tie: (a: I, b: I) => number): Ranked<I>[] {
  const score = new Map<I, number>();
  lists.forEach((list, i) => {
    const terms = f.method === 'rrf' ? list.map((_, r) => rrfTerm(r, f.k, f.weights?.[i] ?? 1)) : spread(list, smallerBetter[i] ? -1 : 1);
    list.forEach((p, r) => score.set(p.id, (score.get(p.id) ?? 0) + terms[r]!));
  });
  return [...score].map(([id, s]) => ({ id, score: s })).sort((a, b) => b.score - a.score || tie(a.id, b.id));
}
