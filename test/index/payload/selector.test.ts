// with_payload selectors over the store: all, none, include and exclude by plain key paths.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../common/errors.js';
import { selectPayload } from '../../../index/payload/selector.js';
import { PayloadStore } from '../../../index/payload/store.js';

const store = new PayloadStore();
store.set(0, { a: { b: 1, c: 2 }, d: 'x', e: [1, 2] });

describe('selectPayload', () => {
  it('gives the whole payload for true and none for false', () => {
    expect(selectPayload(store, 0, true)).toEqual({ a: { b: 1, c: 2 }, d: 'x', e: [1, 2] });
    expect(selectPayload(store, 0, false)).toBeNull();
  });

  it('include keeps only the listed paths, nested ones under their keys', () => {
    expect(selectPayload(store, 0, ['a.b', 'e', 'missing'])).toEqual({ a: { b: 1 }, e: [1, 2] });
    expect(selectPayload(store, 0, { include: ['a.b', 'a'] })).toEqual({ a: { b: 1, c: 2 } });
  });

  it('exclude drops the listed paths and keeps the rest', () => {
    expect(selectPayload(store, 0, { exclude: ['a.c', 'd', 'a.zz.y'] })).toEqual({ a: { b: 1 }, e: [1, 2] });
  });

  it('refuses a path with an array step with STRATA_INVALID_ARGUMENT', () => {
    let err: unknown;
    try {
      selectPayload(store, 0, { include: ['e[0]'] });
    } catch (e) {
      err = e;
    }
    expect(isStrataError(err, 'STRATA_INVALID_ARGUMENT')).toBe(true);
  });
});
