// Write routes: upsert, delete and payload (set: POST, overwrite: PUT, delete, clear), each id's part
// sent to the shard it hashes to (write-routing.ts), a write by filter and a payload index's create
// or drop to every shard; the shards' acknowledgements answered as one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidArgument } from '../../../common/errors.js';
import { arrayAt, bodyObject, isAbsent, objectAt, pointIdAt } from '../../api/fields.js';
import { MAX_UPSERT } from '../../api/writes.js';
import { MAX_LIMIT } from '../../options.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer } from '../answer.js';
import { mergeWriteResults } from '../merge.js';
import type { RouterContext } from '../route-context.js';
import { COLLECTION_ROUTE } from '../collection-paths.js';
import { groupByShard, routeWrites } from '../write-routing.js';

type WriteRoute = { Params: CollectionParams; Body: unknown; Querystring: { wait?: string } };
type IndexRoute = { Params: CollectionParams & { field_name: string }; Body: unknown; Querystring: { wait?: string } };

/** Routes one write's groups to their shards and answers the shards' acknowledgements as one. */
async function routed<T>(
  ctx: RouterContext,
  req: FastifyRequest<WriteRoute>,
  r: FastifyReply,
  method: 'PUT' | 'POST' | 'DELETE',
  path: string,
  groups: Map<number, T[]>,
  bodyOf: (items: T[]) => unknown,
): Promise<FastifyReply> {
  const wait = req.query.wait === 'true';
  const results = await routeWrites(ctx, {
    name: req.params.collection_name,
    method,
    path: `${path}${wait ? '?wait=true' : ''}`,
    wait,
    groups,
    bodyOf,
  });
  return answer(req, r, mergeWriteResults(results));
}

/** A body's `points` list of ids, as the single server reads it. */
const idsAt = (b: Record<string, unknown>): Array<number | null> => arrayAt(b['points'], 'points', MAX_LIMIT).map((v, i) => pointIdAt(v, `points[${i}]`));

export function registerWriteRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const count = ctx.shards.count;

  app.put<WriteRoute>(`${COLLECTION_ROUTE}/points`, async (req, r) => {
    const b = bodyObject(req.body);
    const points = arrayAt(b['points'], 'points', MAX_UPSERT).map((p, i) => objectAt(p, `points[${i}]`));
    const groups = groupByShard(points, count, (p, i) => {
      const id = pointIdAt(p['id'], `points[${i}].id`);
      if (id === null) throw invalidArgument(`points[${i}].id`, 'must be an unsigned integer below 2^53');
      return id;
    });
    return routed(ctx, req, r, 'PUT', '/points', groups, (ps) => ({ points: ps }));
  });

  /**
   * A write that selects points (delete, payload set / overwrite / delete / clear): by ids, each
   * shard gets its own ids and the rest of the body; by filter, every shard gets the whole body,
   * since any shard may hold matching points (each shard checks the body as the server does, so a
   * filter it cannot take is refused, never dropped).
   */
  const selecting = (method: 'POST' | 'PUT', path: string): void => {
    app.route<WriteRoute>({
      method,
      url: `${COLLECTION_ROUTE}${path}`,
      handler: async (req, r) => {
        const b = bodyObject(req.body);
        if (!isAbsent(b['filter'])) {
          const everyShard = new Map(Array.from({ length: count }, (_, s): [number, unknown[]] => [s, [b]]));
          return routed(ctx, req, r, method, path, everyShard, () => b);
        }
        const groups = groupByShard(idsAt(b), count, (id) => id);
        return routed(ctx, req, r, method, path, groups, (ps) => ({ ...b, points: ps }));
      },
    });
  };
  selecting('POST', '/points/delete');
  // Set (POST: merge) or overwrite (PUT) payloads.
  selecting('POST', '/points/payload');
  selecting('PUT', '/points/payload');
  selecting('POST', '/points/payload/delete');
  selecting('POST', '/points/payload/clear');

  // Payload indexes: created or dropped on every shard, as a write (a shared write log carries it
  // to the shard's replicas).
  const everyShard = (method: 'PUT' | 'DELETE', url: string, path: (req: FastifyRequest<IndexRoute>) => string): void => {
    app.route<IndexRoute>({
      method,
      url,
      handler: async (req, r) => {
        const body = method === 'PUT' ? bodyObject(req.body) : undefined;
        const shards = new Map(Array.from({ length: count }, (_, s): [number, unknown[]] => [s, [body]]));
        return routed(ctx, req, r, method, path(req), shards, () => body);
      },
    });
  };
  everyShard('PUT', `${COLLECTION_ROUTE}/index`, () => '/index');
  everyShard('DELETE', `${COLLECTION_ROUTE}/index/:field_name`, (req) => `/index/${encodeURIComponent(req.params.field_name)}`);
}
