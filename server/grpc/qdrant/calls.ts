// What every Qdrant RPC shares, as server/grpc/calls.ts does for strata.v1: the API key (Qdrant's
// `api-key` header or a bearer token), the draining check, shutdown tracking, metrics, and errors as
// gRPC statuses (server/errors.ts) with the stable Strata code in the message and in a
// `strata-code` trailer. Handlers are bound by method name and checked against the descriptor's
// message types, so that a handler written for the wrong message fails at startup.
import type { DescMessage, DescMethod, DescService, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { invalidArgument, StrataError } from '../../../common/errors.js';
import type { Collection } from '../../../engine/public.js';
import type { CallControl } from '../../api/points.js';
import { presentedKey, UNAUTHENTICATED_MESSAGE } from '../../auth.js';
import { asStrataError, isServerFault, messageOf, STATUS_OF } from '../../errors.js';
import { MAX_TIMEOUT_SECONDS } from '../../options.js';
import { type GrpcContext, statusName } from '../calls.js';
import { intOf } from './refuse.js';

/** A StrataError as a ConnectError: its gRPC status (Connect's codes are gRPC's numbers), its code named. */
export function qdrantStatus(ctx: GrpcContext, e: unknown): ConnectError {
  if (e instanceof ConnectError) return e;
  const se = asStrataError(e);
  if (isServerFault(se)) ctx.log.error({ err: se.cause ?? se, code: se.code }, 'Qdrant gRPC call failed');
  const status = STATUS_OF[se.code];
  // As REST's 429 and 503 do: Qdrant's clients turn RESOURCE_EXHAUSTED with retry-after into their
  // own "retry later" error.
  const metadata = new Headers({ 'strata-code': se.code });
  if (status.http === 429 || status.http === 503) metadata.set('retry-after', '1');
  return new ConnectError(`${se.code}: ${messageOf(se)}`, status.grpc as number as Code, metadata);
}

function admit(ctx: GrpcContext, h: Headers, isPublic: boolean): void {
  if (isPublic) return;
  if (ctx.check) {
    const key = presentedKey(h.get('api-key') ?? undefined, h.get('authorization') ?? undefined);
    if (!ctx.check(key)) throw new StrataError('STRATA_UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE, {});
  }
  if (ctx.lifecycle.draining) throw new StrataError('STRATA_SHUTTING_DOWN', 'server shutting down: retry on another replica', {});
}

/** The engine's deadline for one call: the sooner of the gRPC deadline and the request's own timeout (seconds). */
export function control(h: HandlerContext, timeoutSeconds: bigint | undefined): CallControl {
  const own = intOf(timeoutSeconds, 'timeout', MAX_TIMEOUT_SECONDS);
  const left = h.timeoutMs();
  const ms = own === undefined ? left : left === undefined ? own * 1000 : Math.min(own * 1000, left);
  return { signal: h.signal, ...(ms !== undefined ? { timeoutMs: Math.max(1, ms) } : {}) };
}

/** The collection a request names (an empty name is refused, not looked up). */
export function collectionOf(ctx: GrpcContext, name: string): Collection {
  if (name === '') throw invalidArgument('collection_name', 'required: the name of a collection (Collections/List lists them)');
  return ctx.engine.collection(name);
}

/** Seconds since t0 (performance.now()), the `time` of every answer. */
export function secondsSince(t0: number): number {
  return (performance.now() - t0) / 1000;
}

/** ConnectRouter.rpc for a method known only as a DescMethod: its typed form resolves to never. */
type UntypedRpc = (m: DescMethod, impl: (req: MessageShape<DescMessage>, h: HandlerContext) => unknown) => unknown;

export class QdrantRouter {
  private readonly bound = new Set<DescMethod>();

  constructor(
    private readonly router: ConnectRouter,
    private readonly ctx: GrpcContext,
  ) {}

  private rpc(m: DescMethod, impl: (req: MessageShape<DescMessage>, h: HandlerContext) => unknown): void {
    (this.router.rpc as UntypedRpc).call(this.router, m, impl);
  }

  /** Binds service/name to fn, after checking that the method takes I and answers O. */
  unary<I extends DescMessage, O extends DescMessage>(
    service: DescService,
    name: string,
    input: I,
    output: O,
    fn: (req: MessageShape<I>, h: HandlerContext) => MessageInitShape<O> | Promise<MessageInitShape<O>>,
    opts: { public?: boolean } = {},
  ): void {
    const m = service.methods.find((x) => x.name === name);
    if (m?.methodKind !== 'unary' || m.input.typeName !== input.typeName || m.output.typeName !== output.typeName) {
      throw new Error(`${service.typeName}/${name}: no unary method from ${input.typeName} to ${output.typeName} in @qdrant/js-client-grpc`);
    }
    const label = `${service.typeName}/${name}`;
    const ctx = this.ctx;
    this.bound.add(m);
    this.rpc(m, async (req: MessageShape<DescMessage>, h: HandlerContext) => {
      const t0 = performance.now();
      let ended: (() => void) | null = null;
      let code = 'OK';
      try {
        admit(ctx, h.requestHeader, opts.public ?? false);
        // Admitted: shutdown waits for its answer (health probes are not waited for).
        if (opts.public !== true) ended = ctx.lifecycle.trackCall();
        return create(output, await fn(req as MessageShape<I>, h));
      } catch (e) {
        const err = qdrantStatus(ctx, e);
        // strata.v1's label spelling (INVALID_ARGUMENT, ...): Connect's codes are gRPC's numbers.
        code = statusName(err.code as number);
        throw err;
      } finally {
        ended?.();
        ctx.metrics.observeGrpc(label, code, secondsSince(t0));
      }
    });
  }

  /** Every method of `service` not bound answers UNIMPLEMENTED, naming itself. */
  rest(service: DescService): void {
    for (const m of service.methods) {
      if (this.bound.has(m)) continue;
      const message = `${service.typeName}/${m.name} is not implemented by Strata (docs/api.md lists the Qdrant RPCs served)`;
      this.rpc(m, () => {
        throw new ConnectError(message, Code.Unimplemented);
      });
    }
  }
}
