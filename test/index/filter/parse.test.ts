// Qdrant's filter JSON → the typed filter: the forms Qdrant takes (one condition or a list per
// clause, null as absent, a filter as a condition), and every bad input refused with
// STRATA_INVALID_ARGUMENT naming the full path of the field at fault.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../common/errors.js';
import { FILTER_LIMITS } from '../../../index/filter/limits.js';
import { parseFilter } from '../../../index/filter/parse.js';

const must = (c: unknown) => ({ must: [{ key: 'ok', match: { value: 1 } }, { key: 'ok', match: { value: 2 } }, c] });

function refusal(json: unknown): string {
  try {
    parseFilter(json);
  } catch (e) {
    expect(isStrataError(e, 'STRATA_INVALID_ARGUMENT')).toBe(true);
    return (e as Error).message;
  }
  throw new Error('parsed, but should have been refused');
}

describe('parseFilter accepts', () => {
  it('one bare condition or a list per clause, and null as absent', () => {
    const one = parseFilter({ must: { key: 'a', match: { value: 'x' } }, should: null });
    expect(one.must).toHaveLength(1);
    expect(one.should).toBeUndefined();
    expect(parseFilter({ must: [], must_not: [] })).toEqual({ must: [], must_not: [] });
    expect(parseFilter({})).toEqual({});
  });

  it('a numeric range and a datetime range, decided by the bounds, with null bounds absent', () => {
    const f = parseFilter({
      must: [
        { key: 'price', range: { gt: null, gte: 100.5, lt: null, lte: 450 } },
        { key: 'at', range: { gte: '2024-01-01T00:00:00Z', lt: '2024-02-01' } },
      ],
    });
    expect(f.must![0]).toMatchObject({ kind: 'range', range: { gte: 100.5, lte: 450 } });
    expect(f.must![0]).not.toHaveProperty('range.gt');
    expect(f.must![1]).toMatchObject({ kind: 'datetime_range', range: { gte: '2024-01-01T00:00:00Z', lt: '2024-02-01' } });
  });

  it('keyword lists as sets, UUID ids in canonical form, filters and nested filters as conditions', () => {
    const f = parseFilter({
      should: [
        { key: 'c', match: { any: ['a', 'b', 'a'] } },
        { key: 'n', match: { except: [3, 1, 3] } },
        { has_id: [7, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'a0eebc999c0b4ef8bb6d6bb9bd380a12'] },
        { must_not: [{ is_null: { key: 'x' } }] },
        { nested: { key: 'diet', filter: { must: [{ key: 'food', match: { value: 'meat' } }] } } },
        {},
      ],
      min_should: { conditions: [{ has_vector: '' }], min_count: 1 },
    });
    expect(f.should!.map((c) => c.kind)).toEqual(['match_any', 'match_except', 'has_id', 'filter', 'nested', 'filter']);
    expect(f.should![0]).toMatchObject({ any: { type: 'strings', values: ['a', 'b'] } });
    expect(f.should![1]).toMatchObject({ except: { type: 'integers', values: [3, 1] } });
    expect(f.should![2]).toMatchObject({ ids: [7, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'] });
    expect(f.min_should).toMatchObject({ min_count: 1, conditions: [{ kind: 'has_vector', vector: '' }] });
  });

  it('an empty keyword list as strings (Qdrant reads [] as its first list type)', () => {
    expect(parseFilter({ must: { key: 'a', match: { any: [] } } }).must![0]).toMatchObject({ any: { type: 'strings', values: [] } });
  });
});

const polygon = (pts: [number, number][]) => must({ key: 'a', geo_polygon: { exterior: { points: pts.map(([lon, lat]) => ({ lon, lat })) } } });
const deep = (n: number): unknown => (n === 0 ? { key: 'a', match: { value: 1 } } : { must: [deep(n - 1)] });

describe('parseFilter refuses, naming the path', () => {
  const cases: [string, unknown, string][] = [
    ['a filter that is not an object', [], 'filter: must be an object, got an array of 0'],
    ['an unknown clause', { maybe: [] }, 'filter.maybe: unknown field'],
    ['a clause of the wrong type', { must: 5 }, 'filter.must: must be a condition or an array of conditions, got 5'],
    [
      'a datetime bound that is not one',
      must({ key: 'a', range: { gte: 'abc' } }),
      'filter.must[2].range.gte: must be a number or an RFC 3339 datetime, got "abc"',
    ],
    ['mixed range bounds', must({ key: 'a', range: { gte: 1, lt: '2024-01-01' } }), 'filter.must[2].range: bounds must be all numbers or all datetimes'],
    ['an unknown range bound', must({ key: 'a', range: { eq: 1 } }), 'filter.must[2].range.eq: unknown field'],
    ['a condition that is no condition', must({ color: 'red' }), 'filter.must[2].color: unknown field: a condition is'],
    ['an unknown member of a field condition', must({ key: 'a', match: { value: 1 }, boost: 2 }), 'filter.must[2].boost: unknown field'],
    ['a field condition with no test', must({ key: 'a' }), 'filter.must[2]: a field condition takes exactly one of'],
    ['a field condition with two tests', must({ key: 'a', match: { value: 1 }, range: { gt: 0 } }), 'got "match" and "range"'],
    ['the field-level is_empty form', must({ key: 'a', is_empty: true }), 'filter.must[2].is_empty: the field-level form is not supported'],
    ['a key that is not a string', must({ key: 5, match: { value: 1 } }), 'filter.must[2].key: must be a string, got 5'],
    ['a malformed key path', must({ key: 'a..b', match: { value: 1 } }), 'filter.must[2].key: expected a key'],
    ['a float match value', must({ key: 'a', match: { value: 1.5 } }), 'filter.must[2].match.value: must be a string, an integer or a boolean'],
    ['a null match value', must({ key: 'a', match: { value: null } }), 'filter.must[2].match: takes exactly one of'],
    ['two match kinds', must({ key: 'a', match: { value: 1, text: 'x' } }), 'filter.must[2].match: takes exactly one of'],
    ['an unknown match kind', must({ key: 'a', match: { keyword: 'x' } }), 'filter.must[2].match.keyword: unknown field'],
    ['a mixed keyword list', must({ key: 'a', match: { any: ['x', 2] } }), 'filter.must[2].match.any[1]: must be a string like the first value'],
    ['a float in an integer list', must({ key: 'a', match: { except: [1, 2.5] } }), 'filter.must[2].match.except[1]: must be an integer'],
    ['a keyword list that is no list', must({ key: 'a', match: { any: 'x' } }), 'filter.must[2].match.any: must be an array, got "x"'],
    ['text that is no string', must({ key: 'a', match: { text: 3 } }), 'filter.must[2].match.text: must be a string'],
    [
      'a latitude out of range',
      must({ key: 'a', geo_radius: { center: { lon: 0, lat: 91 }, radius: 1 } }),
      'filter.must[2].geo_radius.center.lat: must be within [-90, 90], got 91',
    ],
    [
      'a missing longitude',
      must({ key: 'a', geo_bounding_box: { top_left: { lat: 1 }, bottom_right: { lon: 1, lat: 0 } } }),
      'filter.must[2].geo_bounding_box.top_left.lon: must be a number, got nothing',
    ],
    ['a negative radius', must({ key: 'a', geo_radius: { center: { lon: 0, lat: 0 }, radius: -1 } }), 'filter.must[2].geo_radius.radius: must be a distance'],
    [
      'a short ring',
      polygon([
        [0, 0],
        [1, 0],
        [0, 0],
      ]),
      'filter.must[2].geo_polygon.exterior.points: a ring needs at least 4 points',
    ],
    [
      'an open ring',
      polygon([
        [0, 0],
        [1, 0],
        [1, 1],
        [0, 1],
      ]),
      'filter.must[2].geo_polygon.exterior.points: the last point must equal the first',
    ],
    [
      'a bad hole point',
      must({ key: 'a', geo_polygon: { exterior: { points: [] }, interiors: [] } }),
      'filter.must[2].geo_polygon.exterior.points: a ring needs at least 4 points',
    ],
    ['a negative values count', must({ key: 'a', values_count: { gt: -1 } }), 'filter.must[2].values_count.gt: must be a non-negative integer, got -1'],
    ['is_empty without a key', must({ is_empty: {} }), 'filter.must[2].is_empty.key: must be a string, got nothing'],
    ['is_null with more', must({ is_null: { key: 'a', strict: true } }), 'filter.must[2].is_null.strict: unknown field'],
    ['a bad point id', must({ has_id: [1, -2] }), 'filter.must[2].has_id[1]: must be an unsigned integer or a UUID, got -2'],
    ['a has_id that is no list', must({ has_id: 1 }), 'filter.must[2].has_id: must be an array, got 1'],
    [
      'has_id inside nested',
      must({ nested: { key: 'd', filter: { must: [{ has_id: [1] }] } } }),
      'filter.must[2].nested.filter.must[0].has_id: is not supported inside "nested"',
    ],
    ['a nested condition without a filter', must({ nested: { key: 'd' } }), 'filter.must[2].nested.filter: must be an object, got nothing'],
    [
      'a bad condition deep in a nested filter',
      must({ nested: { key: 'd', filter: { should: [{ key: 'x', range: { lt: true } }] } } }),
      'filter.must[2].nested.filter.should[0].range.lt',
    ],
    ['min_should without min_count', { min_should: { conditions: [] } }, 'filter.min_should.min_count: must be a non-negative integer, got nothing'],
    [
      'min_should conditions that are no list',
      { min_should: { conditions: {}, min_count: 1 } },
      'filter.min_should.conditions: must be an array of conditions',
    ],
    [
      'a bad min_should condition',
      { min_should: { conditions: [{ key: 'a' }], min_count: 1 } },
      'filter.min_should.conditions[0]: a field condition takes exactly one of',
    ],
    ['has_vector that is no string', must({ has_vector: 1 }), 'filter.must[2].has_vector: must be a string, got 1'],
    ['a filter nested too deep', deep(FILTER_LIMITS.maxDepth + 1), `filters nest at most ${FILTER_LIMITS.maxDepth} deep`],
  ];
  it.each(cases)('%s', (_, json, message) => {
    expect(refusal(json)).toContain(message);
  });

  it('accepts a filter exactly as deep as the limit', () => {
    expect(() => parseFilter(deep(FILTER_LIMITS.maxDepth))).not.toThrow();
  });

  it('refuses a keyword list past the limit and a filter with too many conditions', () => {
    const many = Array.from({ length: FILTER_LIMITS.maxListLength + 1 }, (_, i) => i);
    expect(refusal(must({ key: 'a', match: { any: many } }))).toContain(`filter.must[2].match.any: holds at most ${FILTER_LIMITS.maxListLength} values`);
    const conds = Array.from({ length: FILTER_LIMITS.maxConditions + 1 }, () => ({ has_vector: '' }));
    expect(refusal({ should: conds })).toContain(`a filter holds at most ${FILTER_LIMITS.maxConditions} conditions`);
  });
});
