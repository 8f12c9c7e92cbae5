// Qdrant's answer envelope: {"result": …, "status": "ok", "time": seconds}, and for errors
// {"status": {"error": "…"}, "result": null, "time": seconds}. Strata adds fields beside these
// (e.g. `strata` with a search's cost); Qdrant clients ignore fields they do not know.
import type { FastifyReply } from 'fastify';

export interface OkEnvelope<T> {
  result: T;
  status: 'ok';
  time: number;
  [extra: string]: unknown;
}

export interface ErrorEnvelope {
  status: { error: string };
  result: null;
  time: number;
}

/** Seconds since the request arrived. */
export function elapsed(reply: FastifyReply): number {
  return reply.elapsedTime / 1000;
}

export function ok<T>(reply: FastifyReply, result: T, extra?: Record<string, unknown>): OkEnvelope<T> {
  return { result, status: 'ok', time: elapsed(reply), ...extra };
}

export function failure(reply: FastifyReply, message: string): ErrorEnvelope {
  return { status: { error: message }, result: null, time: elapsed(reply) };
}
