// Point routes: search, search/batch, query, their groups, retrieve (by ids and by one id), scroll,
// count, with Qdrant's filter wherever Qdrant takes one. Each handler is the same three steps: find the
// collection, parse the body into a plan, run the plan and wrap the answer in Qdrant's envelope.
// The POST routes carry no fastify schema: bodies and `?timeout=` are checked by hand
// (server/api/requests.ts, call-control.ts), and an extra ajv pass over path and query costs more
// on these hot routes than the checks themselves.
import { spaceOf, type VectorSpace, withNamedAt } from '../../api/vector-space.js';
import type { FastifyInstance } from 'fastify';
import { answerBytes, checkAnswerSize, checkSearchAnswers } from '../../api/answer-size.js';
import { bodyObject, type Fields, pointKeyAt, wantsPayload } from '../../api/fields.js';
import {
  type CallControl,
  getPointOrThrow,
  pointView,
  retrievePoints,
  runTogether,
  type SearchAnswer,
  scrollPoints,
  searchPoints,
  shownOf,
} from '../../api/points.js';
import { queryPoints } from '../../api/query-stages.js';
import { matrixOffsets, matrixPairs, parseSearchMatrix, searchMatrix } from '../../api/search-matrix.js';
import {
  parseCount,
  parseDiscover,
  parseFacet,
  parseQuery,
  parseRecommend,
  parseRetrieve,
  parseScroll,
  parseSearch,
  parseBatch,
  type SearchPlan,
} from '../../api/requests.js';
import type { Collection } from '../../../engine/public.js';
import { type GroupsPlan, groupPoints, parseQueryGroups, parseRecommendGroups, parseSearchGroups } from '../../api/groups.js';
import { callControl } from '../call-control.js';
import { codecFor, send } from '../codec.js';
import type { CallQuery, CollectionParams, RestContext } from '../context.js';
import { ok } from '../envelope.js';
import { pointParams } from '../schemas.js';
import { record, scoredPoint } from '../shapes.js';

interface PostRoute {
  Params: CollectionParams;
  Querystring: CallQuery;
  Body: unknown;
}

/** The envelope's `strata` field, when the request asked for it (with_stats). */
function statsField(stats: SearchAnswer['stats']): { strata?: NonNullable<SearchAnswer['stats']> } {
  return stats === null ? {} : { strata: stats };
}

/** The counted size of search answers (it decides whether the answer is streamed). */
function hitsBytes(answers: readonly SearchAnswer[], dim: number): number {
  let bytes = 0;
  for (const a of answers) bytes += answerBytes(a.hits.length, dim, a.hits[0]?.vector != null);
  return bytes;
}

export function registerPointRoutes(app: FastifyInstance, ctx: RestContext): void {
  const base = '/collections/:collection_name/points';
  const answerLimit = ctx.options.answerLimit;

  /**
   * A route answering one search: the scored points (as search answers them, or wrapped by `shape`,
   * as the query API's `{points}`), and Strata's stats when asked.
   */
  const hitsRoute = <P extends SearchPlan>(
    url: string,
    parse: (body: Fields, space: VectorSpace) => P,
    run: (c: Collection, plan: P, ctl: CallControl) => Promise<SearchAnswer>,
    shape: (points: unknown[]) => unknown = (points) => points,
  ): void => {
    app.post<PostRoute>(url, async (req, reply) => {
      const c = ctx.engine.collection(req.params.collection_name);
      const dim = c.dim;
      const plan = parse(bodyObject(req.body), spaceOf(c));
      checkSearchAnswers([plan], dim, answerLimit);
      const a = await run(c, plan, callControl(req));
      const codec = codecFor(req, hitsBytes([a], dim));
      return send(reply, codec, ok(reply, shape(a.hits.map((h) => scoredPoint(h, a.withPayload, codec, c.vectorName))), statsField(a.stats)));
    });
  };

  hitsRoute(`${base}/search`, parseSearch, searchPoints);
  // Qdrant's classic recommend route: the query API's recommendation, answered as search is.
  hitsRoute(`${base}/recommend`, parseRecommend, queryPoints);
  hitsRoute(`${base}/discover`, parseDiscover, queryPoints);

  /**
   * A batch route ({searches: [...]}): each member parsed, the answers' size checked for all, then run
   * together (one task for a search thread); `shape` wraps each answer's points (the query API's `{points}`).
   */
  const batchRoute = <P extends SearchPlan>(
    url: string,
    parse: (body: Fields, space: VectorSpace, at: string) => P,
    run: (c: Collection, plan: P, ctl: CallControl) => Promise<SearchAnswer>,
    shape: (points: unknown[]) => unknown = (points) => points,
  ): void => {
    app.post<PostRoute>(url, async (req, reply) => {
      const c = ctx.engine.collection(req.params.collection_name);
      const dim = c.dim;
      const plans = parseBatch(bodyObject(req.body), spaceOf(c), ctx.options.maxBatch, parse);
      checkSearchAnswers(plans, dim, answerLimit);
      const answers = await runTogether(c, plans, run, callControl(req));
      const codec = codecFor(req, hitsBytes(answers, dim));
      const result = answers.map((a) => shape(a.hits.map((h) => scoredPoint(h, a.withPayload, codec, c.vectorName))));
      return send(reply, codec, ok(reply, result, answers.some((a) => a.stats !== null) ? { strata: answers.map((a) => a.stats) } : {}));
    });
  };
  batchRoute(`${base}/search/batch`, parseSearch, searchPoints);
  batchRoute(`${base}/query/batch`, parseQuery, queryPoints, (points) => ({ points }));
  batchRoute(`${base}/recommend/batch`, parseRecommend, queryPoints);
  batchRoute(`${base}/discover/batch`, parseDiscover, queryPoints);

  hitsRoute(`${base}/query`, parseQuery, queryPoints, (points) => ({ points }));

  /** A grouped search route: `{groups: [{id, hits}]}`, and Strata's stats when asked. */
  const groupsRoute = <P extends SearchPlan>(
    url: string,
    parse: (body: Fields, space: VectorSpace) => GroupsPlan<P>,
    run: (c: Collection, plan: P, ctl: CallControl) => Promise<SearchAnswer>,
  ): void => {
    app.post<PostRoute>(url, async (req, reply) => {
      const c = ctx.engine.collection(req.params.collection_name);
      const dim = c.dim;
      const g = parse(bodyObject(req.body), spaceOf(c));
      checkSearchAnswers([{ ...g.search, limit: g.limit * g.groupSize }], dim, answerLimit);
      const a = await groupPoints(c, g, run, callControl(req));
      const codec = codecFor(req, answerBytes(g.limit * g.groupSize, dim, g.search.withVector));
      const groups = a.groups.map((grp) => ({ id: grp.id, hits: grp.hits.map((h) => scoredPoint(h, a.withPayload, codec, c.vectorName)) }));
      return send(reply, codec, ok(reply, { groups }, statsField(a.stats)));
    });
  };
  groupsRoute(`${base}/search/groups`, parseSearchGroups, searchPoints);
  groupsRoute(`${base}/query/groups`, parseQueryGroups, queryPoints);
  groupsRoute(`${base}/recommend/groups`, parseRecommendGroups, queryPoints);

  app.post<PostRoute>(base, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    const dim = c.dim;
    const plan = parseRetrieve(bodyObject(req.body), spaceOf(c));
    checkAnswerSize([{ points: plan.ids.length, withVector: plan.withVector }], dim, answerLimit, `${plan.ids.length} ids`);
    const points = await retrievePoints(c, plan);
    const codec = codecFor(req, answerBytes(points.length, dim, plan.withVector));
    return send(
      reply,
      codec,
      ok(
        reply,
        points.map((r) => record(r, wantsPayload(plan.withPayload), codec, c.vectorName)),
      ),
    );
  });

  app.get<{ Params: CollectionParams & { id: string } }>(`${base}/:id`, { schema: { params: pointParams } }, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    const pt = getPointOrThrow(c, pointKeyAt(req.params.id, 'id'), req.params.id);
    const codec = codecFor(req);
    // Qdrant's point: its payload and every vector it has.
    const view = pointView(c, { withPayload: true, withVector: true, withNamed: withNamedAt(true, spaceOf(c), true) });
    return send(reply, codec, ok(reply, record({ id: pt.key, ...shownOf(c, pt.id, view, pt.vector) }, true, codec, c.vectorName)));
  });

  app.post<PostRoute>(`${base}/scroll`, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    const dim = c.dim;
    const plan = parseScroll(bodyObject(req.body), spaceOf(c));
    checkAnswerSize([{ points: plan.limit, withVector: plan.withVector }], dim, answerLimit, `scroll limit ${plan.limit}`);
    const page = await scrollPoints(c, plan);
    const codec = codecFor(req, answerBytes(page.points.length, dim, plan.withVector));
    return send(
      reply,
      codec,
      ok(reply, { points: page.points.map((r) => record(r, wantsPayload(plan.withPayload), codec, c.vectorName)), next_page_offset: page.next }),
    );
  });

  app.post<PostRoute>(`${base}/count`, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    const { filter } = parseCount(bodyObject(req.body));
    await c.settle(filter);
    return send(reply, codecFor(req), ok(reply, { count: c.countMatching(filter) }));
  });

  // Qdrant's search matrix: a sample's nearest others among it, as pairs or as a sparse matrix.
  app.post<PostRoute>(`${base}/search/matrix/pairs`, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    const m = await searchMatrix(c, parseSearchMatrix(bodyObject(req.body), spaceOf(c)));
    return send(reply, codecFor(req), ok(reply, matrixPairs(m)));
  });
  app.post<PostRoute>(`${base}/search/matrix/offsets`, async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    const m = await searchMatrix(c, parseSearchMatrix(bodyObject(req.body), spaceOf(c)));
    return send(reply, codecFor(req), ok(reply, matrixOffsets(m)));
  });

  app.post<PostRoute>('/collections/:collection_name/facet', async (req, reply) => {
    const c = ctx.engine.collection(req.params.collection_name);
    const { key, limit, filter } = parseFacet(bodyObject(req.body));
    await c.settle(filter);
    return send(reply, codecFor(req), ok(reply, { hits: c.facet(key, filter, limit) }));
  });
}
