// Runs a query task against an index on the current thread: the same code serves the inline
// executor (main thread) and the search workers.
import { StrataError } from '../common/errors.js';
import { Searcher, type SearcherOptions } from '../index/search/searcher.js';
import { STAT_FIELDS } from '../index/search/stats.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { NdpRunner } from './ndp/ndp-runner.js';
import { bitsetWords, linksOf, runsOf } from './filter-arena.js';
import { emptyResult, type QueryTask, type TaskResult } from './task.js';

export interface SearchContext {
  index: TieredIndex;
  searcher: Searcher;
  ndp: NdpRunner | null;
  /** The filter arena's words (engine/filter-arena.ts): filtered queries' bitsets, read in place. */
  filters: Uint32Array;
}

export function makeContext(index: TieredIndex, opts: SearcherOptions, ndp: NdpRunner | null, filters: SharedArrayBuffer): SearchContext {
  return { index, searcher: new Searcher(index, opts), ndp, filters: new Uint32Array(filters) };
}

/** Whether query q of a task runs on this thread's local searcher in a near-data task: exact and filtered ones do. */
export function runsLocally(t: QueryTask, q: number): boolean {
  return t.exact[q] === 1 || t.filterAt[q]! >= 0;
}

export function runTask(ctx: SearchContext, t: QueryTask): TaskResult {
  const t0 = performance.now();
  const n = t.k.length;
  let kMax = 0;
  for (let i = 0; i < n; i++) kMax = Math.max(kMax, t.k[i]!);
  const out = emptyResult(n, kMax);
  if (t.mode === 'ndp') {
    if (ctx.ndp === null)
      throw new StrataError('STRATA_INVALID_ARGUMENT', 'mode: ndp needs the engine started with tier workers (ndp: true)', { field: 'mode' });
    ctx.ndp.run(t, out);
    // Exact (brute-force) queries in a near-data task run here, on this thread.
    for (let q = 0; q < n; q++) if (runsLocally(t, q)) writeOne(ctx, t, out, q, kMax);
  } else {
    for (let q = 0; q < n; q++) writeOne(ctx, t, out, q, kMax);
  }
  out.busyMs = performance.now() - t0;
  return out;
}

function writeOne(ctx: SearchContext, t: QueryTask, out: TaskResult, q: number, kMax: number): void {
  const v = t.vectors.subarray(q * t.dim, (q + 1) * t.dim);
  const at = t.filterAt[q]!;
  const nodes = ctx.index.meta.count;
  const filter =
    at < 0
      ? null
      : {
          bits: ctx.filters.subarray(at, at + bitsetWords(nodes)),
          matched: t.matched[q]!,
          plan: t.plan[q]!,
          runs: runsOf(ctx.filters, at, nodes),
          links: linksOf(ctx.filters, at, nodes),
        };
  const r = t.exact[q] ? ctx.searcher.exact(v, t.k[q]!, filter) : ctx.searcher.search(v, t.k[q]!, t.ef[q]!, t.rerank[q]!, t.prune[q] === 1, filter);
  const labels = ctx.index.labels;
  for (let j = 0; j < r.ids.length; j++) {
    out.labels[q * kMax + j] = labels[r.ids[j]!]!;
    out.distances[q * kMax + j] = r.distances[j]!;
  }
  out.stats.set(r.stats, q * STAT_FIELDS);
}
