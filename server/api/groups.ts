// Qdrant's grouped search (POST …/points/search/groups, …/points/query/groups and …/points/recommend/groups): the best `limit`
// groups of points sharing a value of the payload key `group_by`, each with its best `group_size`
// hits. A group is ranked by its best hit, so groups are opened in the order hits arrive, best first,
// until `limit` are open; later hits only fill open groups. The search behind it asks for more hits
// until every group is full or the collection has no more matching points.
import type { VectorSpace } from './vector-space.js';
import { invalidArgument } from '../../common/errors.js';
import { type Collection, compileReader, MAX_K, type PathReader, type PayloadSelector, parseKeyPath, type PointKey } from '../../engine/public.js';
import { type Fields, isAbsent, objectAt, optionalInt, optionalString, wantsPayload } from './fields.js';
import type { CallControl, ScoredHit, SearchAnswer } from './points.js';
import { parseQuery, parseRecommend, parseSearch, type QueryPlan, type SearchPlan } from './requests.js';

export interface GroupsPlan<P extends SearchPlan> {
  search: P;
  groupBy: string;
  /** Reads group_by's values out of a payload (the filters' own key-path reader). */
  read: PathReader;
  groupSize: number;
  limit: number;
}

/** A group's value of `group_by`: a keyword or an integer, as Qdrant groups by. */
export type GroupId = string | number;

export interface GroupsAnswer {
  groups: Array<{ id: GroupId; hits: ScoredHit[] }>;
  withPayload: boolean;
  stats: SearchAnswer['stats'];
}

/** Group fields common to both routes; the rest of the body is the search's or the query's. */
function groupFields(body: Fields): { groupBy: string; read: PathReader; groupSize: number; limit: number; rest: Fields } {
  const groupBy = optionalString(body['group_by'], 'group_by');
  if (groupBy === undefined || groupBy === '') throw invalidArgument('group_by', 'required: the payload key (keyword or integer values) to group the hits by');
  const read = compileReader(parseKeyPath(groupBy, 'group_by'));
  if (!isAbsent(body['with_lookup'])) throw invalidArgument('with_lookup', 'looking groups up in another collection is not supported: leave with_lookup out');
  const groupSize = optionalInt(body['group_size'], 'group_size', 1, MAX_K) ?? 3;
  const limit = optionalInt(body['limit'], 'limit', 1, MAX_K) ?? 10;
  if (limit * groupSize > MAX_K) throw invalidArgument('limit', `limit × group_size must be at most ${MAX_K}, got ${limit} × ${groupSize}`);
  // The search itself runs with a window of its own (groupPoints): an offset has no meaning here, and
  // a re-rank pool sized for one window would not fit the next.
  if (!isAbsent(body['offset'])) throw invalidArgument('offset', 'grouped search has no offset: leave it out');
  if (!isAbsent(body['params']) && !isAbsent(objectAt(body['params'], 'params')['rerank']))
    throw invalidArgument('params.rerank', 'a grouped search sizes its own re-rank pool: leave params.rerank out');
  const { group_by: _g, group_size: _s, limit: _l, ...rest } = body;
  return { groupBy, read, groupSize, limit, rest: { ...rest, limit: groupSize } };
}

/** POST …/points/search/groups: a search body with group_by, group_size (default 3) and limit (default 10). */
export function parseSearchGroups(body: Fields, space: VectorSpace): GroupsPlan<SearchPlan> {
  const g = groupFields(body);
  return { search: parseSearch(g.rest, space), groupBy: g.groupBy, read: g.read, groupSize: g.groupSize, limit: g.limit };
}

/** POST …/points/query/groups: a query body with group_by, group_size and limit. */
export function parseQueryGroups(body: Fields, space: VectorSpace): GroupsPlan<QueryPlan> {
  const g = groupFields(body);
  return { search: parseQuery(g.rest, space), groupBy: g.groupBy, read: g.read, groupSize: g.groupSize, limit: g.limit };
}

/** POST …/points/recommend/groups: a recommend body with group_by, group_size and limit. */
export function parseRecommendGroups(body: Fields, space: VectorSpace): GroupsPlan<QueryPlan> {
  const g = groupFields(body);
  return { search: parseRecommend(g.rest, space), groupBy: g.groupBy, read: g.read, groupSize: g.groupSize, limit: g.limit };
}

/** The groups a payload belongs to: its keyword and integer values at the key path, arrays flattened. */
function groupIdsOf(payload: unknown, read: PathReader): GroupId[] {
  const ids: GroupId[] = [];
  for (const v of read(payload).flat()) if ((typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))) && !ids.includes(v)) ids.push(v);
  return ids;
}

/**
 * Runs the grouped search: the search asks for limit × group_size × 2 hits at first, four times more
 * each time the groups are not yet full while more points may match, up to MAX_K.
 */
export async function groupPoints<P extends SearchPlan>(
  c: Collection,
  g: GroupsPlan<P>,
  run: (c: Collection, plan: P, ctl: CallControl) => Promise<SearchAnswer>,
  ctl: CallControl,
): Promise<GroupsAnswer> {
  const selector: PayloadSelector = { include: [g.groupBy.replaceAll('[]', '')] };
  let k = Math.min(MAX_K, Math.max(2 * g.limit * g.groupSize, 16));
  for (;;) {
    const a = await run(c, { ...g.search, limit: k, offset: 0, withPayload: selector }, ctl);
    const groups = new Map<GroupId, ScoredHit[]>();
    for (const h of a.hits) {
      for (const id of groupIdsOf(h.payload, g.read)) {
        let hits = groups.get(id);
        if (hits === undefined) {
          if (groups.size >= g.limit) continue;
          hits = [];
          groups.set(id, hits);
        }
        if (hits.length < g.groupSize) hits.push(h);
      }
    }
    const full = groups.size === g.limit && [...groups.values()].every((h) => h.length === g.groupSize);
    if (full || a.hits.length < k || k >= MAX_K) return answer(c, g, groups, a.stats);
    k = Math.min(MAX_K, 4 * k);
  }
}

/** The groups with each hit's payload as the request selected it (the search read only group_by). */
function answer<P extends SearchPlan>(c: Collection, g: GroupsPlan<P>, groups: Map<GroupId, ScoredHit[]>, stats: SearchAnswer['stats']): GroupsAnswer {
  const withPayload = wantsPayload(g.search.withPayload);
  const shown = (id: PointKey): ScoredHit['payload'] => {
    const internal = c.resolveKey(id);
    return internal === null ? null : c.payload(internal, g.search.withPayload);
  };
  return {
    groups: [...groups].map(([id, hits]) => ({ id, hits: hits.map((h) => ({ ...h, payload: withPayload ? shown(h.id) : null })) })),
    withPayload,
    stats,
  };
}
