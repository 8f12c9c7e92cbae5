// Writes a generated set in TEXMEX layout (base/query .fvecs, exact ground truth ids and distances),
// the same shape as the SIFT reference set, so every tool reads both the same way.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { bruteForceKnn } from '../ground-truth.js';
import type { Metric } from '../types.js';
import { writeFvecs, writeIvecs } from '../writers.js';
import { generateClustered, type ClusteredSpec } from './clustered.js';

export interface WrittenSet {
  dir: string;
  base: string;
  query: string;
  groundtruth: string;
  groundtruthDist: string;
}

export async function writeGeneratedSet(dir: string, spec: ClusteredSpec, queries: number, k: number, metric: Metric = 'l2'): Promise<WrittenSet> {
  mkdirSync(dir, { recursive: true });
  const set = generateClustered(spec, queries);
  const gt = bruteForceKnn(set.base, set.queries, set.dim, k, metric);
  const files: WrittenSet = {
    dir,
    base: join(dir, 'base.fvecs'),
    query: join(dir, 'query.fvecs'),
    groundtruth: join(dir, 'groundtruth.ivecs'),
    groundtruthDist: join(dir, 'groundtruth_dist.fvecs'),
  };
  await writeFvecs(files.base, set.base, set.dim);
  await writeFvecs(files.query, set.queries, set.dim);
  await writeIvecs(files.groundtruth, gt.ids, gt.k);
  await writeFvecs(files.groundtruthDist, gt.distances, gt.k);
  return files;
}
