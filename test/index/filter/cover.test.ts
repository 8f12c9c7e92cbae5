import { describe, expect, it } from 'vitest';
import { coverOf } from '../../../index/filter/cover.js';
import { parseFilter } from '../../../index/filter/parse.js';
import { filterToJson } from '../../../index/filter/to-json.js';

/** The cover as `key=value` strings, or null. */
function cover(json: unknown): string[] | null {
  const c = coverOf(parseFilter(json));
  return c === null ? null : c.map((m) => `${JSON.stringify(filterToJson({ must: [m] }).must)}`);
}

const tag = (v: string | number, key = 'tag') => ({ key, match: { value: v } });
const leaf = (v: string | number, key = 'tag') => JSON.stringify([{ key, match: { value: v } }]);

describe('a filter cover (the value matches holding every point the filter matches)', () => {
  it('is the value of a match, each value of a match any, and the smallest covering must condition', () => {
    expect(cover({ must: [tag('a')] })).toEqual([leaf('a')]);
    expect(cover({ must: [{ key: 'tag', match: { any: ['a', 'b'] } }] })).toEqual([leaf('a'), leaf('b')]);
    expect(cover({ must: [{ key: 'n', match: { any: [1, 2, 3] } }, tag(7, 'k'), { key: 'len', range: { gte: 6 } }] })).toEqual([leaf(7, 'k')]);
    // A must that no value covers is passed over for one that is.
    expect(cover({ must: [{ key: 'len', range: { gte: 6 } }, tag('x')], must_not: [tag('y')] })).toEqual([leaf('x')]);
  });

  it("is every should condition's values when no must covers, and a nested filter's cover", () => {
    expect(cover({ should: [tag('a'), tag('b', 'first')] })).toEqual([leaf('a'), leaf('b', 'first')]);
    expect(cover({ must: [{ should: [tag('a'), { must: [tag('b'), { key: 'len', range: { lt: 3 } }] }] }] })).toEqual([leaf('a'), leaf('b')]);
    expect(cover({ min_should: { conditions: [tag('a'), tag('b')], min_count: 2 } })).toEqual([leaf('a'), leaf('b')]);
    // A match needs the must and one should: the shoulds cover it where the must does not.
    expect(cover({ must: [{ key: 'len', range: { gte: 6 } }], should: [tag('a')] })).toEqual([leaf('a')]);
  });

  it('is none where some match may hold no covering value', () => {
    // One should condition without values: its matches lie anywhere.
    expect(cover({ should: [tag('a'), { key: 'len', range: { gte: 6 } }] })).toBeNull();
    expect(cover({ must_not: [tag('a')] })).toBeNull();
    expect(cover({ must: [{ key: 'flag', match: { value: true } }] })).toBeNull();
    expect(cover({ must: [{ key: 'tag', match: { except: ['a'] } }] })).toBeNull();
    expect(cover({ must: [{ has_id: [1, 2] }] })).toBeNull();
    expect(cover({})).toBeNull();
  });
});
