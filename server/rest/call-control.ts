// A REST request's deadline for the engine: Qdrant's `?timeout=` (seconds) becomes the engine's
// deadline, past which the request fails with 504 (STRATA_DEADLINE_EXCEEDED).
//
// No AbortSignal is made per request to cancel the search when the client hangs up: on Node 20 a
// signal plus its listeners cost ~40 µs a request (measured by bench/server-bench.ts), a fifth of
// what serving a search costs, while abandoned work stays bounded by the admission queue and the
// deadline. (An engine hook that polls for cancellation at dispatch would make it cheap.)
import type { FastifyRequest } from 'fastify';
import { invalidArgument } from '../../common/errors.js';
import { describe } from '../api/fields.js';
import type { CallControl } from '../api/points.js';
import { MAX_TIMEOUT_SECONDS } from '../options.js';
import type { CallQuery } from './context.js';

export function callControl(req: FastifyRequest<{ Querystring: CallQuery }>): CallControl {
  const raw = req.query.timeout;
  if (raw === undefined) return {};
  const t = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!(Number.isFinite(t) && t > 0 && t <= MAX_TIMEOUT_SECONDS))
    throw invalidArgument('timeout', `must be a number of seconds in (0, ${MAX_TIMEOUT_SECONDS}], got ${describe(raw)}`);
  return { timeoutMs: Math.max(1, Math.round(t * 1000)) };
}
