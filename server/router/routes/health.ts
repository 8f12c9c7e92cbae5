// The router's health routes, as the server names them (server/rest/routes/health.ts): /livez and
// /healthz answer for the router itself, /readyz for its shards under the partial-answer policy.
// None needs an API key. And `/`, the version endpoint, with the shard count.
import type { FastifyInstance } from 'fastify';
import { QDRANT_API_VERSION, VERSION } from '../../../common/version.js';
import type { RouterContext } from '../route-context.js';
import { ShardFailure } from '../shard-set.js';

export function registerHealthRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const { shards } = ctx;
  const open = { config: { public: true } };
  app.get('/livez', open, async (_req, r) => r.type('text/plain').send('livez check passed'));
  app.get('/healthz', open, async (_req, r) => r.type('text/plain').send('healthz check passed'));
  app.get('/readyz', open, async (_req, r) => {
    const all = await shards.all('GET', '/readyz');
    const down = all.map((a, i) => (a instanceof ShardFailure || a.status !== 200 ? i : -1)).filter((i) => i >= 0);
    const ready = down.length === 0 || (ctx.options.partial === 'allow' && down.length < all.length);
    return r
      .code(ready ? 200 : 503)
      .type('text/plain')
      .send(down.length === 0 ? `ready: ${all.length} shards` : `${ready ? 'ready (partial)' : 'not ready'}: shards ${down.join(', ')} not ready`);
  });
  app.get('/', async () => ({ title: 'strata router', version: QDRANT_API_VERSION, strata_version: VERSION, shards: shards.count }));
}
