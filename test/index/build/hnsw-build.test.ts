import { beforeAll, describe, expect, it } from 'vitest';
import { generateClustered } from '../../../datasets/index.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { buildGraphParallel } from '../../../index/build/parallel-graph.js';
import type { GraphImage } from '../../../index/graph/graph-image.js';
import type { TieredIndex } from '../../../index/tiered/tiered-index.js';
import { placeAndLayout } from '../../../index/build/place-and-layout.js';
import { FILTER_PLAN } from '../../../index/search/query-state.js';
import { Searcher } from '../../../index/search/searcher.js';

const dim = 16;
const count = 8000;
const clusters = 10;
const set = generateClustered({ count, dim, clusters, seed: 11 }, 60);
const member = set.clusters!;

// The rows as a compaction reads a base laid out by locality, or as a user exports them by
// category: cluster after cluster.
const sortedRows = Int32Array.from({ length: count }, (_, r) => r).sort((a, b) => member.base[a]! - member.base[b]! || a - b);
const sorted = new Float32Array(count * dim);
sortedRows.forEach((r, i) => sorted.set(set.base.subarray(r * dim, (r + 1) * dim), i * dim));
const clusterOfRow = (row: number): number => member.base[sortedRows[row]!]!;

/** The k nearest rows of the sorted set that `keep` selects, by brute force. */
function truth(q: Float32Array, k: number, keep: (row: number) => boolean): number[] {
  const all: Array<[number, number]> = [];
  for (let r = 0; r < count; r++) {
    if (!keep(r)) continue;
    let d = 0;
    for (let j = 0; j < dim; j++) d += (q[j]! - sorted[r * dim + j]!) ** 2;
    all.push([d, r]);
  }
  all.sort((a, b) => a[0] - b[0]);
  return all.slice(0, k).map(([, r]) => r);
}

const graphOptions = { metric: 'l2' as const, m: 8, efConstruction: 60, seed: 3 };
const builders: Array<[string, () => Promise<GraphImage>]> = [
  ['hnswlib-node', async () => buildGraph(sorted, dim, graphOptions)],
  ["Strata's parallel", () => buildGraphParallel(sorted, dim, { ...graphOptions, threads: 2 })],
];

describe.each(builders)('the HNSW build (%s)', (_name, build) => {
  let graph: GraphImage;
  let index: TieredIndex;
  beforeAll(async () => {
    graph = await build();
    index = placeAndLayout(graph, 'l2', null, { budgetBytes: 1 << 24, policy: 'hops', codes: 'none', seed: 1 }).index;
  });

  it('keeps every row, each node labelled with its own row', () => {
    const rows = Array.from(graph.rows).sort((a, b) => a - b);
    expect(rows).toEqual(Array.from({ length: count }, (_, r) => r));
  });

  it('from rows sorted by cluster, links clusters well enough that a filter excluding the query’s own cluster keeps recall', () => {
    // Inserted in the order given, each cluster's links would be chosen before the clusters after it
    // existed, and this walk would end stranded in the query's own cluster.
    const searcher = new Searcher(index);
    let hit = 0;
    let want = 0;
    for (let qi = 0; qi < 60; qi++) {
      const own = member.queries[qi]!;
      const keep = (row: number): boolean => clusterOfRow(row) !== own;
      const bits = new Uint32Array(Math.ceil(count / 32));
      let matched = 0;
      for (let node = 0; node < count; node++) {
        if (!keep(index.labels[node]!)) continue;
        bits[node >>> 5]! |= 1 << (node & 31);
        matched++;
      }
      const q = set.queries.subarray(qi * dim, (qi + 1) * dim);
      const r = searcher.search(q, 10, 64, 0, true, { bits, matched, plan: FILTER_PLAN.GRAPH });
      const rows = Array.from(r.ids, (n) => index.labels[n]!);
      const t = truth(q, 10, keep);
      want += t.length;
      hit += t.filter((row) => rows.includes(row)).length;
    }
    expect(hit / want).toBeGreaterThanOrEqual(0.95);
  });
});
