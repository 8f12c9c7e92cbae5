// How the router answers errors: a shard's refusal is passed on as the shard gave it; every other
// error is answered as the single server answers it (server/rest/error-handler.ts).
import type { FastifyInstance } from 'fastify';
import { StrataError } from '../../common/errors.js';
import { answerError } from '../rest/error-handler.js';
import type { ShardAnswer } from './shard-set.js';

/** A shard's answer passed on to the client as is (a 4xx: the request's fault, named by the shard). */
export class Relayed extends Error {
  constructor(readonly answer: ShardAnswer) {
    super(`relayed ${answer.status}`);
  }
}

export function registerRouterErrors(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: unknown, req, reply) => {
    if (err instanceof Relayed) {
      if (err.answer.code !== undefined) reply.header('strata-code', err.answer.code);
      return reply.code(err.answer.status).send(err.answer.body);
    }
    return answerError(err, req, reply, bodyLimit);
  });
  // The router has no OpenAPI document of its own to point to, unlike the server's not-found answer.
  app.setNotFoundHandler((req, reply) =>
    answerError(new StrataError('STRATA_ROUTE_NOT_FOUND', `no endpoint ${req.method} ${req.url.split('?')[0] ?? ''} on the router`, {}), req, reply, bodyLimit),
  );
}
