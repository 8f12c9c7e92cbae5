// A batch of queries on one thread: what `strata search` and the benchmarks run.
import type { CostModelParams } from '../../tiers/cost-model.js';
import { normalizeRows } from '../kernels/reference.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { invalidArgument } from '../../common/errors.js';
import { checkEf, checkK, checkRerank, defaultRerank } from './bounds.js';
import { DEFAULT_PREFETCH, Searcher } from './searcher.js';
import { addStats, STAT_FIELDS, statsView, type SearchStats } from './stats.js';

export interface BatchOptions {
  k: number;
  ef: number;
  /** Re-ranked candidates (indexes with codes; default 5 × k). */
  rerank?: number;
  prefetch?: boolean;
  /** Run level 0 as one fused WASM call where the index allows (default true; false: the JS beam). */
  fused?: boolean;
  exact?: boolean;
  inject?: boolean;
  cost?: CostModelParams;
  /** Untimed passes over the batch first (JIT warm-up). */
  warmup?: number;
}

export interface BatchResult {
  queries: number;
  k: number;
  ef: number;
  seconds: number;
  qps: number;
  /** External labels, k per query (-1 where fewer than k were found). */
  labels: Float64Array;
  distances: Float32Array;
  stats: SearchStats;
}

export function runBatch(index: TieredIndex, queriesIn: Float32Array, o: BatchOptions): BatchResult {
  const dim = index.meta.dim;
  // The edge of the in-process API: parameters are checked once here, the searcher trusts them.
  if (!Number.isInteger(queriesIn.length / dim)) throw invalidArgument('queries', `length ${queriesIn.length} is not a multiple of ${dim} dimensions`);
  checkK(o.k, 'k');
  checkEf(o.ef, 'ef');
  const rerank = o.rerank === undefined ? defaultRerank(o.k) : checkRerank(o.rerank, o.k, 'rerank');
  const nq = queriesIn.length / dim;
  let queries = queriesIn;
  if (index.meta.metric === 'cosine') {
    queries = queriesIn.slice();
    normalizeRows(queries, dim);
  }
  const s = new Searcher(index, {
    ...(o.cost ? { cost: o.cost } : {}),
    inject: o.inject ?? false,
    prefetch: o.prefetch ?? DEFAULT_PREFETCH,
    fused: o.fused ?? true,
  });
  const labels = new Float64Array(nq * o.k).fill(-1);
  const distances = new Float32Array(nq * o.k).fill(Infinity);
  const total = new Float64Array(STAT_FIELDS);
  try {
    const one = (q: number, record: boolean): void => {
      const v = queries.subarray(q * dim, (q + 1) * dim);
      const r = o.exact ? s.exact(v, o.k) : s.search(v, o.k, o.ef, rerank);
      if (!record) return;
      for (let j = 0; j < r.ids.length; j++) {
        labels[q * o.k + j] = index.labels[r.ids[j]!]!;
        distances[q * o.k + j] = r.distances[j]!;
      }
      addStats(total, r.stats);
    };
    for (let w = 0; w < (o.warmup ?? 0); w++) for (let q = 0; q < nq; q++) one(q, false);
    const t0 = performance.now();
    for (let q = 0; q < nq; q++) one(q, true);
    const seconds = (performance.now() - t0) / 1000;
    return { queries: nq, k: o.k, ef: o.ef, seconds, qps: nq / seconds, labels, distances, stats: statsView(total, nq) };
  } finally {
    s.close();
  }
}
