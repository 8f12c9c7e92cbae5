// A query with prefetches over the shards, stage by stage as one server runs it (api/query-stages.ts):
// Qdrant's hybrid search (prefetches by a dense and a sparse vector fused by rrf or dbsf) and its
// multi-stage queries (a prefetch's candidates re-scored by another vector). A stage's answer
// depends on its prefetches' whole answers, so the shards cannot run it: each nearest stage without
// prefetches goes to every shard, with the filters of the stages above beside its own (the server
// passes a query's filter down) and the root's with_payload and with_vector, and its hits merge by
// its vector's score order into the list one server would have found. Above those:
// - a fusion fuses its prefetches' lists with the server's own fusion (api/fusion.ts);
// - a dense vector re-scores the union of its prefetches' points: every shard scores its own of
//   them exactly (`has_id` and `exact`), and those merge by the vector's order.
// Any other stage with prefetches (MMR, recommend, discover, context, order_by, a sparse re-score)
// is refused naming its query.
import { invalidArgument } from '../../common/errors.js';
import type { PointKey } from '../../engine/public.js';
import { type Fields, isAbsent, objectAt } from '../api/fields.js';
import { fuse } from '../api/fusion.js';
import type { QueryPlan } from '../api/requests.js';
import { MAX_LIMIT } from '../options.js';
import { collectionPath } from './collection-paths.js';
import { queryById, withoutNamed } from './examples.js';
import { type Hit, mergeHits } from './merge.js';
import type { RouterContext } from './route-context.js';
import { searchedBy } from './score-order.js';
import { resultOf } from './shard-calls.js';

const ASK_SHARDS =
  'through the router a stage with prefetches is a fusion, or a nearest query by a dense vector re-scoring its prefetches, and a stage without prefetches a nearest query: ask the shard servers';

/** A point id's order where a fused tie needs one: integers by value, before UUIDs by text. */
function byId(a: PointKey, b: PointKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Both filters as one (either may be absent), as the server nests a query's filter over its prefetch's. */
function both(outer: unknown, inner: unknown): unknown {
  if (isAbsent(outer)) return inner;
  if (isAbsent(inner)) return outer;
  return { must: [outer, inner] };
}

/** The members of a stage's body that a nearest query over the shards keeps as they are. */
const OWN = ['query', 'using', 'params', 'score_threshold'] as const;

interface Staged {
  /** Best first, with what the root asked to show of each point. */
  hits: Hit[];
  missing: number[];
}

/** One query run over the shards: its request, its best `limit` hits merged by its vector's order, the named points left out. */
async function nearest(ctx: RouterContext, name: string, ask: Fields, limit: number): Promise<Staged> {
  const { body, named } = await queryById(ctx, name, ask);
  const { answers, missing } = await ctx.calls.fanOut('POST', collectionPath(name, '/points/query'), {
    ...body,
    limit: Math.min(MAX_LIMIT, limit + named.size),
    offset: 0,
  });
  const lists = answers.map((a) => withoutNamed(resultOf<{ points: Hit[] }>(a).points, named));
  return { hits: mergeHits(lists, await ctx.scoreOrder.higherIsBetter(name, searchedBy(ask)), 0, limit), missing };
}

/** The stage `b` (parsed as `plan`), under the filter of the stages above: its best `want` hits. */
async function stage(
  ctx: RouterContext,
  name: string,
  root: Fields,
  b: Fields,
  plan: QueryPlan,
  inherited: unknown,
  want: number,
  at: string,
): Promise<Staged> {
  const s = plan.source;
  const filter = both(inherited, b['filter']);
  const ask: Record<string, unknown> = {};
  for (const k of OWN) if (!isAbsent(b[k])) ask[k] = b[k];
  for (const k of ['with_payload', 'with_vector'] as const) if (!isAbsent(root[k])) ask[k] = root[k];
  if (!isAbsent(filter)) ask['filter'] = filter;
  const isNearest = s.kind === 'nearest' && s.mmr === undefined;
  if (plan.prefetch.length === 0) {
    if (!isNearest) throw invalidArgument(`${at}query`, ASK_SHARDS);
    return nearest(ctx, name, ask, want);
  }
  if (s.kind !== 'fusion' && !(isNearest && plan.sparse === undefined)) throw invalidArgument(`${at}query`, ASK_SHARDS);
  const raw = b['prefetch'];
  const members = (Array.isArray(raw) ? raw : [raw]).map((m, i) => objectAt(m, `${at}prefetch[${i}]`));
  const below = await Promise.all(plan.prefetch.map((p, i) => stage(ctx, name, root, members[i]!, p, filter, p.limit, `${at}prefetch[${i}].`)));
  const missing = [...new Set(below.flatMap((x) => x.missing))];
  const shown = new Map<PointKey, Hit>();
  for (const x of below) for (const h of x.hits) if (!shown.has(h.id)) shown.set(h.id, h);
  if (s.kind === 'fusion') {
    const orders = await Promise.all(members.map((m) => ctx.scoreOrder.higherIsBetter(name, searchedBy(m))));
    const fused = fuse(
      below.map((x) => x.hits.map((h) => ({ id: h.id as PointKey, score: h.score }))),
      s.fusion,
      orders.map((higher) => !higher),
      byId,
    );
    const t = plan.scoreThreshold;
    // A fused score is larger-better whatever the metric.
    const kept = (t === undefined ? fused : fused.filter((r) => r.score >= t)).slice(0, want);
    return { hits: kept.map((r) => ({ ...shown.get(r.id)!, score: r.score })), missing };
  }
  // A re-score: every shard scores exactly those of the prefetches' points it holds.
  const candidates = [...shown.keys()];
  if (candidates.length === 0) return { hits: [], missing };
  const only = { must: [{ has_id: candidates }] };
  // The server re-scores with the stored vectors whatever the stage's params: so does `exact`.
  const rescored = await nearest(ctx, name, { ...ask, filter: only, params: { exact: true } }, want);
  return { hits: rescored.hits, missing: [...new Set([...missing, ...rescored.missing])] };
}

/**
 * A query `b` with prefetches (parsed as `plan` by the server's parser) over every shard: its
 * window of hits, and the shards that did not answer. `at` names a batch member's fields.
 */
export async function stagedOverShards(ctx: RouterContext, name: string, b: Fields, plan: QueryPlan, at = ''): Promise<Staged> {
  const r = await stage(ctx, name, b, b, plan, undefined, plan.offset + plan.limit, at);
  return { hits: r.hits.slice(plan.offset), missing: r.missing.sort((x, y) => x - y) };
}
