// One REST call to the router itself, in process (fastify's inject: no socket), with the gRPC
// caller's credentials. A REST error comes back as the gRPC status of its Strata code
// (server/errors.ts), with the code in the `strata-code` trailer, as `strata serve` answers.
import * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../../../common/errors.js';
import { MAX_MESSAGE_CHARS, STATUS_OF } from '../../errors.js';
import { packMsgpack, unpackMsgpack } from '../../rest/codec.js';

interface RestAnswer {
  status: number;
  code: string | undefined;
  body: { result?: unknown; status?: unknown; time?: number };
}

/** Resolves with the REST answer's `result`, or rejects with its gRPC status. */
export type RestCall = (metadata: grpc.Metadata, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => Promise<unknown>;

/** A gRPC status for a REST failure: its Strata code's status, else by the HTTP status. */
function statusError(a: RestAnswer): grpc.ServerErrorResponse {
  const known = a.code !== undefined && a.code in ERROR_CODES ? (a.code as ErrorCode) : null;
  const byHttp: Record<number, grpc.status> = { 400: grpc.status.INVALID_ARGUMENT, 401: grpc.status.UNAUTHENTICATED, 404: grpc.status.NOT_FOUND };
  const code = known ? STATUS_OF[known].grpc : (byHttp[a.status] ?? (a.status >= 500 ? grpc.status.UNAVAILABLE : grpc.status.UNKNOWN));
  const error = (a.body.status as { error?: unknown } | undefined)?.error;
  const details = String(error ?? `HTTP ${a.status}`).slice(0, MAX_MESSAGE_CHARS);
  const metadata = new grpc.Metadata();
  if (known) metadata.set('strata-code', known);
  return Object.assign(new Error(details), { code, details, metadata });
}

export function restCall(app: FastifyInstance): RestCall {
  return async (metadata, method, url, body) => {
    const headers: Record<string, string> = { accept: 'application/msgpack' };
    for (const name of ['api-key', 'authorization']) {
      const v = metadata.get(name)[0];
      if (v !== undefined) headers[name] = String(v);
    }
    if (body !== undefined) headers['content-type'] = 'application/msgpack';
    const res = await app.inject({ method, url, headers, ...(body !== undefined ? { payload: packMsgpack(body) } : {}) });
    const parsed = (res.headers['content-type'] ?? '').toString().includes('msgpack') ? unpackMsgpack(res.rawPayload) : JSON.parse(res.body || '{}');
    const a: RestAnswer = { status: res.statusCode, code: res.headers['strata-code']?.toString(), body: parsed as RestAnswer['body'] };
    if (a.status >= 400) throw statusError(a);
    return a.body.result;
  };
}
