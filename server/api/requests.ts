// Qdrant request bodies → typed plans for the engine. One parser per request kind, shared by REST
// (JSON and MessagePack) and gRPC (whose messages use the same field names). Known fields with the
// wrong type or range are a 400 naming the field. A query's members are all checked, since Qdrant's
// query API has many that Strata does not run; elsewhere unknown fields are ignored, as Qdrant does.
import { denseDim, queryUsingAt, searchVectorAt, usingAt, type VectorSpace, withNamedAt, withVectorAt } from './vector-space.js';
import { invalidArgument, StrataError } from '../../common/errors.js';
import {
  checkEf,
  checkIntIn,
  checkK,
  checkRerank,
  type Filter,
  MAX_K,
  MAX_RERANK,
  type OrderBy,
  type PayloadSelector,
  type PointKey,
  type SearchRequest,
  type SparseVector,
  sparseVectorAt,
} from '../../engine/public.js';
import { MAX_IDS } from '../options.js';
import { checkMmrWork } from './mmr.js';
import {
  checkGivenVectors,
  contextAt,
  discoverAt,
  fusionAt,
  mmrAt,
  pairsAt,
  type QuerySource,
  recommendAt,
  recommendQueryAt,
  unsupportedKind,
  vectorInputAt,
} from './query-input.js';
import {
  arrayAt,
  describe,
  filterAt,
  noShardKey,
  isAbsent,
  isPlainObject,
  numberAt,
  objectAt,
  optionalBool,
  optionalInt,
  optionalNumber,
  optionalString,
  pointKeyAt,
  onlyMembers,
  withPayloadAt,
  type Fields,
} from './fields.js';

/** A search by a named sparse vector: the vector given, or the one a stored point holds. */
export interface SparseAsk {
  readonly name: string;
  readonly input: { readonly vector: SparseVector } | { readonly id: PointKey };
}

export interface SearchPlan {
  /** The dense vector searched with (empty for a sparse search). */
  vector: Float32Array;
  /** Set for a search by a sparse vector (exact, through its inverted index), instead of `vector`. */
  sparse: SparseAsk | undefined;
  /** The secondary dense vector `vector` searches (in its own graph), or undefined for the primary. */
  secondary: string | undefined;
  /** The request field the vector came from: the engine checks its length and values, naming it. */
  vectorField: string;
  limit: number;
  offset: number;
  ef: number | undefined;
  exact: boolean;
  /** How many candidates to re-score with full vectors (see rerankFor). */
  rerank: RerankAsk;
  /** The filtered search's plan, when the request names one (Strata's `params.filter_plan`). */
  filterPlan: FilterPlanAsk | undefined;
  withVector: boolean;
  /** The sparse and secondary vectors with_vector asks for. */
  withNamed: readonly string[];
  withPayload: PayloadSelector;
  /** Only points that match (absent: every point). */
  filter: Filter | undefined;
  scoreThreshold: number | undefined;
  /** Whether the answer carries Strata's per-search cost (`strata`): off unless asked for. */
  withStats: boolean;
}

export interface RetrievePlan {
  /** Integer ids or canonical UUIDs; null: an integer past 2^53, which never matches. */
  ids: Array<PointKey | null>;
  withVector: boolean;
  withNamed: readonly string[];
  withPayload: PayloadSelector;
}

export interface ScrollPlan {
  offset: PointKey | null;
  /** Points by a payload value instead of by id (then with no offset, and no next page). */
  orderBy: OrderBy | undefined;
  limit: number;
  withVector: boolean;
  withNamed: readonly string[];
  withPayload: PayloadSelector;
  filter: Filter | undefined;
}

/** What a request says about re-scoring: Strata's own `rerank`, or Qdrant's `quantization` knobs. */
export interface RerankAsk {
  rerank?: number;
  ignore?: boolean;
  rescore?: boolean;
  oversampling?: number;
}

/**
 * The re-rank pool for k results (undefined: the engine's default, DEFAULT_RERANK_FACTOR × k). `rerank` wins; Qdrant's
 * `quantization.ignore` re-scores the whole candidate list with full vectors, `rescore: false`
 * returns the codes' estimates without reading a full vector, `oversampling` re-scores
 * ⌈oversampling × k⌉. On a collection without codes every distance is exact and these do nothing.
 */
export function rerankFor(a: RerankAsk, k: number): number | undefined {
  if (a.rerank !== undefined) return a.rerank;
  if (a.ignore) return MAX_RERANK;
  if (a.rescore === false) return 0;
  if (a.oversampling !== undefined) return Math.min(MAX_RERANK, Math.ceil(a.oversampling * k));
  return undefined;
}

/** `params`: {hnsw_ef, exact, rerank, quantization: {ignore, rescore, oversampling}, filter_plan}. */
/** Strata's `params.filter_plan`: the plan a filtered search runs instead of the planner's choice. */
export const FILTER_PLANS = ['scan', 'graph', 'two_hop', 'linked'] as const satisfies ReadonlyArray<NonNullable<SearchRequest['filterPlan']>>;
export type FilterPlanAsk = (typeof FILTER_PLANS)[number];

function filterPlanAt(v: unknown, field: string): FilterPlanAsk | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== 'string' || !(FILTER_PLANS as readonly string[]).includes(v))
    throw invalidArgument(field, `must be one of ${FILTER_PLANS.join(', ')}, got ${describe(v)}`);
  return v as FilterPlanAsk;
}

function searchParams(v: unknown, at: string): { ef: number | undefined; exact: boolean; rerank: RerankAsk; filterPlan: FilterPlanAsk | undefined } {
  if (isAbsent(v)) return { ef: undefined, exact: false, rerank: {}, filterPlan: undefined };
  const p = objectAt(v, `${at}params`);
  const rerank: RerankAsk = {};
  // Its floor (limit + offset) is checked in plan, once the window is known.
  if (!isAbsent(p['rerank'])) rerank.rerank = numberAt(p['rerank'], `${at}params.rerank`);
  if (!isAbsent(p['quantization'])) {
    const q = objectAt(p['quantization'], `${at}params.quantization`);
    const ignore = optionalBool(q['ignore'], `${at}params.quantization.ignore`);
    const rescore = optionalBool(q['rescore'], `${at}params.quantization.rescore`);
    const over = optionalNumber(q['oversampling'], `${at}params.quantization.oversampling`);
    if (over !== undefined && !(over >= 1 && over <= MAX_RERANK))
      throw invalidArgument(`${at}params.quantization.oversampling`, `must be a number in 1..${MAX_RERANK}, got ${over}`);
    if (ignore !== undefined) rerank.ignore = ignore;
    if (rescore !== undefined) rerank.rescore = rescore;
    if (over !== undefined) rerank.oversampling = over;
  }
  return {
    ef: isAbsent(p['hnsw_ef']) ? undefined : checkEf(numberAt(p['hnsw_ef'], `${at}params.hnsw_ef`), `${at}params.hnsw_ef`),
    exact: optionalBool(p['exact'], `${at}params.exact`) ?? false,
    rerank,
    filterPlan: filterPlanAt(p['filter_plan'], `${at}params.filter_plan`),
  };
}

/** limit and offset, with limit + offset within what one search can return. */
export function window(b: Fields, at: string, defaultLimit: number | null): { limit: number; offset: number } {
  const limit = isAbsent(b['limit']) && defaultLimit !== null ? defaultLimit : checkK(numberAt(b['limit'], `${at}limit`), `${at}limit`);
  const offset = isAbsent(b['offset']) ? 0 : checkIntIn(numberAt(b['offset'], `${at}offset`), `${at}offset`, 0, MAX_K);
  if (limit + offset > MAX_K) throw invalidArgument(`${at}offset`, `limit + offset must be at most ${MAX_K}, got ${limit} + ${offset}`);
  return { limit, offset };
}

function plan(
  b: Fields,
  space: VectorSpace,
  vector: Float32Array,
  vectorField: string,
  at: string,
  defaultLimit: number | null,
  withPayloadDefault: boolean,
  target: { sparse?: SparseAsk; secondary?: string | undefined } = {},
): SearchPlan {
  const { sparse, secondary } = target;
  const filter = filterAt(b['filter'], `${at}filter`);
  noShardKey(b, at);
  const { limit, offset } = window(b, at, defaultLimit);
  const { ef, exact, rerank, filterPlan } = searchParams(b['params'], at);
  if (filterPlan !== undefined && filter === undefined) throw invalidArgument(`${at}params.filter_plan`, 'applies to a filtered search only: give a filter');
  if (rerank.rerank !== undefined) checkRerank(rerank.rerank, limit + offset, `${at}params.rerank`);
  if (sparse !== undefined) onlyExactParams(b, at);
  if (secondary !== undefined) notTieredParams(b, at, filterPlan, rerank);
  return {
    vector,
    sparse,
    secondary,
    vectorField,
    limit,
    offset,
    ef,
    exact,
    rerank,
    filterPlan,
    withVector: withVectorAt(b['with_vector'], `${at}with_vector`, space, false),
    withNamed: withNamedAt(b['with_vector'], space, false),
    withPayload: withPayloadAt(b['with_payload'], `${at}with_payload`, withPayloadDefault),
    filter,
    scoreThreshold: optionalNumber(b['score_threshold'], `${at}score_threshold`),
    withStats: optionalBool(b['with_stats'], `${at}with_stats`) ?? false,
  };
}

/**
 * A sparse search is exact, through its inverted index: of `params` it takes only `exact`, and it
 * reports no traversal (with_stats); the rest is refused, naming it.
 */
function onlyExactParams(b: Fields, at: string): void {
  if (!isAbsent(b['params'])) onlyMembers(objectAt(b['params'], `${at}params`), ['exact'], `${at}params`, 'in a sparse search (always exact)');
  if (optionalBool(b['with_stats'], `${at}with_stats`) === true)
    throw invalidArgument(`${at}with_stats`, "Strata's stats describe a graph search: leave with_stats out of a sparse search");
}

/**
 * A secondary dense vector has its own graph, with no codes and no filtered-search plans of the
 * tiered index: `rerank` and `filter_plan` name what it does not have, and with_stats describes the
 * tiered search; each is refused, naming it. Qdrant's quantization knobs do nothing there (every
 * distance is exact), as on a collection without codes.
 */
function notTieredParams(b: Fields, at: string, filterPlan: FilterPlanAsk | undefined, rerank: RerankAsk): void {
  const why = 'applies to the primary vector (the tiered index) only, not to a secondary vector';
  if (filterPlan !== undefined) throw invalidArgument(`${at}params.filter_plan`, why);
  if (rerank.rerank !== undefined) throw invalidArgument(`${at}params.rerank`, why);
  if (optionalBool(b['with_stats'], `${at}with_stats`) === true) throw invalidArgument(`${at}with_stats`, why);
}

/** POST …/points/search (and each of search/batch's `searches`, with `at` = "searches[i]."). */
export function parseSearch(body: Fields, space: VectorSpace, at = ''): SearchPlan {
  if (isAbsent(body['vector'])) throw invalidArgument(`${at}vector`, `required: an array of ${space.dim} numbers`);
  const v = searchVectorAt(body['vector'], `${at}vector`, space);
  // Qdrant's search requires limit; default payload is off unless asked for.
  if ('secondary' in v) return plan(body, space, v.vector, `${at}vector`, at, null, false, { secondary: v.secondary });
  return plan(body, space, new Float32Array(0), `${at}vector`, at, null, false, { sparse: { name: v.name, input: { vector: v.vector } } });
}

/**
 * A batch route's body, {searches: [...]} (Qdrant's search, query and recommend batches), at most
 * maxBatch of them, each parsed by `one` with its path ("searches[3].").
 */
export function parseBatch<P extends SearchPlan>(
  body: Fields,
  space: VectorSpace,
  maxBatch: number,
  one: (body: Fields, space: VectorSpace, at: string) => P,
): P[] {
  const raw = body['searches'];
  if (!Array.isArray(raw)) throw invalidArgument('searches', `must be an array of requests, got ${describe(raw)}`);
  checkBatchSize(raw.length, maxBatch, 'searches');
  return raw.map((s, i) => one(objectAt(s, `searches[${i}]`), space, `searches[${i}].`));
}

export function checkBatchSize(n: number, maxBatch: number, field: string): void {
  if (n > maxBatch) {
    throw new StrataError(
      'STRATA_PAYLOAD_TOO_LARGE',
      `${field}: ${n} requests exceed the batch limit of ${maxBatch}: split them into batches of at most ${maxBatch} (the limit is --max-batch)`,
      { field, limit: maxBatch, got: n },
    );
  }
}

/** A query's plan: a search, with what it searches with (query-input.ts); `vector` is set only for a plain vector. */
export interface QueryPlan extends SearchPlan {
  source: QuerySource;
  /** The stages giving this query its candidates (none: it searches the collection). */
  prefetch: QueryPlan[];
}

/**
 * POST …/points/query. `query` is a vector, a point id, {nearest: either, mmr?}, {recommend: {positive,
 * negative, strategy}}, or a fusion of its prefetches ({fusion: rrf | dbsf}, {rrf: {k, weights}}),
 * with the request's `filter` (query-input.ts says how each becomes one vector). `prefetch` stages
 * (query-stages.ts) give the query its candidates: each a query of its own, with its own filter,
 * params, score_threshold and limit (default 10), and prefetches of its own. Other Qdrant query kinds
 * (discover, context, order_by, formula, sample) are refused.
 */
export function parseQuery(body: Fields, space: VectorSpace, at = ''): QueryPlan {
  return parseStage(body, space, at, 0);
}

/** Deepest prefetch nesting a query takes. */
export const MAX_PREFETCH_DEPTH = 4;
/** Most prefetches of one stage. */
export const MAX_PREFETCHES = 16;

/** The fields of a query (at the root) or of a prefetch stage (deeper), as Qdrant names them. */
const QUERY_ROOT_FIELDS = [
  'query',
  'prefetch',
  'using',
  'filter',
  'params',
  'score_threshold',
  'limit',
  'offset',
  'with_vector',
  'with_payload',
  'with_stats',
  'shard_key',
];
const PREFETCH_FIELDS = ['query', 'prefetch', 'using', 'filter', 'params', 'score_threshold', 'limit'];

function parseStage(body: Fields, space: VectorSpace, at: string, depth: number): QueryPlan {
  for (const k of ['lookup_from'] as const)
    if (!isAbsent(body[k])) throw invalidArgument(`${at}${k}`, 'examples from another collection are not supported: leave lookup_from out');
  onlyMembers(body, depth === 0 ? QUERY_ROOT_FIELDS : PREFETCH_FIELDS, at.replace(/\.$/, ''), depth === 0 ? 'in a query' : 'in a prefetch');
  const raw = body['prefetch'];
  const list = isAbsent(raw) ? [] : Array.isArray(raw) ? raw : [raw];
  if (list.length > 0 && depth >= MAX_PREFETCH_DEPTH) throw invalidArgument(`${at}prefetch`, `prefetches nest at most ${MAX_PREFETCH_DEPTH} deep`);
  if (list.length > MAX_PREFETCHES) throw invalidArgument(`${at}prefetch`, `at most ${MAX_PREFETCHES} prefetches a stage, got ${list.length}`);
  const prefetch = list.map((p, i) => parseStage(objectAt(p, `${at}prefetch[${i}]`), space, `${at}prefetch[${i}].`, depth + 1));
  const q = body['query'];
  const field = `${at}query`;
  // A fusion or an order_by reads no vector: without `using` it needs none (a collection of named vectors has no "").
  const readsNone = isPlainObject(q) && ['fusion', 'rrf', 'order_by'].some((k) => !isAbsent(q[k]));
  const use = isAbsent(q) || (readsNone && isAbsent(body['using'])) ? undefined : queryUsingAt(body['using'], `${at}using`, space);
  if (use?.kind === 'sparse') return sparseStage(body, space, at, use.name, prefetch);
  const secondary = use?.secondary;
  const dim = denseDim(space, secondary);
  if (isAbsent(q))
    throw invalidArgument(
      field,
      `required: a vector of ${dim} numbers, a point id, {"nearest": either}, {"recommend": …}, or with prefetch {"fusion": "rrf" | "dbsf"}`,
    );
  let source: QuerySource;
  let vectorField = field;
  if (typeof q === 'object' && !Array.isArray(q) && !ArrayBuffer.isView(q)) {
    const o = q as Fields;
    if (!isAbsent(o['recommend'])) {
      source = recommendQueryAt(o, dim, field);
      vectorField = `${field}.recommend`;
    } else if (!isAbsent(o['nearest'])) {
      onlyMembers(o, ['nearest', 'mmr'], field, 'beside nearest');
      const mmr = mmrAt(o['mmr'], `${field}.mmr`);
      source = { kind: 'nearest', input: vectorInputAt(o['nearest'], `${field}.nearest`, dim), ...(mmr ? { mmr } : {}) };
      vectorField = `${field}.nearest`;
    } else if (!isAbsent(o['discover'])) source = discoverAt(o, field, dim);
    else if (!isAbsent(o['context'])) source = contextAt(o, field, dim);
    else if (!isAbsent(o['order_by'])) {
      onlyMembers(o, ['order_by'], field, 'beside order_by');
      if (prefetch.length > 0) throw invalidArgument(`${field}.order_by`, "orders the collection's points by a payload value: leave prefetch out");
      source = { kind: 'order_by', orderBy: orderByAt(o['order_by'], `${field}.order_by`)! };
    } else if (!isAbsent(o['fusion']) || !isAbsent(o['rrf'])) {
      if (prefetch.length === 0)
        throw invalidArgument(`${field}.${isAbsent(o['fusion']) ? 'rrf' : 'fusion'}`, 'fuses the answers of prefetches: give prefetch');
      source = { kind: 'fusion', fusion: fusionAt(o, field) };
      if (source.fusion.method === 'rrf' && source.fusion.weights !== undefined && source.fusion.weights.length !== prefetch.length)
        throw invalidArgument(`${field}.rrf.weights`, `needs one weight per prefetch (${prefetch.length}), got ${source.fusion.weights.length}`);
    } else
      throw invalidArgument(
        field,
        `only nearest (with mmr), recommend (average_vector), discover, context, order_by and fusion (rrf, dbsf) queries are supported, got keys ${unsupportedKind(Object.keys(o)) || 'none'}`,
      );
  } else source = { kind: 'nearest', input: vectorInputAt(q, field, dim) };
  const vector = source.kind === 'nearest' && 'vector' in source.input ? source.input.vector : new Float32Array(0);
  // Qdrant's query defaults: limit 10, no payload. An order_by query reads no vector.
  checkGivenVectors(source, dim, vectorField);
  const p = plan(body, space, vector, vectorField, at, 10, false, { secondary: source.kind === 'order_by' ? undefined : secondary });
  if ((source.kind === 'discover' || source.kind === 'context') && prefetch.length === 0 && !p.exact)
    throw invalidArgument(
      `${at}params.exact`,
      `a ${source.kind} query scores each candidate against its examples: give prefetch (its candidates) or params.exact: true (every point)`,
    );
  const fetched = prefetch.reduce((n, q) => n + q.limit, 0);
  if (fetched > MAX_K) throw invalidArgument(`${at}prefetch`, `the prefetches of one stage ask for at most ${MAX_K} points in all, got ${fetched}`);
  if (source.kind === 'nearest' && source.mmr !== undefined) {
    const want = p.limit + p.offset;
    const candidates = prefetch.length > 0 ? fetched : (source.mmr.candidatesLimit ?? want);
    if (candidates < want && prefetch.length === 0)
      throw invalidArgument(`${field}.mmr.candidates_limit`, `must be at least limit + offset (${want}), got ${candidates}`);
    checkMmrWork(want, candidates, dim, `${field}.mmr.candidates_limit`);
  }
  return { ...p, source, prefetch };
}

/**
 * A query stage whose `using` names a sparse vector: its query is a sparse vector ({indices,
 * values}, or {nearest: it}) or a point id (that point's sparse vector), searched exactly; with
 * prefetch, their candidates are scored against it. Other query kinds are for dense vectors.
 */
function sparseStage(body: Fields, space: VectorSpace, at: string, name: string, prefetch: QueryPlan[]): QueryPlan {
  const field = `${at}query`;
  let q = body['query'];
  let inField = field;
  if (isPlainObject(q) && !isAbsent(q['nearest'])) {
    onlyMembers(q, ['nearest'], field, 'beside nearest (for a sparse vector: no mmr)');
    q = q['nearest'];
    inField = `${field}.nearest`;
  }
  let input: SparseAsk['input'];
  if (typeof q === 'number' || typeof q === 'string') input = { id: pointKeyAt(q, inField) ?? Number.MAX_SAFE_INTEGER };
  else if (isPlainObject(q) && ('indices' in q || 'values' in q)) input = { vector: sparseVectorAt(q, inField) };
  else
    throw invalidArgument(
      field,
      `using names the sparse vector ${JSON.stringify(name.slice(0, 40))}: give a sparse vector {"indices", "values"}, {"nearest": it} or a point id`,
    );
  const p = plan(body, space, new Float32Array(0), inField, at, 10, false, { sparse: { name, input } });
  const source: QuerySource = { kind: 'nearest', input: 'id' in input ? { id: input.id } : { vector: new Float32Array(0) } };
  return { ...p, source, prefetch };
}

/** The classic routes' `using` (one of the collection's dense vectors: the secondary it names, or undefined) and `lookup_from` (refused: examples from this collection only). */
function usingNotLookup(body: Fields, at: string, space: VectorSpace): string | undefined {
  if (!isAbsent(body['lookup_from'])) throw invalidArgument(`${at}lookup_from`, 'examples from another collection are not supported: leave lookup_from out');
  return usingAt(body['using'], `${at}using`, space);
}

/**
 * POST …/points/recommend (Qdrant's classic route): {positive, negative, strategy, filter, limit,
 * offset, params, with_payload, with_vector, score_threshold}, as a query's recommendation.
 */
export function parseRecommend(body: Fields, space: VectorSpace, at = ''): QueryPlan {
  const secondary = usingNotLookup(body, at, space);
  const dim = denseDim(space, secondary);
  const source = recommendAt(body, at, dim);
  checkGivenVectors(source, dim, `${at}positive`);
  // Qdrant's recommend requires limit, as search does; payload is off unless asked for.
  return { ...plan(body, space, new Float32Array(0), `${at}positive`, at, null, false, { secondary }), source, prefetch: [] };
}

/**
 * POST …/points/discover (Qdrant's classic route): {target, context: [{positive, negative}], filter,
 * limit, offset, params, with_payload, with_vector, score_threshold}; without target, a context
 * search. It scores every matching point, so it needs params.exact, as the query API's does without prefetch.
 */
export function parseDiscover(body: Fields, space: VectorSpace, at = ''): QueryPlan {
  const secondary = usingNotLookup(body, at, space);
  const dim = denseDim(space, secondary);
  const pairs = isAbsent(body['context']) ? [] : pairsAt(body['context'], `${at}context`, dim);
  let source: QuerySource;
  if (!isAbsent(body['target'])) source = { kind: 'discover', target: vectorInputAt(body['target'], `${at}target`, dim), pairs };
  else if (pairs.length > 0) source = { kind: 'context', pairs };
  else throw invalidArgument(`${at}target`, 'required (or context): a vector or a point id');
  checkGivenVectors(source, dim, `${at}target`);
  const p = plan(body, space, new Float32Array(0), `${at}target`, at, null, false, { secondary });
  if (!p.exact)
    throw invalidArgument(`${at}params.exact`, 'discovery scores each point against its examples: give params.exact: true, or use the query API with prefetch');
  return { ...p, source, prefetch: [] };
}

/** POST …/points: {ids, with_vector, with_payload}. */
export function parseRetrieve(body: Fields, space: VectorSpace): RetrievePlan {
  noShardKey(body, '');
  const ids = arrayAt(body['ids'], 'ids', MAX_IDS).map((v, i) => pointKeyAt(v, `ids[${i}]`));
  return {
    ids,
    withVector: withVectorAt(body['with_vector'], 'with_vector', space, false),
    withNamed: withNamedAt(body['with_vector'], space, false),
    withPayload: withPayloadAt(body['with_payload'], 'with_payload', true),
  };
}

/** Qdrant's order_by: a key, or {key, direction: asc | desc, start_from}. */
export function orderByAt(v: unknown, field: string): OrderBy | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v === 'string') return { key: v, descending: false, start: undefined };
  const o = objectAt(v, field);
  onlyMembers(o, ['key', 'direction', 'start_from'], field, 'in order_by');
  const key = optionalString(o['key'], `${field}.key`);
  if (key === undefined || key === '') throw invalidArgument(`${field}.key`, 'required: the payload key to order by');
  const d = o['direction'];
  if (!isAbsent(d) && d !== 'asc' && d !== 'desc') throw invalidArgument(`${field}.direction`, `must be "asc" or "desc", got ${describe(d)}`);
  const s = o['start_from'];
  if (!isAbsent(s) && typeof s !== 'number' && typeof s !== 'string')
    throw invalidArgument(`${field}.start_from`, `must be a number or an RFC 3339 datetime, got ${describe(s)}`);
  return { key, descending: d === 'desc', start: isAbsent(s) ? undefined : s };
}

/** POST …/points/scroll: {offset (a point id), limit, with_vector, with_payload, filter, order_by}. */
export function parseScroll(body: Fields, space: VectorSpace): ScrollPlan {
  const filter = filterAt(body['filter'], 'filter');
  noShardKey(body, '');
  const orderBy = orderByAt(body['order_by'], 'order_by');
  if (orderBy !== undefined && !isAbsent(body['offset']))
    throw invalidArgument('offset', 'points ordered by a payload value have no id to continue from: give order_by.start_from instead');
  // An integer past 2^53 starts past every Strata id: an empty page. A UUID is resolved by the collection.
  const offset = isAbsent(body['offset']) ? null : (pointKeyAt(body['offset'], 'offset') ?? Number.MAX_SAFE_INTEGER);
  return {
    offset,
    orderBy,
    limit: optionalInt(body['limit'], 'limit', 1, MAX_IDS) ?? 10,
    withVector: withVectorAt(body['with_vector'], 'with_vector', space, false),
    withNamed: withNamedAt(body['with_vector'], space, false),
    withPayload: withPayloadAt(body['with_payload'], 'with_payload', true),
    filter,
  };
}

/** Most values a facet answers. */
export const MAX_FACET_LIMIT = 10_000;

/** POST …/facet: {key, limit = 10, filter, exact}; Strata's counts are always exact. */
export function parseFacet(body: Fields): { key: string; limit: number; filter: Filter | undefined } {
  noShardKey(body, '');
  optionalBool(body['exact'], 'exact');
  const key = optionalString(body['key'], 'key');
  if (key === undefined || key === '') throw invalidArgument('key', 'required: the payload key (with a keyword, integer or bool index) to count values of');
  return { key, limit: optionalInt(body['limit'], 'limit', 1, MAX_FACET_LIMIT) ?? 10, filter: filterAt(body['filter'], 'filter') };
}

/** POST …/points/count: {filter, exact}; both answers are exact. */
export function parseCount(body: Fields): { filter: Filter | undefined } {
  optionalBool(body['exact'], 'exact');
  noShardKey(body, '');
  return { filter: filterAt(body['filter'], 'filter') };
}
