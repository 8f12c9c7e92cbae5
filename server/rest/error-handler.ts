// Every REST error leaves through here: fastify's own errors (body too large, bad JSON, schema
// validation of path and query) become StrataErrors, and each StrataError is answered with the
// status from server/errors.ts in Qdrant's error envelope, in the negotiated encoding.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidArgument, quoted, StrataError } from '../../common/errors.js';
import { asStrataError, isServerFault, messageOf, STATUS_OF } from '../errors.js';
import { formatBytes } from '../options.js';

/** Longest path parameter the router takes (fastify's default, 100, is below Qdrant's 255-character names). */
export const MAX_PARAM_LENGTH = 512;
import { codecFor, MSGPACK, send } from './codec.js';
import { failure } from './envelope.js';

function isFastifyError(e: unknown): e is FastifyError {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('FST_');
}

/** fastify's errors, in Strata's terms, with messages that say what to do. */
function fromFastify(e: FastifyError, req: FastifyRequest, bodyLimit: number): StrataError {
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new StrataError(
        'STRATA_PAYLOAD_TOO_LARGE',
        `request body is larger than the ${formatBytes(bodyLimit)} limit (--body-limit): split it into several requests, e.g. fewer searches per search/batch, or send vectors as MessagePack float32 arrays (Content-Type: ${MSGPACK}), about 2.5x smaller than JSON`,
        { limit: bodyLimit },
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new StrataError(
        'STRATA_UNSUPPORTED_MEDIA_TYPE',
        `content type ${quoted(req.headers['content-type'] ?? '')} is not supported: send application/json or ${MSGPACK}`,
        {},
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidArgument('body', 'empty body with Content-Type application/json: send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return invalidArgument('body', 'malformed JSON');
    case 'FST_ERR_VALIDATION': {
      // Path and query-string schemas: name the parameter rather than fastify's "querystring/x".
      const v = e.validation?.[0];
      const field = v
        ? v.instancePath.replace(/^\//, '').replace(/\//g, '.') ||
          String((v.params as { missingProperty?: string }).missingProperty ?? e.validationContext ?? 'request')
        : 'request';
      return invalidArgument(field, v?.message ?? e.message);
    }
    case 'FST_ERR_BAD_URL':
      return invalidArgument('path', 'not a valid URL (a malformed %-escape?)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return invalidArgument('path', `a path parameter (collection name or point id) is longer than ${MAX_PARAM_LENGTH} characters`);
    default:
      if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500) return invalidArgument('request', e.message.slice(0, 200));
      return asStrataError(e);
  }
}

export function registerErrorHandler(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: unknown, req, reply) => answerError(err, req, reply, bodyLimit));
  app.setNotFoundHandler((req, reply) => {
    const e = new StrataError(
      'STRATA_ROUTE_NOT_FOUND',
      `no endpoint ${req.method} ${quoted(req.url.split('?')[0] ?? '')}: see GET /openapi.json for the API`,
      {},
    );
    return answerError(e, req, reply, bodyLimit);
  });
}

export function answerError(err: unknown, req: FastifyRequest, reply: FastifyReply, bodyLimit: number): FastifyReply {
  const e = isFastifyError(err) ? fromFastify(err, req, bodyLimit) : asStrataError(err);
  const status = STATUS_OF[e.code].http;
  if (isServerFault(e)) req.log.error({ err: e.cause ?? e, code: e.code }, 'request failed');
  else req.log.debug({ code: e.code, status, message: e.message }, 'request refused');
  // Qdrant's client retries a 429 after Retry-After seconds; the queue drains within milliseconds.
  if (status === 429 || status === 503) reply.header('retry-after', '1');
  // Shutting down: the client should open its next connection elsewhere, not reuse this one.
  if (status === 503) reply.header('connection', 'close');
  if (status === 405 && typeof e.details['allow'] === 'string') reply.header('allow', e.details['allow']);
  // The stable code, for clients that branch on it (and the router's gRPC front, which maps it).
  reply.header('strata-code', e.code);
  reply.code(status);
  return send(reply, codecFor(req), failure(reply, messageOf(e)));
}
