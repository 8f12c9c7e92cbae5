// `strata generate`: a deterministic dataset (clustered, or embedding-like) with exact ground truth.
import type { Command } from 'commander';
import { invalidArgument } from '../../common/errors.js';
import { estimateLid, GENERATOR_KINDS, readDataset, writeGeneratedSet, type GenerateSpec, type GeneratorKind } from '../../datasets/index.js';
import { choiceOption, intOption } from '../options.js';

const DEFAULT_CLUSTERS: Record<GeneratorKind, number> = { clustered: 100, embedding: 3000 };

/** The embedding generator rotates every row by a dim × dim basis built in O(dim³): past this it takes minutes. */
const MAX_EMBEDDING_DIM = 4096;

interface GenerateFlags {
  outDir: string;
  kind: GeneratorKind;
  count: number;
  dim: number;
  queries: number;
  clusters?: number;
  k: number;
  seed: number;
  lid?: boolean;
}

export function registerGenerate(program: Command): void {
  program
    .command('generate')
    .description('write a deterministic dataset (base, queries, exact ground truth) in TEXMEX layout')
    .requiredOption('-o, --out-dir <dir>', 'directory for base.fvecs, query.fvecs, groundtruth.ivecs, groundtruth_dist.fvecs')
    .option(
      '--kind <kind>',
      'clustered (Gaussian clusters, l2 ground truth) | embedding (angular, embedding-like: topics, anisotropic spread, shared mean direction, uneven norms; cosine ground truth)',
      choiceOption('--kind', GENERATOR_KINDS),
      'clustered',
    )
    .option('--count <n>', 'base vectors', intOption('--count', 1, 50_000_000), 100_000)
    .option('--dim <n>', `dimensions (embedding: at most ${MAX_EMBEDDING_DIM})`, intOption('--dim', 1, 65_536), 128)
    .option('--queries <n>', 'query vectors', intOption('--queries', 1, 1_000_000), 1000)
    .option('--clusters <n>', 'clusters, or topics for embedding (default: 100 clustered, 3000 embedding)', intOption('--clusters', 1, 1_000_000))
    .option('--k <n>', 'ground-truth neighbours per query', intOption('--k', 1, 1000), 100)
    .option('--seed <n>', 'seed', intOption('--seed', 0), 42)
    .option('--lid', 'also estimate the local intrinsic dimensionality (MLE, k = 20, 1,000 sampled rows; brute force, so it takes a while)')
    .action(async (f: GenerateFlags) => {
      const clusters = f.clusters ?? DEFAULT_CLUSTERS[f.kind];
      const shape = { count: f.count, dim: f.dim, seed: f.seed };
      if (f.kind === 'embedding' && f.dim > MAX_EMBEDDING_DIM)
        throw invalidArgument('--dim', `at most ${MAX_EMBEDDING_DIM} for --kind embedding, got ${f.dim}`, { max: MAX_EMBEDDING_DIM });
      const spec: GenerateSpec = f.kind === 'embedding' ? { kind: 'embedding', ...shape, topics: clusters } : { ...shape, clusters };
      const w = await writeGeneratedSet(f.outDir, spec, f.queries, f.k);
      // measured on the file as written (float32), as any other tool would see it
      const lid = f.lid ? estimateLid((await readDataset(w.base)).vectors, f.dim, { k: 20, sample: 1000, metric: w.metric, seed: f.seed }) : undefined;
      process.stdout.write(JSON.stringify(lid ? { ...w, lid } : w) + '\n');
    });
}
