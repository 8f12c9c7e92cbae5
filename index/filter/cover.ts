// Which single-value matches hold every point a filter matches: a filter on a keyword value, a list
// of them, or clauses built of those. The planner turns each into a value run (contiguous copies of
// the value's codes, index/tiered/value-runs.ts) for the scan. A cover may hold more than the filter
// (a `must` of two conditions is covered by either one's values): the scan still checks each point.
import type { Condition, Filter } from './ast.js';

/** `{key, match: {value}}` for one value: a cover's element. */
export type ValueMatch = Extract<Condition, { kind: 'match_value' }>;

/** The smallest cover by count of values, or null when some match lies outside every value match. */
export function coverOf(filter: Filter): ValueMatch[] | null {
  let best: ValueMatch[] | null = null;
  for (const c of filter.must ?? []) {
    const cover = coverOfCondition(c);
    if (cover !== null && (best === null || cover.length < best.length)) best = cover;
  }
  if (best !== null) return best;
  // Without a covering `must`, every match satisfies one of the `should` conditions (when there are
  // any), or one of `min_should`'s (when it asks for at least one).
  const some = filter.min_should;
  const all = (filter.should?.length ?? 0) > 0 ? filter.should! : some !== undefined && some.min_count >= 1 ? some.conditions : [];
  if (all.length === 0) return null;
  const out: ValueMatch[] = [];
  for (const c of all) {
    const cover = coverOfCondition(c);
    if (cover === null) return null;
    out.push(...cover);
  }
  return out;
}

function coverOfCondition(c: Condition): ValueMatch[] | null {
  switch (c.kind) {
    case 'match_value':
      return typeof c.value === 'boolean' ? null : [c];
    case 'match_any':
      return c.any.values.map((value) => ({ kind: 'match_value', key: c.key, value }));
    case 'filter':
      return coverOf(c.filter);
    default:
      return null;
  }
}
