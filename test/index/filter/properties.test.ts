// Laws the evaluator must keep on random filters and payloads (fast-check): the clauses are boolean
// algebra (must_not is not, should is or, De Morgan, min_should between should and must), match.any is
// a should of match.value, a bare condition is a one-condition list, and writing a filter back to JSON
// parses to the same filter.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../../../index/filter/evaluate.js';
import { parseFilter } from '../../../index/filter/parse.js';
import { filterToJson } from '../../../index/filter/to-json.js';

type Json = unknown;

const KEYS = ['a', 'b', 'n[].x', 'n[0].x', 'loc', 't'] as const;
const WORDS = ['red', 'green', 'blue'] as const;

const scalar = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
  fc.constant(null),
  fc.double({ min: -3, max: 3, noNaN: true }),
);
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }));
const payload = fc.record(
  {
    a: value,
    b: value,
    n: fc.array(fc.record({ x: value, y: value }, { requiredKeys: [] }), { maxLength: 3 }),
    loc: fc.record({ lon: fc.double({ min: -10, max: 10, noNaN: true }), lat: fc.double({ min: -10, max: 10, noNaN: true }) }),
    t: fc.date({ min: new Date('2020-01-01'), max: new Date('2021-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  },
  { requiredKeys: [] },
);
const point = fc.record({ id: fc.integer({ min: 0, max: 5 }), payload });

const key = fc.constantFrom(...KEYS);
const bound = fc.option(fc.integer({ min: -3, max: 3 }), { nil: undefined });
const leaf: fc.Arbitrary<Json> = fc.oneof(
  fc.record({ key, match: fc.oneof(fc.record({ value: fc.oneof(fc.constantFrom(...WORDS), fc.integer({ min: -3, max: 3 }), fc.boolean()) })) }),
  fc.record({ key, match: fc.record({ any: fc.oneof(fc.array(fc.constantFrom(...WORDS)), fc.array(fc.integer({ min: -3, max: 3 }))) }) }),
  fc.record({ key, match: fc.record({ except: fc.oneof(fc.array(fc.constantFrom(...WORDS)), fc.array(fc.integer({ min: -3, max: 3 }))) }) }),
  fc.record({ key, match: fc.record({ text: fc.constantFrom('re', 'ee', 'blue') }) }),
  fc.record({ key, range: fc.record({ gt: bound, lte: bound }, { requiredKeys: [] }) }),
  fc.record({ key, values_count: fc.record({ gte: fc.option(fc.nat(3), { nil: undefined }) }, { requiredKeys: [] }) }),
  fc.record({ key: fc.constant('t'), range: fc.record({ gte: fc.constant('2020-06-01T00:00:00Z'), lt: fc.constant('2020-09-01T02:00:00+02:00') }) }),
  fc.record({ key: fc.constant('loc'), geo_radius: fc.record({ center: fc.constant({ lon: 0, lat: 0 }), radius: fc.integer({ min: 0, max: 1_000_000 }) }) }),
  fc.record({ is_empty: fc.record({ key }) }),
  fc.record({ is_null: fc.record({ key }) }),
  fc.record({ has_id: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }) }),
);
const { condition } = fc.letrec<{ condition: Json; filter: Json }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('filter'),
    fc.record({ nested: fc.record({ key: fc.constant('n'), filter: tie('filter') }) }),
  ),
  filter: fc.record(
    {
      must: fc.array(tie('condition'), { maxLength: 3 }),
      should: fc.array(tie('condition'), { maxLength: 3 }),
      must_not: fc.array(tie('condition'), { maxLength: 3 }),
      min_should: fc.record({ conditions: fc.array(tie('condition'), { maxLength: 3 }), min_count: fc.nat(2) }),
    },
    { requiredKeys: [] },
  ),
}));

/** A filter given as JSON, evaluated; undefined when it is refused (a generated has_id inside nested), which the laws skip. */
function evaluate(filter: Json, p: { id: number; payload: Record<string, unknown> }): boolean | undefined {
  try {
    return compile(parseFilter(filter))(p);
  } catch {
    return undefined;
  }
}

const RUNS = { numRuns: 200 };

describe('filter laws', () => {
  it('must_not: [f] is not f', () => {
    fc.assert(
      fc.property(condition, point, (c, p) => {
        const f = evaluate({ must: [c] }, p);
        fc.pre(f !== undefined);
        expect(evaluate({ must_not: [c] }, p)).toBe(!f);
      }),
      RUNS,
    );
  });

  it('should: [a, b] is a or b, and must: [a, b] is a and b', () => {
    fc.assert(
      fc.property(condition, condition, point, (a, b, p) => {
        const [x, y] = [evaluate({ must: [a] }, p), evaluate({ must: [b] }, p)];
        fc.pre(x !== undefined && y !== undefined);
        expect(evaluate({ should: [a, b] }, p)).toBe(x || y);
        expect(evaluate({ must: [a, b] }, p)).toBe(x && y);
      }),
      RUNS,
    );
  });

  it('De Morgan: not (a or b) is (not a) and (not b); not (a and b) is (not a) or (not b)', () => {
    fc.assert(
      fc.property(condition, condition, point, (a, b, p) => {
        const notOr = evaluate({ must_not: [{ should: [a, b] }] }, p);
        fc.pre(notOr !== undefined);
        expect(evaluate({ must: [{ must_not: [a] }, { must_not: [b] }] }, p)).toBe(notOr);
        expect(evaluate({ must_not: [{ must: [a, b] }] }, p)).toBe(evaluate({ should: [{ must_not: [a] }, { must_not: [b] }] }, p));
      }),
      RUNS,
    );
  });

  it('min_should with min_count 1 is should, with every condition counted is must', () => {
    fc.assert(
      fc.property(fc.array(condition, { minLength: 1, maxLength: 4 }), point, (cs, p) => {
        const should = evaluate({ should: cs }, p);
        fc.pre(should !== undefined);
        expect(evaluate({ min_should: { conditions: cs, min_count: 1 } }, p)).toBe(should);
        expect(evaluate({ min_should: { conditions: cs, min_count: cs.length } }, p)).toBe(evaluate({ must: cs }, p));
      }),
      RUNS,
    );
  });

  it('match.any is a should of match.value over the list', () => {
    fc.assert(
      fc.property(
        key,
        fc.oneof(fc.array(fc.constantFrom(...WORDS), { minLength: 1 }), fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1 })),
        point,
        (k, list, p) => {
          expect(evaluate({ must: [{ key: k, match: { any: list } }] }, p)).toBe(evaluate({ should: list.map((v) => ({ key: k, match: { value: v } })) }, p));
        },
      ),
      RUNS,
    );
  });

  it('a bare condition is the same as a list of one', () => {
    fc.assert(
      fc.property(condition, point, (c, p) => {
        expect(evaluate({ must: c }, p)).toBe(evaluate({ must: [c] }, p));
      }),
      RUNS,
    );
  });

  it('a filter written back to JSON parses to the same filter', () => {
    fc.assert(
      fc.property(condition, (c) => {
        let f: ReturnType<typeof parseFilter>;
        try {
          f = parseFilter({ should: [c], must: c });
        } catch {
          fc.pre(false);
          return;
        }
        expect(parseFilter(JSON.parse(JSON.stringify(filterToJson(f))))).toEqual(f);
      }),
      RUNS,
    );
  });
});
