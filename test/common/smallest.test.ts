// smallestFrom: the n smallest values at least `from`, ascending, as a full sort of them would give,
// for any values (ties, sorted, reversed) and any n.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectSmallest, smallestFrom } from '../../common/smallest.js';

describe('smallestFrom', () => {
  it('gives the n smallest values from `from` on, ascending, as sorting them all does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 300 }),
        fc.integer({ min: -60, max: 60 }),
        fc.integer({ min: 0, max: 320 }),
        (xs, from, n) => {
          const want = xs
            .filter((x) => x >= from)
            .sort((a, b) => a - b)
            .slice(0, n);
          expect(Array.from(smallestFrom(xs, from, n))).toEqual(want);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('selects the k smallest first from sorted, reversed and constant runs alike', () => {
    const n = 5000;
    for (const a of [Float64Array.from({ length: n }, (_, i) => i), Float64Array.from({ length: n }, (_, i) => n - i), new Float64Array(n).fill(7)]) {
      const want = Array.from(a)
        .sort((x, y) => x - y)
        .slice(0, 100);
      selectSmallest(a, 100);
      expect(Array.from(a.subarray(0, 100)).sort((x, y) => x - y)).toEqual(want);
    }
  });
});
