// Search routes over the shards (search, batch, query, query batch): each shard is asked for the
// first limit + offset hits, and the router merges them by the order of the vector searched by and
// cuts the window (the server's own window rules). A query naming a point gets the point's stored
// vector (examples.ts); the query kinds that take more than one such round (stages, examples,
// order_by) are run by query-kinds.ts.
import type { FastifyInstance } from 'fastify';
import { arrayAt, bodyObject, type Fields, objectAt } from '../../api/fields.js';
import { window } from '../../api/requests.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer, partialFields } from '../answer.js';
import { type Hit, mergeHits } from '../merge.js';
import type { RouterContext } from '../route-context.js';
import { resultOf } from '../shard-calls.js';
import { COLLECTION_ROUTE, collectionPath } from '../collection-paths.js';
import { nearestOnly, noStats } from '../refusals.js';
import { type RoutedAnswer, routedQuery } from '../query-kinds.js';
import { searchedBy } from '../score-order.js';
import { parseQuery } from '../../api/requests.js';
import { queryById, withoutNamed } from '../examples.js';
import { MAX_LIMIT } from '../../options.js';

/** How search answers hold their hits, and how query answers do (under `points`). */
const searchHits = (res: unknown): Hit[] => res as Hit[];
const queryHits = (res: unknown): Hit[] => (res as { points: Hit[] }).points;
const asIs = (hits: Hit[]): unknown => hits;
const underPoints = (points: Hit[]): unknown => ({ points });
/** The queries left to the one-round path once query-kinds.ts took its kinds: nearest ones, by vector or point id. */
const nearestQuery = (b: Fields, at = ''): void => nearestOnly(b, at);

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
    kinds = false,
  ): void => {
    app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}${path}`, async (req, r) => {
      const b = bodyObject(req.body);
      const name = req.params.collection_name;
      if (kinds) {
        noStats(b);
        const routed = routedQuery(ctx, name, b, parseQuery(b, await scoreOrder.space(name)));
        if (routed !== null) {
          const { hits, missing } = await routed();
          return answer(req, r, answerOf(hits), partialFields(missing));
        }
      }
      check(b);
      noStats(b);
      const { limit, offset } = window(b, '', defaultLimit);
      const { body, named } = await queryById(ctx, name, b);
      const k = Math.min(MAX_LIMIT, limit + offset + named.size);
      const { answers, missing } = await calls.fanOut('POST', collectionPath(name, path), { ...body, limit: k, offset: 0 });
      const hits = mergeHits(
        answers.map((a) => withoutNamed(hitsOf(resultOf<unknown>(a)), named)),
        await scoreOrder.higherIsBetter(name, searchedBy(b)),
        offset,
        limit,
      );
      return answer(req, r, answerOf(hits), partialFields(missing));
    });
  };
  // Qdrant's search requires limit; its query defaults to 10.
  overShards('/points/search', null, searchHits, asIs);
  overShards('/points/query', 10, queryHits, underPoints, nearestQuery, true);

  /**
   * A batch route ({searches: […]}) over every shard: each member asked for its limit + offset from
   * 0 (one more for a query naming a point, left out), and each member's hits merged and windowed
   * (`hitsOf` and `shape` read and wrap a member's answer, `check` refuses what the router cannot
   * merge, naming the member's field). With `kinds`, a member of a kind the router answers on its
   * own (query-kinds.ts: a fusion, order_by, recommend) is answered as the query route answers it.
   */
  const batchOverShards = (
    path: string,
    defaultLimit: number | null,
    hitsOf: (member: unknown) => Hit[],
    shape: (hits: Hit[]) => unknown,
    check: (s: Fields, at: string) => void = () => {},
    kinds = false,
  ): void => {
    app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}${path}`, async (req, r) => {
      const b = bodyObject(req.body);
      const searches = arrayAt(b['searches'], 'searches', 10_000).map((s, i) => objectAt(s, `searches[${i}]`));
      const name = req.params.collection_name;
      const space = kinds ? await scoreOrder.space(name) : null;
      searches.forEach((s, i) => noStats(s, `searches[${i}].`));
      // Each member the router answers by its kind (query-kinds.ts) is asked on its own; the others in one batch.
      const routed: Array<(() => Promise<RoutedAnswer>) | null> = searches.map((s, i) =>
        space === null ? null : routedQuery(ctx, name, s, parseQuery(s, space, `searches[${i}].`), `searches[${i}].`),
      );
      searches.forEach((s, i) => {
        if (routed[i] === null) check(s, `searches[${i}].`);
      });
      const plain = searches.flatMap((s, i) => (routed[i] !== null ? [] : [{ s, i, w: window(s, `searches[${i}].`, defaultLimit) }]));
      const plainAnswers = async () => {
        // Each member naming a point gets its stored vector (one fetch per member's point).
        const members = await Promise.all(plain.map(({ s }) => queryById(ctx, name, s)));
        if (plain.length === 0) return { members, answers: [], missing: [] };
        const asked = members.map((m, j) => ({ ...m.body, limit: Math.min(MAX_LIMIT, plain[j]!.w.limit + plain[j]!.w.offset + m.named.size), offset: 0 }));
        return { members, ...(await calls.fanOut('POST', collectionPath(name, path), { ...b, searches: asked })) };
      };
      const [routedHits, { members, answers, missing }] = await Promise.all([Promise.all(routed.map((run) => run?.() ?? null)), plainAnswers()]);
      const lists = answers.map((a) => resultOf<unknown[]>(a));
      const result: unknown[] = routedHits.map((f) => (f === null ? null : shape(f.hits)));
      const lost = new Set([...missing, ...routedHits.flatMap((f) => f?.missing ?? [])]);
      for (const [j, { s, i, w }] of plain.entries())
        result[i] = shape(
          mergeHits(
            lists.map((l) => (l[j] === undefined ? [] : withoutNamed(hitsOf(l[j]), members[j]!.named))),
            await scoreOrder.higherIsBetter(name, searchedBy(s)),
            w.offset,
            w.limit,
          ),
        );
      return answer(req, r, result, partialFields([...lost].sort((x, y) => x - y)));
    });
  };
  batchOverShards('/points/search/batch', null, searchHits, asIs);
  // Each query of a batch as the query route takes it.
  batchOverShards('/points/query/batch', 10, queryHits, underPoints, nearestQuery, true);
}
