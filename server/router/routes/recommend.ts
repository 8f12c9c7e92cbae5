// The classic recommend and discover routes over the shards (one, a batch, and recommend's groups).
// The examples a body names by id are fetched from their shards and sent to every shard as vectors
// (examples.ts). Each shard is asked for limit + offset + as many hits as points were named, the
// router leaves the named points out (as the server does), merges by score (a discovery's scores
// are larger-better whatever the metric) and cuts the window. Bodies are checked first by the
// server's own parsers, so a bad one is the server's 400 and no example is fetched for it.
import type { FastifyInstance } from 'fastify';
import { bodyObject, type Fields, isAbsent, objectAt } from '../../api/fields.js';
import { parseRecommendGroups } from '../../api/groups.js';
import { parseBatch, parseDiscover, parseRecommend, window } from '../../api/requests.js';
import { MAX_LIMIT } from '../../options.js';
import type { PointKey } from '../../../engine/public.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer, partialFields } from '../answer.js';
import { COLLECTION_ROUTE, collectionPath } from '../collection-paths.js';
import { type ExampleRoute, exampleVectors, excludingNamed, namedPoints, withoutNamed, withVectors } from '../examples.js';
import { groupsOverShards } from '../groups.js';
import { type Hit, mergeHits } from '../merge.js';
import { noStats } from '../refusals.js';
import type { RouterContext } from '../route-context.js';
import { resultOf } from '../shard-calls.js';
import { searchedBy } from '../score-order.js';

type Route = { Params: CollectionParams; Body: unknown };

/** One recommendation or discovery as the shards get it, and what the router answers it with. */
interface Member {
  body: Fields;
  named: ReadonlySet<PointKey>;
  offset: number;
  limit: number;
}

/**
 * The body asking a shard for its first k hits. A re-rank pool given for the caller's window is
 * raised to k where smaller (the server takes no pool smaller than the hits asked for; it re-ranks
 * the larger window alike, asking for the named points on top).
 */
function askFor(b: Fields, k: number): Fields {
  const params = isAbsent(b['params']) ? undefined : objectAt(b['params'], 'params');
  const rerank = params?.['rerank'];
  return { ...b, limit: k, offset: 0, ...(typeof rerank === 'number' && rerank > 0 && rerank < k ? { params: { ...params, rerank: k } } : {}) };
}

export function registerRecommendRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const { calls, scoreOrder } = ctx;
  const order = (route: ExampleRoute, name: string, b: Fields): Promise<boolean> =>
    route === 'discover' ? Promise.resolve(true) : scoreOrder.higherIsBetter(name, searchedBy(b));
  const parserOf = (route: ExampleRoute) => (route === 'recommend' ? parseRecommend : parseDiscover);

  /** The members (checked), with the examples of all of them fetched at once. */
  const prepare = async (name: string, route: ExampleRoute, members: readonly Fields[], at: (i: number) => string): Promise<Member[]> => {
    const keys = members.map((m) => namedPoints(m, route));
    // One fetch per vector the members search by (`using`), each of every point they name.
    const uses = members.map((m) => searchedBy(m));
    const fetched = new Map<string | undefined, Map<PointKey, unknown>>();
    for (const use of new Set(uses)) fetched.set(use, await exampleVectors(ctx, name, keys.filter((_, i) => uses[i] === use).flat(), use));
    return members.map((m, i) => {
      const { limit, offset } = window(m, at(i), null);
      const body = askFor(withVectors(m, route, fetched.get(uses[i])!), Math.min(MAX_LIMIT, limit + offset + keys[i]!.length));
      return { body, named: new Set(keys[i]), offset, limit };
    });
  };
  const merged = (lists: Hit[][], m: Member, higher: boolean): Hit[] =>
    mergeHits(
      lists.map((l) => withoutNamed(l, m.named)),
      higher,
      m.offset,
      m.limit,
    );

  for (const route of ['recommend', 'discover'] as const) {
    const path = `/points/${route}`;
    app.post<Route>(`${COLLECTION_ROUTE}${path}`, async (req, r) => {
      const b = bodyObject(req.body);
      const name = req.params.collection_name;
      parserOf(route)(b, await scoreOrder.space(name));
      noStats(b);
      const [m] = await prepare(name, route, [b], () => '');
      const { answers, missing } = await calls.fanOut('POST', collectionPath(name, path), m!.body);
      const hits = merged(
        answers.map((a) => resultOf<Hit[]>(a)),
        m!,
        await order(route, name, b),
      );
      return answer(req, r, hits, partialFields(missing));
    });

    app.post<Route>(`${COLLECTION_ROUTE}${path}/batch`, async (req, r) => {
      const b = bodyObject(req.body);
      const name = req.params.collection_name;
      // The shards hold the batch limit (--max-batch): the router takes what they may.
      parseBatch(b, await scoreOrder.space(name), MAX_LIMIT, parserOf(route));
      const searches = (b['searches'] as unknown[]).map((s, i) => objectAt(s, `searches[${i}]`));
      searches.forEach((s, i) => noStats(s, `searches[${i}].`));
      const members = await prepare(name, route, searches, (i) => `searches[${i}].`);
      const { answers, missing } = await calls.fanOut('POST', collectionPath(name, `${path}/batch`), { ...b, searches: members.map((m) => m.body) });
      const higher = await Promise.all(searches.map((s) => order(route, name, s)));
      const lists = answers.map((a) => resultOf<Hit[][]>(a));
      const result = members.map((m, i) =>
        merged(
          lists.map((l) => l[i] ?? []),
          m,
          higher[i]!,
        ),
      );
      return answer(req, r, result, partialFields(missing));
    });
  }

  // Recommend's groups: the named points left out by a filter rather than afterwards, so that every
  // shard fills its groups without them; then grouped as the other grouped routes are (groups.ts).
  app.post<Route>(`${COLLECTION_ROUTE}/points/recommend/groups`, async (req, r) => {
    const b = bodyObject(req.body);
    const name = req.params.collection_name;
    parseRecommendGroups(b, await scoreOrder.space(name));
    noStats(b);
    const named = namedPoints(b, 'recommend');
    const body = withVectors(b, 'recommend', await exampleVectors(ctx, name, named, searchedBy(b)));
    const filter = excludingNamed(b['filter'], named);
    const { groups, missing } = await groupsOverShards(ctx, {
      name,
      path: '/points/recommend/groups',
      batchPath: '/points/recommend/batch',
      body: isAbsent(filter) ? body : { ...body, filter },
      hitsOf: (member) => member as Hit[],
    });
    return answer(req, r, { groups }, partialFields(missing));
  });
}
