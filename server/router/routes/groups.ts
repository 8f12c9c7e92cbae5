// Grouped searches over the shards (search and query groups): every shard asked with the same body,
// the groups merged by their best hit and filled in from the shards that left them out (groups.ts).
// A query naming a point is asked with the point's stored vector, the point filtered out.
import type { FastifyInstance } from 'fastify';
import { bodyObject, type Fields } from '../../api/fields.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer, partialFields } from '../answer.js';
import { COLLECTION_ROUTE } from '../collection-paths.js';
import { groupsOverShards } from '../groups.js';
import type { Hit } from '../merge.js';
import { nearestOnly, noStats } from '../refusals.js';
import { excludingNamed, queryById } from '../examples.js';
import type { RouterContext } from '../route-context.js';

export function registerGroupRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const grouped = (path: string, batchPath: string, hitsOf: (member: unknown) => Hit[], check: (b: Fields) => void): void => {
    app.post<{ Params: CollectionParams; Body: unknown }>(`${COLLECTION_ROUTE}${path}`, async (req, r) => {
      const b = bodyObject(req.body);
      check(b);
      const name = req.params.collection_name;
      // A query naming a point: its stored vector in its place, and the point left out by a filter,
      // so that the groups are filled without it (as recommend's groups are).
      const { body, named } = await queryById(ctx, name, b);
      const asked = named.size === 0 ? body : { ...body, filter: excludingNamed(body['filter'], [...named]) };
      const { groups, missing } = await groupsOverShards(ctx, { name, path, batchPath, body: asked, hitsOf });
      return answer(req, r, { groups }, partialFields(missing));
    });
  };
  grouped('/points/search/groups', '/points/search/batch', (member) => member as Hit[], noStats);
  // A query grouped: the queries the query route takes (nearest ones, by vector or point id).
  grouped(
    '/points/query/groups',
    '/points/query/batch',
    (member) => (member as { points: Hit[] }).points,
    (b) => {
      nearestOnly(b);
      noStats(b);
    },
  );
}
