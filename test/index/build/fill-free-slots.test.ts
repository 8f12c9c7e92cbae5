import { describe, expect, it } from 'vitest';
import { angularSet } from '../../helpers/angular-set.js';
import { fillFreeSlots } from '../../../index/build/fill-free-slots.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../../../index/build/place-and-layout.js';
import type { GraphImage } from '../../../index/graph/graph-image.js';
import { runBatch } from '../../../index/search/batch.js';
import { bruteForceKnn } from '../../../datasets/index.js';
import { recallAtK } from '../../../index/search/recall.js';
import { handGraph, listOf } from '../../helpers/hand-graph.js';

/** Points on a line (as 2-d rows with a zero second coordinate). */
const lineGraph = (xs: number[], lists: number[][], maxM0: number): GraphImage =>
  handGraph(
    xs.map((x) => [x, 0]),
    lists,
    maxM0,
  );

describe('filling the free level-0 slots', () => {
  it("adds two-hop neighbours that pass the α test, nearest first, after the node's own links", async () => {
    // Points on a line: 0 at 0 links only to 1 (at 1); 1 links to 2 (at 2.05) and 3 (at 10).
    // From 0, candidate 2 is at 2.05 and 1 (listed) at 1.05 from it: 1.1 × 1.05 = 1.155 ≤ 2.05,
    // so 2 is refused; 3 is at 10, and 1 at 9 from it: 1.1 × 9 = 9.9 ≤ 10, refused too. At α 2,
    // 2 passes (2.1 > 2.05) and then 3 (2 × 7.95 > 10, 2 × 9 > 10). From 2, candidate 3 (at 7.95)
    // passes at either α (1 is 9 from it); from 3, candidate 2 never does (1 is 1.05 from it).
    const xs = [0, 1, 2.05, 10];
    const lists = [[1], [2, 3], [1], [1]];
    const tight = lineGraph(xs, lists, 3);
    expect((await fillFreeSlots(tight, 'l2', 1.1)).linksAdded).toBe(1);
    expect([0, 1, 2, 3].map((u) => listOf(tight, u))).toEqual([[1], [2, 3], [1, 3], [1]]);
    const loose = lineGraph(xs, lists, 3);
    expect((await fillFreeSlots(loose, 'l2', 2)).linksAdded).toBe(3);
    expect([0, 1, 2, 3].map((u) => listOf(loose, u))).toEqual([[1, 2, 3], [2, 3], [1, 3], [1]]);
  });

  it('never removes a link, never exceeds the list capacity, never adds a node to its own list or twice', async () => {
    const dim = 12;
    const { base } = angularSet(1500, dim, 4, 0);
    const g = buildGraph(base, dim, { metric: 'cosine', m: 6, efConstruction: 40, seed: 100 });
    const before = Array.from({ length: g.count }, (_, u) => listOf(g, u));
    const r = await fillFreeSlots(g, 'cosine', 1.2);
    expect(r.linksAdded).toBeGreaterThan(0);
    expect(r.degreeAfter).toBeGreaterThan(r.degreeBefore);
    for (let u = 0; u < g.count; u++) {
      const after = listOf(g, u);
      expect(after.slice(0, before[u]!.length)).toEqual(before[u]);
      expect(after.length).toBeLessThanOrEqual(g.maxM0);
      expect(new Set(after).size).toBe(after.length);
      expect(after).not.toContain(u);
    }
  });

  it('keeps a wide beam exact and recall at a narrow one no lower (same data and seed)', async () => {
    const dim = 16;
    const { base, queries } = angularSet(3000, dim, 9, 100);
    const gt = bruteForceKnn(base, queries, dim, 10, 'cosine');
    const recallAt = (g: GraphImage, ef: number): number => {
      const { index } = placeAndLayout(g, 'cosine', null, { budgetBytes: graphFullPrecisionBytes(g), policy: 'hops', codes: 'none', seed: 1 });
      const r = runBatch(index, queries, { k: 10, ef });
      return recallAtK({ k: 10, results: r.labels, metric: 'cosine', gtIds: gt.ids, gtDim: gt.k }).mean;
    };
    const g = buildGraph(base, dim, { metric: 'cosine', m: 4, efConstruction: 20, seed: 100 });
    const asBuilt = recallAt(g, 12);
    await fillFreeSlots(g, 'cosine', 1.1);
    expect(recallAt(g, 12)).toBeGreaterThanOrEqual(asBuilt);
    // and a wide beam still finds the exact answers
    expect(recallAt(g, 400)).toBeGreaterThan(0.99);
  });

  it('fills the same lists on one thread and on several (each node decides from the lists as built)', async () => {
    const dim = 12;
    const { base } = angularSet(5000, dim, 6, 3);
    const one = buildGraph(base, dim, { metric: 'cosine', m: 6, efConstruction: 40, seed: 7 });
    const three = buildGraph(base, dim, { metric: 'cosine', m: 6, efConstruction: 40, seed: 7 });
    expect(three.level0).toEqual(one.level0);
    const a = await fillFreeSlots(one, 'cosine', 1.1, 1);
    // 5,000 nodes in blocks of 1,024: three threads take blocks 0 and 3, 1 and 4, and 2.
    const b = await fillFreeSlots(three, 'cosine', 1.1, 3);
    expect(a.linksAdded).toBeGreaterThan(0);
    expect(b).toEqual(a);
    expect(three.level0).toEqual(one.level0);
  });
});
