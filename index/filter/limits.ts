// Qdrant sets no limits on a filter's size. Strata parses and compiles a filter on the event loop, so
// it bounds the work one request can ask for; the bounds are generous enough that no real filter meets
// them, and every check in parse.ts reads them from here.

export const FILTER_LIMITS = {
  /** Filters inside filters (a condition that is a filter, a `nested` condition's filter), counting the top one. */
  maxDepth: 32,
  /** Values in one list: `match.any`, `match.except`, `has_id`, a polygon ring's points. */
  maxListLength: 100_000,
  /** Conditions in a whole filter, at every depth. */
  maxConditions: 100_000,
  /** Characters in a key path or a text to match. */
  maxStringLength: 65_536,
} as const;
