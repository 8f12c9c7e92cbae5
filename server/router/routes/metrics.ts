// GET /metrics: the router's metrics in Prometheus' text format (router-metrics.ts).
import type { FastifyInstance } from 'fastify';
import type { RouterContext } from '../route-context.js';

export function registerMetricsRoutes(app: FastifyInstance, ctx: RouterContext): void {
  app.get('/metrics', async (_req, r) => r.type('text/plain').send(await ctx.metrics.text(ctx.shards)));
}
