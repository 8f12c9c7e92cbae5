// `strata demo` (npm start): the embedded default, no downloads. Generates a clustered set, builds
// a tiered index with 25% DRAM, searches it with emulated CXL and prints what happened.
import type { IndexSpec } from '../../index/payload-index/params.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { buildIndex } from '../../index/build/build-index.js';
import { readDataset, readGroundTruth, writeGeneratedSet, readFvecsMatrix } from '../../datasets/index.js';
import { openIndex } from '../../index/open-index.js';
import { runBatch } from '../../index/search/batch.js';
import { recallAtK } from '../../index/search/recall.js';
import { intOption } from '../options.js';
import { phaseProgress } from '../progress.js';

export const DEMO_SPEC = { count: 20_000, dim: 128, clusters: 64, seed: 42 };

export const DEMO_DIR = '.strata/demo';

export interface DemoIndex {
  dataDir: string;
  indexDir: string;
}

/**
 * The embedded default: generates the clustered set (with exact ground truth) and builds its tiered
 * index under `dir`, each only when not there already. Shared by `strata demo` and `strata serve --demo`.
 */
/** The demo points' payloads: a colour (a quarter of the points each) and the point's number. */
const COLOURS = ['red', 'green', 'blue', 'gold'];
function* demoPayloads(count: number): IterableIterator<[number, Record<string, unknown>]> {
  for (let i = 0; i < count; i++) yield [i, { colour: COLOURS[i % COLOURS.length], n: i }];
}
const DEMO_INDEXES: IndexSpec[] = [
  { field: 'colour', params: { type: 'keyword' } },
  { field: 'n', params: { type: 'integer' } },
];

export async function prepareDemo(dirArg: string, count: number): Promise<DemoIndex> {
  const dir = resolve(dirArg);
  const dataDir = join(dir, `data-${count}`);
  if (!existsSync(join(dataDir, 'groundtruth_dist.fvecs'))) {
    process.stderr.write(`generating ${count} clustered 128-d vectors in ${dataDir}\n`);
    await writeGeneratedSet(dataDir, { ...DEMO_SPEC, count }, 200, 100);
  }
  // -p: built with the demo payloads (an index built before them is left alone, not reused).
  const indexDir = join(dir, `index-${count}-p`);
  if (!existsSync(join(indexDir, 'manifest.json'))) {
    const progress = phaseProgress();
    try {
      const s = await buildIndex({
        input: join(dataDir, 'base.fvecs'),
        out: indexDir,
        dramBudget: '25%',
        placement: 'profile',
        basePayloads: { entries: demoPayloads(count), indexes: DEMO_INDEXES },
        onProgress: (p, d, t) => progress.update(p, d, t),
      });
      process.stderr.write(`built ${indexDir} in ${s.seconds.total.toFixed(1)} s\n`);
    } finally {
      progress.stop();
    }
  }
  return { dataDir, indexDir };
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('generate the embedded default dataset, build a tiered index on it and search it')
    .option('--dir <dir>', 'working directory', DEMO_DIR)
    .option('--count <n>', 'vectors', intOption('--count', 100, 5_000_000), DEMO_SPEC.count)
    .action(async (f: { dir: string; count: number }) => {
      const { dataDir, indexDir } = await prepareDemo(f.dir, f.count);
      const { index, memory } = openIndex(indexDir);
      const qs = await readDataset(join(dataDir, 'query.fvecs'));
      const gt = await readGroundTruth(join(dataDir, 'groundtruth.ivecs'));
      const gd = await readFvecsMatrix(join(dataDir, 'groundtruth_dist.fvecs'));
      process.stdout.write(
        `index ${indexDir}: ${index.meta.count} vectors, ${index.plan.code?.kind ?? 'no'} codes in DRAM, neighbour lists of ${index.plan.adjacencyInDram} nodes in DRAM and ${index.meta.count - index.plan.adjacencyInDram} in CXL (${memory.mode}: ${memory.reason})\n`,
      );
      for (const ef of [16, 32, 64, 128]) {
        const r = runBatch(index, qs.vectors, { k: 10, ef, warmup: 1 });
        const rec = recallAtK({
          k: 10,
          results: r.labels,
          resultDistances: r.distances,
          metric: index.meta.metric,
          gtIds: gt.data,
          gtDim: gt.dim,
          gtDistances: gd.data,
        });
        process.stdout.write(
          `ef ${String(ef).padStart(3)}: recall@10 ${rec.mean.toFixed(3)}, ${Math.round(r.qps)} QPS, ${r.stats.distances.toFixed(0)} distances/query, DRAM share ${(100 * r.stats.dramShare).toFixed(1)}%, modelled memory ${(r.stats.modelledMemoryNs / 1000).toFixed(1)} µs/query\n`,
        );
      }
      process.stdout.write(
        `try: npx strata search ${indexDir} --queries ${join(dataDir, 'query.fvecs')} --gt ${join(dataDir, 'groundtruth.ivecs')} --ef 64 --inject\n`,
      );
    });
}
