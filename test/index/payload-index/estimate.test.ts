// The combination rules bracket the truth: given each set's exact size (or any bounds around it),
// the combined min and max bound the size of the intersection, union, complement and at-least-k set.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allOf, anyOf, atLeast, not } from '../../../index/payload-index/estimate.js';
import type { Cardinality } from '../../../index/payload-index/field-index.js';

const TOTAL = 40;
const set = fc.uniqueArray(fc.integer({ min: 0, max: TOTAL - 1 }), { maxLength: TOTAL });
/** Bounds around a set's size, loosened at random. */
const around = (n: number, loosen: [number, number]): Cardinality => {
  const min = Math.max(0, n - loosen[0]);
  const max = Math.min(TOTAL, n + loosen[1]);
  return { min, exp: n, max };
};
const loosen = fc.tuple(fc.nat(5), fc.nat(5));

describe('estimate', () => {
  it('brackets AND, OR, NOT and at-least-k of random sets', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(set, loosen), { minLength: 1, maxLength: 5 }), fc.nat(6), (sets, k) => {
        const est = sets.map(([s, l]) => around(s.length, l));
        const counts = new Array<number>(TOTAL).fill(0);
        for (const [s] of sets) for (const id of s) counts[id]!++;
        const inAll = counts.filter((c) => c === sets.length).length;
        const inAny = counts.filter((c) => c > 0).length;
        const inK = counts.filter((c) => c >= k).length;
        const within = (c: Cardinality, n: number) => {
          expect(c.min).toBeLessThanOrEqual(n);
          expect(c.max).toBeGreaterThanOrEqual(n);
          expect(c.min).toBeLessThanOrEqual(c.exp);
          expect(c.exp).toBeLessThanOrEqual(c.max);
        };
        within(allOf(est, TOTAL), inAll);
        within(anyOf(est, TOTAL), inAny);
        within(atLeast(est, k, TOTAL), inK);
        within(not(est[0]!, TOTAL), TOTAL - sets[0]![0].length);
      }),
      { numRuns: 500 },
    );
  });

  it('makes an empty OR match nothing and an empty AND match everything', () => {
    expect(anyOf([], TOTAL)).toEqual({ min: 0, exp: 0, max: 0 });
    expect(allOf([], TOTAL)).toEqual({ min: TOTAL, exp: TOTAL, max: TOTAL });
  });
});
