// Maximal marginal relevance (Qdrant's `nearest` with `mmr`): from a nearest query's candidates, the
// most relevant first, then each time the candidate that best trades relevance to the query against
// similarity to those already picked: (1 − diversity) × relevance − diversity × max similarity.
// Similarity is the collection's own score, turned round for Euclid (a distance); the answer keeps
// each point's score against the query.
import type { Metric } from '../../common/metric.js';
import { similarity } from './scores.js';
import { checkWork } from './work-limit.js';

/** Refuses an MMR whose work exceeds WORK_LIMIT, naming the field that sets the candidates. */
export function checkMmrWork(picks: number, candidates: number, dim: number, field: string): void {
  checkWork(picks * candidates * dim, field, `MMR over ${candidates} candidates for ${picks} points of ${dim} dimensions`);
}

/**
 * The indices of `count` of the candidates (vectors `vectors[i]`), in MMR's order. `relevance[i]` is
 * candidate i's similarity to the query (larger better).
 */
export function mmrOrder(
  metric: Metric,
  dim: number,
  vectors: readonly Float32Array[],
  relevance: readonly number[],
  diversity: number,
  count: number,
): number[] {
  const n = vectors.length;
  const picked: number[] = [];
  if (n === 0 || count <= 0) return picked;
  const taken = new Uint8Array(n);
  // The highest similarity of each candidate to any picked one, updated after each pick.
  const closest = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  let first = 0;
  for (let i = 1; i < n; i++) if (relevance[i]! > relevance[first]!) first = i;
  let last = first;
  while (picked.length < Math.min(count, n)) {
    picked.push(last);
    taken[last] = 1;
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      if (taken[i]) continue;
      const s = similarity(metric, vectors[i]!, vectors[last]!, dim);
      if (s > closest[i]!) closest[i] = s;
      const value = (1 - diversity) * relevance[i]! - diversity * closest[i]!;
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    if (best < 0) break;
    last = best;
  }
  return picked;
}
