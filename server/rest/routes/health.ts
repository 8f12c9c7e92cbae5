// Health routes, as Qdrant names them: /livez (the process answers), /healthz (the server works),
// /readyz (every collection loaded with its tiers bound, and not draining; 503 otherwise, so a load
// balancer stops sending). None needs an API key: probes (Kubernetes, load balancers) cannot send
// one, and the answers reveal nothing but up or down. And `/`, Qdrant's version endpoint.
import type { FastifyInstance } from 'fastify';
import { QDRANT_API_VERSION, VERSION } from '../../../common/version.js';
import type { RestContext } from '../context.js';

/** Paths answered without an API key, also while draining (deploy/k8s probes use them; a test checks). */
export const HEALTH_PATHS = ['/livez', '/healthz', '/readyz'] as const;

/** The title of the root answer, and of Qdrant's gRPC HealthCheck. */
export const HEALTH_TITLE = 'strata - tiered DRAM/CXL vector search (Qdrant-compatible; writes with --data-dir)';

export function registerHealthRoutes(app: FastifyInstance, ctx: RestContext): void {
  const open = { config: { public: true } };
  app.get('/livez', open, async (_req, reply) => reply.type('text/plain').send('livez check passed'));
  app.get('/healthz', open, async (_req, reply) => reply.type('text/plain').send('healthz check passed'));
  app.get('/readyz', open, async (_req, reply) => {
    if (ctx.lifecycle.ready) return reply.type('text/plain').send('all collections are loaded and their tiers bound');
    return reply.code(503).header('retry-after', '1').type('text/plain').send(`not ready: ${ctx.lifecycle.reason}`);
  });
  // `version` is the Qdrant API's, what Qdrant's clients check; Strata's own is beside it.
  app.get('/', async () => ({ title: HEALTH_TITLE, version: QDRANT_API_VERSION, strata_version: VERSION }));
}
