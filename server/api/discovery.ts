// Qdrant's discovery and context scores of a point, from its similarity (scores.ts) to each example.
// Discovery: for each context pair +1 when the point is nearer the positive, −1 when nearer the
// negative (0 on a tie), plus its similarity to the target squashed into (0, 1): the pairs decide,
// the target orders within a zone. Context: the sum over the pairs of a squashed penalty for being
// nearer the negative (0 in every positive zone), so the best points are those in all of them.

/** x / (1 + |x|): a sigmoid without an exponent, onto (−1, 1). */
function fastSigmoid(x: number): number {
  return x / (1 + Math.abs(x));
}

/** float32's epsilon: the margin a positive zone starts past. */
const MARGIN = 2 ** -23;

/** A context pair's similarities of one point: to its positive example, and to its negative. */
export interface PairSimilarity {
  readonly positive: number;
  readonly negative: number;
}

export function discoveryScore(target: number, pairs: readonly PairSimilarity[]): number {
  let rank = 0;
  for (const p of pairs) rank += Math.sign(p.positive - p.negative);
  return rank + 0.5 * (fastSigmoid(target) + 1);
}

export function contextScore(pairs: readonly PairSimilarity[]): number {
  let loss = 0;
  for (const p of pairs) loss += fastSigmoid(Math.min(p.positive - p.negative - MARGIN, 0));
  return loss;
}
