// Sorted (value, id) arrays after any sequence of sets and deletes: a range is exactly the points
// with a value in it, and the range estimate brackets that count; match any is the union of its values.
// The arrays a query merges the changes into are the arrays a sort afresh makes.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { rangeEstimate } from '../../../index/payload-index/range-estimate.js';
import { SortedValues } from '../../../index/payload-index/sorted-values.js';

const op = fc.oneof(
  fc.record({ set: fc.integer({ min: 0, max: 20 }), values: fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ del: fc.integer({ min: 0, max: 20 }) }),
);
const bound = fc.option(fc.double({ min: -6, max: 6, noNaN: true }), { nil: undefined });
const bounds = fc.record({ gt: bound, gte: bound, lt: bound, lte: bound }, { requiredKeys: [] });

/** A model of an index's point values, visited in id order as PointValues visits them. */
class Points extends Map<number, number[]> {
  override forEach(fn: (values: number[], id: number, map: Map<number, number[]>) => void): void {
    for (const id of [...this.keys()].sort((a, b) => a - b)) fn(this.get(id)!, id, this);
  }

  numberPairs(): { keys: Float64Array<ArrayBuffer>; ids: Uint32Array<ArrayBuffer>; idEnd: number } {
    const keys: number[] = [];
    const ids: number[] = [];
    let idEnd = 0;
    this.forEach((vs, id) => {
      for (const v of vs) {
        keys.push(v);
        ids.push(id);
      }
      idEnd = id + 1;
    });
    return { keys: Float64Array.from(keys), ids: Uint32Array.from(ids), idEnd };
  }
}

/** Sets (or with null deletes) a point's values in the model, and tells `sv`, as an index does. */
function put(model: Map<number, number[]>, sv: SortedValues, id: number, values: number[] | null): void {
  const before = model.get(id) ?? [];
  if (before.length > 0) sv.changed(id, before, 0);
  if (values === null) model.delete(id);
  else {
    model.set(id, values);
    sv.changed(id, [], values.length);
  }
}

/** A SortedValues over a copy of `model`, told of every point at once: its arrays sorted afresh. */
function sortedAfresh(model: Map<number, number[]>): SortedValues {
  const copy = new Points(model);
  const sv = new SortedValues(copy);
  for (const [id, vs] of copy) sv.changed(id, [], vs.length);
  return sv;
}

describe('SortedValues', () => {
  it('merges a few changed points into the pairs, to the arrays, widest value count and id range a sort afresh gives', () => {
    const value = fc.integer({ min: -3, max: 3 }).map((x) => (x === 0 ? -0 : x / 2));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.array(value, { minLength: 1, maxLength: 2 })), { minLength: 50, maxLength: 300 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 320 }), fc.option(fc.array(value, { minLength: 1, maxLength: 3 }), { nil: null }), fc.boolean()), {
          maxLength: 30,
        }),
        (initial, changes) => {
          const model = new Points();
          const sv = new SortedValues(model);
          for (const [id, vs] of initial) put(model, sv, id, vs);
          sv.ordered({});
          for (const [id, vs, query] of changes) {
            put(model, sv, id, vs);
            if (!query) continue;
            const got = sv.ordered({});
            const want = sortedAfresh(model).ordered({});
            expect(Array.from(got.ids)).toEqual(Array.from(want.ids));
            expect(Array.from(got.keys)).toEqual(Array.from(want.keys));
          }
          const afresh = sortedAfresh(model);
          expect(Array.from(sv.ordered({}).ids)).toEqual(Array.from(afresh.ordered({}).ids));
          expect(sv.rangeCount({})).toEqual(afresh.rangeCount({}));
          expect(sv.range({}).toArray()).toEqual([...model.keys()].sort((a, b) => a - b));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sorts every pair over steps, to the arrays a sort afresh gives, whatever writes and queries land between them', () => {
    // Past the radix sort's threshold, so that its passes are steps of their own.
    const initial = Array.from({ length: 2600 }, (_, id): [number, number[]] => [id, [(id * 37) % 101, ...(id % 9 === 0 ? [-(id % 7)] : [])]]);
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 2700 }), fc.option(fc.array(fc.integer({ min: -5, max: 120 }), { minLength: 1, maxLength: 2 }), { nil: null })),
          {
            maxLength: 12,
          },
        ),
        fc.array(fc.constantFrom('step', 'write', 'query'), { maxLength: 20 }),
        (writes, schedule) => {
          const model = new Points();
          const sv = new SortedValues(model);
          for (const [id, vs] of initial) put(model, sv, id, vs);
          expect(sv.current).toBe(false);
          const steps = sv.freshSteps();
          let done = steps.next().done === true;
          let w = 0;
          for (const what of schedule) {
            if (what === 'step' && !done) done = steps.next().done === true;
            else if (what === 'write' && w < writes.length) put(model, sv, ...writes[w++]!);
            else if (what === 'query') expect(Array.from(sv.ordered({}).ids)).toEqual(Array.from(sortedAfresh(model).ordered({}).ids));
          }
          while (!done) done = steps.next().done === true;
          // Nothing written since the first step: the steps' pairs are installed, and no query sorts again.
          if (w === 0 && !schedule.includes('query')) expect(sv.current).toBe(true);
          const got = sv.ordered({});
          const want = sortedAfresh(model).ordered({});
          expect(Array.from(got.ids)).toEqual(Array.from(want.ids));
          expect(Array.from(got.keys)).toEqual(Array.from(want.keys));
          const above = [...new Set(Array.from(want.ids).filter((_, k) => want.keys[k]! >= 100))].sort((a, b) => a - b);
          expect(sv.range({ gte: 100 }).toArray()).toEqual(above);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('has a second caller drive the same sort over steps rather than sort at once, and the next go on with one given up', () => {
    const model = new Points();
    const sv = new SortedValues(model);
    for (let id = 0; id < 3000; id++) put(model, sv, id, [(id * 37) % 101]);
    // A sort at once or a merge is what a query's own step would do: neither may happen here.
    const proto = SortedValues.prototype as unknown as { sortAll(): void; merge(): void };
    const inOneStep = [vi.spyOn(proto, 'sortAll'), vi.spyOn(proto, 'merge')];
    try {
      const first = sv.freshSteps();
      const second = sv.freshSteps();
      let a = first.next().done === true;
      let b = second.next().done === true;
      let steps = 2;
      while (!a || !b) {
        if (!a) a = first.next().done === true;
        if (!b) b = second.next().done === true;
        expect(++steps).toBeLessThan(50);
      }
      expect(sv.current).toBe(true);
      // Written whole again; a sort given up between its steps (its caller moved on) is the next one's.
      for (let id = 0; id < 3000; id++) put(model, sv, id, [(id * 13) % 97]);
      const left = sv.freshSteps();
      left.next();
      left.next();
      left.return();
      expect(sv.current).toBe(false);
      const next = sv.freshSteps();
      steps = 0;
      while (next.next().done !== true) expect(++steps).toBeLessThan(50);
      expect(sv.current).toBe(true);
      for (const spy of inOneStep) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of inOneStep) spy.mockRestore();
    }
    const want = sortedAfresh(model).ordered({});
    expect(Array.from(sv.ordered({}).ids)).toEqual(Array.from(want.ids));
    expect(Array.from(sv.ordered({}).keys)).toEqual(Array.from(want.keys));
  });

  it('answers ranges exactly, queried between writes too', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(op, fc.option(bounds, { nil: undefined })), { maxLength: 40 }), bounds, (steps, last) => {
        const model = new Points();
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
          if ('del' in o) put(model, sv, o.del, null);
          else put(model, sv, o.set, o.values);
          if (b !== undefined) check(b);
        }
        check(last);
      }),
      { numRuns: 200 },
    );
  });

  it('forgets a deleted point once told of the change', () => {
    const points = new Points();
    const sv = new SortedValues(points);
    put(points, sv, 1, [3]);
    put(points, sv, 2, [4]);
    expect(sv.range({ gte: 0 }).toArray()).toEqual([1, 2]);
    put(points, sv, 1, null);
    expect(sv.range({ gte: 0 }).toArray()).toEqual([2]);
  });
  it('answers wide ranges (thousands of pairs, sorted by marks) exactly, with points holding several values', () => {
    const model = new Points();
    let x = 7;
    const next = () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x / 2 ** 32;
    };
    for (let id = 0; id < 20_000; id++) if (next() < 0.9) model.set(id, next() < 0.2 ? [next(), next()] : [next()]);
    const sv = sortedAfresh(model);
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
    const model = new Points();
    for (let id = 0; id < 30_000; id++) model.set(id, id % 5 === 0 ? [id % 97, (id * 7) % 89] : [id % 97]);
    const sv = sortedAfresh(model);
    for (const xs of [[], [3], [96, 3, 3, 200], Array.from({ length: 60 }, (_, i) => 90 - i * 3)]) {
      const want = [...model].filter(([, vs]) => vs.some((v) => xs.includes(v))).map(([id]) => id);
      expect(sv.equalAny(xs).toArray(), `${xs.length} values`).toEqual(want);
    }
  });
});
