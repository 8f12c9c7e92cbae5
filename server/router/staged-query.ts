// A query over the shards stage by stage, as one server runs it (api/query-stages.ts): Qdrant's
// hybrid search (prefetches by a dense and a sparse vector fused by rrf or dbsf), its multi-stage
// queries (a prefetch's candidates re-scored by another vector), and the queries whose examples
// the shards must be given as vectors (recommend, discover, context). A stage's answer depends on
// its prefetches' whole answers, so the shards cannot run it: each stage without prefetches goes to
// every shard, its examples named by id given as their stored vectors (examples.ts), with the
// filters of the stages above beside its own (the server passes a query's filter down) and the
// root's with_payload and with_vector, and its hits merge by its score order (a discovery's larger
// first, else its vector's) into the list one server would have found. Above those:
// - a fusion fuses its prefetches' lists with the server's own fusion (api/fusion.ts);
// - a dense vector, a recommendation, a discovery or a context re-scores the union of its
//   prefetches' points: every shard scores its own of them exactly (`has_id` and `exact`), and
//   those merge by the stage's order.
// - MMR picks from a nearest stage's candidates here (mmr-pick.ts), with every candidate's vector.
// A sparse re-score is refused naming the stage's query.
import { invalidArgument } from '../../common/errors.js';
import type { PointKey } from '../../engine/public.js';
import { type Fields, isAbsent, objectAt } from '../api/fields.js';
import { fuse } from '../api/fusion.js';
import type { QueryPlan } from '../api/requests.js';
import { MAX_LIMIT } from '../options.js';
import { andFilters } from './and-filters.js';
import { collectionPath } from './collection-paths.js';
import { resolveExamples, withoutNamed } from './examples.js';
import { type Hit, mergeHits } from './merge.js';
import type { RouterContext } from './route-context.js';
import { searchedBy } from './score-order.js';
import { pickMmr } from './mmr-pick.js';
import { resultOf } from './shard-calls.js';

const ASK_SHARDS =
  'through the router a stage is a fusion of its prefetches, or a nearest (MMR by a dense vector), recommend, discover or context query, re-scoring its prefetches by a dense vector or without prefetches: ask the shard servers';

/** A point id's order where a fused tie needs one: integers by value, before UUIDs by text. */
function byId(a: PointKey, b: PointKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The members of a stage's body that a nearest query over the shards keeps as they are. */
const OWN = ['query', 'using', 'params', 'score_threshold'] as const;

interface Staged {
  /** Best first, with what the root asked to show of each point. */
  hits: Hit[];
  missing: number[];
}

/** Whether a stage's scores are larger-better: a discovery's and a context's always, else by the vector searched. */
function higherIsBetter(ctx: RouterContext, name: string, plan: QueryPlan, b: Fields): Promise<boolean> {
  const k = plan.source.kind;
  return k === 'discover' || k === 'context' || k === 'fusion' ? Promise.resolve(true) : ctx.scoreOrder.higherIsBetter(name, searchedBy(b));
}

/** A query the shards run: its request, its order, and how many hits it keeps. */
interface Ask {
  ask: Fields;
  higher: boolean;
  limit: number;
}

/**
 * Queries run over the shards in one query batch per shard (a stage's prefetches go together):
 * each one's best `limit` hits merged by its order, the points it named left out.
 */
async function askedAll(ctx: RouterContext, name: string, asks: readonly Ask[]): Promise<Staged[]> {
  if (asks.length === 0) return [];
  const resolved = await Promise.all(asks.map((a) => resolveExamples(ctx, name, a.ask)));
  const searches = resolved.map((r, i) => ({ ...r.body, limit: Math.min(MAX_LIMIT, asks[i]!.limit + r.named.size), offset: 0 }));
  const { answers, missing } = await ctx.calls.fanOut('POST', collectionPath(name, '/points/query/batch'), { searches });
  const perShard = answers.map((a) => resultOf<Array<{ points: Hit[] }>>(a));
  return asks.map((a, i) => ({
    hits: mergeHits(
      perShard.map((shard) => withoutNamed(shard[i]?.points ?? [], resolved[i]!.named)),
      a.higher,
      0,
      a.limit,
    ),
    missing,
  }));
}

const asked = async (ctx: RouterContext, name: string, a: Ask): Promise<Staged> => (await askedAll(ctx, name, [a]))[0]!;

/** A stage's request to the shards: its own query members, the root's display, and its filters with those above it. */
function askOf(root: Fields, b: Fields, filter: unknown): Record<string, unknown> {
  const ask: Record<string, unknown> = {};
  for (const k of OWN) if (!isAbsent(b[k])) ask[k] = b[k];
  for (const k of ['with_payload', 'with_vector'] as const) if (!isAbsent(root[k])) ask[k] = root[k];
  if (!isAbsent(filter)) ask['filter'] = filter;
  return ask;
}

/** A stage the shards answer as it is (pointwise, no prefetches, no MMR): asked together with its siblings. */
const isLeaf = (p: QueryPlan): boolean =>
  p.prefetch.length === 0 &&
  (p.source.kind === 'recommend' || p.source.kind === 'discover' || p.source.kind === 'context' || (p.source.kind === 'nearest' && p.source.mmr === undefined));

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
  const filter = andFilters(inherited, b['filter']);
  const ask = askOf(root, b, filter);
  // A stage the shards can score point by point: by a vector, or against examples; MMR then picks
  // from those candidates here (mmr-pick.ts).
  const pointwise = s.kind === 'nearest' || s.kind === 'recommend' || s.kind === 'discover' || s.kind === 'context';
  const mmr = s.kind === 'nearest' ? s.mmr : undefined;
  const higher = await higherIsBetter(ctx, name, plan, b);
  const picked = async (candidates: Staged): Promise<Staged> => {
    if (mmr === undefined) return candidates;
    const q = objectAt(b['query'], `${at}query`)['nearest'];
    const using = searchedBy(b);
    const spec = await ctx.scoreOrder.dense(name, using);
    if (spec === null) throw invalidArgument(`${at}using`, ASK_SHARDS);
    const hits = await pickMmr(ctx, name, candidates.hits, { query: q, using, ...spec, diversity: mmr.diversity, want });
    const t = plan.scoreThreshold;
    const kept = t === undefined ? hits : hits.filter((h) => (higher ? h.score >= t : h.score <= t));
    return { hits: kept.slice(0, want), missing: candidates.missing };
  };
  // MMR's candidates are those of the nearest query without it (the server's threshold applies to
  // both the candidates and the picks).
  if (mmr !== undefined) ask['query'] = { nearest: objectAt(b['query'], `${at}query`)['nearest'] };
  if (plan.prefetch.length === 0) {
    if (!pointwise) throw invalidArgument(`${at}query`, ASK_SHARDS);
    return picked(await asked(ctx, name, { ask, higher, limit: Math.max(want, mmr?.candidatesLimit ?? want) }));
  }
  if (s.kind !== 'fusion' && !(pointwise && plan.sparse === undefined)) throw invalidArgument(`${at}query`, ASK_SHARDS);
  const raw = b['prefetch'];
  const members = (Array.isArray(raw) ? raw : [raw]).map((m, i) => objectAt(m, `${at}prefetch[${i}]`));
  // The prefetches the shards answer as they are go in one batch; the others are stages of their own.
  const leaves = plan.prefetch.flatMap((p, i) => (isLeaf(p) ? [i] : []));
  const [leafLists, stages] = await Promise.all([
    Promise.all(
      leaves.map(
        async (i): Promise<Ask> => ({
          ask: askOf(root, members[i]!, andFilters(filter, members[i]!['filter'])),
          higher: await higherIsBetter(ctx, name, plan.prefetch[i]!, members[i]!),
          limit: plan.prefetch[i]!.limit,
        }),
      ),
    ).then((asks) => askedAll(ctx, name, asks)),
    Promise.all(plan.prefetch.map((p, i) => (isLeaf(p) ? null : stage(ctx, name, root, members[i]!, p, filter, p.limit, `${at}prefetch[${i}].`)))),
  ]);
  const below = stages.map((x, i) => x ?? leafLists[leaves.indexOf(i)]!);
  const missing = [...new Set(below.flatMap((x) => x.missing))];
  const shown = new Map<PointKey, Hit>();
  for (const x of below) for (const h of x.hits) if (!shown.has(h.id)) shown.set(h.id, h);
  if (s.kind === 'fusion') {
    const orders = await Promise.all(plan.prefetch.map((p, i) => higherIsBetter(ctx, name, p, members[i]!)));
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
  // The server re-scores with the stored vectors whatever the stage's params: so does `exact`. MMR
  // picks from every candidate re-scored.
  const unbounded = { ...ask };
  delete unbounded['score_threshold'];
  const rescored =
    mmr === undefined
      ? await asked(ctx, name, { ask: { ...ask, filter: only, params: { exact: true } }, higher, limit: want })
      : // Every candidate, its threshold left to the picks, as the server re-scores them all before MMR.
        await asked(ctx, name, { ask: { ...unbounded, filter: only, params: { exact: true } }, higher, limit: candidates.length });
  return picked({ hits: rescored.hits, missing: [...new Set([...missing, ...rescored.missing])] });
}

/**
 * A query `b` with prefetches (parsed as `plan` by the server's parser) over every shard: its
 * window of hits, and the shards that did not answer. `at` names a batch member's fields.
 */
export async function stagedOverShards(ctx: RouterContext, name: string, b: Fields, plan: QueryPlan, at = ''): Promise<Staged> {
  const r = await stage(ctx, name, b, b, plan, undefined, plan.offset + plan.limit, at);
  return { hits: r.hits.slice(plan.offset), missing: r.missing.sort((x, y) => x - y) };
}
