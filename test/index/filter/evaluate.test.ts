// The reference evaluator, condition by condition, on hand-made payloads: arrays, nested objects,
// missing fields, null and mixed types, with Qdrant's semantics (README.md's table).
import { describe, expect, it } from 'vitest';
import { compile, type FilterPoint, matches } from '../../../index/filter/evaluate.js';
import { parseFilter } from '../../../index/filter/parse.js';
import { makeTokenizer } from '../../../index/filter/tokenize.js';

const cond = (c: unknown) => parseFilter({ must: [c] });
const on = (c: unknown, payload: Record<string, unknown> | null, id: number | string = 1) => matches(cond(c), { id, payload });
/** The payloads (by name) a condition matches. */
function which(c: unknown, payloads: Record<string, Record<string, unknown>>): string[] {
  const f = compile(cond(c));
  return Object.entries(payloads)
    .filter(([, payload]) => f({ id: 1, payload }))
    .map(([name]) => name);
}

describe('clauses', () => {
  const red = { key: 'color', match: { value: 'red' } };
  const london = { key: 'city', match: { value: 'London' } };
  const pts: Record<string, Record<string, unknown>> = {
    lr: { city: 'London', color: 'red' },
    lg: { city: 'London', color: 'green' },
    br: { city: 'Berlin', color: 'red' },
    mg: { city: 'Moscow', color: 'green' },
  };
  const pick = (f: unknown) => {
    const p = compile(parseFilter(f));
    return Object.keys(pts).filter((k) => p({ id: 1, payload: pts[k] }));
  };
  it('must is and, should is or, must_not is nor', () => {
    expect(pick({ must: [london, red] })).toEqual(['lr']);
    expect(pick({ should: [london, red] })).toEqual(['lr', 'lg', 'br']);
    expect(pick({ must_not: [london, red] })).toEqual(['mg']);
    expect(pick({ must: [london], must_not: [red] })).toEqual(['lg']);
    expect(pick({ must_not: [{ must: [london, red] }] })).toEqual(['lg', 'br', 'mg']);
  });
  it('an empty filter and empty must / must_not match all; an empty should matches none (as in Qdrant)', () => {
    expect(pick({})).toEqual(Object.keys(pts));
    expect(pick({ must: [], must_not: [] })).toEqual(Object.keys(pts));
    expect(pick({ should: [] })).toEqual([]);
    expect(pick({ must: [{}] })).toEqual(Object.keys(pts));
  });
  it('min_should needs min_count of its conditions', () => {
    const conds = [london, red, { key: 'color', match: { value: 'green' } }];
    expect(pick({ min_should: { conditions: conds, min_count: 2 } })).toEqual(['lr', 'lg']);
    expect(pick({ min_should: { conditions: conds, min_count: 1 } })).toEqual(Object.keys(pts));
    expect(pick({ min_should: { conditions: conds, min_count: 3 } })).toEqual([]);
    expect(pick({ min_should: { conditions: conds, min_count: 0 } })).toEqual(Object.keys(pts));
    expect(pick({ min_should: { conditions: [], min_count: 1 } })).toEqual([]);
  });
});

describe('match value', () => {
  const pts = {
    s: { v: 'red' },
    one: { v: 1 },
    str1: { v: '1' },
    float: { v: 1.5 },
    t: { v: true },
    arr: { v: ['blue', 'red'] },
    nul: { v: null },
    none: {},
    obj: { v: { x: 'red' } },
  };
  it('matches strings, integers and bools of the same type, never coerced', () => {
    expect(which({ key: 'v', match: { value: 'red' } }, pts)).toEqual(['s', 'arr']);
    expect(which({ key: 'v', match: { value: 1 } }, pts)).toEqual(['one']);
    expect(which({ key: 'v', match: { value: '1' } }, pts)).toEqual(['str1']);
    expect(which({ key: 'v', match: { value: true } }, pts)).toEqual(['t']);
  });
  it('matches an array field when one element matches, but not through an array nested in it', () => {
    expect(on({ key: 'v', match: { value: 2 } }, { v: [1, 2, 3] })).toBe(true);
    expect(on({ key: 'v', match: { value: 2 } }, { v: [[2]] })).toBe(false);
  });
  it('reads nested objects and arrays of objects with [] ', () => {
    const p = {
      country: {
        name: 'Japan',
        cities: [
          { name: 'Tokyo', sights: ['Tower'] },
          { name: 'Osaka', sights: ['Castle'] },
        ],
      },
    };
    expect(on({ key: 'country.name', match: { value: 'Japan' } }, p)).toBe(true);
    expect(on({ key: 'country.cities[].name', match: { value: 'Osaka' } }, p)).toBe(true);
    expect(on({ key: 'country.cities[].sights', match: { value: 'Castle' } }, p)).toBe(true);
    expect(on({ key: 'country.cities[1].name', match: { value: 'Tokyo' } }, p)).toBe(false);
    expect(on({ key: 'country.cities.name', match: { value: 'Osaka' } }, p)).toBe(false);
  });
});

describe('match any / except', () => {
  const pts = {
    black: { c: 'black' },
    green: { c: 'green' },
    mixed: { c: ['black', 'green'] },
    both: { c: ['black', 'yellow'] },
    n: { c: 3 },
    f: { c: 3.5 },
    t: { c: true },
    nul: { c: null },
    empty: { c: [] },
    none: {},
  };
  it('any: one stored value in the list, of the list type', () => {
    expect(which({ key: 'c', match: { any: ['black', 'yellow'] } }, pts)).toEqual(['black', 'mixed', 'both']);
    expect(which({ key: 'c', match: { any: [3, 4] } }, pts)).toEqual(['n']);
    expect(which({ key: 'c', match: { any: [] } }, pts)).toEqual([]);
  });
  it('except: one stored value outside the list; null, [] and a missing field never match', () => {
    expect(which({ key: 'c', match: { except: ['black', 'yellow'] } }, pts)).toEqual(['green', 'mixed', 'n', 'f', 't']);
    expect(which({ key: 'c', match: { except: [3] } }, pts)).toEqual(['black', 'green', 'mixed', 'both', 'f', 't']);
  });
  it('keeps a large list fast (a set, not a scan per value)', () => {
    const big = Array.from({ length: 100_000 }, (_, i) => `k${i}`);
    const f = compile(cond({ key: 'c', match: { any: big } }));
    let hits = 0;
    for (let i = 0; i < 100_000; i++) if (f({ id: i, payload: { c: `k${i * 2}` } })) hits++;
    expect(hits).toBe(50_000);
  });
});

describe('text', () => {
  it('without a full-text index: text and phrase are substrings, text_any any whitespace word as a substring', () => {
    expect(on({ key: 'd', match: { text: 'good che' } }, { d: 'a good cheap hotel' })).toBe(true);
    expect(on({ key: 'd', match: { text: 'cheap good' } }, { d: 'a good cheap hotel' })).toBe(false);
    expect(on({ key: 'd', match: { phrase: 'cheap hotel' } }, { d: 'a good cheap hotel' })).toBe(true);
    expect(on({ key: 'd', match: { text_any: 'pricey hot' } }, { d: 'a good cheap hotel' })).toBe(true);
    expect(on({ key: 'd', match: { text_any: 'pricey' } }, { d: 'a good cheap hotel' })).toBe(false);
    expect(on({ key: 'd', match: { text: 'Good' } }, { d: 'a good cheap hotel' })).toBe(false);
    expect(on({ key: 'd', match: { text: 'good' } }, { d: ['bad', 'so good'] })).toBe(true);
  });
  it('with a tokeniser: all tokens, any token, or the tokens in a row, case-folded', () => {
    const opts = { textIndex: () => makeTokenizer({ kind: 'word' }) };
    const t = (c: unknown) => compile(cond(c), opts)({ id: 1, payload: { d: 'A good, CHEAP hotel' } });
    expect(t({ key: 'd', match: { text: 'cheap good' } })).toBe(true);
    expect(t({ key: 'd', match: { text: 'good che' } })).toBe(false);
    expect(t({ key: 'd', match: { text_any: 'pricey HOTEL' } })).toBe(true);
    expect(t({ key: 'd', match: { phrase: 'cheap hotel' } })).toBe(true);
    expect(t({ key: 'd', match: { phrase: 'hotel cheap' } })).toBe(false);
  });
});

describe('range', () => {
  const pts = { lo: { p: 99 }, at: { p: 100 }, mid: { p: 250.5 }, hi: { p: 451 }, arr: { p: [1, 300] }, str: { p: '200' }, nul: { p: null }, none: {} };
  it('compares numbers, integers and floats alike, each bound as named', () => {
    expect(which({ key: 'p', range: { gte: 100, lte: 450 } }, pts)).toEqual(['at', 'mid', 'arr']);
    expect(which({ key: 'p', range: { gt: 100, lt: 451 } }, pts)).toEqual(['mid', 'arr']);
    expect(which({ key: 'p', range: {} }, pts)).toEqual(['lo', 'at', 'mid', 'hi', 'arr']);
  });
  it('datetime ranges compare instants across zones; a payload datetime without a zone is UTC', () => {
    const dts = {
      z: { t: '2024-02-15T00:00:00Z' },
      off: { t: '2024-02-29T23:30:00-01:00' },
      naive: { t: '2024-02-01 00:00:00' },
      date: { t: '2024-01-31' },
      bad: { t: 'yesterday' },
      num: { t: 1 },
    };
    expect(which({ key: 't', range: { gte: '2024-02-01T00:00:00Z', lt: '2024-03-01T00:00:00+00:00' } }, dts)).toEqual(['z', 'naive']);
    expect(which({ key: 't', range: { lt: '2024-02-01T01:00:00+01:00' } }, dts)).toEqual(['date']);
  });
});

describe('geo', () => {
  const berlin = { lon: 13.404954, lat: 52.520008 };
  const pts = {
    berlin: { loc: berlin },
    both: { loc: [{ lon: 37.6, lat: 55.75 }, berlin] },
    moscow: { loc: { lon: 37.6, lat: 55.75 } },
    bad: { loc: { lon: '13', lat: 52 } },
    none: {},
  };
  it('radius: haversine distance strictly below the radius', () => {
    expect(which({ key: 'loc', geo_radius: { center: { lon: 13.41, lat: 52.52 }, radius: 1000 } }, pts)).toEqual(['berlin', 'both']);
    expect(which({ key: 'loc', geo_radius: { center: berlin, radius: 0 } }, pts)).toEqual([]);
  });
  it('bounding box and polygon', () => {
    expect(which({ key: 'loc', geo_bounding_box: { top_left: { lon: 13.08, lat: 52.68 }, bottom_right: { lon: 13.76, lat: 52.34 } } }, pts)).toEqual([
      'berlin',
      'both',
    ]);
    const rect = (w: number, s: number, e: number, n: number) => ({
      points: [
        { lon: w, lat: s },
        { lon: e, lat: s },
        { lon: e, lat: n },
        { lon: w, lat: n },
        { lon: w, lat: s },
      ],
    });
    expect(which({ key: 'loc', geo_polygon: { exterior: rect(0, 0, 60, 60) } }, pts)).toEqual(['berlin', 'both', 'moscow']);
    expect(which({ key: 'loc', geo_polygon: { exterior: rect(0, 0, 60, 60), interiors: [rect(10, 50, 20, 54)] } }, pts)).toEqual(['both', 'moscow']);
  });
});

describe('values_count', () => {
  const pts = { two: { c: ['a', 'b'] }, three: { c: [1, 2, 3] }, one: { c: 'x' }, empty: { c: [] }, nul: { c: null }, none: {} };
  it('counts an array by its elements, a scalar as one, null, [] and a missing field as none', () => {
    expect(which({ key: 'c', values_count: { gt: 2 } }, pts)).toEqual(['three']);
    expect(which({ key: 'c', values_count: { gte: 1, lte: 2 } }, pts)).toEqual(['two', 'one']);
    expect(which({ key: 'c', values_count: { lt: 1 } }, pts)).toEqual(['empty', 'nul', 'none']);
  });
  it('counts each value a [] path reaches on its own', () => {
    expect(on({ key: 'a[].c', values_count: { gte: 2 } }, { a: [{ c: 1 }, { c: [1, 2] }] })).toBe(true);
    expect(on({ key: 'a[].c', values_count: { gte: 3 } }, { a: [{ c: 1 }, { c: [1, 2] }] })).toBe(false);
  });
});

describe('is_empty / is_null', () => {
  const pts = {
    price: { f: 499.9 },
    parts: { f: [] },
    packaging: { f: null },
    notNull: { f: [null] },
    zero: { f: 0 },
    blank: { f: '' },
    obj: { f: {} },
    none: {},
  };
  it('is_empty: missing, null or [] (an array holding null is not empty)', () => {
    expect(which({ is_empty: { key: 'f' } }, pts)).toEqual(['parts', 'packaging', 'none']);
  });
  it('is_null: an explicit null only', () => {
    expect(which({ is_null: { key: 'f' } }, pts)).toEqual(['packaging']);
  });
  it('over a [] path: is_empty needs every value empty, is_null one null', () => {
    expect(on({ is_empty: { key: 'a[].b' } }, { a: [{ b: null }, { b: [] }] })).toBe(true);
    expect(on({ is_empty: { key: 'a[].b' } }, { a: [{ b: null }, { b: 1 }] })).toBe(false);
    expect(on({ is_null: { key: 'a[].b' } }, { a: [{ b: 1 }, { b: null }] })).toBe(true);
  });
  it('a null payload has every field empty and none null', () => {
    expect(on({ is_empty: { key: 'f' } }, null)).toBe(true);
    expect(on({ is_null: { key: 'f' } }, null)).toBe(false);
  });
});

describe('has_id / has_vector', () => {
  it('has_id matches integer ids and UUIDs however they were spelled', () => {
    const f = compile(cond({ has_id: [1, 3, 'A0EEBC999C0B4EF8BB6D6BB9BD380A11'] }));
    expect([1, 2, 3].filter((id) => f({ id, payload: {} }))).toEqual([1, 3]);
    expect(f({ id: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' })).toBe(true);
    expect(f({ id: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12' })).toBe(false);
  });
  it('has_vector asks the point, and a point that cannot say has none', () => {
    const f = compile(cond({ has_vector: 'image' }));
    const point = (names: string[]): FilterPoint => ({ id: 1, hasVector: (n) => names.includes(n) });
    expect(f(point(['image', '']))).toBe(true);
    expect(f(point(['']))).toBe(false);
    expect(f({ id: 1 })).toBe(false);
  });
});

describe('nested', () => {
  const trex = {
    diet: [
      { food: 'leaves', likes: false },
      { food: 'meat', likes: true },
    ],
  };
  const diplo = {
    diet: [
      { food: 'leaves', likes: true },
      { food: 'meat', likes: false },
    ],
  };
  const meatLiked = [
    { key: 'food', match: { value: 'meat' } },
    { key: 'likes', match: { value: true } },
  ];
  it('holds the inner filter on one element as a whole, where flat conditions mix elements', () => {
    const flat = {
      must: [
        { key: 'diet[].food', match: { value: 'meat' } },
        { key: 'diet[].likes', match: { value: true } },
      ],
    };
    expect([trex, diplo].map((payload) => matches(parseFilter(flat), { id: 1, payload }))).toEqual([true, true]);
    const nested = (key: string) => cond({ nested: { key, filter: { must: meatLiked } } });
    for (const key of ['diet', 'diet[]']) expect([trex, diplo].map((payload) => matches(nested(key), { id: 1, payload }))).toEqual([true, false]);
  });
  it('skips elements that are not objects, and matches nothing on a missing or scalar field', () => {
    const f = cond({ nested: { key: 'diet', filter: { must_not: [{ key: 'food', match: { value: 'meat' } }] } } });
    expect(matches(f, { id: 1, payload: { diet: [1, 'x', null] } })).toBe(false);
    expect(matches(f, { id: 1, payload: { diet: [1, { food: 'fish' }] } })).toBe(true);
    expect(matches(f, { id: 1, payload: { diet: { food: 'fish' } } })).toBe(false);
    expect(matches(f, { id: 1, payload: {} })).toBe(false);
  });
  it('nests inside nested', () => {
    const f = cond({
      nested: {
        key: 'a',
        filter: {
          must: [
            {
              nested: {
                key: 'b',
                filter: {
                  must: [
                    { key: 'x', match: { value: 1 } },
                    { key: 'y', match: { value: 2 } },
                  ],
                },
              },
            },
          ],
        },
      },
    });
    const mixed = {
      b: [
        { x: 1, y: 1 },
        { x: 2, y: 2 },
      ],
    };
    expect(matches(f, { id: 1, payload: { a: [mixed, { b: [{ x: 1, y: 2 }] }] } })).toBe(true);
    expect(matches(f, { id: 1, payload: { a: [mixed] } })).toBe(false);
  });
});
