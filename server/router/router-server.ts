// `strata router`: a stateless REST front (the same Qdrant-compatible paths, JSON or MessagePack)
// over shard servers built by `strata build --shards N`. Searches fan out to every shard and their
// hits merge by score; counts add up; a point is fetched from the shard its id hashes to (the
// shard map's function, shardOf); writes go to that shard. Shards answer the router in MessagePack.
// When a shard does not answer (every replica failed, or the per-shard deadline passed), the policy
// decides: `fail` (default) answers 502 STRATA_UNREACHABLE naming the shard; `allow` answers from
// the shards that did, and says so in the envelope: `partial: true, missing_shards: [i, …]`.
// This module composes the router: fastify, authentication, errors and the route modules.
import { fastify, type FastifyInstance, LogController } from 'fastify';
import { StrataError } from '../../common/errors.js';
import { keyCheck, presentedKey, UNAUTHENTICATED_MESSAGE } from '../auth.js';
import { registerMsgpackParser } from '../rest/codec.js';
import { answerError, MAX_PARAM_LENGTH } from '../rest/error-handler.js';
import type { RouterContext } from './route-context.js';
import { registerRouterErrors } from './router-errors.js';
import { RouterMetrics } from './router-metrics.js';
import type { RouterOptions } from './router-options.js';
import { registerDashboardRoutes } from '../rest/routes/dashboard.js';
import { registerCollectionRoutes } from './routes/collections.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { registerGroupRoutes } from './routes/groups.js';
import { registerPointRoutes } from './routes/points.js';
import { registerRecommendRoutes } from './routes/recommend.js';
import { registerMatrixRoutes } from './routes/matrix.js';
import { registerSearchRoutes } from './routes/search.js';
import { registerWriteRoutes } from './routes/writes.js';
import { ScoreOrder } from './score-order.js';
import { ShardCalls } from './shard-calls.js';
import { ShardSet } from './shard-set.js';

export type { PartialPolicy, RouterOptions } from './router-options.js';

export interface StrataRouter {
  app: FastifyInstance;
  shards: ShardSet;
  close(): Promise<void>;
}

export function buildRouter(o: RouterOptions): StrataRouter {
  const shards = new ShardSet(o.shards, { timeoutMs: o.timeoutMs, hedgeMs: o.hedgeMs, apiKey: o.shardApiKey ?? null });
  const app = fastify({
    logger: { level: o.logLevel },
    bodyLimit: o.bodyLimit,
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (err, req, reply) => {
      answerError(err, req, reply, o.bodyLimit);
    },
  });
  registerMsgpackParser(app);
  registerRouterErrors(app, o.bodyLimit);
  const check = keyCheck(o.apiKey);
  app.addHook('onRequest', (req, _reply, done) => {
    if (req.routeOptions.config?.public === true) return done();
    if (check && !check(presentedKey(req.headers['api-key'], req.headers.authorization)))
      return done(new StrataError('STRATA_UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE, {}));
    done();
  });

  const metrics = new RouterMetrics();
  const calls = new ShardCalls(shards, o.partial, metrics);
  const ctx: RouterContext = { shards, calls, scoreOrder: new ScoreOrder(calls), metrics, options: o };
  registerHealthRoutes(app, ctx);
  registerMetricsRoutes(app, ctx);
  registerCollectionRoutes(app, ctx);
  registerDashboardRoutes(app);
  registerSearchRoutes(app, ctx);
  registerMatrixRoutes(app, ctx);
  registerGroupRoutes(app, ctx);
  registerRecommendRoutes(app, ctx);
  registerPointRoutes(app, ctx);
  registerWriteRoutes(app, ctx);

  return {
    app,
    shards,
    close: async () => {
      await app.close();
      await shards.close();
    },
  };
}
