// Exact k nearest neighbours by brute force in float64: the recall oracle for generated sets and for
// the load generator. It keeps its own distance loops instead of borrowing the engine's (index/
// kernels): an oracle that shares code with what it judges cannot catch that code's mistakes, and
// datasets/ sits below index/ (the build reads datasets, never the reverse).
import type { Metric } from './types.js';

export interface GroundTruth {
  k: number;
  ids: Int32Array;
  /**
   * Euclidean (not squared) for l2, as TEXMEX/ann-benchmarks store it; 1 - dot for ip; 1 - cosine
   * for cosine (a zero row is orthogonal to everything: distance 1).
   */
  distances: Float32Array;
}

/** Float64 norms of every row: cosine divides by them instead of rounding rows to float32 unit length. */
function rowNorms(v: Float32Array, dim: number): Float64Array {
  const n = v.length / dim;
  const out = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    let s = 0;
    for (let o = r * dim, end = o + dim; o < end; o++) s += v[o]! * v[o]!;
    out[r] = Math.sqrt(s);
  }
  return out;
}

/** Distances from one query to every base row, in float64, ordered like GroundTruth.distances (l2 squared). */
function distancesTo(
  query: Float32Array,
  qo: number,
  base: Float32Array,
  dim: number,
  metric: Metric,
  qNorm: number,
  norms: Float64Array | null,
  out: Float64Array,
): void {
  for (let i = 0, bo = 0; i < out.length; i++, bo += dim) {
    let s = 0;
    if (metric === 'l2') {
      for (let j = 0; j < dim; j++) {
        const t = query[qo + j]! - base[bo + j]!;
        s += t * t;
      }
      out[i] = s;
    } else {
      for (let j = 0; j < dim; j++) s += query[qo + j]! * base[bo + j]!;
      if (norms === null) out[i] = 1 - s;
      else {
        const scale = qNorm * norms[i]!;
        out[i] = scale > 0 ? 1 - s / scale : 1;
      }
    }
  }
}

export function bruteForceKnn(base: Float32Array, queries: Float32Array, dim: number, k: number, metric: Metric): GroundTruth {
  return bruteForceKnnWhere(base, queries, dim, k, metric, 1, null)[0]!.truth;
}

/** Ground truth restricted per query to the rows a mask allows: fewer than k of them leave the row padded. */
export interface MaskedGroundTruth {
  /** `k` entries per query (with masks; without, at most the row count); past a query's `matched`, id -1 and distance Infinity. */
  truth: GroundTruth;
  /** Rows each query's mask allowed (all rows without masks). */
  matched: Int32Array;
}

/**
 * Exact k nearest neighbours of each query among the rows a mask allows (1 = may be returned), for
 * `sets` masks per query at once (`allowed(q)` gives them), so the distances to every row are
 * computed once per query however many filters are judged; `allowed` null: one set, all rows. The
 * filters' evaluation into masks is the caller's (datasets/ knows nothing of filters).
 */
export function bruteForceKnnWhere(
  base: Float32Array,
  queries: Float32Array,
  dim: number,
  k: number,
  metric: Metric,
  sets: number,
  allowed: ((q: number) => readonly Uint8Array[]) | null,
): MaskedGroundTruth[] {
  const n = base.length / dim;
  const nq = queries.length / dim;
  const kk = allowed === null ? Math.min(k, n) : k;
  const out = Array.from({ length: sets }, () => ({
    truth: { k: kk, ids: new Int32Array(nq * kk), distances: new Float32Array(nq * kk) },
    matched: new Int32Array(nq),
  }));
  const norms = metric === 'cosine' ? rowNorms(base, dim) : null;
  const qNorms = metric === 'cosine' ? rowNorms(queries, dim) : null;
  const all = new Float64Array(n);
  const bestD = new Float64Array(kk);
  const bestI = new Int32Array(kk);
  for (let q = 0; q < nq; q++) {
    const masks = allowed === null ? null : allowed(q);
    if (masks !== null && masks.length !== sets) throw new RangeError(`query ${q} has ${masks.length} masks for ${sets} sets`);
    distancesTo(queries, q * dim, base, dim, metric, qNorms === null ? 1 : qNorms[q]!, norms, all);
    for (let s = 0; s < sets; s++) {
      const mask = masks === null ? null : masks[s]!;
      if (mask !== null && mask.length !== n) throw new RangeError(`mask ${s} of query ${q} has ${mask.length} entries for ${n} rows`);
      let filled = 0;
      let count = 0;
      for (let i = 0; i < n; i++) {
        if (mask !== null && mask[i] === 0) continue;
        count++;
        const d = all[i]!;
        if (filled < kk || d < bestD[filled - 1]!) {
          // insertion into a sorted list: k is small; ties keep the smaller id first
          let p = filled < kk ? filled++ : kk - 1;
          while (p > 0 && bestD[p - 1]! > d) {
            bestD[p] = bestD[p - 1]!;
            bestI[p] = bestI[p - 1]!;
            p--;
          }
          bestD[p] = d;
          bestI[p] = i;
        }
      }
      const r = out[s]!;
      r.matched[q] = count;
      for (let j = 0; j < kk; j++) {
        r.truth.ids[q * kk + j] = j < filled ? bestI[j]! : -1;
        r.truth.distances[q * kk + j] = j >= filled ? Infinity : metric === 'l2' ? Math.sqrt(bestD[j]!) : bestD[j]!;
      }
    }
  }
  return out;
}
