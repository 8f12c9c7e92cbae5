import { describe, expect, it } from 'vitest';
import type { LinkBlock } from '../../../index/filter-links/blocks.js';
import type { LinkBlockEntry } from '../../../index/filter-links/filter-links.js';
import { linkCover } from '../../../index/filter-links/link-cover.js';
import { parseFilter } from '../../../index/filter/parse.js';

let from = 0;
const entry = (block: LinkBlock, count: number): LinkBlockEntry => {
  const e = { block, entry: 0, from, count };
  from += count;
  return e;
};
const blocks: LinkBlockEntry[] = [
  entry({ kind: 'value', field: 'tag', value: 'a' }, 500),
  entry({ kind: 'value', field: 'tag', value: 'b' }, 200),
  entry({ kind: 'value', field: 'ok', value: true }, 300),
  entry({ kind: 'range', field: 'n', gte: 0, lte: 9 }, 100),
  entry({ kind: 'range', field: 'n', gte: 10, lte: 19 }, 100),
  entry({ kind: 'range', field: 'n', gte: 20, lte: 40 }, 100),
];
const cover = (json: unknown) => linkCover(parseFilter(json), blocks);

describe('the filter-link cover', () => {
  it("covers a keyword match by its value's block, a match any by its values', and a bool by its own", () => {
    expect(cover({ must: [{ key: 'tag', match: { value: 'b' } }] })).toEqual({ blocks: [1], points: 200 });
    expect(cover({ must: [{ key: 'tag', match: { any: ['b', 'a'] } }] })).toEqual({ blocks: [0, 1], points: 700 });
    expect(cover({ must: [{ key: 'ok', match: { value: true } }] })).toEqual({ blocks: [2], points: 300 });
  });

  it('covers a range, or an integer match, by the blocks of its field that the bounds meet', () => {
    expect(cover({ must: [{ key: 'n', range: { lt: 10 } }] })?.blocks).toEqual([3]);
    expect(cover({ must: [{ key: 'n', range: { lte: 10 } }] })?.blocks).toEqual([3, 4]);
    expect(cover({ must: [{ key: 'n', range: { gte: 9, lt: 10 } }] })?.blocks).toEqual([3]);
    expect(cover({ must: [{ key: 'n', range: { gt: 19, lt: 1000 } }] })?.blocks).toEqual([5]);
    expect(cover({ must: [{ key: 'n', range: { gte: 19.5, lte: 19.7 } }] })?.blocks).toEqual([]);
    expect(cover({ must: [{ key: 'n', match: { value: 15 } }] })?.blocks).toEqual([4]);
  });

  it('takes the smallest cover of a must, the union of should, and recurses into nested filters', () => {
    expect(
      cover({
        must: [
          { key: 'tag', match: { value: 'a' } },
          { key: 'n', range: { lt: 5 } },
        ],
      })?.blocks,
    ).toEqual([3]);
    expect(
      cover({
        should: [
          { key: 'tag', match: { value: 'b' } },
          { key: 'n', range: { gte: 20 } },
        ],
      }),
    ).toEqual({ blocks: [1, 5], points: 300 });
    expect(cover({ must: [{ must: [{ key: 'tag', match: { value: 'b' } }] }] })?.blocks).toEqual([1]);
  });

  it('has no cover where a match may lie outside every block', () => {
    for (const json of [
      { must: [{ key: 'tag', match: { value: 'z' } }] },
      { must: [{ key: 'tag', match: { any: ['a', 'z'] } }] },
      { must_not: [{ key: 'tag', match: { value: 'a' } }] },
      {
        should: [
          { key: 'tag', match: { value: 'a' } },
          { key: 'other', match: { value: 'x' } },
        ],
      },
      { must: [{ key: 'other', range: { lt: 3 } }] },
      { must: [{ key: 'tag', match: { except: ['a'] } }] },
    ])
      expect(cover(json), JSON.stringify(json)).toBeNull();
  });
});
