// The query API's kinds beyond a nearest query that the router answers, each as one server would:
// - a query with prefetches, or whose examples are named (recommend, discover, context), or MMR:
//   stage by stage (staged-query.ts);
// - `order_by`: a point's place depends on its own value only, so every shard's first limit + offset
//   points by the key, merged by value (ties by id, as the server breaks them), are the first of all.
// A nearest query without MMR is left to the route's one round (null).
import type { Fields } from '../api/fields.js';
import type { QueryPlan } from '../api/requests.js';
import { MAX_LIMIT } from '../options.js';
import { collectionPath } from './collection-paths.js';
import { stagedOverShards } from './staged-query.js';
import type { Hit } from './merge.js';
import type { RouterContext } from './route-context.js';
import { resultOf } from './shard-calls.js';

export interface RoutedAnswer {
  hits: Hit[];
  missing: number[];
}

/** The points of one query answer. */
const pointsOf = (a: unknown): Hit[] => (a as { points: Hit[] }).points;

/** The first `limit` after `offset` of the shards' lists by order value (descending or not), ties by id. */
function mergeByValue(lists: Hit[][], descending: boolean, offset: number, limit: number): Hit[] {
  const value = (h: Hit): number => h['order_value'] as number;
  const sign = descending ? -1 : 1;
  return lists
    .flat()
    .sort((a, b) => sign * (value(a) - value(b)) || a.id - b.id)
    .slice(offset, offset + limit);
}

/**
 * How query `b` (parsed as `plan`) runs over the shards where its kind is one the router answers,
 * else null. Nothing is asked until it is called (a batch checks every member first).
 */
export function routedQuery(ctx: RouterContext, name: string, b: Fields, plan: QueryPlan, at = ''): (() => Promise<RoutedAnswer>) | null {
  const s = plan.source;
  if (plan.prefetch.length > 0 || s.kind === 'recommend' || s.kind === 'discover' || s.kind === 'context' || (s.kind === 'nearest' && s.mmr !== undefined))
    return () => stagedOverShards(ctx, name, b, plan, at);
  if (s.kind === 'order_by') return () => ordered(ctx, name, b, plan, s.orderBy.descending);
  return null;
}

async function ordered(ctx: RouterContext, name: string, b: Fields, plan: QueryPlan, descending: boolean): Promise<RoutedAnswer> {
  const k = Math.min(MAX_LIMIT, plan.offset + plan.limit);
  const { answers, missing } = await ctx.calls.fanOut('POST', collectionPath(name, '/points/query'), { ...b, limit: k, offset: 0 });
  return {
    hits: mergeByValue(
      answers.map((a) => pointsOf(resultOf<unknown>(a))),
      descending,
      plan.offset,
      plan.limit,
    ),
    missing,
  };
}
