// The examples a request names by point id: a recommendation's or a discovery's (the classic routes'
// bodies, and the query API's recommend, discover and context), and a query's point. A point lives
// on the shard its id hashes to, so any other shard would answer 404 for it: the router fetches the
// stored vectors of the points named first, of the vector searched by (each from its own shard; a
// UUID, which hashes to no shard, from every shard) and sends every shard the request with those
// vectors in the ids' place. The single server leaves the points a request names out of its answer; with
// vectors in their place a shard does not know them, so the router leaves them out (routes that ask
// for a window ask each shard for as many more hits as points were named).
import { pointNotFound } from '../../common/errors.js';
import { missingVector } from '../api/points.js';
import { type PointKey, shardOf } from '../../engine/public.js';
import { type Fields, isAbsent, isPlainObject, objectAt, pointKeyAt } from '../api/fields.js';
import { andFilters } from './and-filters.js';
import { collectionPath } from './collection-paths.js';
import type { RouterContext } from './route-context.js';
import { resultOf } from './shard-calls.js';
import { searchedBy } from './score-order.js';

/** The classic route a body is for: `recommend` ({positive, negative}) or `discover` ({target, context}). */
export type ExampleRoute = 'recommend' | 'discover';

const isId = (v: unknown): v is number | string => typeof v === 'number' || typeof v === 'string';

/** An example id as the server looks it up (an integer past 2^53 is no point: not found, as there). */
const keyOf = (v: number | string): PointKey => pointKeyAt(v, 'id') ?? Number.MAX_SAFE_INTEGER;

/**
 * The body with `f` applied to each of its examples, in the order the server looks them up:
 * recommend's positive then negative examples; discover's context pairs (positive, negative), then
 * its target. The body was checked by the server's parser first, so the shapes are known.
 */
function mapExamples(b: Fields, route: ExampleRoute, f: (v: unknown) => unknown): Fields {
  const out: Record<string, unknown> = { ...b };
  const list = (v: unknown): unknown => (Array.isArray(v) ? v.map(f) : v);
  if (route === 'recommend') {
    out['positive'] = list(b['positive']);
    if (!isAbsent(b['negative'])) out['negative'] = list(b['negative']);
    return out;
  }
  const pair = (p: unknown, at: string): Fields => {
    const o = objectAt(p, at);
    return { ...o, positive: f(o['positive']), negative: f(o['negative']) };
  };
  const context = b['context'];
  if (Array.isArray(context)) out['context'] = context.map((p, i) => pair(p, `context[${i}]`));
  else if (!isAbsent(context)) out['context'] = pair(context, 'context');
  if (!isAbsent(b['target'])) out['target'] = f(b['target']);
  return out;
}

/** The points a body names, in the order the server looks them up (each as often as named). */
export function namedPoints(b: Fields, route: ExampleRoute): PointKey[] {
  const keys: PointKey[] = [];
  mapExamples(b, route, (v) => {
    if (isId(v)) keys.push(keyOf(v));
    return v;
  });
  return keys;
}

/**
 * The stored vectors `using` (absent: the primary) of the points named, by key: one retrieve per
 * shard holding any of them. The first one no shard holds is the server's 404, naming it; one
 * without that vector the server's 400, naming `using`.
 */
export async function exampleVectors(ctx: RouterContext, name: string, keys: readonly PointKey[], using?: string): Promise<Map<PointKey, unknown>> {
  const space = await ctx.scoreOrder.space(name);
  const use = using ?? space.name;
  const count = ctx.shards.count;
  const byShard = new Map<number, PointKey[]>();
  for (const k of new Set(keys)) {
    for (const s of typeof k === 'number' ? [shardOf(k, count)] : Array.from({ length: count }, (_, i) => i)) byShard.set(s, [...(byShard.get(s) ?? []), k]);
  }
  const vectors = new Map<PointKey, unknown>();
  await Promise.all(
    [...byShard].map(async ([shard, ids]) => {
      const a = await ctx.calls.one(shard, 'POST', collectionPath(name, '/points'), { ids, with_vector: use === '' ? true : [use], with_payload: false });
      // A named vector comes back as {name: value}, the unnamed one alone as its list; in an
      // example's place the value goes (the body's `using` names it).
      for (const p of resultOf<Array<{ id: PointKey; vector: unknown }>>(a))
        vectors.set(p.id, isPlainObject(p.vector) && !('indices' in p.vector) ? (p.vector[use] ?? null) : p.vector);
    }),
  );
  const lost = keys.find((k) => !vectors.has(k));
  if (lost !== undefined) throw pointNotFound(name, String(lost));
  const bare = keys.find((k) => vectors.get(k) === null);
  if (bare !== undefined) throw missingVector('using', String(bare), use, space.sparse.includes(use));
  return vectors;
}

/** The body with the stored vector of each point it names in the id's place. */
export function withVectors(b: Fields, route: ExampleRoute, vectors: ReadonlyMap<PointKey, unknown>): Fields {
  return mapExamples(b, route, (v) => (isId(v) ? vectors.get(keyOf(v)) : v));
}

/** The hits of an answer but the points its request named. */
export function withoutNamed<H extends { id: unknown }>(hits: readonly H[], named: ReadonlySet<PointKey>): H[] {
  return named.size === 0 ? [...hits] : hits.filter((h) => !named.has(h.id as PointKey));
}

/**
 * A filter leaving the named points out, with the body's own (for the grouped route, whose groups
 * must be filled without them rather than cut afterwards).
 */
export function excludingNamed(filter: unknown, named: readonly PointKey[]): unknown {
  if (named.length === 0) return filter;
  return andFilters(filter, { must_not: [{ has_id: [...new Set(named)] }] });
}

/**
 * A query naming a point (its id, or {nearest: id}) as the shards get it: the point's stored vector
 * in its place, fetched from its shard, and the point named (the server leaves it out of the answer;
 * the caller asks each shard for one more hit and leaves it out).
 */
export async function queryById(ctx: RouterContext, name: string, b: Fields): Promise<{ body: Fields; named: Set<PointKey> }> {
  const q = b['query'];
  const nearest = isPlainObject(q) ? q['nearest'] : q;
  if (!isId(nearest)) return { body: b, named: new Set() };
  const key = keyOf(nearest);
  const vector = (await exampleVectors(ctx, name, [key], searchedBy(b))).get(key);
  return { body: { ...b, query: isPlainObject(q) ? { ...q, nearest: vector } : vector }, named: new Set([key]) };
}

/** The query kinds whose examples a query names (each a vector or a point id), and the body shape that lists them. */
const EXAMPLE_KINDS = [
  ['recommend', 'recommend'],
  ['discover', 'discover'],
  ['context', 'discover'],
] as const;

/**
 * A query body as the shards get it: a point it searches by (queryById), or the examples of its
 * recommend, discover or context named by id, replaced by their stored vectors of the vector
 * searched by (`using`); and the points it named (the server leaves them out of the answer).
 */
export async function resolveExamples(ctx: RouterContext, name: string, b: Fields): Promise<{ body: Fields; named: Set<PointKey> }> {
  const q = b['query'];
  const kind = isPlainObject(q) ? EXAMPLE_KINDS.find(([k]) => !isAbsent(q[k])) : undefined;
  if (kind === undefined || !isPlainObject(q)) return queryById(ctx, name, b);
  const [key, route] = kind;
  // A context query lists its pairs as a discovery does, without a target.
  const examples = key === 'context' ? { context: q['context'] } : objectAt(q[key], `query.${key}`);
  const named = namedPoints(examples, route);
  const vectors = await exampleVectors(ctx, name, named, searchedBy(b));
  const mapped = withVectors(examples, route, vectors);
  return { body: { ...b, query: { ...q, [key]: key === 'context' ? mapped['context'] : mapped } }, named: new Set(named) };
}
