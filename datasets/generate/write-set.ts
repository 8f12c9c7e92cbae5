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
  const set = generateSet(spec, queries);
  return writeTexmexSet(dir, set.base, set.queries, set.dim, k, metric ?? set.metric);
}

/** Base and queries as .fvecs, with exact ground truth by `metric` (ids and distances), under dir. */
export async function writeTexmexSet(dir: string, base: Float32Array, queries: Float32Array, dim: number, k: number, metric: Metric): Promise<WrittenSet> {
  mkdirSync(dir, { recursive: true });
  const gt = bruteForceKnn(base, queries, dim, k, metric);
  const files: WrittenSet = {
    dir,
    base: join(dir, 'base.fvecs'),
    query: join(dir, 'query.fvecs'),
    groundtruth: join(dir, 'groundtruth.ivecs'),
    groundtruthDist: join(dir, 'groundtruth_dist.fvecs'),
    metric,
  };
  await writeFvecs(files.base, base, dim);
  await writeFvecs(files.query, queries, dim);
  await writeIvecs(files.groundtruth, gt.ids, gt.k);
  await writeFvecs(files.groundtruthDist, gt.distances, gt.k);
  return files;
}
