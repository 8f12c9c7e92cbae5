// Writes a generated set in TEXMEX layout (base/query .fvecs, exact ground truth ids and distances),
// the same shape as the SIFT reference set, so every tool reads both the same way.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { bruteForceKnn } from '../ground-truth.js';
import type { Metric } from '../types.js';
import { writeFvecs, writeIvecs } from '../writers.js';
import { generateSet, type GenerateSpec } from './kinds.js';

export interface WrittenSet {
  dir: string;
  base: string;
  query: string;
  groundtruth: string;
  groundtruthDist: string;
  /** The metric of the ground truth: what to build the index with (--metric). */
  metric: Metric;
}

/** Ground truth by `metric`, by default the one the set is meant for (clustered: l2, embedding: cosine). */
export async function writeGeneratedSet(dir: string, spec: GenerateSpec, queries: number, k: number, metric?: Metric): Promise<WrittenSet> {
  mkdirSync(dir, { recursive: true });
  const set = generateSet(spec, queries);
  const m = metric ?? set.metric;
  const gt = bruteForceKnn(set.base, set.queries, set.dim, k, m);
  const files: WrittenSet = {
    dir,
    base: join(dir, 'base.fvecs'),
    query: join(dir, 'query.fvecs'),
    groundtruth: join(dir, 'groundtruth.ivecs'),
    groundtruthDist: join(dir, 'groundtruth_dist.fvecs'),
    metric: m,
  };
  await writeFvecs(files.base, set.base, set.dim);
  await writeFvecs(files.query, set.queries, set.dim);
  await writeIvecs(files.groundtruth, gt.ids, gt.k);
  await writeFvecs(files.groundtruthDist, gt.distances, gt.k);
  return files;
}
