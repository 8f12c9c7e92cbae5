import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECKPOINTS, RangePrefix } from '../../../index/payload-index/range-prefix.js';

/** A permutation of rows in value order, each row's node (a permutation too, some rows at -1), and a range. */
const state = fc.integer({ min: 1, max: 600 }).chain((n) =>
  fc.record({
    order: fc.shuffledSubarray(
      Array.from({ length: n }, (_, i) => i),
      { minLength: n, maxLength: n },
    ),
    nodes: fc.shuffledSubarray(
      Array.from({ length: n }, (_, i) => i),
      { minLength: n, maxLength: n },
    ),
    fresh: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    from: fc.integer({ min: 0, max: n }),
    to: fc.integer({ min: 0, max: n }),
  }),
);

describe('range prefix bitsets', () => {
  it('give, for any range of positions, exactly the base nodes of its rows and its fresh rows apart', () => {
    fc.assert(
      fc.property(state, ({ order, nodes, fresh, from, to }) => {
        const ids = Uint32Array.from(order);
        const nodeOfRow = Int32Array.from(nodes, (v, row) => (fresh[row] ? -1 : v));
        const prefix = new RangePrefix(ids, nodeOfRow, order.length);
        const out = new Uint32Array(prefix.words + 2);
        prefix.fill(from, to, out, 1);
        const got: number[] = [];
        for (let node = 0; node < order.length; node++) if ((out[1 + (node >>> 5)]! >>> (node & 31)) & 1) got.push(node);
        const want: number[] = [];
        const wantFresh: number[] = [];
        for (let i = from; i < to; i++) {
          const node = nodeOfRow[ids[i]!]!;
          if (node >= 0) want.push(node);
          else wantFresh.push(ids[i]!);
        }
        expect(got).toEqual(want.sort((a, b) => a - b));
        expect(prefix.freshRows(from, to)).toEqual(wantFresh);
        // Nothing outside its words.
        expect(out[0]).toBe(0);
        expect(out[prefix.words + 1]).toBe(0);
      }),
      { numRuns: 400 },
    );
  });

  it('holds a bitset per checkpoint and no more', () => {
    const n = 1000;
    const prefix = new RangePrefix(
      Uint32Array.from({ length: n }, (_, i) => i),
      new Int32Array(n),
      n,
    );
    expect(prefix.bytes()).toBe((CHECKPOINTS + 1) * Math.ceil(n / 32) * 4);
  });
});
