// qdrant.Points reads (Search, SearchBatch, Query, SearchGroups, QueryGroups, Get, Scroll, Count) over Strata's one parse →
// plan → execute path: each request becomes the REST body of the same operation (points-json.ts,
// filter-json.ts), parsed by the REST parsers (server/api/requests.ts) and run by the same
// operations (server/api/points.ts). Fields Strata does not honour are refused.
import { denseNameAt, isSparseName, type SparseJson, spaceOf, type VectorSpace } from '../../api/vector-space.js';
import type { DescService } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import {
  CountPointsSchema,
  CountResponseSchema,
  FacetCountsSchema,
  FacetResponseSchema,
  DiscoverBatchPointsSchema,
  DiscoverBatchResponseSchema,
  type DiscoverPoints,
  DiscoverPointsSchema,
  DiscoverResponseSchema,
  GetPointsSchema,
  GetResponseSchema,
  Fusion,
  type GroupId,
  type PrefetchQuery,
  PrefetchQuerySchema,
  type Query,
  QueryBatchPointsSchema,
  QueryBatchResponseSchema,
  QueryGroupsResponseSchema,
  QueryPointGroupsSchema,
  type QueryPoints,
  QueryPointsSchema,
  QueryResponseSchema,
  ReadConsistencyType,
  RecommendBatchPointsSchema,
  RecommendBatchResponseSchema,
  RecommendGroupsResponseSchema,
  RecommendPointGroupsSchema,
  type RecommendPoints,
  RecommendPointsSchema,
  RecommendResponseSchema,
  RecommendStrategy,
  type ReadConsistency,
  ScrollPointsSchema,
  SearchMatrixOffsetsResponseSchema,
  SearchMatrixPairsResponseSchema,
  type SearchMatrixPoints,
  SearchMatrixPointsSchema,
  ScrollResponseSchema,
  type SearchParams,
  SearchParamsSchema,
  type SearchPoints,
  type SparseIndices,
  SearchBatchPointsSchema,
  SearchBatchResponseSchema,
  SearchGroupsResponseSchema,
  SearchPointGroupsSchema,
  SearchPointsSchema,
  SearchResponseSchema,
  type VectorExample,
  type VectorInput,
} from '@qdrant/js-client-grpc';
import { invalidArgument, quoted } from '../../../common/errors.js';
import type { Collection } from '../../../engine/public.js';
import { checkAnswerSize, checkSearchAnswers } from '../../api/answer-size.js';
import type { Fields } from '../../api/fields.js';
import { retrievePoints, runTogether, type SearchAnswer, scrollPoints, searchPoints } from '../../api/points.js';
import { queryPoints } from '../../api/query-stages.js';
import { parseSearchMatrix, searchMatrix } from '../../api/search-matrix.js';
import { type GroupsAnswer, type GroupsPlan, groupPoints, parseQueryGroups, parseRecommendGroups, parseSearchGroups } from '../../api/groups.js';
import {
  checkBatchSize,
  parseCount,
  parseFacet,
  parseDiscover,
  parseQuery,
  parseRecommend,
  parseRetrieve,
  parseScroll,
  parseSearch,
  type SearchPlan,
} from '../../api/requests.js';
import type { GrpcContext } from '../calls.js';
import { collectionOf, control, type QdrantRouter, secondsSince } from './calls.js';
import { filterJson } from './filter-json.js';
import { idJson, pointIdMessage } from './point-id.js';
import { denseJson, orderByJson, retrievedPoint, scoredPoint, withPayloadJson, withVectorsJson } from './points-json.js';
import { intOf, onlyFields } from './refuse.js';

/** One replica answers every read: any consistency type is the same; a factor above one is refused. */
function readDefault(r: ReadConsistency | undefined, at = ''): void {
  if (r === undefined) return;
  const v = r.value;
  if (v.case === 'factor' && v.value > 1n)
    throw invalidArgument(`${at}read_consistency.factor`, 'Strata keeps one copy of a collection per server: use 1 or leave it out');
  if (v.case === 'type' && !(v.value in ReadConsistencyType)) throw invalidArgument(`${at}read_consistency.type`, `unknown type ${v.value}`);
}

/**
 * A search's vector, vector_name and sparse_indices as REST's `vector`: the list, or {name, vector},
 * the name checked here to name its field; with sparse_indices, the named sparse vector {indices, values}.
 */
function searchVectorJson(vector: number[], name: string | undefined, space: VectorSpace, field: string, sparse?: SparseIndices): unknown {
  if (sparse !== undefined) {
    if (!isSparseName(name ?? '', space))
      throw invalidArgument('sparse_indices', `vector_name must name one of the collection's sparse vectors (${space.sparse.join(', ') || 'it has none'})`);
    return { name, vector: { indices: sparse.data, values: vector } };
  }
  if (name === undefined || name === '') return vector;
  denseNameAt(name, space, field);
  return { name, vector };
}

/** SearchParams as REST's `params`: hnsw_ef and exact are honoured, the rest refused. */
function paramsJson(p: SearchParams | undefined, at: string): Fields | undefined {
  if (p === undefined) return undefined;
  onlyFields(SearchParamsSchema, p, ['hnsw_ef', 'exact'], `${at}params.`);
  return { hnsw_ef: intOf(p.hnswEf, `${at}params.hnsw_ef`), exact: p.exact };
}

const SEARCH_FIELDS = [
  'collection_name',
  'vector',
  'filter',
  'limit',
  'with_payload',
  'params',
  'score_threshold',
  'offset',
  'vector_name',
  'sparse_indices',
  'with_vectors',
  'read_consistency',
  'timeout',
];

/** A SearchPoints message as REST's search body. */
function searchBody(s: SearchPoints, at: string, space: VectorSpace): Fields {
  onlyFields(SearchPointsSchema, s, SEARCH_FIELDS, at);
  readDefault(s.readConsistency, at);
  return {
    vector: searchVectorJson(s.vector, s.vectorName, space, `${at}vector_name`, s.sparseIndices),
    filter: s.filter ? filterJson(s.filter, `${at}filter`) : undefined,
    limit: intOf(s.limit, `${at}limit`),
    offset: intOf(s.offset, `${at}offset`),
    with_payload: withPayloadJson(s.withPayload),
    with_vector: withVectorsJson(s.withVectors),
    params: paramsJson(s.params, at),
    score_threshold: s.scoreThreshold,
  };
}

function scored(a: SearchAnswer, vectorName: string): Array<ReturnType<typeof scoredPoint>> {
  return a.hits.map((h) => scoredPoint(h, a.withPayload, vectorName));
}

/** REST's names of Qdrant's recommend strategies (the parser takes average_vector and names the others). */
const STRATEGIES: Readonly<Record<number, string>> = {
  [RecommendStrategy.AverageVector]: 'average_vector',
  [RecommendStrategy.BestScore]: 'best_score',
  [RecommendStrategy.SumScores]: 'sum_scores',
};

/** A query's VectorInput as REST spells it: a dense vector, a sparse one or a point id; other inputs are refused, naming them. */
function inputJson(v: VectorInput, at: string): number[] | number | string | SparseJson {
  const x = v.variant;
  if (x.case === 'dense') return x.value.data;
  if (x.case === 'sparse') return { indices: x.value.indices, values: x.value.values };
  if (x.case === 'id') return idJson(x.value, `${at}.id`);
  throw invalidArgument(`${at}.${x.case ?? 'dense'}`, 'only a dense or sparse vector or a point id is supported (not multi or inference input)');
}

/** The fields QueryPoints and QueryPointGroups share, all honoured (queryBody). */
const QUERY_FIELDS = [
  'collection_name',
  'prefetch',
  'query',
  'using',
  'filter',
  'params',
  'score_threshold',
  'with_vectors',
  'with_payload',
  'read_consistency',
  'timeout',
];

/** The fields of a PrefetchQuery, all honoured but lookup_from (refused by the parser, as REST's). */
const PREFETCH_FIELDS = ['prefetch', 'query', 'using', 'filter', 'params', 'score_threshold', 'limit'];

/** A Query message as REST spells it; kinds other than nearest (with MMR), recommend and fusion are refused, naming them. */
function queryJson(query: Query | undefined, at: string): unknown {
  const q = query?.variant;
  if (q === undefined || q.case === undefined) return undefined;
  const field = `${at}query`;
  switch (q.case) {
    case 'nearest':
      return { nearest: inputJson(q.value, `${field}.nearest`) };
    case 'nearestWithMmr': {
      const mmr = q.value.mmr;
      if (q.value.nearest === undefined) throw invalidArgument(`${field}.nearest_with_mmr.nearest`, 'required: a dense vector or a point id');
      return {
        nearest: inputJson(q.value.nearest, `${field}.nearest_with_mmr.nearest`),
        mmr: { diversity: mmr?.diversity, candidates_limit: mmr?.candidatesLimit },
      };
    }
    case 'recommend':
      return {
        recommend: {
          positive: q.value.positive.map((p, i) => inputJson(p, `${field}.recommend.positive[${i}]`)),
          negative: q.value.negative.map((p, i) => inputJson(p, `${field}.recommend.negative[${i}]`)),
          strategy: q.value.strategy === undefined ? undefined : STRATEGIES[q.value.strategy],
        },
      };
    case 'discover':
      if (q.value.target === undefined) throw invalidArgument(`${field}.discover.target`, 'required: a dense vector or a point id');
      return {
        discover: {
          target: inputJson(q.value.target, `${field}.discover.target`),
          context: pairsJson(q.value.context?.pairs ?? [], `${field}.discover.context.pairs`),
        },
      };
    case 'context':
      return { context: pairsJson(q.value.pairs, `${field}.context.pairs`) };
    case 'orderBy':
      return { order_by: orderByJson(q.value, `${field}.order_by`) };
    case 'fusion':
      return { fusion: q.value === Fusion.DBSF ? 'dbsf' : 'rrf' };
    case 'rrf':
      return { rrf: { k: q.value.k, weights: q.value.weights.length > 0 ? q.value.weights : undefined } };
    default:
      throw invalidArgument(
        `${field}.${q.case}`,
        'only nearest (with mmr), recommend, discover, context, order_by and fusion (rrf, dbsf) queries are supported: send query.nearest, query.nearest_with_mmr, query.recommend, query.discover, query.context, query.order_by, query.fusion or query.rrf',
      );
  }
}

/** Context pairs of VectorInputs as REST's [{positive, negative}]. */
function pairsJson(pairs: ReadonlyArray<{ positive?: VectorInput; negative?: VectorInput }>, at: string): unknown[] {
  return pairs.map((p, i) => ({
    positive: p.positive === undefined ? undefined : inputJson(p.positive, `${at}[${i}].positive`),
    negative: p.negative === undefined ? undefined : inputJson(p.negative, `${at}[${i}].negative`),
  }));
}

/** A classic discovery's example (VectorExample): a point id or a dense vector. */
function exampleJson(e: VectorExample | undefined, at: string): unknown {
  const x = e?.example;
  if (x === undefined || x.case === undefined) return undefined;
  return x.case === 'id' ? idJson(x.value, `${at}.id`) : denseJson(x.value, `${at}.vector`);
}

/** The fields of DiscoverPoints that REST's discover body shares, all honoured. */
const DISCOVER_FIELDS = [
  'collection_name',
  'target',
  'context',
  'filter',
  'limit',
  'offset',
  'with_payload',
  'params',
  'using',
  'with_vectors',
  'read_consistency',
  'timeout',
];

/** A DiscoverPoints message as REST's discover body. */
function discoverBody(m: DiscoverPoints, at: string): Fields {
  onlyFields(DiscoverPointsSchema, m, DISCOVER_FIELDS, at);
  readDefault(m.readConsistency, at);
  const t = m.target?.target;
  return {
    target: t?.case === 'single' ? exampleJson(t.value, `${at}target.single`) : undefined,
    context: m.context.map((p, i) => ({
      positive: exampleJson(p.positive, `${at}context[${i}].positive`),
      negative: exampleJson(p.negative, `${at}context[${i}].negative`),
    })),
    using: m.using,
    filter: m.filter ? filterJson(m.filter, `${at}filter`) : undefined,
    params: paramsJson(m.params, at),
    with_payload: withPayloadJson(m.withPayload),
    with_vector: withVectorsJson(m.withVectors),
    limit: intOf(m.limit, `${at}limit`),
    offset: intOf(m.offset, `${at}offset`),
  };
}

/** A PrefetchQuery as REST spells it, its own prefetches too. */
function prefetchJson(p: PrefetchQuery, at: string): Fields {
  onlyFields(PrefetchQuerySchema, p, PREFETCH_FIELDS, at);
  return {
    prefetch: p.prefetch.map((q, i) => prefetchJson(q, `${at}prefetch[${i}].`)),
    query: queryJson(p.query, at),
    using: p.using,
    filter: p.filter ? filterJson(p.filter) : undefined,
    params: paramsJson(p.params, at),
    score_threshold: p.scoreThreshold,
    limit: intOf(p.limit, `${at}limit`),
  };
}

/** The fields of a QueryPoints (or QueryPointGroups) message that REST's query body shares, as REST spells them. */
function queryBody(req: Pick<QueryPoints, 'prefetch' | 'query' | 'using' | 'filter' | 'params' | 'scoreThreshold' | 'withPayload' | 'withVectors'>): Fields {
  return {
    prefetch: req.prefetch.map((q, i) => prefetchJson(q, `prefetch[${i}].`)),
    query: queryJson(req.query, ''),
    using: req.using,
    filter: req.filter ? filterJson(req.filter) : undefined,
    params: paramsJson(req.params, ''),
    score_threshold: req.scoreThreshold,
    with_payload: withPayloadJson(req.withPayload),
    with_vector: withVectorsJson(req.withVectors),
  };
}

/** A group's value as Qdrant's GroupId: a string, or an integer (unsigned when not negative). */
function groupIdMessage(id: string | number): GroupId {
  if (typeof id === 'string') return { kind: { case: 'stringValue', value: id } } as GroupId;
  return { kind: id >= 0 ? { case: 'unsignedValue', value: BigInt(id) } : { case: 'integerValue', value: BigInt(id) } } as GroupId;
}

function groupsResult(a: GroupsAnswer, vectorName: string): { groups: Array<{ id: GroupId; hits: Array<ReturnType<typeof scoredPoint>> }> } {
  return { groups: a.groups.map((g) => ({ id: groupIdMessage(g.id), hits: g.hits.map((h) => scoredPoint(h, a.withPayload, vectorName)) })) };
}

/** The fields of RecommendPoints (and RecommendPointGroups) that REST's recommend body shares, all honoured. */
const RECOMMEND_FIELDS = [
  'collection_name',
  'positive',
  'negative',
  'positive_vectors',
  'negative_vectors',
  'strategy',
  'filter',
  'limit',
  'offset',
  'with_payload',
  'params',
  'score_threshold',
  'using',
  'with_vectors',
  'read_consistency',
  'timeout',
];

type RecommendMessage = Pick<
  RecommendPoints,
  | 'positive'
  | 'negative'
  | 'positiveVectors'
  | 'negativeVectors'
  | 'strategy'
  | 'filter'
  | 'withPayload'
  | 'params'
  | 'scoreThreshold'
  | 'using'
  | 'withVectors'
>;

/** A recommendation message as REST's recommend body: ids, then vectors, as examples. */
function recommendBody(req: RecommendMessage, at: string): Fields {
  const examples = (ids: RecommendMessage['positive'], vectors: RecommendMessage['positiveVectors'], key: string) => [
    ...ids.map((id, i) => idJson(id, `${at}${key}[${i}]`)),
    ...vectors.map((v, i) => denseJson(v, `${at}${key}_vectors[${i}]`)),
  ];
  return {
    positive: examples(req.positive, req.positiveVectors, 'positive'),
    negative: examples(req.negative, req.negativeVectors, 'negative'),
    strategy: req.strategy === undefined ? undefined : STRATEGIES[req.strategy],
    using: req.using,
    filter: req.filter ? filterJson(req.filter, `${at}filter`) : undefined,
    params: paramsJson(req.params, at),
    score_threshold: req.scoreThreshold,
    with_payload: withPayloadJson(req.withPayload),
    with_vector: withVectorsJson(req.withVectors),
  };
}

/** A member of a batch: the batch's collection (or none named) and no deadline of its own. */
function batchMember(m: { collectionName: string; timeout?: bigint | undefined }, collection: string, at: string): void {
  if (m.collectionName !== '' && m.collectionName !== collection)
    throw invalidArgument(`${at}collection_name`, `must be empty or ${quoted(collection)} (one collection per batch), got ${quoted(m.collectionName)}`);
  if (m.timeout !== undefined) throw invalidArgument(`${at}timeout`, "give the batch's timeout, not each search's");
}

export function bindPointReads(r: QdrantRouter, svc: DescService, ctx: GrpcContext): void {
  /** A grouped search: its answer limit checked as for limit × group_size points, then run. */
  const grouped = async <P extends SearchPlan>(
    c: Collection,
    g: GroupsPlan<P>,
    run: (c: Collection, plan: P, ctl: ReturnType<typeof control>) => Promise<SearchAnswer>,
    h: HandlerContext,
    timeout: bigint | undefined,
  ) => {
    checkSearchAnswers([{ ...g.search, limit: g.limit * g.groupSize }], c.dim, ctx.options.answerLimit);
    return groupsResult(await groupPoints(c, g, run, control(h, timeout)), c.vectorName);
  };

  /** A batch RPC: each member planned under its path, the answers' size checked for all, run together; one BatchResult each. */
  const batch = async <M extends { collectionName: string; timeout?: bigint }, P extends SearchPlan>(
    req: { collectionName: string; readConsistency?: ReadConsistency; timeout?: bigint },
    members: readonly M[],
    field: string,
    plan: (m: M, c: Collection, at: string) => P,
    run: (c: Collection, plan: P, ctl: ReturnType<typeof control>) => Promise<SearchAnswer>,
    h: HandlerContext,
  ) => {
    const t0 = performance.now();
    const c = collectionOf(ctx, req.collectionName);
    readDefault(req.readConsistency);
    checkBatchSize(members.length, ctx.options.maxBatch, field);
    const plans = members.map((m, i) => {
      const at = `${field}[${i}].`;
      batchMember(m, req.collectionName, at);
      return plan(m, c, at);
    });
    checkSearchAnswers(plans, c.dim, ctx.options.answerLimit);
    const answers = await runTogether(c, plans, run, control(h, req.timeout));
    return { result: answers.map((a) => ({ result: scored(a, c.vectorName) })), time: secondsSince(t0) };
  };

  const search = async (s: SearchPoints, c: Collection, h: HandlerContext) => {
    const plan = parseSearch(searchBody(s, '', spaceOf(c)), spaceOf(c));
    checkSearchAnswers([plan], c.dim, ctx.options.answerLimit);
    return searchPoints(c, plan, control(h, s.timeout));
  };

  r.unary(svc, 'Search', SearchPointsSchema, SearchResponseSchema, async (req, h) => {
    const t0 = performance.now();
    const c = collectionOf(ctx, req.collectionName);
    return { result: scored(await search(req, c, h), c.vectorName), time: secondsSince(t0) };
  });

  r.unary(svc, 'SearchBatch', SearchBatchPointsSchema, SearchBatchResponseSchema, (req, h) =>
    batch(req, req.searchPoints, 'search_points', (s, c, at) => parseSearch(searchBody(s, at, spaceOf(c)), spaceOf(c), at), searchPoints, h),
  );

  r.unary(svc, 'Query', QueryPointsSchema, QueryResponseSchema, async (req, h) => {
    const t0 = performance.now();
    onlyFields(QueryPointsSchema, req, [...QUERY_FIELDS, 'limit', 'offset']);
    const c = collectionOf(ctx, req.collectionName);
    readDefault(req.readConsistency);
    const plan = parseQuery({ ...queryBody(req), limit: intOf(req.limit, 'limit'), offset: intOf(req.offset, 'offset') }, spaceOf(c));
    checkSearchAnswers([plan], c.dim, ctx.options.answerLimit);
    return { result: scored(await queryPoints(c, plan, control(h, req.timeout)), c.vectorName), time: secondsSince(t0) };
  });

  r.unary(svc, 'QueryBatch', QueryBatchPointsSchema, QueryBatchResponseSchema, (req, h) =>
    batch(
      req,
      req.queryPoints,
      'query_points',
      (q, c, at) => {
        onlyFields(QueryPointsSchema, q, [...QUERY_FIELDS, 'limit', 'offset'], at);
        readDefault(q.readConsistency, at);
        return parseQuery({ ...queryBody(q), limit: intOf(q.limit, `${at}limit`), offset: intOf(q.offset, `${at}offset`) }, spaceOf(c), at);
      },
      queryPoints,
      h,
    ),
  );

  /** A recommendation message as a plan, with its limit and offset. */
  const recommendPlan = (m: RecommendPoints, c: Collection, at: string) => {
    onlyFields(RecommendPointsSchema, m, RECOMMEND_FIELDS, at);
    readDefault(m.readConsistency, at);
    return parseRecommend({ ...recommendBody(m, at), limit: intOf(m.limit, `${at}limit`), offset: intOf(m.offset, `${at}offset`) }, spaceOf(c), at);
  };

  r.unary(svc, 'Recommend', RecommendPointsSchema, RecommendResponseSchema, async (req, h) => {
    const t0 = performance.now();
    const c = collectionOf(ctx, req.collectionName);
    const plan = recommendPlan(req, c, '');
    checkSearchAnswers([plan], c.dim, ctx.options.answerLimit);
    return { result: scored(await queryPoints(c, plan, control(h, req.timeout)), c.vectorName), time: secondsSince(t0) };
  });

  r.unary(svc, 'RecommendBatch', RecommendBatchPointsSchema, RecommendBatchResponseSchema, (req, h) =>
    batch(req, req.recommendPoints, 'recommend_points', recommendPlan, queryPoints, h),
  );

  r.unary(svc, 'RecommendGroups', RecommendPointGroupsSchema, RecommendGroupsResponseSchema, async (req, h) => {
    const t0 = performance.now();
    onlyFields(RecommendPointGroupsSchema, req, [...RECOMMEND_FIELDS.filter((f) => f !== 'offset'), 'group_by', 'group_size']);
    readDefault(req.readConsistency);
    const c = collectionOf(ctx, req.collectionName);
    const g = parseRecommendGroups({ ...recommendBody(req, ''), limit: req.limit, group_by: req.groupBy, group_size: req.groupSize }, spaceOf(c));
    return { result: await grouped(c, g, queryPoints, h, req.timeout), time: secondsSince(t0) };
  });

  r.unary(svc, 'Discover', DiscoverPointsSchema, DiscoverResponseSchema, async (req, h) => {
    const t0 = performance.now();
    const c = collectionOf(ctx, req.collectionName);
    const plan = parseDiscover(discoverBody(req, ''), spaceOf(c));
    checkSearchAnswers([plan], c.dim, ctx.options.answerLimit);
    return { result: scored(await queryPoints(c, plan, control(h, req.timeout)), c.vectorName), time: secondsSince(t0) };
  });

  r.unary(svc, 'DiscoverBatch', DiscoverBatchPointsSchema, DiscoverBatchResponseSchema, (req, h) =>
    batch(req, req.discoverPoints, 'discover_points', (m, c, at) => parseDiscover(discoverBody(m, at), spaceOf(c), at), queryPoints, h),
  );

  r.unary(svc, 'SearchGroups', SearchPointGroupsSchema, SearchGroupsResponseSchema, async (req, h) => {
    const t0 = performance.now();
    onlyFields(SearchPointGroupsSchema, req, [
      'collection_name',
      'vector',
      'filter',
      'limit',
      'with_payload',
      'params',
      'score_threshold',
      'vector_name',
      'with_vectors',
      'group_by',
      'group_size',
      'read_consistency',
      'timeout',
    ]);
    readDefault(req.readConsistency);
    const c = collectionOf(ctx, req.collectionName);
    const g = parseSearchGroups(
      {
        vector: searchVectorJson(req.vector, req.vectorName, spaceOf(c), 'vector_name', req.sparseIndices),
        filter: req.filter ? filterJson(req.filter) : undefined,
        limit: req.limit,
        with_payload: withPayloadJson(req.withPayload),
        with_vector: withVectorsJson(req.withVectors),
        params: paramsJson(req.params, ''),
        score_threshold: req.scoreThreshold,
        group_by: req.groupBy,
        group_size: req.groupSize,
      },
      spaceOf(c),
    );
    return { result: await grouped(c, g, searchPoints, h, req.timeout), time: secondsSince(t0) };
  });

  r.unary(svc, 'QueryGroups', QueryPointGroupsSchema, QueryGroupsResponseSchema, async (req, h) => {
    const t0 = performance.now();
    onlyFields(QueryPointGroupsSchema, req, [...QUERY_FIELDS, 'limit', 'group_size', 'group_by']);
    readDefault(req.readConsistency);
    const c = collectionOf(ctx, req.collectionName);
    const g = parseQueryGroups(
      { ...queryBody(req), limit: intOf(req.limit, 'limit'), group_size: intOf(req.groupSize, 'group_size'), group_by: req.groupBy },
      spaceOf(c),
    );
    return { result: await grouped(c, g, queryPoints, h, req.timeout), time: secondsSince(t0) };
  });

  r.unary(svc, 'Get', GetPointsSchema, GetResponseSchema, async (req) => {
    const t0 = performance.now();
    onlyFields(GetPointsSchema, req, ['collection_name', 'ids', 'with_payload', 'with_vectors', 'read_consistency', 'timeout']);
    readDefault(req.readConsistency);
    const c = collectionOf(ctx, req.collectionName);
    const plan = parseRetrieve(
      {
        ids: req.ids.map((id, i) => idJson(id, `ids[${i}]`)),
        with_payload: withPayloadJson(req.withPayload),
        with_vector: withVectorsJson(req.withVectors),
      },
      spaceOf(c),
    );
    checkAnswerSize([{ points: plan.ids.length, withVector: plan.withVector }], c.dim, ctx.options.answerLimit, `${plan.ids.length} ids`);
    return { result: (await retrievePoints(c, plan)).map((p) => retrievedPoint(p, c.vectorName)), time: secondsSince(t0) };
  });

  /** A search matrix request as REST's body, and its matrix. */
  const matrix = (req: SearchMatrixPoints) => {
    onlyFields(SearchMatrixPointsSchema, req, ['collection_name', 'filter', 'sample', 'limit', 'using', 'timeout', 'read_consistency']);
    readDefault(req.readConsistency);
    const c = collectionOf(ctx, req.collectionName);
    const body = {
      filter: req.filter ? filterJson(req.filter) : undefined,
      sample: intOf(req.sample, 'sample'),
      limit: intOf(req.limit, 'limit'),
      using: req.using,
    };
    return searchMatrix(c, parseSearchMatrix(body, spaceOf(c)));
  };

  r.unary(svc, 'SearchMatrixPairs', SearchMatrixPointsSchema, SearchMatrixPairsResponseSchema, async (req) => {
    const t0 = performance.now();
    const m = await matrix(req);
    const pairs = m.rows.flatMap((row, i) => row.cols.map((j, k) => ({ a: pointIdMessage(m.ids[i]!), b: pointIdMessage(m.ids[j]!), score: row.scores[k]! })));
    return { result: { pairs }, time: secondsSince(t0) };
  });

  r.unary(svc, 'SearchMatrixOffsets', SearchMatrixPointsSchema, SearchMatrixOffsetsResponseSchema, async (req) => {
    const t0 = performance.now();
    const m = await matrix(req);
    return {
      result: {
        offsetsRow: m.rows.flatMap((row, i) => row.cols.map(() => BigInt(i))),
        offsetsCol: m.rows.flatMap((row) => row.cols.map((j) => BigInt(j))),
        scores: m.rows.flatMap((row) => row.scores),
        ids: m.ids.map(pointIdMessage),
      },
      time: secondsSince(t0),
    };
  });

  r.unary(svc, 'Facet', FacetCountsSchema, FacetResponseSchema, async (req) => {
    const t0 = performance.now();
    onlyFields(FacetCountsSchema, req, ['collection_name', 'key', 'filter', 'limit', 'exact', 'timeout', 'read_consistency']);
    readDefault(req.readConsistency);
    const c = collectionOf(ctx, req.collectionName);
    const f = parseFacet({ key: req.key, limit: intOf(req.limit, 'limit'), exact: req.exact, filter: req.filter ? filterJson(req.filter) : undefined });
    await c.settle(f.filter);
    const hits = c.facet(f.key, f.filter, f.limit).map((h) => ({
      value:
        typeof h.value === 'string'
          ? { variant: { case: 'stringValue' as const, value: h.value } }
          : typeof h.value === 'boolean'
            ? { variant: { case: 'boolValue' as const, value: h.value } }
            : { variant: { case: 'integerValue' as const, value: BigInt(h.value) } },
      count: BigInt(h.count),
    }));
    return { hits, time: secondsSince(t0) };
  });

  r.unary(svc, 'Scroll', ScrollPointsSchema, ScrollResponseSchema, async (req) => {
    const t0 = performance.now();
    onlyFields(ScrollPointsSchema, req, [
      'collection_name',
      'filter',
      'offset',
      'limit',
      'with_payload',
      'with_vectors',
      'read_consistency',
      'timeout',
      'order_by',
    ]);
    readDefault(req.readConsistency);
    const c = collectionOf(ctx, req.collectionName);
    const plan = parseScroll(
      {
        filter: req.filter ? filterJson(req.filter) : undefined,
        offset: req.offset ? idJson(req.offset, 'offset') : undefined,
        limit: req.limit,
        with_payload: withPayloadJson(req.withPayload),
        with_vector: withVectorsJson(req.withVectors),
        order_by: orderByJson(req.orderBy, 'order_by'),
      },
      spaceOf(c),
    );
    checkAnswerSize([{ points: plan.limit, withVector: plan.withVector }], c.dim, ctx.options.answerLimit, `scroll limit ${plan.limit}`);
    const page = await scrollPoints(c, plan);
    return {
      result: page.points.map((p) => retrievedPoint(p, c.vectorName)),
      ...(page.next !== null ? { nextPageOffset: pointIdMessage(page.next) } : {}),
      time: secondsSince(t0),
    };
  });

  r.unary(svc, 'Count', CountPointsSchema, CountResponseSchema, async (req) => {
    const t0 = performance.now();
    onlyFields(CountPointsSchema, req, ['collection_name', 'filter', 'exact', 'read_consistency', 'timeout']);
    readDefault(req.readConsistency);
    const c = collectionOf(ctx, req.collectionName);
    const { filter } = parseCount({ filter: req.filter ? filterJson(req.filter) : undefined, exact: req.exact });
    await c.settle(filter);
    return { result: { count: BigInt(c.countMatching(filter)) }, time: secondsSince(t0) };
  });
}
