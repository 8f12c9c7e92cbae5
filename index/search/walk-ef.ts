// The filtered walk's beam width. A filter that excludes the query's own neighbourhood (NOT its
// cluster) leaves the walk's first matches far from the query and its stop rule (the nearest
// unexpanded node beyond the ef-th match) met too early. The entry's own list shows it before any
// distance is computed: where the matches' share there is under 1/WALK_SCARCE of their share of the
// whole index, the walk is widened. Each extra match costs about 1/share distances to find, so the
// widening is WALK_BOOST × ef scaled by the share: a broad filter (all but one cluster) is widened
// almost WALK_BOOST times at little cost, a filter of half the points half as much (there, widening
// by WALK_BOOST cost more than it gained: docs/benchmarks-filter-plans.md). A milder scarcity keeps
// the query's ef. Twin: index/kernels/traverse.as.ts's walkEf (the same f64 operations in the same
// order).
import { BEAM_MAX_EF, WALK_BOOST, WALK_SCARCE } from '../kernels/control-block.js';

/** The widest a walk at beam width ef may become (what its matches' heap must hold). */
export function walkEfCap(ef: number): number {
  return Math.max(ef, Math.min(BEAM_MAX_EF, ef * WALK_BOOST));
}

/**
 * Where a walk may take the filter links instead (index/filter-links/), the entry counts as scarce
 * in matches already at under 1/LINK_SCARCE of their share: there a walk through non-matches costs
 * several times the links' walk, which costs little more than the walk where the matches are even.
 */
export const LINK_SCARCE = 2;

/**
 * Whether the matches are scarce at the entry: `local` of `seen` nodes there (itself and its level-0
 * list) match, under 1/divisor (WALK_SCARCE unless given) of the share `matched` of `nodes` in the index.
 */
export function entryScarce(matched: number, nodes: number, local: number, seen: number, divisor: number = WALK_SCARCE): boolean {
  // local / seen < (matched / nodes) / divisor, cross-multiplied (exact: the products stay below 2^53).
  return local * nodes * divisor < matched * seen;
}

/** The walk's ef from the query's, given the matches at the entry (entryScarce's arguments). */
export function walkEf(ef: number, matched: number, nodes: number, local: number, seen: number): number {
  return entryScarce(matched, nodes, local, seen) ? widenedEf(ef, matched, nodes) : ef;
}

/** The ef of a walk whose entry is scarce in matches: WALK_BOOST × ef scaled by the matches' share. */
export function widenedEf(ef: number, matched: number, nodes: number): number {
  return Math.max(ef, Math.min(BEAM_MAX_EF, Math.floor((ef * WALK_BOOST * matched) / nodes)));
}
