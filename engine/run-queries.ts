// A batch of queries through the engine (all submitted at once, so they batch across queries),
// with results laid out like the in-process batch runner's: what `strata search` prints from.
import { meanStats, type SearchStats } from '../index/search/stats.js';
import type { Collection } from './collection.js';
import type { ExecutionMode } from './types.js';

export interface QueriesOptions {
  k: number;
  ef: number;
  exact?: boolean;
  mode?: ExecutionMode;
  /** Untimed passes first (JIT warm-up). */
  warmup?: number;
}

export interface QueriesResult {
  queries: number;
  seconds: number;
  qps: number;
  labels: Float64Array;
  distances: Float32Array;
  stats: SearchStats;
}

export async function runQueries(c: Collection, vectors: Float32Array, o: QueriesOptions): Promise<QueriesResult> {
  const dim = c.dim;
  const n = vectors.length / dim;
  const submit = () =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        c.search({
          vector: vectors.subarray(i * dim, (i + 1) * dim),
          k: o.k,
          ef: o.ef,
          exact: o.exact ?? false,
          ...(o.mode ? { mode: o.mode } : {}),
        }),
      ),
    );
  for (let w = 0; w < (o.warmup ?? 0); w++) await submit();
  const t0 = performance.now();
  const rs = await submit();
  const seconds = (performance.now() - t0) / 1000;
  const labels = new Float64Array(n * o.k).fill(-1);
  const distances = new Float32Array(n * o.k).fill(Infinity);
  rs.forEach((r, i) => {
    r.hits.forEach((h, j) => {
      labels[i * o.k + j] = h.id;
      distances[i * o.k + j] = h.distance;
    });
  });
  return { queries: n, seconds, qps: n / seconds, labels, distances, stats: meanStats(rs.map((r) => r.stats)) };
}
