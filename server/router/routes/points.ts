// Point reads over the shards: a count and a facet's counts added up, points by ids and scroll pages
// merged from every shard, and one point fetched from the shard its id hashes to.
import type { FastifyInstance } from 'fastify';
import { StrataError } from '../../../common/errors.js';
import { shardOf } from '../../../engine/public.js';
import { arrayAt, bodyObject, optionalInt, pointIdAt } from '../../api/fields.js';
import { MAX_LIMIT } from '../../options.js';
import { parseFacet } from '../../api/requests.js';
import { facetOverShards } from '../facet.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer, partialFields } from '../answer.js';
import { mergeScrollPages, pointsInRequestOrder, type ScrollPage } from '../merge.js';
import type { RouterContext } from '../route-context.js';
import { resultOf } from '../shard-calls.js';
import { COLLECTION_ROUTE, collectionPath } from '../collection-paths.js';

export function registerPointRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const { calls } = ctx;

  app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}/points/count`, async (req, r) => {
    const { answers, missing } = await calls.fanOut('POST', collectionPath(req.params.collection_name, '/points/count'), bodyObject(req.body));
    return answer(req, r, { count: answers.reduce((s, a) => s + resultOf<{ count: number }>(a).count, 0) }, partialFields(missing));
  });

  app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}/points`, async (req, r) => {
    const b = bodyObject(req.body);
    const ids = arrayAt(b['ids'], 'ids', MAX_LIMIT).map((v, i) => pointIdAt(v, `ids[${i}]`));
    const { answers, missing } = await calls.fanOut('POST', collectionPath(req.params.collection_name, '/points'), b);
    const found = pointsInRequestOrder(
      ids,
      answers.map((a) => resultOf<Array<{ id: number }>>(a)),
    );
    return answer(req, r, found, partialFields(missing));
  });

  app.get<{ Params: CollectionParams & { id: string } }>(`${COLLECTION_ROUTE}/points/:id`, async (req, r) => {
    const id = pointIdAt(req.params.id, 'id');
    if (id === null) throw new StrataError('STRATA_POINT_NOT_FOUND', `no point with id ${req.params.id.slice(0, 64)}`, {});
    const shard = shardOf(id, ctx.shards.count);
    return answer(req, r, resultOf(await calls.one(shard, 'GET', collectionPath(req.params.collection_name, `/points/${id}`))));
  });

  app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}/points/scroll`, async (req, r) => {
    const b = bodyObject(req.body);
    const limit = optionalInt(b['limit'], 'limit', 1, MAX_LIMIT) ?? 10;
    const { answers, missing } = await calls.fanOut('POST', collectionPath(req.params.collection_name, '/points/scroll'), { ...b, limit });
    const page = mergeScrollPages(
      answers.map((a) => resultOf<ScrollPage>(a)),
      limit,
    );
    return answer(req, r, page, partialFields(missing));
  });

  // Exact: each shard's values, and where one has more than it lists, those that could still reach the top (facet.ts).
  app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}/facet`, async (req, r) => {
    const b = bodyObject(req.body);
    const { limit } = parseFacet(b);
    const { hits, missing } = await facetOverShards(ctx, req.params.collection_name, b, limit);
    return answer(req, r, { hits }, partialFields(missing));
  });
}
