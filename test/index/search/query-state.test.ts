import { describe, expect, it } from 'vitest';
import { QueryState } from '../../../index/search/query-state.js';

/** A seeded stream of distances with many repeats (ties are where a k-th goes wrong). */
function stream(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s % 97) / 7;
  });
}

describe('re-rank k-best (QueryState.offerBest / kthBest)', () => {
  it('reads the k-th smallest exact distance so far after every offer, +∞ until k have come, for k from 1 to the thousands', () => {
    const st = new QueryState(8, 0);
    for (const k of [1, 2, 10, 33, 200, 1500]) {
      const xs = stream(3 * k + 17, k);
      st.resetBest(k);
      const seen: number[] = [];
      for (const x of xs) {
        st.offerBest(x, k);
        seen.push(x);
        const want = seen.length < k ? Number.POSITIVE_INFINITY : [...seen].sort((a, b) => a - b)[k - 1];
        expect(st.kthBest(k)).toBe(want);
      }
    }
  });

  it('starts empty again after resetBest', () => {
    const st = new QueryState(8, 0);
    st.resetBest(3);
    for (const x of [5, 4, 3, 2, 1]) st.offerBest(x, 3);
    expect(st.kthBest(3)).toBe(3);
    st.resetBest(3);
    st.offerBest(9, 3);
    expect(st.kthBest(3)).toBe(Number.POSITIVE_INFINITY);
  });
});
