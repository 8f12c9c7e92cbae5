// What the promotion pool (index/tiered/list-pool.ts) costs a search when the load does not move:
// the same graph placed with pool shares side by side (0 = every DRAM list in the fixed prefix),
// tiered at 10% with rq3 codes and CXL time injected, QPS of alternating runs in one process, and
// the lists each plan keeps in DRAM. The cost is a table lookup per CXL-range hop and, in one
// search of eight, a counter increment (a CXL line written back). Run with nothing else on the machine.
// Run: npm run bench:pool-cost -- [--set clustered|angular] [--pools 0,0.2,0.5] [--reps 5] [--json file]
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { generateClustered, generateEmbedding } from '../datasets/index.js';
import { buildHnswlib, extractGraph } from '../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../index/build/place-and-layout.js';
import { profileGraph, sampleRows } from '../index/build/profile.js';
import { normalizeRows } from '../index/kernels/reference.js';
import { runBatch } from '../index/search/batch.js';
import { median } from './median.js';

const o = new Command()
  .option('--set <set>', 'clustered (100k × 128, l2) or angular (100k × 100, cosine)', 'clustered')
  .option('--pools <list>', 'pool shares to compare', '0,0.2,0.5')
  .option('--reps <n>', 'alternating runs per share', Number, 5)
  .option('--seconds <s>', 'seconds per run', Number, 2)
  .option('--ef <n>', 'search beam', Number, 32)
  .option('--json <file>', 'also write the figures as JSON')
  .parse(process.argv)
  .opts<{ set: string; pools: string; reps: number; seconds: number; ef: number; json?: string }>();

const pools = o.pools.split(',').map(Number);
const angular = o.set === 'angular';
const dim = angular ? 100 : 128;
const s = angular ? generateEmbedding({ count: 100_000, dim, seed: 7 }, 1000) : generateClustered({ count: 100_000, dim, clusters: 100, seed: 42 }, 1000);
const base = s.base.slice();
const queries = s.queries.slice();
if (angular) {
  normalizeRows(base, dim);
  normalizeRows(queries, dim);
}
const metric = angular ? 'cosine' : 'l2';
const graph = extractGraph(buildHnswlib(base, dim, { metric: angular ? 'ip' : 'l2', m: 16, efConstruction: 200, seed: 100 }), dim);
const profile = profileGraph(graph, metric, sampleRows(base, dim, 1000, 3), 10, 64);
const budgetBytes = Math.floor(graphFullPrecisionBytes(graph) * 0.1);
const placed = pools.map((poolShare) =>
  placeAndLayout(graph, metric, null, { budgetBytes, policy: 'profile', profile: profile.accesses, codes: 'rq3', seed: 5, poolShare }),
);
const q = new Float32Array(queries.length * 5);
for (let r = 0; r < 5; r++) q.set(queries, r * queries.length);
const opts = { k: 10, ef: o.ef, inject: true };
for (const p of placed) runBatch(p.index, q, opts); // warm-up
const qps: number[][] = pools.map(() => []);
for (let rep = 0; rep < o.reps; rep++)
  for (const [i, p] of placed.entries()) {
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < o.seconds * 1000) {
      runBatch(p.index, q, opts);
      n += q.length / dim;
    }
    qps[i]!.push(n / ((performance.now() - t0) / 1000));
  }
const rows = pools.map((share, i) => ({
  share,
  prefixLists: placed[i]!.plan.adjacencyInDram,
  poolSlots: placed[i]!.plan.poolLists,
  qps: median(qps[i]!),
  runs: qps[i]!,
  ratio: median(qps[i]!) / median(qps[0]!),
}));
const lines = [
  `## Promotion pool cost: ${o.set} 100k, 10% DRAM, rq3, ef ${o.ef}, injection on, ${o.reps} alternating runs of ${o.seconds} s`,
  '',
  '| pool share | lists in the DRAM prefix | pool slots | QPS (median) | vs the first row | runs |',
  '|---|---|---|---|---|---|',
  ...rows.map(
    (r) => `| ${r.share} | ${r.prefixLists} | ${r.poolSlots} | ${Math.round(r.qps)} | ${r.ratio.toFixed(3)} | ${r.runs.map((v) => Math.round(v)).join(', ')} |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
if (o.json) writeFileSync(o.json, `${JSON.stringify({ node: process.version, date: new Date().toISOString(), set: o.set, ef: o.ef, rows }, null, 2)}\n`);
