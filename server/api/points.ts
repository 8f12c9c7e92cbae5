// The read operations both protocols serve, over one collection: search (with Qdrant's offset,
// score conversion and threshold), retrieve, scroll and count. Results keep vectors as Float32Array;
// each protocol decides how to put them on the wire.
import { invalidArgument, pointNotFound, type StrataError } from '../../common/errors.js';
import type { Collection, Metric, Payload, PayloadSelector, PointKey, SparseVector } from '../../engine/public.js';
import type { NamedVectors } from './vector-space.js';
import { wantsPayload } from './fields.js';
import { type RetrievePlan, rerankFor, type ScrollPlan, type SearchPlan } from './requests.js';
import { passesThreshold, scoreOf } from './scores.js';
import { strataStats, type StrataSearchStats } from './stats-view.js';

/** Deadline and cancellation of one call, handed to the engine's admission queue. */
export interface CallControl {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ScoredHit {
  /** The id users know the point by: an integer, or its UUID. */
  id: PointKey;
  score: number;
  /** The point's payload (null: none stored). */
  payload: Payload | null;
  /** The stored vector (unit-normalised for Cosine), when asked for. */
  vector: Float32Array | null;
  /** The sparse and secondary vectors asked for, by name (absent: none asked for). */
  named?: NamedVectors;
  /** The value it was ordered by (a query by order_by), else absent. */
  orderValue?: number;
}

export interface SearchAnswer {
  hits: ScoredHit[];
  withPayload: boolean;
  /** Only when the plan asked for it (with_stats): building and sending it costs every answer. */
  stats: StrataSearchStats | null;
}

export interface PointRecord {
  id: PointKey;
  payload: Payload | null;
  vector: Float32Array | null;
  named?: NamedVectors;
  /** The value it was ordered by (a scroll with order_by), else absent. */
  orderValue?: number;
}

function storedVector(c: Collection, id: number): Float32Array | null {
  return c.getPoint(id)?.vector ?? null;
}

/** What an answer shows of each point, decided once per answer from a plan's with_payload and with_vector. */
export interface PointView {
  withPayload: boolean;
  selector: PayloadSelector;
  vector: boolean;
  /**
   * The sparse and secondary vectors to show, or null: none asked for, or a collection without any.
   * A collection of several vectors answers a point's vectors by name whenever any is asked for, as
   * Qdrant does.
   */
  named: readonly string[] | null;
}

export function pointView(c: Collection, p: { withPayload: PayloadSelector; withVector: boolean; withNamed: readonly string[] }): PointView {
  const asked = p.withVector || p.withNamed.length > 0;
  const several = Object.keys(c.sparseVectors).length + Object.keys(c.secondaryVectors).length > 0;
  return {
    withPayload: wantsPayload(p.withPayload),
    selector: p.withPayload,
    vector: p.withVector,
    named: asked && several ? p.withNamed : null,
  };
}

/** The payload and vectors point `id` is answered with; `vector` when the caller holds the dense one already. */
export function shownOf(c: Collection, id: number, v: PointView, vector?: Float32Array | null): Pick<PointRecord, 'payload' | 'vector' | 'named'> {
  const out: Pick<PointRecord, 'payload' | 'vector' | 'named'> = {
    payload: v.withPayload ? c.payload(id, v.selector) : null,
    vector: v.vector ? (vector !== undefined ? vector : storedVector(c, id)) : null,
  };
  if (v.named !== null) {
    const named: NamedVectors = {};
    for (const n of v.named) {
      const s = c.sparseVector(id, n) ?? c.secondaryVector(id, n);
      if (s !== null) named[n] = s;
    }
    out.named = named;
  }
  return out;
}

/** A query naming point `id` by its vector `name`, which the point does not hold (`field` names the vector's choice). */
export function missingVector(field: string, id: string, name: string, sparse: boolean): StrataError {
  return invalidArgument(field, `point ${id.slice(0, 64)} has no ${sparse ? 'sparse ' : ''}vector ${JSON.stringify(name.slice(0, 40))}`);
}

/** A sparse search's vector: the one given, or the named point's (which the answer then leaves out). */
export function sparseQuery(c: Collection, p: SearchPlan): { vector: SparseVector; exclude: number | null } {
  const s = p.sparse!;
  if ('vector' in s.input) return { vector: s.input.vector, exclude: null };
  const { id } = getPointOrThrow(c, s.input.id, String(s.input.id));
  const v = c.sparseVector(id, s.name);
  if (v === null) throw missingVector(p.vectorField, String(s.input.id), s.name, true);
  return { vector: v, exclude: id };
}

/**
 * A search by a sparse vector: exact, larger scores better (a dot product), whatever the dense
 * vector's distance. It runs on the event loop, starting in a turn of its own and reading its
 * postings over turns, so that a batch of them, or one of many terms, leaves other requests theirs.
 */
async function searchSparsePoints(c: Collection, p: SearchPlan, ctl: CallControl): Promise<SearchAnswer> {
  await nextTurn(ctl);
  const { vector, exclude } = sparseQuery(c, p);
  const k = p.limit + p.offset + (exclude === null ? 0 : 1);
  const found = (await c.searchSparse(p.sparse!.name, vector, k, p.filter, ctl.signal)).filter((h) => h.id !== exclude);
  // A dot product: larger is better, as a similarity's score.
  return answerOf(c, p, found.slice(p.offset, p.offset + p.limit), (score) => passesThreshold('ip', score, p.scoreThreshold), null);
}

/** A turn of the event loop of its own, for a search that runs on it; a cancelled call stops here. */
async function nextTurn(ctl: CallControl): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  ctl.signal?.throwIfAborted();
}

/** Scores of hits given as distances by `metric`, from position `from` on. */
function scoredFrom(hits: ReadonlyArray<{ id: number; distance: number }>, from: number, metric: Metric): Array<{ id: number; score: number }> {
  return hits.slice(from).map((h) => ({ id: h.id, score: scoreOf(metric, h.distance) }));
}

/**
 * The answer of scored hits, best first: cut at the first that misses the threshold (`passes`), each
 * shown with the payload and vectors the plan asks for.
 */
function answerOf(
  c: Collection,
  p: SearchPlan,
  scored: ReadonlyArray<{ id: number; score: number }>,
  passes: (score: number) => boolean,
  stats: StrataSearchStats | null,
): SearchAnswer {
  const view = pointView(c, p);
  const hits: ScoredHit[] = [];
  for (const h of scored) {
    if (!passes(h.score)) break;
    hits.push({ id: c.externalId(h.id), score: h.score, ...shownOf(c, h.id, view) });
  }
  return { hits, withPayload: view.withPayload, stats };
}

/**
 * A search by a secondary dense vector, in its own graph in DRAM (or every point scored, `exact`).
 * Like a sparse search it runs on the event loop, each in a turn of its own.
 */
async function searchSecondaryPoints(c: Collection, p: SearchPlan, ctl: CallControl): Promise<SearchAnswer> {
  await nextTurn(ctl);
  const name = p.secondary!;
  const { metric } = c.secondaryVectors[name]!;
  const r = await c.searchSecondary(name, p.vector, p.limit + p.offset, {
    vectorField: p.vectorField,
    exact: p.exact,
    ...(ctl.signal !== undefined ? { signal: ctl.signal } : {}),
    ...(p.ef !== undefined ? { ef: p.ef } : {}),
    ...(p.filter !== undefined ? { filter: p.filter } : {}),
  });
  return answerOf(c, p, scoredFrom(r.hits, p.offset, metric), (score) => passesThreshold(metric, score, p.scoreThreshold), null);
}

export async function searchPoints(c: Collection, p: SearchPlan, ctl: CallControl): Promise<SearchAnswer> {
  if (p.sparse !== undefined) return searchSparsePoints(c, p, ctl);
  if (p.secondary !== undefined) return searchSecondaryPoints(c, p, ctl);
  const k = p.limit + p.offset;
  const rerank = rerankFor(p.rerank, k);
  const r = await c.search({
    vector: p.vector,
    vectorField: p.vectorField,
    k,
    exact: p.exact,
    ...(p.ef !== undefined ? { ef: p.ef } : {}),
    ...(rerank !== undefined ? { rerank } : {}),
    ...(p.rerank.ignore ? { rescoreAll: true } : {}),
    ...(p.filter !== undefined ? { filter: p.filter } : {}),
    ...(p.filterPlan !== undefined ? { filterPlan: p.filterPlan } : {}),
    ...(ctl.timeoutMs !== undefined ? { timeoutMs: ctl.timeoutMs } : {}),
    ...(ctl.signal ? { signal: ctl.signal } : {}),
  });
  const metric = c.metric;
  // Hits come best first, so for a distance the first miss ends the list; for a similarity too.
  return answerOf(
    c,
    p,
    scoredFrom(r.hits, p.offset, metric),
    (score) => passesThreshold(metric, score, p.scoreThreshold),
    p.withStats ? strataStats(r.stats, r.mode, r.filter) : null,
  );
}

/**
 * A batch is admitted search by search, like independent requests: under overload some may be
 * rejected, and then the batch fails as a whole with that error (no partial answers). Its searches
 * are queued together, so they reach a search thread as one task.
 */
export function runTogether<P>(
  c: Collection,
  plans: readonly P[],
  run: (c: Collection, plan: P, ctl: CallControl) => Promise<SearchAnswer>,
  ctl: CallControl,
): Promise<SearchAnswer[]> {
  return c.together(() => Promise.all(plans.map((p) => run(c, p, ctl))));
}

/** Searches of one batch (runTogether). */
export function searchBatch(c: Collection, plans: readonly SearchPlan[], ctl: CallControl): Promise<SearchAnswer[]> {
  return runTogether(c, plans, searchPoints, ctl);
}

/** Points read between two turns of the event loop by a retrieve or a scroll (Collection.inTurns). */
export const READ_TURN_POINTS = 512;

/** The named points that exist, each once, as the plan shows them; read over turns of the event loop. */
export function retrievePoints(c: Collection, p: RetrievePlan): Promise<PointRecord[]> {
  const view = pointView(c, p);
  return c.inTurns(function* () {
    const out: PointRecord[] = [];
    const seen = new Set<number>();
    for (const key of p.ids) {
      // Qdrant answers each existing id once and leaves out those that do not exist.
      const id = key === null ? null : c.resolveKey(key);
      if (id === null || seen.has(id)) continue;
      seen.add(id);
      if (seen.size % READ_TURN_POINTS === 0) yield;
      const pt = c.getPoint(id);
      if (pt) out.push({ id: key!, ...shownOf(c, id, view, pt.vector) });
    }
    return out;
  });
}

export function getPointOrThrow(c: Collection, key: PointKey | null, shown: string): { id: number; key: PointKey; vector: Float32Array } {
  const id = key === null ? null : c.resolveKey(key);
  const pt = id === null ? null : c.getPoint(id);
  if (!pt) throw pointNotFound(c.name, shown);
  return { ...pt, key: key! };
}

/** A page of points, as the plan shows them; read over turns of the event loop. */
export function scrollPoints(c: Collection, p: ScrollPlan): Promise<{ points: PointRecord[]; next: PointKey | null }> {
  const view = pointView(c, p);
  const recordOf = (id: number): PointRecord => ({ id: c.externalId(id), ...shownOf(c, id, view) });
  return c.inTurns(function* () {
    const points: PointRecord[] = [];
    yield* c.settleSteps(p.filter, p.orderBy);
    if (p.orderBy !== undefined) {
      // Ordered by a payload value, there is no id to continue from: Qdrant's next page offset is null then.
      const ordered = c.orderBy(p.orderBy, p.limit, p.filter, 'order_by');
      for (const [i, o] of ordered.entries()) {
        if (i > 0 && i % READ_TURN_POINTS === 0) yield;
        points.push({ ...recordOf(o.id), orderValue: o.value });
      }
      return { points, next: null };
    }
    // A UUID offset starts at its point (UUID points follow the integer ids, in the order they were
    // first written); one the collection does not know starts past every point: an empty page.
    const offset = p.offset === null ? null : (c.resolveKey(p.offset) ?? Number.MAX_SAFE_INTEGER);
    const r = c.scroll(offset, p.limit, p.filter);
    for (const [i, id] of r.ids.entries()) {
      if (i > 0 && i % READ_TURN_POINTS === 0) yield;
      points.push(recordOf(id));
    }
    return { points, next: r.next === null ? null : c.externalId(r.next) };
  });
}
