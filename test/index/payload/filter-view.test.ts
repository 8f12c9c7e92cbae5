// A compiled filter decides the same over the store's lazy payload view as over the payload object.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../../../index/filter/evaluate.js';
import { parseFilter } from '../../../index/filter/parse.js';
import { filterPoint } from '../../../index/payload/filter-view.js';
import { PayloadStore } from '../../../index/payload/store.js';
import { payload } from './arbitraries.js';

const FILTERS = [
  { must: [{ key: 'a', match: { value: 'red' } }] },
  { should: [{ key: 'a.b', range: { gte: 0 } }, { is_null: { key: 'b' } }] },
  { must_not: [{ is_empty: { key: 'c' } }] },
  { must: [{ key: 'a[].b', values_count: { gte: 1 } }] },
  { must: [{ nested: { key: 'c', filter: { must: [{ key: 'a', match: { any: ['green', 'red'] } }] } } }] },
  { must: [{ key: '"__proto__"', match: { except: ['red'] } }] },
].map((f, i) => compile(parseFilter(f, `f${i}`)));

describe('filterPoint', () => {
  it('matches exactly the points the payload objects match', () => {
    fc.assert(
      fc.property(fc.array(payload, { minLength: 1, maxLength: 10 }), (payloads) => {
        const store = new PayloadStore();
        payloads.forEach((p, id) => store.set(id, p));
        for (const f of FILTERS) payloads.forEach((p, id) => expect(f(filterPoint(store, id, id))).toBe(f({ id, payload: p })));
      }),
      { numRuns: 300 },
    );
  });
});
