// A range's cardinality from the count of (value, id) pairs in it, without building its bitmap: a
// point holds at most `widest` values, so the pairs cover at least pairs / widest points and at most
// as many points as pairs.
import type { Cardinality } from './field-index.js';

export function rangeEstimate(c: { pairs: number; widest: number; points: number }): Cardinality {
  if (c.pairs === 0) return { min: 0, exp: 0, max: 0 };
  const max = Math.min(c.pairs, c.points);
  const min = Math.ceil(c.pairs / Math.max(1, c.widest));
  return { min, exp: Math.max(min, Math.min(max, Math.round(c.pairs / Math.max(1, (c.widest + 1) / 2)))), max };
}
