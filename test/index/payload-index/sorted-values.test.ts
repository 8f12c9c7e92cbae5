// Sorted (value, id) arrays after any sequence of sets and deletes: a range is exactly the points
// with a value in it, and the range estimate brackets that count; match any is the union of its values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rangeEstimate } from '../../../index/payload-index/range-estimate.js';
import { SortedValues } from '../../../index/payload-index/sorted-values.js';

const op = fc.oneof(
  fc.record({ set: fc.integer({ min: 0, max: 20 }), values: fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ del: fc.integer({ min: 0, max: 20 }) }),
);
const bound = fc.option(fc.double({ min: -6, max: 6, noNaN: true }), { nil: undefined });
const bounds = fc.record({ gt: bound, gte: bound, lt: bound, lte: bound }, { requiredKeys: [] });

describe('SortedValues', () => {
  it('answers ranges exactly, queried between writes too', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(op, fc.option(bounds, { nil: undefined })), { maxLength: 40 }), bounds, (steps, last) => {
        const model = new Map<number, number[]>();
        const sv = new SortedValues(model);
        const check = (b: typeof last) => {
          const ok = (x: number) =>
            (b.gt === undefined || x > b.gt) && (b.gte === undefined || x >= b.gte) && (b.lt === undefined || x < b.lt) && (b.lte === undefined || x <= b.lte);
          const want = [...model].filter(([, vs]) => vs.some(ok)).map(([id]) => id);
          expect(sv.range(b).toArray()).toEqual(want.sort((a, c) => a - c));
          const e = rangeEstimate(sv.rangeCount(b));
          expect(e.min).toBeLessThanOrEqual(want.length);
          expect(e.max).toBeGreaterThanOrEqual(want.length);
        };
        for (const [o, b] of steps) {
          if ('del' in o) {
            model.delete(o.del);
            sv.changed();
          } else {
            model.set(o.set, o.values);
            sv.changed();
          }
          if (b !== undefined) check(b);
        }
        check(last);
      }),
      { numRuns: 200 },
    );
  });

  it('forgets a deleted point once told of the change', () => {
    const points = new Map([
      [1, [3]],
      [2, [4]],
    ]);
    const sv = new SortedValues(points);
    sv.changed();
    expect(sv.range({ gte: 0 }).toArray()).toEqual([1, 2]);
    points.delete(1);
    sv.changed();
    expect(sv.range({ gte: 0 }).toArray()).toEqual([2]);
  });
  it('answers wide ranges (thousands of pairs, sorted by marks) exactly, with points holding several values', () => {
    const model = new Map<number, number[]>();
    let x = 7;
    const next = () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x / 2 ** 32;
    };
    for (let id = 0; id < 20_000; id++) if (next() < 0.9) model.set(id, next() < 0.2 ? [next(), next()] : [next()]);
    const sv = new SortedValues(model);
    sv.changed();
    for (const [lo, hi] of [
      [0, 1],
      [0.1, 0.7],
      [0.5, 0.55],
      [0.3, 0.3001],
    ] as const) {
      const want = [...model].filter(([, vs]) => vs.some((v) => v >= lo && v < hi)).map(([id]) => id);
      expect(sv.range({ gte: lo, lt: hi }).toArray()).toEqual(want);
    }
  });

  it('answers match any over one list of values as the union of each value, for few pairs and for thousands', () => {
    const model = new Map<number, number[]>();
    for (let id = 0; id < 30_000; id++) model.set(id, id % 5 === 0 ? [id % 97, (id * 7) % 89] : [id % 97]);
    const sv = new SortedValues(model);
    sv.changed();
    for (const xs of [[], [3], [96, 3, 3, 200], Array.from({ length: 60 }, (_, i) => 90 - i * 3)]) {
      const want = [...model].filter(([, vs]) => vs.some((v) => xs.includes(v))).map(([id]) => id);
      expect(sv.equalAny(xs).toArray(), `${xs.length} values`).toEqual(want);
    }
  });
});
