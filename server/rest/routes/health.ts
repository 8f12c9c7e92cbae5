// Health routes, as Qdrant names them: /livez (the process answers; never needs a key), /healthz
// (the server works), /readyz (every collection loaded with its tiers bound, and not draining; 503
// otherwise, so a load balancer stops sending). And `/`, Qdrant's version endpoint.
import type { FastifyInstance } from 'fastify';
import type { RestContext } from '../context.js';

export const VERSION = '0.1.0';

export function registerHealthRoutes(app: FastifyInstance, ctx: RestContext): void {
  app.get('/livez', { config: { public: true } }, async (_req, reply) => reply.type('text/plain').send('livez check passed'));
  app.get('/healthz', async (_req, reply) => reply.type('text/plain').send('healthz check passed'));
  app.get('/readyz', async (_req, reply) => {
    if (ctx.lifecycle.ready) return reply.type('text/plain').send('all collections are loaded and their tiers bound');
    return reply.code(503).header('retry-after', '1').type('text/plain').send(`not ready: ${ctx.lifecycle.reason}`);
  });
  app.get('/', async () => ({ title: 'strata - tiered DRAM/CXL vector search (Qdrant-compatible, read-only)', version: VERSION }));
}
