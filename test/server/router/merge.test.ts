// The router's merges of shard answers (server/router/merge.ts), on small hand-made answers.
import { describe, expect, it } from 'vitest';
import type { QdrantCollectionView } from '../../../server/api/collection-view.js';
import type { CompactionView } from '../../../server/api/writes.js';
import {
  mergeCollectionNames,
  mergeCollectionViews,
  mergeCompactions,
  mergeGroups,
  mergeHistories,
  mergeHits,
  mergeMemory,
  mergeScrollPages,
  mergeWriteResults,
  pointsInRequestOrder,
} from '../../../server/router/merge.js';

const hit = (id: number, score: number) => ({ id, score });

describe('mergeHits', () => {
  const lists = [
    [hit(1, 0.9), hit(4, 0.5)],
    [hit(2, 0.7), hit(3, 0.5)],
  ];

  it('orders similarities best first, a tie to the lower id, and cuts the window after the offset', () => {
    expect(mergeHits(lists, true, 1, 2).map((h) => h.id)).toEqual([2, 3]);
    expect(mergeHits(lists, true, 0, 10).map((h) => h.id)).toEqual([1, 2, 3, 4]);
  });

  it('orders distances smallest first', () => {
    expect(mergeHits(lists, false, 0, 3).map((h) => h.id)).toEqual([3, 4, 2]);
  });
});

describe('mergeGroups', () => {
  const ids = (groups: Array<{ id: string | number; hits: Array<{ id: number }> }>) => groups.map((g) => [g.id, g.hits.map((h) => h.id)]);

  it("merges a group's hits from every list, keeps its best group_size, and the best limit groups by their best hit", () => {
    const a = [
      { id: 'x', hits: [hit(1, 0.9), hit(4, 0.4)] },
      { id: 'y', hits: [hit(7, 0.8)] },
    ];
    const b = [
      { id: 'y', hits: [hit(2, 0.95), hit(3, 0.85)] },
      { id: 1, hits: [hit(5, 0.7)] },
      { id: 'x', hits: [hit(6, 0.6)] },
    ];
    expect(ids(mergeGroups([a, b], true, 2, 2))).toEqual([
      ['y', [2, 3]],
      ['x', [1, 6]],
    ]);
    expect(ids(mergeGroups([a, b], false, 3, 1))).toEqual([
      ['x', [4]],
      [1, [5]],
      ['y', [7]],
    ]);
  });

  it('keeps a keyword and an integer group apart', () => {
    expect(ids(mergeGroups([[{ id: '1', hits: [hit(1, 0.5)] }], [{ id: 1, hits: [hit(2, 0.4)] }]], true, 5, 5))).toEqual([
      ['1', [1]],
      [1, [2]],
    ]);
  });

  it('orders groups sharing their best hit as its shard listed them; one filled in (unlisted there) after', () => {
    // Point 3 is the best hit of groups b and d; its shard listed b first, then d.
    const shard = [
      { id: 'b', hits: [hit(3, 0.9)] },
      { id: 'd', hits: [hit(3, 0.9)] },
    ];
    const other = [{ id: 'd', hits: [hit(8, 0.5)] }];
    expect(ids(mergeGroups([other, shard], true, 2, 3))).toEqual([
      ['b', [3]],
      ['d', [3, 8]],
    ]);
    // The shard's own groups filled up before d: d's hits there come as a fill, and d comes after b.
    const merged = [
      { id: 'c', hits: [hit(1, 0.95)] },
      { id: 'b', hits: [hit(3, 0.9)] },
      { id: 'd', hits: [hit(8, 0.5)] },
    ];
    expect(ids(mergeGroups([merged], true, 3, 3, [[{ id: 'd', hits: [hit(3, 0.9)] }]]))).toEqual([
      ['c', [1]],
      ['b', [3]],
      ['d', [3, 8]],
    ]);
  });
});

describe('mergeCollectionNames', () => {
  it('lists each name once, however many shards have it', () => {
    const merged = mergeCollectionNames([{ collections: [{ name: 'a' }, { name: 'b' }] }, { collections: [{ name: 'b' }, { name: 'c' }] }]);
    expect(merged.collections.map((c) => c.name).sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('mergeCollectionViews', () => {
  const view = (status: QdrantCollectionView['status'], points: number, index_bytes: Record<string, number> = {}) =>
    ({
      status,
      points_count: points,
      indexed_vectors_count: points,
      segments_count: 1,
      strata: {
        payload: {
          values_bytes: 10 * points,
          values_tier: { tier: 'cxl', mode: 'numa', node: 1, slabs: 1, pages: points, pages_on_node: points, pages_elsewhere: 0 },
          rows_bytes: 2 * points,
          index_bytes,
        },
      },
    }) as unknown as QdrantCollectionView;

  it('adds the counts up and takes the worst status', () => {
    const merged = mergeCollectionViews([view('green', 3), view('yellow', 4)], 2, []);
    expect(merged).toMatchObject({ status: 'yellow', points_count: 7, indexed_vectors_count: 7, segments_count: 2, router: { shards: 2, missing_shards: [] } });
  });

  it("adds up the shards' payload bytes: the values, the rows, and each index by its key", () => {
    const merged = mergeCollectionViews([view('green', 3, { city: 5, n: 1 }), view('green', 4, { city: 7 })], 2, []) as unknown as QdrantCollectionView;
    expect(merged.strata.payload).toEqual({
      values_bytes: 70,
      values_tier: { tier: 'cxl', mode: 'numa', node: 1, slabs: 2, pages: 7, pages_on_node: 7, pages_elsewhere: 0 },
      rows_bytes: 14,
      index_bytes: { city: 12, n: 1 },
    });
  });

  it("says the values are bound only where every shard's are bound to the same node", () => {
    const a = view('green', 3);
    const b = view('green', 4);
    b.strata.payload.values_tier = { tier: 'cxl', mode: 'emulated', node: null, slabs: 1, pages: null, pages_on_node: null, pages_elsewhere: null };
    const merged = mergeCollectionViews([a, b], 2, []) as unknown as QdrantCollectionView;
    expect(merged.strata.payload.values_tier).toEqual({
      tier: 'cxl',
      mode: 'emulated',
      node: null,
      slabs: 2,
      pages: null,
      pages_on_node: null,
      pages_elsewhere: null,
    });
  });

  it('is red while a shard is missing', () => {
    expect(mergeCollectionViews([view('green', 3)], 2, [1])).toMatchObject({ status: 'red', router: { missing_shards: [1] } });
  });
});

describe('mergeCompactions', () => {
  const report = (compacted: boolean, points: number, seconds: number): CompactionView => ({
    compacted,
    points,
    seconds,
    fresh_before: points,
    hidden_before: 1,
    fresh_after: 0,
    hidden_after: 0,
  });

  it("adds up each shard's first replica and takes the longest time of any replica", () => {
    const merged = mergeCompactions([[report(true, 5, 1), report(true, 5, 3)], [report(false, 2, 2)]]);
    expect(merged).toEqual({ compacted: true, points: 7, seconds: 3, fresh_before: 7, hidden_before: 2, fresh_after: 0, hidden_after: 0 });
  });
});

describe('pointsInRequestOrder', () => {
  it('answers in request order, each found id once, leaving out ids no shard has and null ids', () => {
    const found = pointsInRequestOrder([5, null, 2, 9, 5], [[{ id: 2 }], [{ id: 5 }]]);
    expect(found).toEqual([{ id: 5 }, { id: 2 }]);
  });
});

describe('mergeScrollPages', () => {
  it('takes the first points by id and starts the next page at the first id left out', () => {
    const page = mergeScrollPages(
      [
        { points: [{ id: 1 }, { id: 4 }], next_page_offset: 6 },
        { points: [{ id: 2 }, { id: 3 }], next_page_offset: 5 },
      ],
      3,
    );
    expect(page).toEqual({ points: [{ id: 1 }, { id: 2 }, { id: 3 }], next_page_offset: 4 });
  });

  it("starts the next page at the smallest shard's next offset when every point fits", () => {
    const page = mergeScrollPages(
      [
        { points: [{ id: 1 }], next_page_offset: 8 },
        { points: [{ id: 2 }], next_page_offset: 7 },
      ],
      2,
    );
    expect(page.next_page_offset).toBe(7);
    expect(mergeScrollPages([{ points: [{ id: 1 }], next_page_offset: null }], 2).next_page_offset).toBeNull();
  });
});

describe('mergeWriteResults', () => {
  it("answers the highest operation id, with the first shard's status", () => {
    expect(
      mergeWriteResults([
        { operation_id: 3, status: 'acknowledged' },
        { operation_id: 8, status: 'acknowledged' },
      ]),
    ).toEqual({ operation_id: 8, status: 'acknowledged' });
  });

  it('answers a write that reached no shard as completed', () => {
    expect(mergeWriteResults([])).toEqual({ operation_id: 0, status: 'completed' });
  });
});

describe('mergeMemory', () => {
  it("sums each part's bytes in each tier over the shards, parts met on one shard only included", () => {
    const m = mergeMemory([
      {
        parts: [
          { part: 'codes', dram: 10, cxl: 0 },
          { part: 'vectors', dram: 0, cxl: 100 },
        ],
      },
      {
        parts: [
          { part: 'codes', dram: 7, cxl: 0 },
          { part: 'fresh vectors', dram: 3, cxl: 0 },
        ],
      },
    ]);
    expect(m.parts).toEqual([
      { part: 'codes', dram: 17, cxl: 0 },
      { part: 'vectors', dram: 0, cxl: 100 },
      { part: 'fresh vectors', dram: 3, cxl: 0 },
    ]);
    expect(m.total).toEqual({ dram: 20, cxl: 100 });
  });
});

describe('mergeHistories', () => {
  const sample = (at: number, searches: number, share: number | null, p99: number | null) => ({
    at,
    searches,
    dram_share: share,
    dram_bytes_per_s: 10 * searches,
    cxl_bytes_per_s: 20 * searches,
    pool_moves: 1,
    qps: searches,
    p50_ms: p99 === null ? null : p99 / 2,
    p99_ms: p99,
  });
  it('meets the samples in the second they end in: sums, a DRAM share weighted by searches, the worst latency; the hottest lists of all', () => {
    const h = mergeHistories([
      { period_ms: 1000, samples: [sample(10_020, 30, 0.9, 4), sample(11_010, 0, null, null)], hottest_lists: [{ point: 1, reads: 5 }] },
      { period_ms: 1000, samples: [sample(9_990, 10, 0.5, 8)], hottest_lists: [{ point: 2, reads: 9 }] },
    ]);
    expect(h.samples).toEqual([
      { at: 10_000, searches: 40, dram_share: 0.8, dram_bytes_per_s: 400, cxl_bytes_per_s: 800, pool_moves: 2, qps: 40, p50_ms: 4, p99_ms: 8 },
      { at: 11_000, searches: 0, dram_share: null, dram_bytes_per_s: 0, cxl_bytes_per_s: 0, pool_moves: 1, qps: 0, p50_ms: null, p99_ms: null },
    ]);
    expect(h.hottest_lists).toEqual([
      { point: 2, reads: 9 },
      { point: 1, reads: 5 },
    ]);
  });
});
