// Exact filtered ground truth on a case small enough to check by hand: six points on a line, a query
// at 0, filters on their payloads. The top k is the nearest matching points, a filter matching fewer
// than k pads the row, and a repeated filter gives the same answer as a fresh one.
import { describe, expect, it } from 'vitest';
import { parseFilter } from '../../index/filter/parse.js';
import { filteredGroundTruth } from '../../loadgen/filtered-truth.js';

const base = Float32Array.from([5, 1, 4, 2, 3, 0]);
const payloads = [
  { colour: 'red', size: 5 },
  { colour: 'blue', size: 1 },
  { colour: 'red', size: 4 },
  { colour: 'red', size: 2 },
  { colour: 'blue', size: 3 },
  { size: 0 },
];
const queries = Float32Array.from([0, 10]);

function truth(filters: unknown[], k = 2) {
  const json = filters.map((f) => (f === null ? null : f));
  const parsed = json.map((f) => (f === null ? null : parseFilter(f)));
  return filteredGroundTruth({ base, payloads, queries, dim: 1, k, distance: 'Euclid', families: [parsed], keys: [json] })[0]!;
}

describe('exact filtered ground truth', () => {
  it('is the nearest points that match, per query', () => {
    const t = truth([{ must: [{ key: 'colour', match: { value: 'red' } }] }, { must: [{ key: 'colour', match: { value: 'blue' } }] }]);
    // query 0 at 0: red points are rows 3 (at 2), 2 (at 4), 0 (at 5); query 1 at 10: blue rows 4 (3), 1 (1).
    expect(Array.from(t.gt.ids)).toEqual([3, 2, 4, 1]);
    expect(Array.from(t.gt.scores!)).toEqual([2, 4, 7, 9]);
    expect(Array.from(t.matched)).toEqual([3, 2]);
  });

  it('pads a row whose filter matches fewer than k points, and judges must_not on a missing field as Qdrant does', () => {
    const t = truth([{ must_not: [{ key: 'colour', match: { any: ['red', 'blue'] } }] }, { must: [{ key: 'size', range: { gte: 4 } }] }], 3);
    // query 1 at 10: size >= 4 is rows 0 (at 5) and 2 (at 4).
    expect(Array.from(t.gt.ids)).toEqual([5, -1, -1, 0, 2, -1]);
    expect(Array.from(t.matched)).toEqual([1, 2]);
  });

  it('without a filter, ranks every point', () => {
    const t = truth([null, null]);
    expect(Array.from(t.gt.ids)).toEqual([5, 1, 0, 2]);
    expect(Array.from(t.matched)).toEqual([6, 6]);
  });

  it("reports and filters by the input's own ids when the rows have them", () => {
    const json = [{ must: [{ has_id: [13, 10] }] }, null];
    const parsed = json.map((f) => (f === null ? null : parseFilter(f)));
    const rowIds = [10, 11, 12, 13, 14, 15];
    const t = filteredGroundTruth({ base, payloads, queries, dim: 1, k: 2, distance: 'Euclid', families: [parsed], keys: [json], rowIds })[0]!;
    // query 0 at 0: rows 3 (id 13, at 2) and 0 (id 10, at 5); query 1 at 10, unfiltered: rows 0 and 2.
    expect(Array.from(t.gt.ids)).toEqual([13, 10, 10, 12]);
  });
});
