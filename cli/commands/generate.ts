// `strata generate`: a deterministic clustered dataset with exact ground truth.
import type { Command } from 'commander';
import { writeGeneratedSet } from '../../datasets/index.js';
import { intOption } from '../options.js';

export function registerGenerate(program: Command): void {
  program
    .command('generate')
    .description('write a deterministic clustered dataset (base, queries, exact ground truth) in TEXMEX layout')
    .requiredOption('-o, --out-dir <dir>', 'directory for base.fvecs, query.fvecs, groundtruth.ivecs, groundtruth_dist.fvecs')
    .option('--count <n>', 'base vectors', intOption('--count', 1, 50_000_000), 100_000)
    .option('--dim <n>', 'dimensions', intOption('--dim', 1, 65_536), 128)
    .option('--queries <n>', 'query vectors', intOption('--queries', 1, 1_000_000), 1000)
    .option('--clusters <n>', 'clusters', intOption('--clusters', 1, 1_000_000), 100)
    .option('--k <n>', 'ground-truth neighbours per query', intOption('--k', 1, 1000), 100)
    .option('--seed <n>', 'seed', intOption('--seed', 0), 42)
    .action(async (f: { outDir: string; count: number; dim: number; queries: number; clusters: number; k: number; seed: number }) => {
      const w = await writeGeneratedSet(f.outDir, { count: f.count, dim: f.dim, clusters: f.clusters, seed: f.seed }, f.queries, f.k);
      process.stdout.write(JSON.stringify(w) + '\n');
    });
}
