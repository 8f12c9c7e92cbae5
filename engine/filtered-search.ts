// One filtered search through a collection: the filter resolved (filter-plan.ts), the base asked
// with the plan and the bitset, then the fresh layer's matches searched, and the two merged. A write
// applied while the base searched is seen whole: base hits are checked again against the payloads
// of that moment, and a search left short by it runs again; a write while the fresh part searched
// (over turns of the event loop) runs it again.
import type { FilterWalkEntry } from '../index/format/manifest.js';
import type { Filter } from '../index/filter/ast.js';
import { FILTER_PLAN } from '../index/search/query-state.js';
import { STAT_FIELDS, statsView } from '../index/search/stats.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { LiveStore } from '../storage/live-store.js';
import { type FilterMatches, searchMatching } from '../index/fresh/fresh-filtered.js';
import type { PointPayloads } from '../storage/point-payloads.js';
import type { SearchJob } from './dispatch.js';
import { choosePlan, type FilterResolver, isFreshMatch, type ResolvedFilter } from './filter-plan.js';
import { type FilterPlan, type FreshPlan, PLAN_NAMES, type SearchHit, type SearchResponse } from './types.js';

/** What a filtered search needs of its collection. */
export interface FilteredHost {
  readonly payloads: PointPayloads;
  readonly live: LiveStore | null;
  readonly index: TieredIndex | null;
  readonly generation: number;
  readonly resolver: FilterResolver;
  /** The base's measured walk (its manifest's plan.filterWalk), or null: the planner weighs plans by it. */
  readonly walkProfile: FilterWalkEntry | null;
  /** Queues a validated search of the base (the dispatcher's admission and batching). */
  submitJob(job: SearchJob, ctl: SearchControl): Promise<SearchResponse>;
}

export interface SearchControl {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The plan that ran: GRAPH_OR_SCAN ran the scan, or the links' walk, where its walk's entry was
 * scarce in matches; LINKED without the links (a base built without them) walked as GRAPH.
 */
function ranPlan(plan: number, stats: SearchResponse['stats'] | null): number {
  if (plan !== FILTER_PLAN.GRAPH_OR_SCAN && plan !== FILTER_PLAN.LINKED) return plan;
  if (stats !== null && stats.linkedWalks > 0) return FILTER_PLAN.LINKED;
  return stats !== null && stats.scarceScans > 0 ? FILTER_PLAN.SCAN : FILTER_PLAN.GRAPH;
}

function planInfo(r: ResolvedFilter, plan: number, freshPlan: FreshPlan): FilterPlan {
  return {
    plan: PLAN_NAMES[plan]!,
    estimated: r.estimate,
    matched: r.baseMatched + r.freshIds.length,
    base: r.baseMatched,
    fresh: r.freshIds.length,
    residual: r.residual,
    freshPlan,
  };
}

/**
 * The fresh layer's part: its matches scored one by one, or found by its graph walk where they are
 * many (index/fresh/fresh-filtered.ts); every match scored with `exact`. Scans run in turns of the
 * event loop.
 */
async function freshHits(live: LiveStore | null, job: SearchJob, r: ResolvedFilter, signal?: AbortSignal): Promise<{ hits: SearchHit[]; plan: FreshPlan }> {
  if (live === null || r.freshIds.length === 0) return { hits: [], plan: 'none' };
  if (job.exact) return { hits: await live.fresh.exactInTurns(job.vector, job.k, r.freshIds, signal), plan: 'exact' };
  // The walk tests each point it meets against the matches the filter was resolved to.
  const matches: FilterMatches = { count: r.freshIds.length, ids: () => r.freshIds, accept: (id) => isFreshMatch(r, id) };
  return searchMatching(live.fresh, job.vector, job.k, job.ef, matches, signal !== undefined ? { signal } : {});
}

/**
 * Resolves with the search's answer, or null when a compaction swapped the base meanwhile or a write
 * left it short (the caller asks again); with `final`, with what survives of it instead.
 */
export async function searchFiltered(
  host: FilteredHost,
  job: SearchJob,
  filter: Filter,
  ctl: SearchControl,
  final = false,
  forced?: FilterPlan['plan'],
): Promise<SearchResponse | null> {
  const { payloads, resolver } = host;
  // A filter no index answers whole is checked point by point over turns first.
  const key = await resolver.settle(filter, payloads, host.generation);
  const index = host.index;
  const generation = host.generation;
  const version = payloads.version;
  const startLsn = host.live?.appliedLsn;
  const r = resolver.resolve(filter, payloads, index, generation, key);
  try {
    const plan = index === null ? FILTER_PLAN.NONE : choosePlan(r.baseMatched, index, job.ef, forced, host.walkProfile, r.runRows, r.coverPoints);
    const res = plan === FILTER_PLAN.NONE ? null : await host.submitJob({ ...job, filter: { at: r.at, matched: r.baseMatched, plan } }, ctl);
    if (generation !== host.generation && !final) return null;
    const live = host.live;
    let hits = res?.hits ?? [];
    if (payloads.version !== version || generation !== host.generation) {
      // A write landed while the base searched: keep what still matches and is still served from the base.
      const test = payloads.predicate(filter);
      hits = hits.filter((h) => (live === null || live.baseLive(h.id)) && test(h.id));
      if (hits.length < Math.min(job.k, r.baseMatched) && !final) return null;
    }
    // The fresh part may take turns of the event loop: a write meanwhile (the log moved on) could be
    // seen half, its tombstone here and its fresh copy not yet, so the search is asked again.
    const lsn = live?.appliedLsn;
    const { hits: freshFound, plan: freshPlan } = await freshHits(host.live, job, r, ctl.signal);
    let fresh = freshFound;
    // A compaction meanwhile moved fresh points into a base this search did not ask.
    if ((generation !== host.generation || (live !== null && live.appliedLsn !== lsn)) && !final) return null;
    if (live !== null && live.appliedLsn !== startLsn) {
      // The fresh matches were listed before a write: keep what is still here and still matches.
      const test = payloads.predicate(filter);
      fresh = fresh.filter((h) => live.fresh.has(h.id) && test(h.id));
    }
    hits = hits.concat(fresh);
    hits.sort((a, b) => a.distance - b.distance || a.id - b.id);
    if (hits.length > job.k) hits.length = job.k;
    const stats = res?.stats ?? statsView(new Float64Array(STAT_FIELDS));
    return { hits, stats, mode: res?.mode ?? job.mode, filter: planInfo(r, ranPlan(plan, res?.stats ?? null), freshPlan) };
  } finally {
    resolver.release(r);
  }
}
