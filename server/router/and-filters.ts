// Two filters of a request body as one, as the router adds its own to a caller's (a group's value, a
// facet's values, the candidates a stage re-scores, the points a request names left out) and as the
// server nests a query's filter over its prefetch's. Either may be absent.
import { isAbsent } from '../api/fields.js';

/** Both filters (Qdrant's JSON): `{must: [outer, inner]}`, or the one given. */
export function andFilters(outer: unknown, inner: unknown): unknown {
  if (isAbsent(outer)) return inner;
  if (isAbsent(inner)) return outer;
  return { must: [outer, inner] };
}
