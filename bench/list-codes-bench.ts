// What list codes (index/tiered/list-code-store.ts) buy the tiered index: one graph of a TEXMEX set
// (hnswlib's, its free slots filled, as `strata build` makes it), laid out at a 10% DRAM budget with
// and without the blocks, searched in process on one thread with the CXL latency injected, the
// layouts alternating at each ef (medians). The same blocks with an unbounded margin (every block read
// and estimated, no neighbour left out) split the difference into its two causes: what reading and
// estimating a block costs a hop, and what the neighbours it leaves unscored save.
import { writeFileSync } from 'node:fs';
import { connectUnreachable } from '../index/build/connect-unreachable.js';
import { DEFAULT_FILL_ALPHA, fillFreeSlots } from '../index/build/fill-free-slots.js';
import { buildGraph } from '../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../index/build/place-and-layout.js';
import type { Metric } from '../index/kernels/kernels.js';
import { runBatch } from '../index/search/batch.js';
import { recallAtK } from '../index/search/recall.js';
import { LIST_CODE_SIGMAS, ListCodeStore } from '../index/tiered/list-code-store.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import { median } from '../common/median.js';
import { qpsAtRecall } from './lib/curves.js';
import { numberList, readTexmexSet, texmexSetCommand } from './lib/texmex-set.js';

const o = texmexSetCommand()
  .option('--m <n>', 'graph degree M', Number, 16)
  .option('--efs <list>', 'ef grid', numberList, [32, 48, 64, 96, 128, 192])
  .option('--targets <list>', 'recall@10 values to compare QPS at', numberList, [0.9, 0.95])
  .option('--reps <n>', 'alternating runs per ef', Number, 3)
  .parse(process.argv)
  .opts<{ dir: string; metric: Metric; m: number; efs: number[]; targets: number[]; reps: number; json?: string }>();

const { base, queries, truth } = await readTexmexSet(o.dir, o.metric);
const graph = buildGraph(base.vectors, base.dim, { metric: o.metric === 'l2' ? 'l2' : 'ip', m: o.m, efConstruction: 200, seed: 100 });
connectUnreachable(graph, o.metric);
await fillFreeSlots(graph, o.metric, DEFAULT_FILL_ALPHA);
const budgetBytes = Math.floor(graphFullPrecisionBytes(graph) * 0.1);
const place = (listCodes: boolean): TieredIndex =>
  placeAndLayout(graph, o.metric, null, { budgetBytes, policy: 'hops', codes: 'auto', seed: 5, listCodes }).index;
const plain = place(false);
const coded = place(true);
const lc = coded.listCodes!;
const margin = lc.margin;

interface Layout {
  name: string;
  index: TieredIndex;
  /** The margin the blocks are searched with (null: no blocks). */
  margin: number | null;
}
const layouts: Layout[] = [
  { name: 'tiered 10%', index: plain, margin: null },
  { name: `+ list codes (margin ${LIST_CODE_SIGMAS} σ)`, index: coded, margin },
  { name: '+ list codes (margin 1 σ)', index: coded, margin: margin / LIST_CODE_SIGMAS },
  { name: '+ list codes read, none left out', index: coded, margin: Number.POSITIVE_INFINITY },
];

/** Searches the layout's index with its margin (the same blocks, re-attached with another margin). */
function search(l: Layout, ef: number) {
  if (l.margin !== null) l.index.attachListCodes(new ListCodeStore(lc.book, lc.stride, lc.blocks, l.margin));
  return runBatch(l.index, queries.vectors, { k: 10, ef, inject: true });
}

const rows = layouts.map(() => o.efs.map(() => ({ qps: [] as number[], recall: 0, distances: 0, hops: 0, skipped: 0, lcKB: 0, cxlKB: 0 })));
for (const [i, l] of layouts.entries())
  for (const [e, ef] of o.efs.entries()) {
    const r = search(l, ef);
    const row = rows[i]![e]!;
    row.recall = recallAtK({ k: 10, results: r.labels, resultDistances: r.distances, metric: o.metric, ...truth }).mean;
    row.distances = r.stats.distances;
    row.hops = r.stats.hops;
    row.skipped = r.stats.listCodeSkipped;
    row.lcKB = r.stats.listCodeBytes / 1024;
    row.cxlKB = r.stats.bytes.cxl / 1024;
  }
for (let rep = 0; rep < o.reps; rep++) for (const [e, ef] of o.efs.entries()) for (const [i, l] of layouts.entries()) rows[i]![e]!.qps.push(search(l, ef).qps);
const curves = rows.map((perEf) => perEf.map((r, e) => ({ ef: o.efs[e]!, recall: r.recall, qps: median(r.qps) })));

console.log(`${o.dir}: ${base.count} × ${base.dim} (${o.metric}), M ${o.m}, a 10% DRAM budget (${plain.codec?.spec.kind ?? 'no'} codes), CXL +190 ns injected`);
console.log(`list codes: ${lc.subspaces} subspaces, ${lc.stride} B a node in the CXL tier, margin ${margin.toFixed(4)} (${LIST_CODE_SIGMAS} σ)\n`);
console.log('| layout | ef | recall@10 | QPS | distances | hops | left out | list-code KB | CXL KB |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [i, l] of layouts.entries())
  for (const [e, ef] of o.efs.entries()) {
    const r = rows[i]![e]!;
    console.log(
      `| ${l.name} | ${ef} | ${r.recall.toFixed(4)} | ${Math.round(curves[i]![e]!.qps)} | ${r.distances.toFixed(0)} | ${r.hops.toFixed(0)} | ${r.skipped.toFixed(0)} | ${r.lcKB.toFixed(1)} | ${r.cxlKB.toFixed(1)} |`,
    );
  }
console.log(`\n| layout | ${o.targets.map((t) => `QPS at ${t} (× tiered 10%)`).join(' | ')} |`);
console.log(`|---|${o.targets.map(() => '---').join('|')}|`);
const at = layouts.map((_, i) => o.targets.map((t) => qpsAtRecall(curves[i]!, t)));
for (const [i, l] of layouts.entries())
  console.log(
    `| ${l.name} | ${at[i]!.map((q, t) => (q === null ? 'never' : `${Math.round(q)} (${at[0]![t] ? (q / at[0]![t]!).toFixed(2) : '-'})`)).join(' | ')} |`,
  );
// The two causes at each ef, from the median times of the same run: a block's read and estimate
// (every block read, none left out, against no blocks) and the neighbours left unscored (the default
// margin against every block read).
console.log('\n| ef | µs a query: tiered 10% | blocks read (+) | neighbours left out (−) | with list codes |');
console.log('|---|---|---|---|---|');
for (const [e, ef] of o.efs.entries()) {
  const us = (i: number): number => 1e6 / curves[i]![e]!.qps;
  console.log(`| ${ef} | ${us(0).toFixed(1)} | ${(us(3) - us(0)).toFixed(1)} | ${(us(3) - us(1)).toFixed(1)} | ${us(1).toFixed(1)} |`);
}
if (o.json)
  writeFileSync(
    o.json,
    JSON.stringify(
      {
        node: process.version,
        date: new Date().toISOString(),
        dir: o.dir,
        count: base.count,
        m: o.m,
        listCodes: { subspaces: lc.subspaces, stride: lc.stride, margin },
        layouts: layouts.map((l, i) => ({
          name: l.name,
          margin: l.margin,
          curve: rows[i]!.map((r, e) => ({ ...r, ef: o.efs[e], qps: curves[i]![e]!.qps })),
          atRecall: o.targets.map((t, k) => ({ recall: t, qps: at[i]![k] })),
        })),
      },
      (_k, v) => (v === Number.POSITIVE_INFINITY ? 'Infinity' : v),
      2,
    ),
  );
