// What filling the free level-0 slots (index/build/fill-free-slots.ts) buys: one hnswlib graph of a
// TEXMEX set as built vs filled at each α, laid out alike, side by side: tie-aware recall per ef, QPS
// of alternating runs (medians), and QPS at equal recall.
import { writeFileSync } from 'node:fs';
import { connectUnreachable } from '../index/build/connect-unreachable.js';
import { fillFreeSlots } from '../index/build/fill-free-slots.js';
import { buildGraph } from '../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../index/build/place-and-layout.js';
import type { Metric } from '../index/kernels/kernels.js';
import { runBatch } from '../index/search/batch.js';
import { recallAtK } from '../index/search/recall.js';
import { numberList, readTexmexSet, texmexSetCommand } from './lib/texmex-set.js';
import { median } from '../common/median.js';

const o = texmexSetCommand()
  .option('--alphas <list>', 'α values to fill at', numberList, [1.1, 1.2, 1.3])
  .option('--efs <list>', 'ef grid', numberList, [16, 24, 32, 48, 64, 96, 128, 192, 256])
  .option('--targets <list>', 'recall@10 values to compare QPS at', numberList, [0.9, 0.95, 0.97])
  .option('--codes <kind>', 'none: all in DRAM at full precision; auto: the default 25% build (codes in DRAM, CXL time injected)', 'none')
  .option('--reps <n>', 'alternating runs per ef', Number, 3)
  .parse(process.argv)
  .opts<{ dir: string; metric: Metric; alphas: number[]; efs: number[]; targets: number[]; codes: 'none' | 'auto'; reps: number; json?: string }>();

const metric = o.metric;
const efs = o.efs;
const { base, queries, truth } = await readTexmexSet(o.dir, metric);
const graph = buildGraph(base.vectors, base.dim, { metric, m: 16, efConstruction: 200, seed: 100 });
connectUnreachable(graph, metric);
const asBuilt = graph.level0.slice();
const inject = o.codes !== 'none';
const share = inject ? 0.25 : 1;

const variants = [];
for (const alpha of [null, ...o.alphas]) {
  graph.level0.set(asBuilt);
  const t = performance.now();
  const fill = alpha === null ? null : await fillFreeSlots(graph, metric, alpha);
  const fillSeconds = (performance.now() - t) / 1000;
  const { index } = placeAndLayout(graph, metric, null, {
    budgetBytes: Math.floor(graphFullPrecisionBytes(graph) * share),
    policy: 'hops',
    codes: o.codes,
    seed: 1,
  });
  variants.push({ name: alpha === null ? 'as built' : `filled, α ${alpha}`, fill, fillSeconds, index });
}

const recall = variants.map((v) =>
  efs.map((ef) => {
    const r = runBatch(v.index, queries.vectors, { k: 10, ef, inject });
    return recallAtK({ k: 10, results: r.labels, resultDistances: r.distances, metric, ...truth }).mean;
  }),
);
const runs = variants.map(() => efs.map((): number[] => []));
for (let rep = 0; rep < o.reps; rep++)
  for (const [e, ef] of efs.entries())
    for (const [i, v] of variants.entries()) runs[i]![e]!.push(runBatch(v.index, queries.vectors, { k: 10, ef, inject }).qps);
const qps = runs.map((perEf) => perEf.map((r) => median(r)));

/** QPS at a recall, interpolated between the two ef on either side of it (NaN when never reached). */
function atRecall(i: number, target: number): number {
  const r = recall[i]!;
  const q = qps[i]!;
  if (r[0]! >= target) return q[0]!;
  for (let e = 1; e < efs.length; e++)
    if (r[e - 1]! < target && r[e]! >= target) return q[e - 1]! + ((q[e]! - q[e - 1]!) * (target - r[e - 1]!)) / (r[e]! - r[e - 1]!);
  return NaN;
}

const targets = o.targets;
console.log(`${o.dir}: ${base.count} × ${base.dim} (${metric}), ${inject ? 'default 25% build (codes, CXL +190 ns injected)' : 'all in DRAM, full precision'}`);
console.log(`| graph | links added (s) | mean degree | ${efs.map((ef) => `ef ${ef}`).join(' | ')} |`);
console.log(`|---|---|---|${efs.map(() => '---').join('|')}|`);
for (const [i, v] of variants.entries())
  console.log(
    `| ${v.name} | ${v.fill ? `${v.fill.linksAdded} (${v.fillSeconds.toFixed(1)})` : '-'} | ${(v.fill?.degreeAfter ?? variants[1]?.fill?.degreeBefore ?? NaN).toFixed(2)} | ${efs.map((_, e) => `${recall[i]![e]!.toFixed(4)} / ${Math.round(qps[i]![e]!)}`).join(' | ')} |`,
  );
console.log(`\n| graph | ${targets.map((t) => `QPS at ${t} (× as built)`).join(' | ')} |`);
console.log(`|---|${targets.map(() => '---').join('|')}|`);
for (const [i, v] of variants.entries())
  console.log(`| ${v.name} | ${targets.map((t) => `${Math.round(atRecall(i, t))} (${(atRecall(i, t) / atRecall(0, t)).toFixed(2)})`).join(' | ')} |`);
if (o.json)
  writeFileSync(
    o.json,
    JSON.stringify(
      {
        node: process.version,
        date: new Date().toISOString(),
        dir: o.dir,
        metric,
        codes: o.codes,
        variants: variants.map((v, i) => ({
          name: v.name,
          fill: v.fill,
          fillSeconds: v.fillSeconds,
          curve: efs.map((ef, e) => ({ ef, recall: recall[i]![e], qps: qps[i]![e] })),
          atRecall: targets.map((t) => ({ recall: t, qps: atRecall(i, t) })),
        })),
      },
      null,
      2,
    ),
  );
