// Local intrinsic dimensionality (LID): how fast the number of neighbours grows with the radius
// around a point, the property that makes a set hard or easy for nearest-neighbour search (the
// ann-benchmarks LID studies sort query difficulty by it). Estimated by maximum likelihood
// (Levina–Bickel; Amsaleg et al.) from the distances to the k nearest neighbours of sampled rows:
// LID = -1 / mean_i ln(r_i / r_k).
import { pickRows, seededSample } from '../common/random.js';
import { bruteForceKnn } from './ground-truth.js';
import type { Metric } from './types.js';

export interface LidOptions {
  /** Neighbours per estimate; default 20. */
  k?: number;
  /** Rows sampled (each one estimate); default 1,000 (all rows when fewer). */
  sample?: number;
  /** Default l2. Under cosine (and ip), distances are Euclidean between unit-normalised rows. */
  metric?: Metric;
  seed?: number;
}

export interface LidEstimate {
  /** Mean of the per-row estimates. */
  mean: number;
  median: number;
  k: number;
  /** Rows with an estimate (rows with duplicates at distance 0 or all-equal distances have none). */
  rows: number;
}

/** The MLE from one row's k nearest distances (ascending, excluding the row itself); null when undefined. */
export function lidFromDistances(r: ArrayLike<number>): number | null {
  const k = r.length;
  const rk = r[k - 1]!;
  if (!(rk > 0) || r[0]! <= 0) return null;
  let s = 0;
  for (let i = 0; i < k; i++) s += Math.log(r[i]! / rk);
  return s < 0 ? -k / s : null;
}

export function estimateLid(vectors: Float32Array, dim: number, o: LidOptions = {}): LidEstimate {
  const k = o.k ?? 20;
  const n = vectors.length / dim;
  const metric = o.metric ?? 'l2';
  const take = Math.min(n, o.sample ?? 1000);
  const order = seededSample(n, take, o.seed ?? 1);
  const queries = pickRows(vectors, dim, order);
  // k + 1: each sampled row finds itself first
  const gt = bruteForceKnn(vectors, queries, dim, k + 1, metric === 'l2' ? 'l2' : 'cosine');
  const estimates: number[] = [];
  const r = new Float64Array(k);
  for (let q = 0; q < take; q++) {
    let m = 0;
    for (let j = 0; j < gt.k && m < k; j++) {
      if (gt.ids[q * gt.k + j] === order[q]) continue;
      const d = gt.distances[q * gt.k + j]!;
      // 1 - cos is half the squared chord between unit vectors: LID needs the metric, the chord
      r[m++] = metric === 'l2' ? d : Math.sqrt(2 * Math.max(0, d));
    }
    const lid = m === k ? lidFromDistances(r) : null;
    if (lid !== null) estimates.push(lid);
  }
  estimates.sort((a, b) => a - b);
  const mean = estimates.reduce((a, b) => a + b, 0) / Math.max(1, estimates.length);
  const median = estimates.length > 0 ? estimates[estimates.length >> 1]! : Number.NaN;
  return { mean, median, k, rows: estimates.length };
}
