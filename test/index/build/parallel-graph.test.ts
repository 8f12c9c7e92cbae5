import { describe, expect, it } from 'vitest';
import { bruteForceKnn } from '../../../datasets/index.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { batchEnd, MAX_BATCH } from '../../../index/build/hnsw-insert.js';
import { buildGraphParallel } from '../../../index/build/parallel-graph.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../../../index/build/place-and-layout.js';
import { type GraphImage, upperBlock } from '../../../index/graph/graph-image.js';
import { runBatch } from '../../../index/search/batch.js';
import { recallAtK } from '../../../index/search/recall.js';
import { angularSet } from '../../helpers/angular-set.js';
import { listOf } from '../../helpers/hand-graph.js';

const dim = 16;
const { base, queries } = angularSet(6000, dim, 12, 100);
const options = { metric: 'cosine' as const, m: 8, efConstruction: 64, seed: 5 };

/** Every list of a graph, level by level, as plain arrays (what two graphs are compared by). */
function lists(g: GraphImage): number[][][] {
  const out: number[][][] = [];
  for (let u = 0; u < g.count; u++) {
    const own: number[][] = [listOf(g, u)];
    for (let l = 1; l <= g.levels[u]!; l++) {
      const at = upperBlock(g, u, l);
      own.push(Array.from(g.upperLinks.subarray(at + 1, at + 1 + g.upperLinks[at]!)));
    }
    out.push(own);
  }
  return out;
}

function recallAt(g: GraphImage, ef: number): number {
  const gt = bruteForceKnn(base, queries, dim, 10, 'cosine');
  const { index } = placeAndLayout(g, 'cosine', null, { budgetBytes: graphFullPrecisionBytes(g), policy: 'hops', codes: 'none', seed: 1 });
  const r = runBatch(index, queries, { k: 10, ef });
  return recallAtK({ k: 10, results: r.labels, metric: 'cosine', gtIds: gt.ids, gtDim: gt.k }).mean;
}

describe("Strata's parallel HNSW build", () => {
  const one = buildGraphParallel(base, dim, { ...options, threads: 1 });
  const two = buildGraphParallel(base, dim, { ...options, threads: 2 });

  it('builds the same graph on one thread and on two: the batches decide it, not the threads', async () => {
    const [a, b] = await Promise.all([one, two]);
    expect(b.entry).toBe(a.entry);
    expect(b.maxLevel).toBe(a.maxLevel);
    expect(Array.from(b.levels)).toEqual(Array.from(a.levels));
    expect(lists(b)).toEqual(lists(a));
  });

  it('builds the same graph with the WASM level-0 search as with its JS twin', async () => {
    const js = await buildGraphParallel(base, dim, { ...options, threads: 2, js: true });
    expect(lists(js)).toEqual(lists(await one));
  });

  it('passes an integrity check: lists within bounds, no self or repeated link, upper links to nodes of that level, all reachable', async () => {
    const g = await two;
    const seen = new Uint8Array(g.count);
    const stack = [g.entry];
    seen[g.entry] = 1;
    while (stack.length > 0) {
      const u = stack.pop()!;
      for (const v of listOf(g, u)) {
        if (seen[v] === 0) {
          seen[v] = 1;
          stack.push(v);
        }
      }
    }
    let unreachable = 0;
    const all = lists(g);
    for (let u = 0; u < g.count; u++) {
      unreachable += 1 - seen[u]!;
      const own = all[u]!;
      own.forEach((list, level) => {
        expect(list.length).toBeLessThanOrEqual(level === 0 ? g.maxM0 : g.maxM);
        expect(new Set(list).size).toBe(list.length);
        expect(list).not.toContain(u);
        for (const v of list) expect(g.levels[v]!).toBeGreaterThanOrEqual(level);
      });
      if (u !== g.entry) expect(listOf(g, u).length).toBeGreaterThan(0);
    }
    // hnswlib's insertion may leave a rare node unreachable (the build links those in afterwards).
    expect(unreachable / g.count).toBeLessThan(0.002);
    expect(g.levels[g.entry]).toBe(g.maxLevel);
  });

  it("finds neighbours as well as hnswlib's graph on the same rows and parameters", async () => {
    const theirs = buildGraph(base, dim, options);
    const ours = await two;
    for (const ef of [16, 32]) expect(recallAt(ours, ef)).toBeGreaterThanOrEqual(recallAt(theirs, ef) - 0.01);
  });

  it('grows its batches with the graph, from one node to MAX_BATCH', () => {
    expect(batchEnd(1, 10_000)).toBe(2);
    expect(batchEnd(5_000, 10_000)).toBe(5_050);
    expect(batchEnd(500_000, 10_000_000)).toBe(500_000 + MAX_BATCH);
    expect(batchEnd(9_990, 10_000)).toBe(10_000);
  });
});
