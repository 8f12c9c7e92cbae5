// Qdrant's query API over one collection. A query without prefetch or MMR is one search (plainQuery).
// Otherwise it runs as a tree: each prefetch is a query of its own over the collection, filtered by
// its own filter and by every enclosing stage's (Qdrant passes a query's filter down to its
// prefetches), and its stage's query then ranks their answers: a fusion merges them (fusion.ts), a
// vector re-scores their union exactly with the stored vectors, and MMR picks from the candidates
// (mmr.ts). Discovery and context queries score their candidates (discovery.ts): the prefetches'
// answers, or with params.exact every point. Only the root's answer is given payloads and vectors.
import { invalidArgument } from '../../common/errors.js';
import { type Collection, distanceRef, type Filter } from '../../engine/public.js';
import { byNumber, fuse, type Ranked } from './fusion.js';
import { mmrOrder } from './mmr.js';
import { type CallControl, pointView, type SearchAnswer, searchPoints, shownOf, sparseQuery } from './points.js';
import { namedIds, type QuerySource, type VectorSource } from './query-input.js';
import { contextScore, discoveryScore } from './discovery.js';
import { inputVector, sourceVector } from './query-vector.js';
import { type DenseView, denseView } from './dense-view.js';
import type { QueryPlan } from './requests.js';
import { scoreOf, similarity } from './scores.js';

/** A query (parseQuery, parseRecommend): one search, or its stages. */
export async function queryPoints(c: Collection, p: QueryPlan, ctl: CallControl): Promise<SearchAnswer> {
  const s = p.source;
  const oneSearch = p.prefetch.length === 0 && ((s.kind === 'nearest' && s.mmr === undefined) || s.kind === 'recommend');
  if (oneSearch) return plainQuery(c, p, ctl);
  if (p.withStats)
    throw invalidArgument(
      'with_stats',
      "Strata's stats describe one search: leave with_stats out of a query with prefetch, mmr, discover, context or order_by",
    );
  const ranked = await stage(c, p, undefined, p.offset + p.limit, ctl, '');
  const view = pointView(c, p);
  const hits = ranked.slice(p.offset).map((r) => ({
    id: c.externalId(r.id),
    score: r.score,
    ...shownOf(c, r.id, view),
    ...(r.orderValue !== undefined ? { orderValue: r.orderValue } : {}),
  }));
  return { hits, withPayload: view.withPayload, stats: null };
}

/**
 * One search with the source's vector; the points the source names are left out before the offset
 * applies (as many more are asked for, so that `limit` remain), as Qdrant does.
 */
async function plainQuery(c: Collection, p: QueryPlan, ctl: CallControl): Promise<SearchAnswer> {
  const s = p.source as VectorSource;
  // A sparse search leaves out the point it searches by itself.
  if (p.sparse !== undefined || (s.kind === 'nearest' && 'vector' in s.input)) return searchPoints(c, p, ctl);
  const named = namedIds(s);
  const a = await searchPoints(c, { ...p, vector: sourceVector(c, denseView(c, p.secondary), s), offset: 0, limit: p.offset + p.limit + named.length }, ctl);
  const excluded = new Set(named.map((k) => c.externalId(c.resolveKey(k)!)));
  return { ...a, hits: a.hits.filter((h) => !excluded.has(h.id)).slice(p.offset, p.offset + p.limit) };
}

/** Both filters (either may be absent). */
function both(a: Filter | undefined, b: Filter | undefined): Filter | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return {
    must: [
      { kind: 'filter', filter: a },
      { kind: 'filter', filter: b },
    ],
  };
}

/**
 * Whether a stage's scores are distances (smaller better): a dense search's by a Euclid vector.
 * Sparse scores, fusions' and discovery's are larger-better whatever the dense vectors' distance.
 */
function smallerBetter(c: Collection, p: QueryPlan): boolean {
  const k = p.source.kind;
  return p.sparse === undefined && denseView(c, p.secondary).metric === 'l2' && (k === 'nearest' || k === 'recommend');
}

/** Best first by the stage's score (a distance for a Euclid collection's dense search), ties by id. */
function byScore(smaller: boolean, list: Ranked[]): Ranked[] {
  const sign = smaller ? 1 : -1;
  return list.sort((a, b) => sign * (a.score - b.score) || a.id - b.id);
}

/** The exact score of the stored point `id` against v, or null when it is gone (or has no such vector). */
function exactScore(d: DenseView, v: Float32Array, id: number): number | null {
  const pt = d.vectorOf(id);
  return pt === null ? null : scoreOf(d.metric, distanceRef(d.metric, v, 0, pt, 0, d.dim));
}

/** The stage's best `want` points, best first. */
async function stage(c: Collection, p: QueryPlan, inherited: Filter | undefined, want: number, ctl: CallControl, at: string): Promise<Ranked[]> {
  const filter = both(inherited, p.filter);
  const s = p.source;
  let ranked: Ranked[];
  if (s.kind === 'order_by') {
    // Qdrant scores points taken in payload order 0; their order value is the answer's.
    await c.settle(filter, s.orderBy);
    return c.orderBy(s.orderBy, want, filter, `${at}query.order_by`).map((o) => ({ id: o.id, score: 0, orderValue: o.value }));
  }
  if (s.kind === 'discover' || s.kind === 'context') {
    const lists = await Promise.all(p.prefetch.map((q, i) => stage(c, q, filter, q.limit, ctl, `${at}prefetch[${i}].`)));
    // The parser asks for prefetch or params.exact: without prefetch, every matching point is a candidate.
    // (A search settles its filter itself; reading every match here, this stage settles it first.)
    if (p.prefetch.length === 0) await c.settle(filter);
    const candidates = p.prefetch.length > 0 ? [...new Set(lists.flatMap((l) => l.map((r) => r.id)))] : c.ids(filter);
    ranked = await discover(c, denseView(c, p.secondary), s, candidates, ctl);
    const t = p.scoreThreshold;
    return (t === undefined ? ranked : ranked.filter((r) => r.score >= t)).slice(0, want);
  }
  if (p.prefetch.length === 0) {
    const mmr = s.kind === 'nearest' ? s.mmr : undefined;
    const n = Math.max(want, mmr?.candidatesLimit ?? want);
    const plan = { ...p, filter, offset: 0, limit: n, withPayload: false as const, withVector: false, withStats: false };
    const a = await plainQuery(c, plan, ctl);
    ranked = a.hits.map((h) => ({ id: c.resolveKey(h.id)!, score: h.score }));
  } else {
    const lists = await Promise.all(p.prefetch.map((q, i) => stage(c, q, filter, q.limit, ctl, `${at}prefetch[${i}].`)));
    if (s.kind === 'fusion') {
      ranked = fuse(
        lists,
        s.fusion,
        p.prefetch.map((q) => smallerBetter(c, q)),
        byNumber,
      );
      const t = p.scoreThreshold;
      // A fused score is larger-better whatever the metric.
      return (t === undefined ? ranked : ranked.filter((r) => r.score >= t)).slice(0, want);
    }
    ranked = p.sparse !== undefined ? rescoreSparse(c, p, lists) : rescore(c, denseView(c, p.secondary), s, lists);
  }
  if (s.kind === 'nearest' && s.mmr !== undefined) ranked = pickMmr(c, denseView(c, p.secondary), s, s.mmr.diversity, ranked, want);
  const t = p.scoreThreshold;
  const smaller = smallerBetter(c, p);
  return (t === undefined ? ranked : ranked.filter((r) => (smaller ? r.score <= t : r.score >= t))).slice(0, want);
}

/** The prefetches' points (each once) that hold the stage's sparse vector, scored exactly against its query. */
function rescoreSparse(c: Collection, p: QueryPlan, lists: readonly (readonly Ranked[])[]): Ranked[] {
  const { name } = p.sparse!;
  const { vector: query, exclude } = sparseQuery(c, p);
  const out = rescoreUnion(lists, new Set([exclude]), (id) => c.sparseScore(id, name, query));
  return byScore(false, out);
}

/** The prefetches' points (each once, the source's named points left out), scored exactly against the source's vector. */
function rescore(c: Collection, d: DenseView, s: VectorSource, lists: readonly (readonly Ranked[])[]): Ranked[] {
  const v = sourceVector(c, d, s);
  const out = rescoreUnion(lists, new Set(namedIds(s).map((k) => c.resolveKey(k))), (id) => exactScore(d, v, id));
  return byScore(d.metric === 'l2', out);
}

/** Each point of the lists once, those in `excluded` left out, with its score (null: it has none, and is left out too). */
function rescoreUnion(lists: readonly (readonly Ranked[])[], excluded: ReadonlySet<number | null>, scoreBy: (id: number) => number | null): Ranked[] {
  const seen = new Set<number>();
  const out: Ranked[] = [];
  for (const list of lists)
    for (const { id } of list) {
      if (seen.has(id) || excluded.has(id)) continue;
      seen.add(id);
      const score = scoreBy(id);
      if (score !== null) out.push({ id, score });
    }
  return out;
}

/** `want` of the candidates in MMR's order, each with its exact score against the query. */
function pickMmr(c: Collection, d: DenseView, s: VectorSource, diversity: number, candidates: readonly Ranked[], want: number): Ranked[] {
  const v = sourceVector(c, d, s);
  const kept: Ranked[] = [];
  const vectors: Float32Array[] = [];
  for (const r of candidates) {
    const pt = d.vectorOf(r.id);
    if (pt === null) continue;
    vectors.push(pt);
    kept.push({ id: r.id, score: scoreOf(d.metric, distanceRef(d.metric, v, 0, pt, 0, d.dim)) });
  }
  const relevance = kept.map((r) => (d.metric === 'l2' ? -r.score : r.score));
  return mmrOrder(d.metric, d.dim, vectors, relevance, diversity, want).map((i) => kept[i]!);
}

/** Points scored between yields to the event loop: an exact discovery scans every point. */
const DISCOVER_CHUNK = 2048;

/** The candidates (the source's named points left out) scored by discovery or context, best first. */
async function discover(
  c: Collection,
  d: DenseView,
  s: Extract<QuerySource, { kind: 'discover' | 'context' }>,
  candidates: readonly number[],
  ctl: CallControl,
): Promise<Ranked[]> {
  const pairs = s.pairs.map((p) => ({ positive: inputVector(c, d, p.positive), negative: inputVector(c, d, p.negative) }));
  const target = s.kind === 'discover' ? inputVector(c, d, s.target) : null;
  const excluded = new Set(namedIds(s).map((k) => c.resolveKey(k)));
  const sim = (a: Float32Array, b: Float32Array): number => similarity(d.metric, a, b, d.dim);
  const out: Ranked[] = [];
  for (let at = 0; at < candidates.length; at += DISCOVER_CHUNK) {
    if (at > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      ctl.signal?.throwIfAborted();
    }
    for (const id of candidates.slice(at, at + DISCOVER_CHUNK)) {
      const pt = excluded.has(id) ? null : d.vectorOf(id);
      if (pt === null) continue;
      const zones = pairs.map((p) => ({ positive: sim(pt, p.positive), negative: sim(pt, p.negative) }));
      out.push({ id, score: target === null ? contextScore(zones) : discoveryScore(sim(pt, target), zones) });
    }
  }
  return out.sort((a, b) => b.score - a.score || a.id - b.id);
}
