// The query service: REST (JSON and MessagePack, Qdrant-compatible) and gRPC over one engine.
// buildServer wires them; listen() binds both ports; close() stops taking requests and lets those in
// flight finish. The engine belongs to the caller, who closes it after the server (its close drains
// the searches still queued).
import type * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { keyCheck } from './auth.js';
import { bindGrpc, buildGrpc, shutdownGrpc } from './grpc/grpc-server.js';
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
}

export interface StrataServer {
  readonly rest: FastifyInstance;
  readonly grpc: grpc.Server | null;
  readonly options: ResolvedOptions;
  readonly lifecycle: Lifecycle;
  readonly metrics: ServerMetrics;
  listen(): Promise<ServerAddresses>;
  /** Stops accepting, answers 503 to new requests on open connections, waits for those in flight. */
  close(): Promise<void>;
}

export function buildServer(engine: Engine, opts: ServerOptions = {}): StrataServer {
  const options = resolveOptions(opts);
  const lifecycle = new Lifecycle(engine);
  const metrics = new ServerMetrics(engine);
  const rest = buildRest({ engine, options, metrics, lifecycle });
  const grpcServer =
    options.grpcPort === null
      ? null
      : buildGrpc({ engine, options, metrics, lifecycle, check: keyCheck(options.apiKey), log: rest.log.child({ protocol: 'grpc' }) });
  let closed: Promise<void> | null = null;

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
      lifecycle.markListening();
      return { rest: `http://${host}:${restPort}`, grpc: grpcPort === null ? null : `${host}:${grpcPort}`, restPort, grpcPort };
    },
    close() {
      closed ??= (async () => {
        lifecycle.markClosing();
        await Promise.all([rest.close(), grpcServer ? shutdownGrpc(grpcServer, options.grpcDrainMs) : Promise.resolve()]);
      })();
      return closed;
    },
  };
}
