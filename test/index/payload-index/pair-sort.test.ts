// Pairs sorted by value, equal values keeping their order: the radix sort (and the comparison sort
// it uses for few pairs) against a stable comparison sort, over doubles of every sign and size,
// -0 among them (sorted as 0), values that differ in their low bits only, and many ties.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortPairs } from '../../../index/payload-index/pair-sort.js';

const value = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(-0, 0, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, -Number.MIN_VALUE, 2 ** 52, -(2 ** 31)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  // Values alike in their high 32 bits, apart in the low ones, of both signs.
  fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.boolean()).map(([k, neg]) => (neg ? -1 : 1) * (1 + k * 2 ** -50)),
);

describe('sortPairs', () => {
  it('sorts by value and keeps the order of equal values, by radix and by comparison', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 300 }), fc.constantFrom(0, 2048), (values, radixFrom) => {
        const keys = Float64Array.from(values);
        const ids = Uint32Array.from(values, (_, i) => i);
        const want = values.map((v, i) => [v + 0, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        sortPairs(keys, ids, radixFrom);
        expect(Array.from(ids)).toEqual(want.map(([, i]) => i));
        expect(Array.from(keys)).toEqual(want.map(([v]) => v));
        expect(Array.from(keys).some((k) => Object.is(k, -0))).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});
