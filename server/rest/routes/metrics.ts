// GET /metrics: the Prometheus text format of the server's registry (server/metrics.ts).
import type { FastifyInstance } from 'fastify';
import type { RestContext } from '../context.js';

export function registerMetricsRoutes(app: FastifyInstance, ctx: RestContext): void {
  app.get('/metrics', async (_req, reply) => reply.type(ctx.metrics.contentType).send(await ctx.metrics.text()));
}
