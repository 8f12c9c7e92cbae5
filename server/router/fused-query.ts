// A fusion query over the shards: Qdrant's hybrid search, prefetches by a dense and a sparse vector
// fused by rrf or dbsf. A fused score depends on each prefetch's whole answer, so the shards cannot
// fuse: every prefetch (a nearest query of its own) goes to every shard in one query batch, with the
// root's filter beside its own (the server passes a query's filter down to its prefetches) and the
// root's with_payload and with_vector; each prefetch's hits merge by its vector's score order into
// the list one server would have found, and the router fuses those lists as the server does
// (api/fusion.ts) and cuts the root's window. A prefetch with prefetches of its own, or other than a
// nearest query, is refused naming it.
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
  'through the router a fusion takes prefetches that are nearest queries (a vector or a point id, by any of the vectors) without prefetches of their own: ask the shard servers';

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

/**
 * A fusion query `b` (parsed as `plan` by the server's parser) over every shard: its window of fused
 * hits, and the shards that did not answer. `at` names a batch member's fields.
 */
export async function fusedOverShards(ctx: RouterContext, name: string, b: Fields, plan: QueryPlan, at = ''): Promise<{ hits: Hit[]; missing: number[] }> {
  const source = plan.source;
  if (source.kind !== 'fusion') throw invalidArgument(`${at}query`, ASK_SHARDS);
  const raw = b['prefetch'];
  const members = (Array.isArray(raw) ? raw : [raw]).map((m, i) => objectAt(m, `${at}prefetch[${i}]`));
  const asked = await Promise.all(
    plan.prefetch.map(async (p, i) => {
      const m = members[i]!;
      if (p.prefetch.length > 0) throw invalidArgument(`${at}prefetch[${i}].prefetch`, ASK_SHARDS);
      if (p.source.kind !== 'nearest' || p.source.mmr !== undefined) throw invalidArgument(`${at}prefetch[${i}].query`, ASK_SHARDS);
      const filter = both(b['filter'], m['filter']);
      const own: Fields = {
        query: m['query'],
        ...(isAbsent(m['using']) ? {} : { using: m['using'] }),
        ...(isAbsent(m['params']) ? {} : { params: m['params'] }),
        ...(isAbsent(m['score_threshold']) ? {} : { score_threshold: m['score_threshold'] }),
        ...(isAbsent(filter) ? {} : { filter }),
        ...(isAbsent(b['with_payload']) ? {} : { with_payload: b['with_payload'] }),
        ...(isAbsent(b['with_vector']) ? {} : { with_vector: b['with_vector'] }),
      };
      const { body, named } = await queryById(ctx, name, own);
      return {
        body: { ...body, limit: Math.min(MAX_LIMIT, p.limit + named.size), offset: 0 },
        named,
        limit: p.limit,
        higher: await ctx.scoreOrder.higherIsBetter(name, searchedBy(m)),
      };
    }),
  );
  const { answers, missing } = await ctx.calls.fanOut('POST', collectionPath(name, '/points/query/batch'), { searches: asked.map((a) => a.body) });
  const perShard = answers.map((a) => resultOf<Array<{ points: Hit[] }>>(a));
  const lists = asked.map((a, i) =>
    mergeHits(
      perShard.map((s) => withoutNamed(s[i]?.points ?? [], a.named)),
      a.higher,
      0,
      a.limit,
    ),
  );
  const fused = fuse(
    lists.map((l) => l.map((h) => ({ id: h.id as PointKey, score: h.score }))),
    source.fusion,
    asked.map((a) => !a.higher),
    byId,
  );
  const t = plan.scoreThreshold;
  const kept = (t === undefined ? fused : fused.filter((r) => r.score >= t)).slice(plan.offset, plan.offset + plan.limit);
  // Each fused point shown as its prefetches' hits show it (payload and vector as the root asked).
  const shown = new Map<PointKey, Hit>();
  for (const l of lists) for (const h of l) if (!shown.has(h.id)) shown.set(h.id, h);
  return { hits: kept.map((r) => ({ ...shown.get(r.id)!, score: r.score })), missing };
}
