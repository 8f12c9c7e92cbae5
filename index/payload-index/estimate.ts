// How cardinality estimates combine through a filter, with the rules of Qdrant's query estimator:
// AND (must) takes the smallest max and the overlap that must remain for its min, OR (should) the
// largest min and the sum of maxes, NOT (must_not) inverts an estimate against the total, and exp
// assumes the conditions independent. `min_should` (which Qdrant expands) is bounded by counting:
// k of n sets overlap on at least (Σmin − (k−1)·total) / (n−k+1) points and at most Σmax / k.
import type { Cardinality } from './field-index.js';

/** What a condition no index answers may match: anything. */
export function unknown(total: number): Cardinality {
  return { min: 0, exp: Math.round(total / 2), max: total };
}

function clamp(c: { min: number; exp: number; max: number }): Cardinality {
  const min = Math.max(0, Math.ceil(c.min));
  const max = Math.max(min, Math.floor(c.max));
  return { min, exp: Math.min(max, Math.max(min, Math.round(c.exp))), max };
}

const share = (c: Cardinality, total: number): number => (total === 0 ? 0 : c.exp / total);

export function allOf(parts: readonly Cardinality[], total: number): Cardinality {
  let min = total;
  let max = total;
  let p = 1;
  for (const c of parts) {
    min = Math.max(0, min + c.min - total);
    max = Math.min(max, c.max);
    p *= share(c, total);
  }
  return clamp({ min, exp: p * total, max });
}

export function anyOf(parts: readonly Cardinality[], total: number): Cardinality {
  let min = 0;
  let max = 0;
  let none = 1;
  for (const c of parts) {
    min = Math.max(min, c.min);
    max += c.max;
    none *= 1 - share(c, total);
  }
  return clamp({ min, exp: (1 - none) * total, max: Math.min(total, max) });
}

export function not(c: Cardinality, total: number): Cardinality {
  return { min: total - c.max, exp: total - c.exp, max: total - c.min };
}

export function atLeast(parts: readonly Cardinality[], k: number, total: number): Cardinality {
  const n = parts.length;
  if (k <= 0) return { min: total, exp: total, max: total };
  if (k > n) return { min: 0, exp: 0, max: 0 };
  const sumMin = parts.reduce((s, c) => s + c.min, 0);
  const sumMax = parts.reduce((s, c) => s + c.max, 0);
  // P(at least k of n independent events), by dynamic programming over the count.
  let dist = [1];
  for (const c of parts) {
    const q = share(c, total);
    const next = new Array<number>(dist.length + 1).fill(0);
    dist.forEach((pr, j) => {
      next[j] = next[j]! + pr * (1 - q);
      next[j + 1] = next[j + 1]! + pr * q;
    });
    dist = next;
  }
  const p = dist.slice(k).reduce((s, x) => s + x, 0);
  return clamp({ min: (sumMin - (k - 1) * total) / (n - k + 1), exp: p * total, max: Math.min(total, sumMax / k) });
}
