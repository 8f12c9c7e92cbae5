// Search routes over the shards (search, batch, query): each shard is asked for the first
// limit + offset hits, and the router merges them by score and cuts the window (the server's own
// window rules).
import type { FastifyInstance } from 'fastify';
import { invalidArgument } from '../../../common/errors.js';
import { arrayAt, bodyObject, type Fields, isAbsent, objectAt } from '../../api/fields.js';
import { window } from '../../api/requests.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer, partialFields } from '../answer.js';
import { type Hit, mergeHits } from '../merge.js';
import type { RouterContext } from '../route-context.js';
import { resultOf } from '../shard-calls.js';
import { COLLECTION_ROUTE, collectionPath } from '../collection-paths.js';

export function registerSearchRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const { calls, scoreOrder } = ctx;

  /**
   * One search-like request over every shard: each is asked for limit + offset from 0 (limit 10 by
   * default, as the server's), and `answerOf` wraps the merged window as the endpoint answers it.
   */
  const overShards = (path: string, hitsOf: (result: unknown) => Hit[], answerOf: (hits: Hit[]) => unknown, check: (b: Fields) => void = () => {}): void => {
    app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}${path}`, async (req, r) => {
      const b = bodyObject(req.body);
      check(b);
      const { limit, offset } = window(b, '', 10);
      const name = req.params.collection_name;
      const { answers, missing } = await calls.fanOut('POST', collectionPath(name, path), { ...b, limit: limit + offset, offset: 0 });
      const hits = mergeHits(
        answers.map((a) => hitsOf(resultOf<unknown>(a))),
        await scoreOrder.higherIsBetter(name),
        offset,
        limit,
      );
      return answer(req, r, answerOf(hits), partialFields(missing));
    });
  };
  overShards(
    '/points/search',
    (res) => res as Hit[],
    (hits) => hits,
  );
  // Query (nearest-vector queries, with their filter): the hits under `points`.
  overShards(
    '/points/query',
    (res) => (res as { points: Hit[] }).points,
    (points) => ({ points }),
    nearestOnly,
  );

  app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}/points/search/batch`, async (req, r) => {
    const b = bodyObject(req.body);
    const searches = arrayAt(b['searches'], 'searches', 10_000).map((s, i) => objectAt(s, `searches[${i}]`));
    const windows = searches.map((s, i) => window(s, `searches[${i}].`, 10));
    const name = req.params.collection_name;
    const { answers, missing } = await calls.fanOut('POST', collectionPath(name, '/points/search/batch'), {
      ...b,
      searches: searches.map((s, i) => ({ ...s, limit: windows[i]!.limit + windows[i]!.offset, offset: 0 })),
    });
    const higher = await scoreOrder.higherIsBetter(name);
    const lists = answers.map((a) => resultOf<Hit[][]>(a));
    const result = windows.map((w, i) =>
      mergeHits(
        lists.map((l) => l[i] ?? []),
        higher,
        w.offset,
        w.limit,
      ),
    );
    return answer(req, r, result, partialFields(missing));
  });
}

const ASK_SHARDS = 'through the router only nearest-vector queries (a vector, or {"nearest": vector}) are served: ask the shard servers';

/**
 * The queries whose per-shard answers merge by score into one server's answer. A point id lives on
 * one shard, fusion and MMR scores depend on the other candidates, and order_by answers are not
 * ordered by score: merged here they would be wrong, so they are refused, naming the field.
 */
function nearestOnly(b: Fields): void {
  if (!isAbsent(b['prefetch'])) throw invalidArgument('prefetch', ASK_SHARDS);
  const q = b['query'];
  if (isAbsent(q) || Array.isArray(q)) return;
  if (typeof q === 'object') {
    const keys = Object.keys(q);
    const nearest = (q as Fields)['nearest'];
    if (keys.length === 1 && keys[0] === 'nearest' && Array.isArray(nearest)) return;
    throw invalidArgument(`query.${keys.find((k) => k !== 'nearest') ?? 'nearest'}`, ASK_SHARDS);
  }
  throw invalidArgument('query', ASK_SHARDS);
}
