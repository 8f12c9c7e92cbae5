import { describe, expect, it } from 'vitest';
import { chooseBlocks, LINK_MIN_POINTS, RANGE_BLOCKS } from '../../../index/filter-links/blocks.js';
import { FieldIndexes } from '../../../index/payload-index/field-indexes.js';
import { indexOptions } from '../../../index/payload-index/params.js';

const N = 8 * LINK_MIN_POINTS;

/** Indexes over N rows: `tag` a (half), b (a sixth), c (a few); `n` integer, `x` float; `t` text. */
function indexes(payload: (row: number) => Record<string, unknown>): FieldIndexes {
  const ix = new FieldIndexes();
  ix.createIndex('tag', 'keyword');
  ix.createIndex('n', 'integer');
  ix.createIndex('x', 'float');
  ix.createIndex('t', 'text', indexOptions({ type: 'text' }));
  for (let r = 0; r < N; r++) ix.add(r, payload(r));
  return ix;
}

const tagOf = (r: number): string => (r % 2 === 0 ? 'a' : r % 6 === 1 ? 'b' : r % 6 === 3 ? 'b2' : 'c');

describe('filter-link blocks', () => {
  const ix = indexes((r) => ({ tag: r < 30 ? 'rare' : tagOf(r), n: Math.floor(r / 7), x: (r * 7919) % N, t: 'some words' }));
  const blocks = chooseBlocks(ix, (row) => row, N);

  it('makes a block of every keyword value with enough points, holding exactly its points', () => {
    const values = blocks.filter((b) => b.block.kind === 'value').map((b) => [(b.block as { value: string }).value, b.rows.length]);
    const want = new Map<string, number>();
    for (let r = 30; r < N; r++) want.set(tagOf(r), (want.get(tagOf(r)) ?? 0) + 1);
    expect(new Map(values as Array<[string, number]>)).toEqual(new Map([...want].filter(([, n]) => n >= LINK_MIN_POINTS)));
    const a = blocks.find((b) => b.block.kind === 'value' && b.block.value === 'a')!;
    expect([...a.rows].every((r) => tagOf(r) === 'a' && r >= 30)).toBe(true);
    // No block for the value with fewer points than the minimum, nor for text.
    expect(blocks.some((b) => b.block.kind === 'value' && b.block.value === 'rare')).toBe(false);
    expect(blocks.some((b) => b.block.field === 't')).toBe(false);
  });

  it('cuts each numeric field into at most RANGE_BLOCKS ranges that hold every point once, equal values together', () => {
    for (const field of ['n', 'x']) {
      const ranges = blocks.filter((b) => b.block.field === field);
      expect(ranges.length).toBeGreaterThan(1);
      expect(ranges.length).toBeLessThanOrEqual(RANGE_BLOCKS);
      const seen = new Uint8Array(N);
      let last = Number.NEGATIVE_INFINITY;
      for (const b of ranges) {
        const k = b.block as { gte: number; lte: number };
        expect(k.gte).toBeGreaterThan(last);
        last = k.lte;
        for (const r of b.rows) {
          seen[r]!++;
          const v = field === 'n' ? Math.floor(r / 7) : (r * 7919) % N;
          expect(v >= k.gte && v <= k.lte).toBe(true);
        }
      }
      expect(seen.every((s) => s === 1)).toBe(true);
    }
  });

  it('maps rows to build positions, leaving out rows not in the build', () => {
    const odd = chooseBlocks(ix, (row) => (row % 2 === 1 ? (row - 1) / 2 : -1), N / 2);
    expect(odd.some((b) => b.block.kind === 'value' && b.block.value === 'a')).toBe(false);
    const b = odd.find((x) => x.block.kind === 'value' && x.block.value === 'b')!;
    expect([...b.rows].every((p) => tagOf(2 * p + 1) === 'b')).toBe(true);
    expect(odd.filter((x) => x.block.field === 'n').reduce((a, x) => a + x.rows.length, 0)).toBe(N / 2);
  });

  it('makes no range blocks for a numeric field too small to cut in two', () => {
    const small = new FieldIndexes();
    small.createIndex('n', 'integer');
    for (let r = 0; r < LINK_MIN_POINTS + 10; r++) small.add(r, { n: r });
    expect(chooseBlocks(small, (row) => row, LINK_MIN_POINTS + 10)).toEqual([]);
  });
});
