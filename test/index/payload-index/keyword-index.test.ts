// Keyword and uuid indexes: what they answer, and what they must leave to the per-point check.
import { describe, expect, it } from 'vitest';
import { parseKeyPath } from '../../../index/filter/key-path.js';
import { bitmapOf } from '../../../index/payload-index/bitmap.js';
import { KeywordIndex } from '../../../index/payload-index/keyword-index.js';
import { UuidIndex } from '../../../index/payload-index/uuid-index.js';

const key = parseKeyPath('k', 'key');
const U = '0b7f4c4e-6a5d-4c3b-9a1e-2f3d4c5b6a79';

function keywords(): { index: KeywordIndex; all: ReturnType<typeof bitmapOf> } {
  const index = new KeywordIndex();
  index.add(0, ['red']);
  index.add(1, [['red', 'blue']]);
  index.add(2, [7]);
  index.add(3, [null]);
  index.add(4, [[]]);
  return { index, all: bitmapOf([0, 1, 2, 3, 4, 5]) };
}

describe('KeywordIndex', () => {
  it('answers match value and any from its postings, array elements included', () => {
    const { index, all } = keywords();
    expect(index.filter({ kind: 'match_value', key, value: 'red' }, { all })?.toArray()).toEqual([0, 1]);
    expect(index.filter({ kind: 'match_any', key, any: { type: 'strings', values: ['blue', 'green'] } }, { all })?.toArray()).toEqual([1]);
  });

  it('passes values of another type through match except, never null or a missing field', () => {
    const { index, all } = keywords();
    expect(index.filter({ kind: 'match_except', key, except: { type: 'strings', values: ['red'] } }, { all })?.toArray()).toEqual([1, 2]);
  });

  it('leaves integer values and lists, and text matching, to the check', () => {
    const { index, all } = keywords();
    expect(index.filter({ kind: 'match_value', key, value: 7 }, { all })).toBeNull();
    expect(index.filter({ kind: 'match_any', key, any: { type: 'integers', values: [7] } }, { all })).toBeNull();
    expect(index.filter({ kind: 'match_text', key, text: 're' }, { all })).toBeNull();
  });

  it('answers the shape conditions from its per-point counts', () => {
    const { index, all } = keywords();
    expect(index.filter({ kind: 'is_null', key }, { all })?.toArray()).toEqual([3]);
    expect(index.filter({ kind: 'is_empty', key }, { all })?.toArray()).toEqual([3, 4, 5]);
    expect(index.filter({ kind: 'values_count', key, count: { gte: 2 } }, { all })?.toArray()).toEqual([1]);
    expect(index.filter({ kind: 'values_count', key, count: { lt: 1 } }, { all })?.toArray()).toEqual([3, 4, 5]);
  });

  it('forgets a removed point and reindexes an updated one', () => {
    const { index, all } = keywords();
    index.remove(0);
    index.add(1, ['green']);
    expect(index.filter({ kind: 'match_value', key, value: 'red' }, { all })?.toArray()).toEqual([]);
    expect(index.filter({ kind: 'match_value', key, value: 'green' }, { all })?.toArray()).toEqual([1]);
    expect(index.pointsIndexed).toBe(1);
  });
});

describe('UuidIndex', () => {
  it('answers UUID queries and leaves a query for any other string to the check', () => {
    const index = new UuidIndex();
    index.add(0, [U]);
    index.add(1, ['not-a-uuid']);
    const all = bitmapOf([0, 1]);
    expect(index.filter({ kind: 'match_value', key, value: U }, { all })?.toArray()).toEqual([0]);
    expect(index.filter({ kind: 'match_value', key, value: 'not-a-uuid' }, { all })).toBeNull();
    expect(index.filter({ kind: 'match_except', key, except: { type: 'strings', values: [U] } }, { all })?.toArray()).toEqual([1]);
  });
});
