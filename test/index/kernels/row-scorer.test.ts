import { describe, expect, it } from 'vitest';
import { RowScorer, shareRows } from '../../../index/kernels/row-scorer.js';
import { isStrataError } from '../../../common/errors.js';

const rows = (n: number, dim: number): Float32Array => Float32Array.from({ length: n * dim }, (_, i) => Math.sin(i * 0.37) + (i % 7) / 10);

describe('RowScorer over shared rows', () => {
  it('scores picked rows as a scorer over its own copy does, each thread in its own scratch', () => {
    const dim = 20;
    const data = rows(300, dim);
    const own = new RowScorer(data, dim, 16);
    const shared = shareRows(data, dim, 16, 2);
    const a = new RowScorer({ shared, thread: 0 }, dim, 16);
    const b = new RowScorer({ shared, thread: 1 }, dim, 16);
    const ids = [5, 17, 299, 0, 123];
    const want = Array.from(own.scoreRows(42, ids, ids.length, 'l2'));
    const fromA = Array.from(a.scoreRows(42, ids, ids.length, 'l2'));
    // b's call must not overwrite a's answer: each thread has its own scratch
    const fromB = Array.from(b.scoreRows(7, ids, ids.length, 'ip'));
    expect(fromA).toEqual(want);
    expect(Array.from(a.scoreRows(42, ids, ids.length, 'l2'))).toEqual(want);
    expect(fromB).toEqual(Array.from(own.scoreRows(7, ids, ids.length, 'ip')));
  });

  it('refuses a slot the shared rows have no room for, and score() over shared rows', () => {
    const shared = shareRows(rows(10, 4), 4, 8, 2);
    for (const make of [
      () => new RowScorer({ shared, thread: 2 }, 4, 8),
      () => new RowScorer({ shared, thread: 0 }, 4, 9),
      () => new RowScorer({ shared, thread: 0 }, 5, 8),
    ]) {
      let err: unknown = null;
      try {
        make();
      } catch (e) {
        err = e;
      }
      expect(isStrataError(err, 'STRATA_INVALID_ARGUMENT')).toBe(true);
    }
    expect(() => new RowScorer({ shared, thread: 1 }, 4, 8).score([1, 2, 3, 4], 'l2')).toThrow(/private copy/);
  });
});
