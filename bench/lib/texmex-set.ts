// A TEXMEX directory (base.fvecs, query.fvecs, groundtruth.ivecs, groundtruth_dist.fvecs) read for
// the graph benches, with the base normalised for cosine as `strata build` normalises it, and the
// command-line options those benches share (the set, its metric, the JSON output, number lists).
import { join } from 'node:path';
import { Command } from 'commander';
import { type Dataset, readDataset, readFvecsMatrix, readGroundTruth } from '../../datasets/index.js';
import type { Metric } from '../../index/kernels/kernels.js';
import { normalizeRows } from '../../index/kernels/reference.js';
import type { RecallInput } from '../../index/search/recall.js';

/** A comma-separated list of numbers (empty items dropped), as commander's argument parser. */
export const numberList = (s: string): number[] =>
  s
    .split(',')
    .filter((x) => x !== '')
    .map(Number);

/** The options every bench over one TEXMEX set takes: --dir, --metric and --json. */
export function texmexSetCommand(): Command {
  return new Command()
    .requiredOption('--dir <dir>', 'a TEXMEX set: base.fvecs, query.fvecs, groundtruth.ivecs, groundtruth_dist.fvecs')
    .option('--metric <metric>', 'l2 | cosine', 'cosine')
    .option('--json <file>', 'also write the figures as JSON');
}

export interface TexmexSet {
  base: Dataset;
  queries: Dataset;
  /** The ground truth as recallAtK takes it (tie-aware: with the true distances). */
  truth: Pick<RecallInput, 'gtIds' | 'gtDim' | 'gtDistances'>;
}

export async function readTexmexSet(dir: string, metric: Metric): Promise<TexmexSet> {
  const base = await readDataset(join(dir, 'base.fvecs'));
  const queries = await readDataset(join(dir, 'query.fvecs'));
  const gt = await readGroundTruth(join(dir, 'groundtruth.ivecs'));
  const gtd = await readFvecsMatrix(join(dir, 'groundtruth_dist.fvecs'));
  if (metric === 'cosine') normalizeRows(base.vectors, base.dim);
  return { base, queries, truth: { gtIds: gt.data, gtDim: gt.dim, gtDistances: gtd.data } };
}
