// A TEXMEX directory (base.fvecs, query.fvecs, groundtruth.ivecs, groundtruth_dist.fvecs) read for
// the graph benches, with the base normalised for cosine as `strata build` normalises it.
import { join } from 'node:path';
import { type Dataset, readDataset, readFvecsMatrix, readGroundTruth } from '../datasets/index.js';
import type { Metric } from '../index/kernels/kernels.js';
import { normalizeRows } from '../index/kernels/reference.js';
import type { RecallInput } from '../index/search/recall.js';

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
