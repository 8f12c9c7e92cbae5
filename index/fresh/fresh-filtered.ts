// A filtered search of a fresh layer, shared by the collection's own vector and its secondary dense
// vectors: few matches are scored one by one (in turns of the event loop), many are found by the
// graph walk skipping the rest, which falls back to the scan when it reaches fewer than k. Scoring
// every match held the event loop for the whole scan, and a fresh layer may hold a large share of
// its collection until a compaction (all of it, before the first).
import type { FreshLayer } from './fresh-layer.js';

/**
 * Below this share of the layer's points matching, scoring the matches costs less than a walk that
 * skips the rest (secondary-bench measures both plans at several shares, on the fresh graph and on
 * a tiered base).
 */
export const SCAN_BELOW = 0.1;

/** The points a filter matches, resolved once (storage/point-payloads.ts): a test by id, how many, and their ids (listed when first asked). */
export interface FilterMatches {
  accept(id: number): boolean;
  readonly count: number;
  ids(): ArrayLike<number>;
  /** Names these matches, when given: two with one key match the same points (what a cache keys by). */
  readonly key?: string;
}

/** The plans of a filtered search of a fresh layer. */
export type FilteredPlan = 'graph' | 'scan';

export interface FreshHit {
  id: number;
  /** In the base index's convention: 1 - dot (cosine on unit vectors, and dot), or squared L2. */
  distance: number;
}

/**
 * The k nearest of the filter's matches to `q` (prepared as the layer keeps vectors), nearest first,
 * by the plan asked for or the planner's; never fewer than k while k of them are here.
 */
export async function searchMatching(
  layer: FreshLayer,
  q: Float32Array,
  k: number,
  ef: number,
  filter: FilterMatches,
  o: { plan?: FilteredPlan; signal?: AbortSignal } = {},
): Promise<{ hits: FreshHit[]; plan: FilteredPlan }> {
  const scan = (): Promise<FreshHit[]> => layer.exactInTurns(q, k, filter.ids(), o.signal);
  const scanFirst = o.plan === undefined ? filter.count < SCAN_BELOW * layer.size : o.plan === 'scan';
  if (scanFirst) return { hits: await scan(), plan: 'scan' };
  const hits = layer.search(q, k, ef, (id) => filter.accept(id));
  // The walk reaches only what links lead to: short of k, the scan settles how many truly match.
  if (hits.length < Math.min(k, filter.count, layer.size)) return { hits: await scan(), plan: 'scan' };
  return { hits, plan: 'graph' };
}
