// Deterministic clustered vectors: Strata's embedded default dataset and the larger test sets. Real
// embeddings are clustered with uneven cluster sizes and spreads; uniform noise would make every
// graph search look equally hard, so the generator imitates the former.
import { gaussian, mulberry32 } from '../../common/random.js';
import type { Metric } from '../types.js';
import { weightedPicker, zipfWeights } from './sampling.js';

export interface ClusteredSpec {
  count: number;
  dim: number;
  clusters: number;
  seed: number;
}

export interface GeneratedSet {
  base: Float32Array;
  queries: Float32Array;
  dim: number;
  /** The metric the set is meant to be searched by (its ground truth's). */
  metric: Metric;
  /** Clustered sets: which cluster drew each row, and the centres (labels that follow the clusters). */
  clusters?: ClusterMembership;
}

export interface ClusterMembership {
  count: number;
  /** clusters × dim, row-major. */
  centers: Float32Array;
  base: Int32Array;
  queries: Int32Array;
}

export function generateClustered(spec: ClusteredSpec, queryCount: number): GeneratedSet {
  const { count, dim, clusters, seed } = spec;
  const rnd = mulberry32(seed);
  const g = gaussian(rnd);
  const centers = new Float32Array(clusters * dim);
  for (let i = 0; i < centers.length; i++) centers[i] = g() * 10;
  const spread = new Float32Array(clusters);
  for (let c = 0; c < clusters; c++) spread[c] = 1 + 3 * rnd();
  const pick = weightedPicker(zipfWeights(clusters, 0.5), rnd);
  const fill = (out: Float32Array, rows: number, of: Int32Array): void => {
    for (let r = 0; r < rows; r++) {
      const c = pick();
      of[r] = c;
      const s = spread[c]!;
      for (let d = 0; d < dim; d++) out[r * dim + d] = centers[c * dim + d]! + g() * s;
    }
  };
  const base = new Float32Array(count * dim);
  const baseOf = new Int32Array(count);
  fill(base, count, baseOf);
  const queries = new Float32Array(queryCount * dim);
  const queriesOf = new Int32Array(queryCount);
  fill(queries, queryCount, queriesOf);
  return { base, queries, dim, metric: 'l2', clusters: { count: clusters, centers, base: baseOf, queries: queriesOf } };
}
