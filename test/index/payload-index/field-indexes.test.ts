// The registry against the reference evaluator on random payloads, random filters and random
// sequences of adds, removes and updates (fast-check): the indexed bitmap, narrowed by the residual
// filter checked per point, is exactly the brute-force set, and the estimate brackets its size.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Filter } from '../../../index/filter/ast.js';
import { compile } from '../../../index/filter/evaluate.js';
import { parseFilter } from '../../../index/filter/parse.js';
import { makeTokenizer } from '../../../index/filter/tokenize.js';
import { FieldIndexes, type Payload } from '../../../index/payload-index/field-indexes.js';

type Json = unknown;

const WORDS = ['red', 'green', 'blue'] as const;
const UUIDS = ['0b7f4c4e-6a5d-4c3b-9a1e-2f3d4c5b6a79', '1c8e5d5f-7b6e-4d4c-8b2f-3e4f5d6c7b8a'] as const;
const DATES = ['2020-01-01T00:00:00Z', '2020-06-15T12:00:00+02:00', '2020-12-31', 'not a date'] as const;

const scalar = fc.oneof(
  fc.constantFrom(...WORDS, ...UUIDS, ...DATES, 'Red green', 'blue red'),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
  fc.constant(null),
  fc.double({ min: -3, max: 3, noNaN: true }),
  fc.record({ lon: fc.double({ min: -180, max: 180, noNaN: true }), lat: fc.double({ min: -90, max: 90, noNaN: true }) }),
  fc.record({ lon: fc.constantFrom(179.5, -179.5, 0.1), lat: fc.constantFrom(0.1, -0.1, 89.9) }),
);
const anyValue = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }));
/** Mostly values of the field's own type, sometimes anything (so each index meets other types too). */
const typed = (own: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 4, arbitrary: own }, { weight: 2, arbitrary: fc.array(own, { maxLength: 3 }) }, { weight: 1, arbitrary: anyValue });
const loc = fc.oneof(
  fc.record({ lon: fc.double({ min: -180, max: 180, noNaN: true }), lat: fc.double({ min: -90, max: 90, noNaN: true }) }),
  fc.record({ lon: fc.constantFrom(179.5, -179.5, 0.1, 3), lat: fc.constantFrom(0.1, -0.1, 89.9, 3) }),
);
const FIELDS = {
  kw: typed(fc.constantFrom(...WORDS)),
  n: typed(fc.integer({ min: -3, max: 3 })),
  f: typed(fc.oneof(fc.double({ min: -3, max: 3, noNaN: true }), fc.integer({ min: -3, max: 3 }))),
  b: typed(fc.boolean()),
  t: typed(fc.constantFrom(...DATES)),
  u: typed(fc.constantFrom(...UUIDS)),
  txt: typed(fc.constantFrom('red', 'Red green', 'blue red', 'green')),
  loc: typed(loc),
  x: anyValue,
};
const payload: fc.Arbitrary<Payload> = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 9, arbitrary: fc.record(FIELDS, { requiredKeys: [] }) });

const anyKey = fc.constantFrom(...Object.keys(FIELDS));
/** The key of the field the condition is for, sometimes any key (an index asked what it cannot answer). */
const keyOf = (...own: string[]): fc.Arbitrary<string> => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...own) }, { weight: 1, arbitrary: anyKey });
const bound = fc.option(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ min: -3, max: 3, noNaN: true })), { nil: undefined });
const geoPoint = fc.record({ lon: fc.double({ min: -180, max: 180, noNaN: true }), lat: fc.double({ min: -90, max: 90, noNaN: true }) });
const leaf: fc.Arbitrary<Json> = fc.oneof(
  fc.record({ key: keyOf('kw'), match: fc.record({ value: fc.constantFrom(...WORDS) }) }),
  fc.record({ key: keyOf('u'), match: fc.record({ value: fc.constantFrom(...UUIDS, 'no-uuid') }) }),
  fc.record({ key: keyOf('n', 'f'), match: fc.record({ value: fc.integer({ min: -3, max: 3 }) }) }),
  fc.record({ key: keyOf('b'), match: fc.record({ value: fc.boolean() }) }),
  fc.record({ key: keyOf('kw', 'u'), match: fc.record({ any: fc.array(fc.constantFrom(...WORDS, ...UUIDS)) }) }),
  fc.record({ key: keyOf('n', 'f'), match: fc.record({ any: fc.array(fc.integer({ min: -3, max: 3 })) }) }),
  fc.record({ key: keyOf('kw', 'u'), match: fc.record({ except: fc.array(fc.constantFrom(...WORDS, ...UUIDS)) }) }),
  fc.record({ key: keyOf('n', 'f'), match: fc.record({ except: fc.array(fc.integer({ min: -3, max: 3 })) }) }),
  fc.record({ key: keyOf('txt'), match: fc.record({ text: fc.constantFrom('red', 'red green', 'blue', '') }) }),
  fc.record({ key: keyOf('txt'), match: fc.record({ text_any: fc.constantFrom('red', 'green blue', '') }) }),
  fc.record({ key: keyOf('txt'), match: fc.record({ phrase: fc.constantFrom('red', 'red green', 'blue red') }) }),
  fc.record({ key: keyOf('n', 'f'), range: fc.record({ gt: bound, gte: bound, lt: bound, lte: bound }, { requiredKeys: [] }) }),
  fc.record({
    key: keyOf('t'),
    range: fc.record(
      { gte: fc.constantFrom('2020-01-01', '2020-06-15T10:00:00Z'), lt: fc.constantFrom('2020-07-01T00:00:00Z', '2021-01-01') },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    key: anyKey,
    values_count: fc.record({ gte: fc.option(fc.nat(3), { nil: undefined }), lt: fc.option(fc.nat(3), { nil: undefined }) }, { requiredKeys: [] }),
  }),
  fc.record({
    key: keyOf('loc'),
    geo_radius: fc.record({
      center: fc.oneof(geoPoint, fc.constantFrom({ lon: 180, lat: 0 }, { lon: 0, lat: 89 }, { lon: 3, lat: 3 })),
      radius: fc.integer({ min: 0, max: 3_000_000 }),
    }),
  }),
  fc.record({
    key: keyOf('loc'),
    geo_bounding_box: fc.record({
      top_left: fc.constantFrom({ lon: 170, lat: 10 }, { lon: -10, lat: 50 }),
      bottom_right: fc.constantFrom({ lon: -170, lat: -10 }, { lon: 10, lat: -50 }),
    }),
  }),
  fc.record({
    key: keyOf('loc'),
    geo_polygon: fc.constant({
      exterior: {
        points: [
          { lon: -50, lat: -50 },
          { lon: 50, lat: -50 },
          { lon: 50, lat: 50 },
          { lon: -50, lat: 50 },
          { lon: -50, lat: -50 },
        ],
      },
      interiors: [
        {
          points: [
            { lon: -5, lat: -5 },
            { lon: 5, lat: -5 },
            { lon: 5, lat: 5 },
            { lon: -5, lat: 5 },
            { lon: -5, lat: -5 },
          ],
        },
      ],
    }),
  }),
  fc.record({ is_empty: fc.record({ key: anyKey }) }),
  fc.record({ is_null: fc.record({ key: anyKey }) }),
  fc.record({ has_id: fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 3 }) }),
);
const { filter } = fc.letrec<{ condition: Json; filter: Json }>((tie) => ({
  condition: fc.oneof({ depthSize: 'small', withCrossShrink: true }, { weight: 5, arbitrary: leaf }, { weight: 1, arbitrary: tie('filter') }),
  filter: fc.record(
    {
      must: fc.array(tie('condition'), { maxLength: 3 }),
      should: fc.array(tie('condition'), { maxLength: 3 }),
      must_not: fc.array(tie('condition'), { maxLength: 2 }),
      min_should: fc.record({ conditions: fc.array(tie('condition'), { maxLength: 3 }), min_count: fc.nat(2) }),
    },
    { requiredKeys: [] },
  ),
}));

/** One write: put (add or update) a payload under an id, or delete the id. */
const op = fc.oneof(
  fc.record({ put: fc.integer({ min: 0, max: 30 }), payload }),
  fc.record({ put: fc.integer({ min: 0, max: 30 }), payload }),
  fc.record({ del: fc.integer({ min: 0, max: 30 }) }),
);

function build(): FieldIndexes {
  const idx = new FieldIndexes();
  idx.createIndex('kw', 'keyword');
  idx.createIndex('n', 'integer');
  idx.createIndex('f', 'float');
  idx.createIndex('b', 'bool');
  idx.createIndex('t', 'datetime');
  idx.createIndex('u', 'uuid');
  idx.createIndex('txt', 'text', { tokenizer: makeTokenizer({ kind: 'word' }) });
  idx.createIndex('loc', 'geo', { cellDegrees: 10 });
  return idx;
}

function parsed(json: Json): Filter | undefined {
  try {
    return parseFilter(json);
  } catch {
    return undefined;
  }
}

describe('FieldIndexes against the reference evaluator', () => {
  it('bitmap ∩ residual is the brute-force set, and the estimate brackets it, after random writes', () => {
    // Answers with no residual and a non-empty set, so the property cannot pass by leaving everything to the check.
    let exactNonEmpty = 0;
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 10, maxLength: 50 }),
        fc.array(
          fc.oneof(
            filter,
            leaf.map((c) => ({ must: [c] })),
            leaf.map((c) => ({ must_not: [c] })),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        (ops, filters) => {
          const idx = build();
          const store = new Map<number, Payload>();
          for (const o of ops) {
            if ('del' in o) {
              idx.remove(o.del);
              store.delete(o.del);
            } else {
              idx.add(o.put, o.payload);
              store.set(o.put, o.payload);
            }
          }
          for (const json of filters) {
            const f = parsed(json);
            if (f === undefined) continue;
            const truth = compile(f, idx.compileOptions());
            const expected = [...store].filter(([id, p]) => truth({ id, payload: p })).map(([id]) => id);
            const answer = idx.query(f);
            const rest = answer.residual === undefined ? () => true : compile(answer.residual, idx.compileOptions());
            const got = [...answer.bitmap].filter((id) => rest({ id, payload: store.get(id) }));
            expect(got.sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
            if (answer.residual === undefined && expected.length > 0) exactNonEmpty++;
            for (const id of answer.bitmap) expect(store.has(id)).toBe(true);
            const e = idx.estimate(f);
            expect(e.min).toBeLessThanOrEqual(expected.length);
            expect(e.max).toBeGreaterThanOrEqual(expected.length);
            expect(e.min).toBeLessThanOrEqual(e.exp);
            expect(e.exp).toBeLessThanOrEqual(e.max);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(exactNonEmpty).toBeGreaterThan(100);
  });
});

describe('FieldIndexes', () => {
  it('answers a filter of indexed conditions with no residual, and keeps the rest to check', () => {
    const idx = build();
    idx.add(1, { kw: 'red', n: 2 });
    idx.add(2, { kw: 'blue', n: 5, x: 'y' });
    const indexed = idx.query(parseFilter({ must: [{ key: 'kw', match: { value: 'red' } }], must_not: [{ key: 'n', range: { gt: 3 } }] }));
    expect(indexed.residual).toBeUndefined();
    expect(indexed.bitmap.toArray()).toEqual([1]);
    const mixed = idx.query(
      parseFilter({
        must: [
          { key: 'n', range: { gte: 0 } },
          { key: 'x', match: { value: 'y' } },
        ],
      }),
    );
    expect(mixed.bitmap.toArray()).toEqual([1, 2]);
    expect(mixed.residual).toEqual(parseFilter({ must: [{ key: 'x', match: { value: 'y' } }] }));
  });

  it('estimates a values_count after the query by the size the query found, once, and scans again after a write', () => {
    const idx = build();
    for (let id = 0; id < 40; id++) idx.add(id, { kw: id % 4 === 0 ? ['red', 'blue'] : 'red' });
    const kw = idx.get('kw')!;
    const scans = vi.spyOn(kw, 'filter');
    const filter = parseFilter({ must: [{ key: 'kw', values_count: { gte: 2 } }] });
    expect(idx.query(filter).bitmap.size).toBe(10);
    expect(idx.estimate(filter)).toEqual({ min: 10, exp: 10, max: 10 });
    expect(scans).toHaveBeenCalledTimes(1);
    // A write makes the size stale: the estimate scans again, and sees the write.
    idx.add(1, { kw: ['red', 'green'] });
    expect(idx.estimate(filter)).toEqual({ min: 11, exp: 11, max: 11 });
    expect(scans).toHaveBeenCalledTimes(2);
    // Another filter object, equal or not, is not taken for this one.
    expect(idx.estimate(parseFilter({ must: [{ key: 'kw', values_count: { gte: 2 } }] }))).toEqual({ min: 11, exp: 11, max: 11 });
    expect(scans).toHaveBeenCalledTimes(3);
  });

  it('refuses a new index once points are indexed, unless it is given them', () => {
    const idx = build();
    idx.add(1, { y: 3 });
    expect(() => idx.createIndex('y', 'integer')).toThrow(expect.objectContaining({ code: 'STRATA_INVALID_ARGUMENT' }));
    idx.createIndex('y', 'integer', {}, [[1, { y: 3 }]]);
    expect(idx.query(parseFilter({ must: [{ key: 'y', match: { value: 3 } }] })).bitmap.toArray()).toEqual([1]);
  });

  it('refuses a second index on one key, and a text index without a tokenizer', () => {
    const idx = build();
    expect(() => idx.createIndex('kw', 'keyword')).toThrow(expect.objectContaining({ code: 'STRATA_INVALID_ARGUMENT' }));
    expect(() => idx.createIndex('z', 'text')).toThrow(expect.objectContaining({ code: 'STRATA_INVALID_ARGUMENT' }));
  });

  it('reports more bytes per index as points are added, and fewer once they are removed', () => {
    const idx = build();
    const before = idx.bytes().get('kw')!;
    for (let id = 0; id < 1000; id++) idx.add(id, { kw: `v${id % 50}`, n: id });
    const full = idx.bytes();
    expect(full.get('kw')!).toBeGreaterThan(before);
    for (let id = 0; id < 1000; id++) idx.remove(id);
    expect(idx.bytes().get('kw')!).toBeLessThan(full.get('kw')!);
    expect(idx.get('kw')?.pointsIndexed).toBe(0);
  });
});
