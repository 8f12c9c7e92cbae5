// The REST server: fastify with an explicit body limit, the MessagePack parser, one error handler,
// hooks for draining, authentication and metrics, and the route modules.
import { fastify, LogController, type FastifyInstance } from 'fastify';
import { StrataError } from '../../common/errors.js';
import { WRITE_SEQ_HEADER, writeSeqOf } from '../api/writes.js';
import { keyCheck, presentedKey, UNAUTHENTICATED_MESSAGE } from '../auth.js';
import { registerMsgpackParser } from './codec.js';
import type { RestContext } from './context.js';
import { answerError, MAX_PARAM_LENGTH, registerErrorHandler } from './error-handler.js';
import { registerCollectionRoutes } from './routes/collections.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { registerDashboardRoutes } from './routes/dashboard.js';
import { registerNotServedRoutes } from './routes/not-served.js';
import { registerOpenApiRoute } from './routes/openapi.js';
import { registerPointRoutes } from './routes/points.js';
import { registerSnapshotRoutes } from './routes/snapshots.js';
import { registerWriteRoutes } from './routes/writes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answered without an API key and while draining (the health endpoints). */
    public?: boolean;
  }
}

export function buildRest(ctx: RestContext): FastifyInstance {
  const app = fastify({
    logger: { level: ctx.options.logLevel },
    bodyLimit: ctx.options.bodyLimit,
    // One log line per request costs more than a search at high rates: requests are logged at
    // debug level by the onResponse hook, server faults at error level by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    // Draining answers 503 in Qdrant's envelope from the onRequest hook instead.
    return503OnClosing: false,
    ajv: { customOptions: { coerceTypes: true, removeAdditional: false, allErrors: false } },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Errors the router raises before any hook (bad %-escapes, overlong parameters) get the same envelope.
    frameworkErrors: (err, req, reply) => {
      answerError(err, req, reply, ctx.options.bodyLimit);
    },
  });
  registerMsgpackParser(app);
  registerErrorHandler(app, ctx.options.bodyLimit);

  // Hooks take callbacks rather than being async: no promise per request on the hot path.
  const check = keyCheck(ctx.options.apiKey);
  app.addHook('onRequest', (req, reply, done) => {
    const route = req.routeOptions; // a getter that builds an object: read it once
    // Draining, every answer (health probes too) ends its connection: none is left idle to be cut.
    if (ctx.lifecycle.draining) reply.raw.setHeader('connection', 'close');
    if (route.config.public === true) return done();
    if (check && !check(presentedKey(req.headers['api-key'], req.headers.authorization))) {
      return done(new StrataError('STRATA_UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE, {}));
    }
    if (ctx.lifecycle.draining) {
      return done(new StrataError('STRATA_SHUTTING_DOWN', 'server shutting down: retry on another replica', {}));
    }
    // Admitted: shutdown waits for its answer.
    ctx.lifecycle.trackResponse(reply.raw);
    done();
  });
  // Read-your-writes by log sequence: a request naming a shared write log's sequence waits until
  // its collection has applied the log that far (the router sends it after a write with wait=true).
  app.addHook('preHandler', (req, _reply, done) => {
    const raw = req.headers[WRITE_SEQ_HEADER];
    if (raw === undefined) return done();
    const name = (req.params as { collection_name?: string } | undefined)?.collection_name;
    let seq: number | undefined;
    try {
      seq = writeSeqOf(raw);
      if (name === undefined || seq === undefined) return done();
      ctx.engine
        .collection(name)
        .waitForWriteSeq(seq)
        .then(() => done(), done);
    } catch (e) {
      done(e as Error);
    }
  });
  app.addHook('onResponse', (req, reply, done) => {
    // Unmatched paths share one label so that scanners cannot grow the metric's cardinality.
    const route = req.routeOptions.url ?? 'unmatched';
    ctx.metrics.observeHttp(route, req.method, reply.statusCode, reply.elapsedTime / 1000);
    req.log.debug({ route, method: req.method, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
    done();
  });

  registerHealthRoutes(app, ctx);
  registerCollectionRoutes(app, ctx);
  registerPointRoutes(app, ctx);
  registerWriteRoutes(app, ctx);
  registerSnapshotRoutes(app, ctx);
  registerMetricsRoutes(app, ctx);
  registerOpenApiRoute(app);
  registerNotServedRoutes(app);
  registerDashboardRoutes(app);
  return app;
}
