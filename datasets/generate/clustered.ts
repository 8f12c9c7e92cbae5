// Deterministic clustered vectors: Strata's embedded default dataset and the larger test sets. Real
// embeddings are clustered with uneven cluster sizes and spreads; uniform noise would make every
// graph search look equally hard, so the generator imitates the former.
import { gaussian, mulberry32 } from '../../common/random.js';

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
}

export function generateClustered(spec: ClusteredSpec, queryCount: number): GeneratedSet {
  const { count, dim, clusters, seed } = spec;
  const rnd = mulberry32(seed);
  const g = gaussian(rnd);
  const centers = new Float32Array(clusters * dim);
  for (let i = 0; i < centers.length; i++) centers[i] = g() * 10;
  const spread = new Float32Array(clusters);
  const weight = new Float64Array(clusters);
  let wsum = 0;
  for (let c = 0; c < clusters; c++) {
    spread[c] = 1 + 3 * rnd();
    weight[c] = 1 / (c + 1) ** 0.5; // a Zipf-like spread of cluster sizes
    wsum += weight[c]!;
  }
  const cdf = new Float64Array(clusters);
  let acc = 0;
  for (let c = 0; c < clusters; c++) cdf[c] = acc += weight[c]! / wsum;
  const pick = (): number => {
    const u = rnd();
    let lo = 0;
    let hi = clusters - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const fill = (out: Float32Array, rows: number): void => {
    for (let r = 0; r < rows; r++) {
      const c = pick();
      const s = spread[c]!;
      for (let d = 0; d < dim; d++) out[r * dim + d] = centers[c * dim + d]! + g() * s;
    }
  };
  const base = new Float32Array(count * dim);
  fill(base, count);
  const queries = new Float32Array(queryCount * dim);
  fill(queries, queryCount);
  return { base, queries, dim };
}
