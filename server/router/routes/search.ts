// Search routes over the shards (search, batch, query, query batch): each shard is asked for the
// first limit + offset hits, and the router merges them by score and cuts the window (the server's
// own window rules). A query naming a point gets the point's stored vector (examples.ts).
import type { FastifyInstance } from 'fastify';
import { arrayAt, bodyObject, type Fields, objectAt } from '../../api/fields.js';
import { window } from '../../api/requests.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer, partialFields } from '../answer.js';
import { type Hit, mergeHits } from '../merge.js';
import type { RouterContext } from '../route-context.js';
import { resultOf } from '../shard-calls.js';
import { COLLECTION_ROUTE, collectionPath } from '../collection-paths.js';
import { nearestOnly, noSideVectors, noStats, sideNames } from '../refusals.js';
import { queryById, withoutNamed } from '../examples.js';
import { MAX_LIMIT } from '../../options.js';

/** How search answers hold their hits, and how query answers do (under `points`). */
const searchHits = (res: unknown): Hit[] => res as Hit[];
const queryHits = (res: unknown): Hit[] => (res as { points: Hit[] }).points;
const asIs = (hits: Hit[]): unknown => hits;
const underPoints = (points: Hit[]): unknown => ({ points });
/** The queries the router serves: nearest ones, by vector or point id. */
const nearestQuery = (b: Fields, at = ''): void => nearestOnly(b, at, true);

export function registerSearchRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const { calls, scoreOrder } = ctx;

  /**
   * One search-like request over every shard: each is asked for limit + offset from 0 (the limit
   * required, or defaulted, as the server's route has it), and `answerOf` wraps the merged window as
   * the endpoint answers it. `check` refuses what the router cannot merge: every route refuses
   * `with_stats`, since the shards' stats do not add up to one search's. A query naming a point gets
   * its stored vector in its place (queryById), and each shard one more hit, the point left out.
   */
  const overShards = (
    path: string,
    defaultLimit: number | null,
    hitsOf: (result: unknown) => Hit[],
    answerOf: (hits: Hit[]) => unknown,
    check: (b: Fields) => void = () => {},
  ): void => {
    app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}${path}`, async (req, r) => {
      const b = bodyObject(req.body);
      const name = req.params.collection_name;
      noSideVectors(b, sideNames(await scoreOrder.space(name)));
      check(b);
      noStats(b);
      const { limit, offset } = window(b, '', defaultLimit);
      const { body, named } = await queryById(ctx, name, b);
      const k = Math.min(MAX_LIMIT, limit + offset + named.size);
      const { answers, missing } = await calls.fanOut('POST', collectionPath(name, path), { ...body, limit: k, offset: 0 });
      const hits = mergeHits(
        answers.map((a) => withoutNamed(hitsOf(resultOf<unknown>(a)), named)),
        await scoreOrder.higherIsBetter(name),
        offset,
        limit,
      );
      return answer(req, r, answerOf(hits), partialFields(missing));
    });
  };
  // Qdrant's search requires limit; its query defaults to 10.
  overShards('/points/search', null, searchHits, asIs);
  overShards('/points/query', 10, queryHits, underPoints, nearestQuery);

  /**
   * A batch route ({searches: […]}) over every shard: each member asked for its limit + offset from
   * 0 (one more for a query naming a point, left out), and each member's hits merged and windowed
   * (`hitsOf` and `shape` read and wrap a member's
   * answer, `check` refuses what the router cannot merge, naming the member's field).
   */
  const batchOverShards = (
    path: string,
    defaultLimit: number | null,
    hitsOf: (member: unknown) => Hit[],
    shape: (hits: Hit[]) => unknown,
    check: (s: Fields, at: string) => void = () => {},
  ): void => {
    app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}${path}`, async (req, r) => {
      const b = bodyObject(req.body);
      const searches = arrayAt(b['searches'], 'searches', 10_000).map((s, i) => objectAt(s, `searches[${i}]`));
      const name = req.params.collection_name;
      const side = sideNames(await scoreOrder.space(name));
      searches.forEach((s, i) => {
        noSideVectors(s, side, `searches[${i}].`);
        check(s, `searches[${i}].`);
        noStats(s, `searches[${i}].`);
      });
      const windows = searches.map((s, i) => window(s, `searches[${i}].`, defaultLimit));
      // Each member naming a point gets its stored vector (one fetch per member's point).
      const members = await Promise.all(searches.map((s) => queryById(ctx, name, s)));
      const { answers, missing } = await calls.fanOut('POST', collectionPath(name, path), {
        ...b,
        searches: members.map((m, i) => ({
          ...m.body,
          limit: Math.min(MAX_LIMIT, windows[i]!.limit + windows[i]!.offset + m.named.size),
          offset: 0,
        })),
      });
      const higher = await scoreOrder.higherIsBetter(name);
      const lists = answers.map((a) => resultOf<unknown[]>(a));
      const result = windows.map((w, i) =>
        shape(
          mergeHits(
            lists.map((l) => (l[i] === undefined ? [] : withoutNamed(hitsOf(l[i]), members[i]!.named))),
            higher,
            w.offset,
            w.limit,
          ),
        ),
      );
      return answer(req, r, result, partialFields(missing));
    });
  };
  batchOverShards('/points/search/batch', null, searchHits, asIs);
  // Each query of a batch as the query route takes it.
  batchOverShards('/points/query/batch', 10, queryHits, underPoints, nearestQuery);
}
