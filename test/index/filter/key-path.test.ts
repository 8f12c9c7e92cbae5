// Key paths as Qdrant spells and reads them: dots, [] over every element, [i] for one, quoted keys;
// a key step never reads through an array; the leaf value comes back whole (an array included).
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../common/errors.js';
import { arrayPath, parseKeyPath, valuesAt } from '../../../index/filter/key-path.js';

const path = (s: string) => parseKeyPath(s, 'k');

describe('parseKeyPath', () => {
  it('reads keys, [] and [i] steps, and quoted keys, and spells the path canonically', () => {
    const p = path('a.b-c_1[].d[2]."x.y z"');
    expect(p.steps).toEqual([
      { kind: 'key', name: 'a' },
      { kind: 'key', name: 'b-c_1' },
      { kind: 'each' },
      { kind: 'key', name: 'd' },
      { kind: 'index', index: 2 },
      { kind: 'key', name: 'x.y z' },
    ]);
    expect(p.text).toBe('a.b-c_1[].d[2]."x.y z"');
    expect(path('"plain".b').text).toBe('plain.b');
    expect(path('città.名前').steps).toEqual([
      { kind: 'key', name: 'città' },
      { kind: 'key', name: '名前' },
    ]);
  });

  it.each(['', '.a', 'a.', 'a..b', 'a[', 'a[x]', 'a[-1]', 'a b', '"a', 'a.[]', '[]'])('refuses %j, naming the field', (bad) => {
    try {
      path(bad);
      expect.unreachable();
    } catch (e) {
      expect(isStrataError(e, 'STRATA_INVALID_ARGUMENT')).toBe(true);
      expect((e as Error).message.startsWith('k: ')).toBe(true);
    }
  });

  it('arrayPath appends [] unless the path ends with it', () => {
    expect(arrayPath(path('diet')).text).toBe('diet[]');
    expect(arrayPath(path('diet[]')).text).toBe('diet[]');
  });
});

describe('valuesAt', () => {
  const doc = {
    a: { b: [{ c: 1 }, { c: 2 }, { d: { e: 3 } }] },
    arr: [{ x: [1, 2, 3] }, { x: 4 }, { y: 5 }],
    g: ['g0', 'g1'],
    n: null,
  };
  it('reads nested keys and returns a leaf array whole', () => {
    expect(valuesAt(doc, path('a.b[].c'))).toEqual([1, 2]);
    expect(valuesAt(doc, path('arr[].x'))).toEqual([[1, 2, 3], 4]);
    expect(valuesAt(doc, path('arr[].x[]'))).toEqual([1, 2, 3]);
    expect(valuesAt(doc, path('g'))).toEqual([['g0', 'g1']]);
    expect(valuesAt(doc, path('g[1]'))).toEqual(['g1']);
    expect(valuesAt(doc, path('n'))).toEqual([null]);
  });
  it('reads nothing through an array without [], past an index, or at a missing key', () => {
    expect(valuesAt(doc, path('a.b.c'))).toEqual([]);
    expect(valuesAt(doc, path('g[5]'))).toEqual([]);
    expect(valuesAt(doc, path('missing.x'))).toEqual([]);
    expect(valuesAt(null, path('a'))).toEqual([]);
  });
  it('never reads an inherited member', () => {
    expect(valuesAt({}, path('constructor'))).toEqual([]);
    expect(valuesAt({ a: {} }, path('a.toString'))).toEqual([]);
  });
});
