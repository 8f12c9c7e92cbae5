// `strata build` beside hnswlib-node's own build, side by side in one process on the same vectors
// (issue 37's build bar): per round and in turn, hnswlib-node alone (the same M, ef_construction,
// seed and insertion order), then `strata build` on one thread (hnswlib's graph) and on every core,
// with Strata's parallel graph and with hnswlib's. For each: wall time per phase (the graph, the fill
// after it, the layout), the ratio to hnswlib-node in the same round, and recall@10 at a fixed ef of
// the built index, so that a faster build is seen not to cost recall.
import { availableParallelism, tmpdir } from 'node:os';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildIndex, DEFAULT_BUILD, type GraphBuilder } from '../index/build/build-index.js';
import { buildHnswlib } from '../index/build/hnsw-build.js';
import { openIndex } from '../index/open-index.js';
import { runBatch } from '../index/search/batch.js';
import { recallAtK } from '../index/search/recall.js';
import type { Metric } from '../index/kernels/kernels.js';
import { numberList, readTexmexSet, texmexSetCommand } from './lib/texmex-set.js';

const o = texmexSetCommand()
  .option('--rounds <n>', 'rounds, each running all three builds in turn', Number, 2)
  .option('--ef <n>', 'ef of the recall check', Number, 64)
  .option('--threads <list>', "strata build's thread counts", numberList, [1, availableParallelism()])
  .option('--dram-budget <b>', "strata build's DRAM budget", '10%')
  .option('--builders <list>', "graph builders of strata build's multi-threaded runs: strata, hnswlib", (v: string) => v.split(','), ['strata', 'hnswlib'])
  .parse(process.argv)
  .opts<{ dir: string; metric: Metric; rounds: number; ef: number; threads: number[]; dramBudget: string; builders: GraphBuilder[]; json?: string }>();

const log = (line: string): void => void process.stderr.write(`build: ${line}\n`);
const { base, queries, truth } = await readTexmexSet(o.dir, o.metric);
const input = join(o.dir, 'base.fvecs');
const { m, efConstruction, seed } = DEFAULT_BUILD;

interface Run {
  name: string;
  round: number;
  seconds: number;
  phases: Record<string, number> | null;
  recall: number | null;
}
const runs: Run[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'strata-build-bench-'));
try {
  for (let round = 1; round <= o.rounds; round++) {
    let t = performance.now();
    buildHnswlib(base.vectors, base.dim, { metric: o.metric, m, efConstruction, seed });
    runs.push({ name: 'hnswlib-node', round, seconds: (performance.now() - t) / 1000, phases: null, recall: null });
    log(`round ${round}: hnswlib-node ${runs.at(-1)!.seconds.toFixed(1)} s`);
    for (const [threads, builder] of o.threads.flatMap(
      (n): Array<[number, GraphBuilder]> => (n > 1 ? o.builders.map((b): [number, GraphBuilder] => [n, b]) : [[n, 'hnswlib']]),
    )) {
      const out = join(scratch, `t${threads}`);
      t = performance.now();
      const s = await buildIndex({ input, out, metric: o.metric, dramBudget: o.dramBudget, threads, builder, force: true });
      const seconds = (performance.now() - t) / 1000;
      const opened = openIndex(out);
      const r = runBatch(opened.index, queries.vectors, { k: 10, ef: o.ef });
      const recall = recallAtK({ k: 10, results: r.labels, resultDistances: r.distances, metric: o.metric, ...truth }).mean;
      runs.push({
        name: `strata build, ${threads} thread${threads > 1 ? 's' : ''}, ${builder === 'strata' ? "Strata's graph" : "hnswlib's graph"}`,
        round,
        seconds,
        phases: s.seconds,
        recall,
      });
      log(`round ${round}: ${runs.at(-1)!.name} ${seconds.toFixed(1)} s, recall ${recall.toFixed(4)}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

console.log(`${base.count} × ${base.dim} (${o.metric}), M ${m}, ef_construction ${efConstruction}, DRAM budget ${o.dramBudget}; recall@10 at ef ${o.ef}`);
console.log('| round | build | seconds | × hnswlib-node (same round) | graph | fill | layout | recall@10 |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of runs) {
  const ref = runs.find((x) => x.round === r.round && x.name === 'hnswlib-node')!.seconds;
  const p = r.phases;
  const cells = p ? [p.graph!.toFixed(1), p.fill!.toFixed(1), p.layout!.toFixed(1), r.recall!.toFixed(4)] : ['—', '—', '—', '—'];
  console.log(`| ${r.round} | ${r.name} | ${r.seconds.toFixed(1)} | ${(r.seconds / ref).toFixed(2)} | ${cells.join(' | ')} |`);
}
if (o.json) writeFileSync(o.json, `${JSON.stringify({ count: base.count, dim: base.dim, metric: o.metric, m, efConstruction, runs }, null, 2)}\n`);
