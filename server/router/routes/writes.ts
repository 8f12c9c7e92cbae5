// Write routes: upsert, delete and payload (set: POST, overwrite: PUT), each id's part sent to the
// shard it hashes to (write-routing.ts), the shards' acknowledgements answered as one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidArgument } from '../../../common/errors.js';
import { arrayAt, bodyObject, objectAt, pointIdAt } from '../../api/fields.js';
import { MAX_UPSERT } from '../../api/writes.js';
import { MAX_LIMIT } from '../../options.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer } from '../answer.js';
import { mergeWriteResults } from '../merge.js';
import type { RouterContext } from '../route-context.js';
import { COLLECTION_ROUTE } from '../collection-paths.js';
import { groupByShard, routeWrites } from '../write-routing.js';

type WriteRoute = { Params: CollectionParams; Body: unknown; Querystring: { wait?: string } };

/** Routes one write's groups to their shards and answers the shards' acknowledgements as one. */
async function routed<T>(
  ctx: RouterContext,
  req: FastifyRequest<WriteRoute>,
  r: FastifyReply,
  method: 'PUT' | 'POST',
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

  app.post<WriteRoute>(`${COLLECTION_ROUTE}/points/delete`, async (req, r) => {
    const groups = groupByShard(idsAt(bodyObject(req.body)), count, (id) => id);
    return routed(ctx, req, r, 'POST', '/points/delete', groups, (ps) => ({ points: ps }));
  });

  // Set (POST: merge) or overwrite (PUT) payloads: the ids grouped by shard, the payload to each.
  for (const method of ['POST', 'PUT'] as const) {
    app.route<WriteRoute>({
      method,
      url: `${COLLECTION_ROUTE}/points/payload`,
      handler: async (req, r) => {
        const b = bodyObject(req.body);
        const payload = objectAt(b['payload'], 'payload');
        const groups = groupByShard(idsAt(b), count, (id) => id);
        return routed(ctx, req, r, method, '/points/payload', groups, (ps) => ({ points: ps, payload }));
      },
    });
  }
}
