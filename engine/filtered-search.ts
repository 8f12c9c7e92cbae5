// One filtered search through a collection: the filter resolved (filter-plan.ts), the base asked
// with the plan and the bitset, the fresh layer's matches scored exactly, and the two merged in one
// synchronous step. A write applied while the base searched is seen whole: base hits are checked
// again against the payloads of that moment, and a search left short by it runs again.
import type { FilterWalkEntry } from '../index/format/manifest.js';
import type { Filter } from '../index/filter/ast.js';
import { FILTER_PLAN } from '../index/search/query-state.js';
import { STAT_FIELDS, statsView } from '../index/search/stats.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { LiveStore } from '../storage/live-store.js';
import type { PointPayloads } from '../storage/point-payloads.js';
import type { SearchJob } from './dispatch.js';
import { choosePlan, type FilterResolver, PLAN_NAMES, type ResolvedFilter } from './filter-plan.js';
import type { FilterPlan, SearchHit, SearchResponse } from './types.js';

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

function planInfo(r: ResolvedFilter, plan: number): FilterPlan {
  return {
    plan: PLAN_NAMES[plan]!,
    estimated: r.estimate,
    matched: r.baseMatched + r.freshIds.length,
    base: r.baseMatched,
    fresh: r.freshIds.length,
    residual: r.residual,
  };
}

function freshHits(live: LiveStore | null, job: SearchJob, r: ResolvedFilter): SearchHit[] {
  return live === null || r.freshIds.length === 0 ? [] : live.fresh.exactAmong(job.vector, r.freshIds, job.k);
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
  const { payloads, index, resolver } = host;
  const generation = host.generation;
  const version = payloads.version;
  const r = resolver.resolve(filter, payloads, index, generation);
  try {
    const plan = index === null ? FILTER_PLAN.NONE : choosePlan(r.baseMatched, index, job.ef, forced, host.walkProfile, r.runRows, r.coverPoints);
    if (plan === FILTER_PLAN.NONE) {
      const hits = freshHits(host.live, job, r);
      return { hits, stats: statsView(new Float64Array(STAT_FIELDS)), mode: job.mode, filter: planInfo(r, plan) };
    }
    const res = await host.submitJob({ ...job, filter: { at: r.at, matched: r.baseMatched, plan } }, ctl);
    if (generation !== host.generation && !final) return null;
    const live = host.live;
    let hits = res.hits;
    if (payloads.version !== version || generation !== host.generation) {
      // A write landed while the base searched: keep what still matches and is still served from the base.
      const test = payloads.predicate(filter);
      hits = hits.filter((h) => (live === null || live.baseLive(h.id)) && test(h.id));
      if (hits.length < Math.min(job.k, r.baseMatched) && !final) return null;
    }
    hits = hits.concat(freshHits(live, job, r));
    hits.sort((a, b) => a.distance - b.distance || a.id - b.id);
    if (hits.length > job.k) hits.length = job.k;
    return { hits, stats: res.stats, mode: res.mode, filter: planInfo(r, ranPlan(plan, res.stats)) };
  } finally {
    resolver.release(r);
  }
}
