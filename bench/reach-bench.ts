// What linking in the unreachable nodes (index/build/connect-unreachable.ts) buys and costs: one
// hnswlib graph of a TEXMEX set, laid out all in DRAM at full precision as built, with the
// unreachable nodes linked in, and (--floors) with an in-link floor on top; per variant query recall
// (tie-aware) and QPS at a few ef, and how many base points a search finds by their own vector.
// Run: npm run bench:reach -- --dir DIR [--metric cosine] [--floors 4,8] [--efs 32,64,128] [--json file]
import { writeFileSync } from 'node:fs';
import { connectUnreachable } from '../index/build/connect-unreachable.js';
import { buildGraph } from '../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../index/build/place-and-layout.js';
import type { GraphImage } from '../index/graph/graph-image.js';
import type { Metric } from '../index/kernels/kernels.js';
import { distanceRef } from '../index/kernels/reference.js';
import { runBatch } from '../index/search/batch.js';
import { recallAtK } from '../index/search/recall.js';
import { numberList, readTexmexSet, texmexSetCommand } from './texmex-set.js';

const o = texmexSetCommand()
  .option('--floors <list>', 'in-link floors to try on top of the linking (empty: none)', numberList, [4, 8])
  .option('--efs <list>', 'ef values for query recall and QPS', numberList, [32, 64, 128])
  .option('--self-ef <n>', 'ef of the search for each base point by its own vector', Number, 64)
  .parse(process.argv)
  .opts<{ dir: string; metric: Metric; floors: number[]; efs: number[]; selfEf: number; json?: string }>();

const metric = o.metric;
const { base, queries, truth } = await readTexmexSet(o.dir, metric);
const t0 = performance.now();
const graph = buildGraph(base.vectors, base.dim, { metric, m: 16, efConstruction: 200, seed: 100 });
const graphSeconds = (performance.now() - t0) / 1000;
const stride = 1 + graph.maxM0;

function inDegrees(g: GraphImage): Int32Array {
  const d = new Int32Array(g.count);
  for (let u = 0; u < g.count; u++) for (let j = 1; j <= g.level0[u * stride]!; j++) d[g.level0[u * stride + j]!]!++;
  return d;
}

/** Gives every node at least `floor` in-links where its nearest out-neighbours have free slots. */
function floorInLinks(g: GraphImage, floor: number): number {
  const ind = inDegrees(g);
  let added = 0;
  for (let u = 0; u < g.count; u++) {
    if (ind[u]! >= floor) continue;
    const outs = Array.from(g.level0.subarray(u * stride + 1, u * stride + 1 + g.level0[u * stride]!));
    const d = (v: number): number => distanceRef(metric, g.vectors, u * g.dim, g.vectors, v * g.dim, g.dim);
    outs.sort((a, b) => d(a) - d(b));
    for (const v of outs) {
      if (ind[u]! >= floor) break;
      const deg = g.level0[v * stride]!;
      if (deg >= g.maxM0 || g.level0.subarray(v * stride + 1, v * stride + 1 + deg).includes(u)) continue;
      g.level0[v * stride + 1 + deg] = u;
      g.level0[v * stride] = deg + 1;
      ind[u]!++;
      added++;
    }
  }
  return added;
}

const asBuilt = graph.level0.slice();
const inAsBuilt = inDegrees(graph);
const variants = ['as built', 'linked', ...o.floors.map((f) => `linked + in-link floor ${f}`)];
const rows = variants.map((name, i) => {
  graph.level0.set(asBuilt);
  const t = performance.now();
  const linked = i === 0 ? null : connectUnreachable(graph, metric);
  const linkMs = performance.now() - t;
  const floorAdded = i >= 2 ? floorInLinks(graph, o.floors[i - 2]!) : 0;
  const { index } = placeAndLayout(graph, metric, null, { budgetBytes: graphFullPrecisionBytes(graph), policy: 'hops', codes: 'none', seed: 1 });
  const perEf = o.efs.map((ef) => {
    runBatch(index, queries.vectors, { k: 10, ef }); // warm-up
    const r = runBatch(index, queries.vectors, { k: 10, ef });
    const recall = recallAtK({ k: 10, results: r.labels, resultDistances: r.distances, metric, ...truth });
    return { ef, recall: recall.mean, qps: r.qps };
  });
  const self = runBatch(index, base.vectors, { k: 10, ef: o.selfEf });
  let missed = 0;
  let missedRich = 0;
  for (let p = 0; p < base.count; p++) {
    if (self.labels.subarray(p * 10, p * 10 + 10).includes(p)) continue;
    missed++;
    if (inAsBuilt[p]! >= 8) missedRich++;
  }
  return {
    name,
    linked,
    linkMs: linked ? linkMs : 0,
    floorAdded,
    perEf,
    selfFound: base.count - missed,
    selfMissed: missed,
    selfMissedWith8InLinks: missedRich,
  };
});

console.log(`${o.dir}: ${base.count} × ${base.dim} (${metric}), graph ${graphSeconds.toFixed(1)} s; all in DRAM, full precision`);
console.log(
  `| graph | unreachable → linked (ms) | in-links added | ${o.efs
    .map((ef) => `ef ${ef}: recall / QPS`)
    .join(' | ')} | found by own vector (ef ${o.selfEf}) | missed with ≥ 8 in-links |`,
);
console.log(`|---|---|---|${o.efs.map(() => '---').join('|')}|---|---|`);
for (const r of rows)
  console.log(
    `| ${r.name} | ${r.linked ? `${r.linked.unreachableBefore} → ${r.linked.unreachableAfter} (${r.linkMs.toFixed(0)})` : '-'} | ${r.floorAdded} | ${r.perEf.map((e) => `${e.recall.toFixed(4)} / ${Math.round(e.qps)}`).join(' | ')} | ${r.selfFound} | ${r.selfMissedWith8InLinks} of ${r.selfMissed} |`,
  );
if (o.json) writeFileSync(o.json, JSON.stringify({ node: process.version, date: new Date().toISOString(), dir: o.dir, metric, graphSeconds, rows }, null, 2));
