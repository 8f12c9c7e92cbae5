// The query service: REST (JSON and MessagePack, Qdrant-compatible) and gRPC over one engine.
// buildServer wires them; listen() binds both ports; drain() stops admitting requests (503 and
// UNAVAILABLE from then on) and idle() says when those admitted are answered; close() then closes
// the ports and connections. The engine belongs to the caller: server/shutdown.ts is the order in
// which `strata serve` stops both.
import type * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../engine/public.js';
import { keyCheck } from './auth.js';
import { ConnectionDrain } from './connection-drain.js';
import type { GrpcContext } from './grpc/calls.js';
import { bindGrpc, buildGrpc, shutdownGrpc } from './grpc/grpc-server.js';
import { buildQdrantGrpc, type QdrantGrpcServer } from './grpc/qdrant/qdrant-server.js';
import { Lifecycle } from './lifecycle.js';
import { ServerMetrics } from './metrics.js';
import { resolveOptions, type ResolvedOptions, type ServerOptions } from './options.js';
import { buildRest } from './rest/rest-server.js';

export interface ServerAddresses {
  /** e.g. http://127.0.0.1:6333 */
  rest: string;
  /** host:port, or null when gRPC is disabled. */
  grpc: string | null;
  restPort: number;
  grpcPort: number | null;
  /** host:port of Qdrant's gRPC API, or null when it is not served (--no-qdrant-grpc). */
  qdrantGrpc: string | null;
  qdrantGrpcPort: number | null;
}

export interface StrataServer {
  readonly rest: FastifyInstance;
  readonly grpc: grpc.Server | null;
  readonly options: ResolvedOptions;
  readonly lifecycle: Lifecycle;
  readonly metrics: ServerMetrics;
  listen(): Promise<ServerAddresses>;
  /**
   * Readiness goes 503 and new requests get 503 with Connection: close (gRPC: UNAVAILABLE, and
   * GOAWAY to its clients), while admitted ones go on. The ports stay open so that late requests get
   * that answer rather than a refused connection.
   */
  drain(): void;
  /** Resolves once every admitted request (REST and gRPC) is answered. */
  idle(): Promise<void>;
  /**
   * drain(), then waits for admitted requests (at most waitMs), closes the ports and the connections:
   * new connections are refused, open ones end after their next answer (503 with Connection: close)
   * or are cut after a grace period of a second.
   */
  close(waitMs?: number): Promise<void>;
}

/** Once closing, how long open connections get to carry their last answer before they are cut, ms. */
const CONNECTION_GRACE_MS = 1000;

export function buildServer(engine: Engine, opts: ServerOptions = {}): StrataServer {
  const options = resolveOptions(opts);
  const lifecycle = new Lifecycle(engine);
  const metrics = new ServerMetrics(engine);
  const rest = buildRest({ engine, options, metrics, lifecycle });
  const connections = new ConnectionDrain(rest.server);
  const grpcCtx = (protocol: string): GrpcContext => ({
    engine,
    options,
    metrics,
    lifecycle,
    check: keyCheck(options.apiKey),
    log: rest.log.child({ protocol }),
  });
  const grpcServer = options.grpcPort === null ? null : buildGrpc(grpcCtx('grpc'));
  const qdrantServer: QdrantGrpcServer | null = options.qdrantGrpcPort === null ? null : buildQdrantGrpc(grpcCtx('qdrant-grpc'));
  let closed: Promise<void> | null = null;
  let grpcStopped: Promise<void> | null = null;
  const drain = (): void => {
    lifecycle.markClosing();
    if (grpcServer) grpcStopped ??= shutdownGrpc(grpcServer, options.grpcDrainMs);
  };

  return {
    rest,
    grpc: grpcServer,
    options,
    lifecycle,
    metrics,
    async listen() {
      await rest.listen({ host: options.host, port: options.port });
      const addr = rest.server.address();
      const restPort = typeof addr === 'object' && addr !== null ? addr.port : options.port;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      let grpcPort: number | null = null;
      if (grpcServer && options.grpcPort !== null) grpcPort = await bindGrpc(grpcServer, options.host, options.grpcPort);
      let qdrantGrpcPort: number | null = null;
      if (qdrantServer && options.qdrantGrpcPort !== null) qdrantGrpcPort = await qdrantServer.listen(options.host, options.qdrantGrpcPort);
      lifecycle.markListening();
      metrics.history.start();
      return {
        rest: `http://${host}:${restPort}`,
        grpc: grpcPort === null ? null : `${host}:${grpcPort}`,
        restPort,
        grpcPort,
        qdrantGrpc: qdrantGrpcPort === null ? null : `${host}:${qdrantGrpcPort}`,
        qdrantGrpcPort,
      };
    },
    drain,
    idle: () => lifecycle.idle(),
    close(waitMs = Number.POSITIVE_INFINITY) {
      closed ??= (async () => {
        metrics.history.stop();
        drain();
        if (lifecycle.inFlight > 0) {
          let timer: NodeJS.Timeout | undefined;
          const waited = Number.isFinite(waitMs) ? new Promise<void>((r) => (timer = setTimeout(r, waitMs))) : new Promise<void>(() => {});
          await Promise.race([lifecycle.idle(), waited]);
          clearTimeout(timer);
        }
        // The REST connections end first, each after its next answer (connection-drain.ts); fastify's
        // own close would cut the idle ones at once, resetting requests already on their way.
        // Qdrant's gRPC port, likewise, stays open while draining: late calls get UNAVAILABLE with
        // retry-after from the handlers rather than a GOAWAY race, which Qdrant's clients report as
        // an internal error (a refused stream). Its connections get their GOAWAY now.
        await Promise.all([connections.close(CONNECTION_GRACE_MS), qdrantServer?.shutdown(CONNECTION_GRACE_MS)]);
        await Promise.all([rest.close(), grpcStopped]);
      })();
      return closed;
    },
  };
}
