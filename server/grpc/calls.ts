// What every gRPC handler shares: authentication from metadata, the draining check, the call's
// deadline and cancellation for the engine, decoding failures, status mapping (server/errors.ts) with
// the Strata code in trailing metadata, and metrics. Handlers only turn messages into answers.
import * as grpc from '@grpc/grpc-js';
import type { FastifyBaseLogger } from 'fastify';
import { invalidArgument, StrataError } from '../../common/errors.js';
import type { Engine } from '../../engine/public.js';
import type { CallControl } from '../api/points.js';
import { presentedKey, UNAUTHENTICATED_MESSAGE, type KeyCheck } from '../auth.js';
import { asStrataError, isServerFault, MAX_MESSAGE_CHARS, messageOf, STATUS_OF } from '../errors.js';
import type { Lifecycle } from '../lifecycle.js';
import type { ServerMetrics } from '../metrics.js';
import { MAX_TIMEOUT_SECONDS, type ResolvedOptions } from '../options.js';
import { malformedReason, type Malformed } from './protos.js';

export interface GrpcContext {
  engine: Engine;
  options: ResolvedOptions;
  metrics: ServerMetrics;
  lifecycle: Lifecycle;
  check: KeyCheck | null;
  log: FastifyBaseLogger;
}

export interface AnyCall {
  metadata: grpc.Metadata;
  getDeadline(): grpc.Deadline;
  on(event: 'cancelled', fn: () => void): unknown;
}

export function statusName(code: grpc.status): string {
  return grpc.status[code] ?? String(code);
}

/** A status the gRPC protocol itself prescribes (e.g. the health protocol's NOT_FOUND). */
export class GrpcStatusError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

/** A StrataError as a gRPC status: mapped code, message (naming the field), `strata-code` trailer. */
export function serviceError(ctx: GrpcContext, e: unknown, prefix = ''): grpc.ServerErrorResponse {
  if (e instanceof GrpcStatusError) {
    const details = (prefix + e.message).slice(0, MAX_MESSAGE_CHARS);
    return Object.assign(new Error(details), { code: e.code, details });
  }
  const se = asStrataError(e);
  if (isServerFault(se)) ctx.log.error({ err: se.cause ?? se, code: se.code }, 'gRPC call failed');
  return strataStatus(se, prefix);
}

/** A StrataError as a gRPC status: its code's status, the code itself in the `strata-code` trailer. */
export function strataStatus(se: StrataError, prefix = ''): grpc.ServerErrorResponse {
  const metadata = new grpc.Metadata();
  metadata.set('strata-code', se.code);
  const details = prefix + messageOf(se);
  return Object.assign(new Error(details), { code: STATUS_OF[se.code].grpc, details, metadata });
}

/** Throws unless the call may proceed: right key (when one is set), server not draining. */
export function admit(ctx: GrpcContext, metadata: grpc.Metadata, isPublic: boolean): void {
  if (isPublic) return;
  if (ctx.check) {
    const key = presentedKey(metadata.get('api-key').map(String), metadata.get('authorization').map(String));
    if (!ctx.check(key)) throw new StrataError('STRATA_UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE, {});
  }
  if (ctx.lifecycle.draining) throw new StrataError('STRATA_SHUTTING_DOWN', 'server shutting down: retry on another replica', {});
}

/** The decoded request, or INVALID_ARGUMENT when its bytes were not a valid message. */
export function decoded<T>(m: T | Malformed): T {
  const why = malformedReason(m);
  if (why !== null) throw invalidArgument('message', `malformed protobuf: ${why}`);
  return m as T;
}

/** One abort signal per call, raised when the client cancels it (or its gRPC deadline passes). */
export function callSignal(call: AnyCall): AbortSignal {
  const ac = new AbortController();
  call.on('cancelled', () => ac.abort());
  return ac.signal;
}

/**
 * The engine's deadline for one request: the sooner of the call's gRPC deadline and the request's
 * own timeout_ms. Unary calls pass no signal (an AbortSignal per call costs more than a cancelled
 * call saves, see server/rest/call-control.ts); a stream has one for all its requests.
 */
export function requestControl(call: AnyCall, signal: AbortSignal | undefined, timeoutMs: number | undefined, field = 'timeout_ms'): CallControl {
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_SECONDS * 1000)) {
    throw invalidArgument(field, `must be 1..${MAX_TIMEOUT_SECONDS * 1000} milliseconds, got ${timeoutMs}`);
  }
  const d = call.getDeadline();
  const deadline = d instanceof Date ? d.getTime() : d;
  let ms = timeoutMs;
  if (Number.isFinite(deadline)) {
    const left = Math.max(1, Math.floor(deadline - Date.now()));
    ms = ms === undefined ? left : Math.min(ms, left);
  }
  return { ...(signal ? { signal } : {}), ...(ms !== undefined ? { timeoutMs: ms } : {}) };
}

/** A unary handler with admission, errors and metrics around `fn`. */
export function unary<Req, Res>(
  ctx: GrpcContext,
  method: string,
  fn: (req: Req, call: grpc.ServerUnaryCall<Req | Malformed, Res>) => Res | Promise<Res>,
  opts: { public?: boolean } = {},
): grpc.handleUnaryCall<Req | Malformed, Res> {
  return (call, callback) => {
    const t0 = performance.now();
    let ended: (() => void) | null = null;
    const finish = (err: grpc.ServerErrorResponse | null, res?: Res): void => {
      ended?.();
      ctx.metrics.observeGrpc(method, statusName(err?.code ?? grpc.status.OK), (performance.now() - t0) / 1000);
      if (err) callback(err);
      else callback(null, res);
    };
    try {
      admit(ctx, call.metadata, opts.public ?? false);
      // Admitted: shutdown waits for its answer (health probes are not waited for).
      if (opts.public !== true) ended = ctx.lifecycle.trackCall();
      Promise.resolve(fn(decoded(call.request), call)).then(
        (res) => finish(null, res),
        (e: unknown) => finish(serviceError(ctx, e)),
      );
    } catch (e) {
      finish(serviceError(ctx, e));
    }
  };
}

/** Seconds since t0 (performance.now()), the `time` field of every answer. */
export function secondsSince(t0: number): number {
  return (performance.now() - t0) / 1000;
}
