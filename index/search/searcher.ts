// The local driver: one query at a time on the calling thread, every distance computed here. It
// runs the shared traversal step (traversal.ts) to completion; with injection on it stalls, in
// chunks, for the modelled CXL extra the accesses owe, so measured QPS carries the model.
import { costModel, type CostModelParams, tierCosts } from '../../tiers/cost-model.js';
import { Stall } from '../../tiers/stall.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { Accountant } from './accounting.js';
import { defaultRerank } from './bounds.js';
import { FusedTraversal } from './fused-traversal.js';
import { MaxHeap } from './heaps.js';
import { FILTER_PLAN, QueryState } from './query-state.js';
import { ALL_LOCAL, Scorer, Staged } from './scorer.js';
import { STAT } from './stats.js';
import { sortByDistanceThenLabel, Traversal } from './traversal.js';

export interface SearcherOptions {
  cost?: CostModelParams;
  /** Stall the thread by the modelled CXL extra time (emulated CXL end to end). */
  inject?: boolean;
  /** Per-node expansion counts (neighbour-list reads), accumulated across searches: placement profiling. */
  trace?: Float64Array;
  /** CXL-ANNS foreseeing: fetch the next candidate's neighbour list one step ahead (default DEFAULT_PREFETCH). */
  prefetch?: boolean;
  /** Run the traversal as one WASM call when the index has a fused region and a free lane (default true). */
  fused?: boolean;
}

/** A filtered query's matching nodes (a bitset, bit n of word n >> 5), how many, and the plan to run (FILTER_PLAN). */
export interface NodeFilter {
  bits: Uint32Array;
  matched: number;
  plan: number;
  /** Value runs holding the matches (index/tiered/value-runs.ts): their count, then three words a run. */
  runs?: Uint32Array | null;
  /** The filter-link blocks covering the filter (the LINKED plan), or none. */
  links?: Uint32Array | null;
}

export interface SearchResult {
  /** Internal node ids, nearest first. */
  ids: Int32Array;
  /** hnswlib-convention distances (squared L2, or 1 - dot): exact, except the codes' estimates when rerank is 0. */
  distances: Float32Array;
  /**
   * Per-query counters (see STAT): the searcher's own array, valid until its next search (every
   * caller folds them in at once; a copy per query was 1.6% of a SIFT search's time).
   */
  stats: Float64Array;
}

/**
 * Foreseeing is on unless turned off: the next candidate is taken one step ahead and its neighbour
 * list fetched while the current step scores (the order relaxed by one step: Traversal.expand), which
 * hides about four list reads in five; with the lists mostly in CXL at small budgets that is most of
 * what CXL still costs a search (docs/benchmarks.md).
 */
export const DEFAULT_PREFETCH = true;

export class Searcher {
  readonly index: TieredIndex;
  readonly slot: number;
  readonly traversal: Traversal;
  private readonly scorer: Scorer;
  /** The fused traversal's lane, or null (no fused region, no free lane, or turned off). */
  readonly fused: FusedTraversal | null;
  private readonly st: QueryState;
  private readonly staged: Staged;
  private readonly inject: boolean;
  private readonly stall = new Stall();
  private closed = false;

  constructor(index: TieredIndex, opts: SearcherOptions = {}) {
    this.index = index;
    this.slot = index.acquireSlot();
    const acct = new Accountant(tierCosts(opts.cost ?? costModel()));
    const prefetch = opts.prefetch ?? DEFAULT_PREFETCH;
    this.scorer = new Scorer(index, acct);
    this.fused = opts.fused !== false && opts.trace === undefined ? FusedTraversal.open(index, this.scorer, acct, prefetch) : null;
    this.traversal = new Traversal(index, acct, prefetch, opts.trace ?? null, this.fused);
    this.st = new QueryState(index.batchMax, index.meta.count);
    this.st.slot = this.slot;
    this.staged = new Staged(Math.max(index.vectors.segments.length, index.codes?.segments.length ?? 0) + 1);
    this.inject = opts.inject ?? false;
  }

  close(): void {
    if (!this.closed) {
      this.closed = true;
      this.fused?.close();
      this.index.releaseSlot(this.slot);
    }
  }

  /**
   * k nearest neighbours of q (already normalised for cosine). k, ef and rerank are trusted: the
   * edge (engine/collection.ts, or the caller) validates them once.
   */
  search(q: Float32Array, k: number, ef: number, rerank = defaultRerank(k), pruneByBound = true, filter: NodeFilter | null = null): SearchResult {
    const st = this.st;
    const trav = this.traversal;
    const scorer = this.scorer;
    const staged = this.staged;
    trav.begin(
      st,
      q,
      k,
      ef,
      rerank,
      pruneByBound,
      filter?.bits ?? null,
      filter?.plan ?? FILTER_PLAN.NONE,
      filter?.matched ?? 0,
      filter?.runs ?? null,
      filter?.links ?? null,
    );
    const epoch = scorer.nextEpoch();
    st.epoch = epoch;
    while (trav.next(st)) {
      scorer.stage(st, epoch, staged);
      st.owedNs += scorer.computeLocal(st, staged, ALL_LOCAL);
      scorer.gather(st);
      trav.apply(st);
      if (this.inject && st.owedNs >= this.stall.chunkNs) this.settle();
    }
    if (this.inject && st.owedNs > 0) this.settle();
    return { ids: st.resultIds, distances: st.resultD, stats: st.stats };
  }

  /** Pays the modelled CXL extra owed so far by stalling the thread; the stall is measured. */
  private settle(): void {
    const st = this.st;
    st.stats[STAT.injectedNs]! += st.owedNs;
    st.stats[STAT.stalledNs]! += this.stall.pay(st.owedNs);
    st.owedNs = 0;
  }

  /** Brute force over every vector in every tier: the recall oracle and the `exact` search mode. */
  exact(q: Float32Array, k: number, filter: NodeFilter | null = null): SearchResult {
    const st = this.st;
    const idx = this.index;
    st.stats.fill(0);
    st.query = q;
    st.owedNs = 0;
    const top = new MaxHeap(k + 2);
    const epoch = this.scorer.nextEpoch();
    const bmax = idx.batchMax;
    st.scorer = 1;
    const bits = filter?.bits ?? null;
    for (let from = 0; from < idx.meta.count; from += bmax) {
      const end = Math.min(bmax, idx.meta.count - from);
      let c = 0;
      for (let j = 0; j < end; j++) {
        const id = from + j;
        if (bits === null || (bits[id >>> 5]! >>> (id & 31)) & 1) st.ids[c++] = id;
      }
      if (c === 0) continue;
      st.n = c;
      this.scorer.stage(st, epoch, this.staged);
      st.owedNs += this.scorer.computeLocal(st, this.staged, ALL_LOCAL);
      this.scorer.gather(st);
      for (let j = 0; j < c; j++) {
        const d = st.dist[j]!;
        if (top.size < k || d < top.d[0]!) {
          top.push(d, st.ids[j]!);
          if (top.size > k) top.pop();
        }
      }
    }
    if (this.inject && st.owedNs > 0) this.settle();
    const n = top.size;
    const ids = new Int32Array(n);
    const ds = new Float64Array(n);
    for (let j = n - 1; j >= 0; j--) {
      ids[j] = top.i[0]!;
      ds[j] = top.d[0]!;
      top.pop();
    }
    sortByDistanceThenLabel(ids, ds, n, idx.labels);
    return { ids, distances: Float32Array.from(ds), stats: st.stats };
  }
}
