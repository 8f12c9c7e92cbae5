// Qdrant's gRPC API (qdrant.Qdrant, qdrant.Collections, qdrant.Points) served with connect-node, the
// library Qdrant's own JavaScript client is built on, over plain HTTP/2 with the gRPC protocol only.
// It has its own port: grpc-js (strata.v1) owns its HTTP/2 server and has no way to hand it the
// streams of another service, so the two dialects cannot share one listener cleanly. Messages are
// limited as strata.v1's are (the REST body limit in, the answer bound out); gzip is accepted since
// Qdrant's clients compress by default. Snapshots and every RPC not listed answer UNIMPLEMENTED.
import * as http2 from 'node:http2';
import { compressionGzip, connectNodeAdapter } from '@connectrpc/connect-node';
import type { GrpcContext } from '../calls.js';
import { maxSendBytes } from '../grpc-server.js';
import { QdrantRouter } from './calls.js';
import { bindCollections } from './collections-rpc.js';
import { qdrantServices, snapshotsService } from './descriptors.js';
import { bindSnapshots } from './snapshots-rpc.js';
import { bindPointReads } from './point-reads-rpc.js';
import { bindPointWrites } from './point-writes-rpc.js';

export interface QdrantGrpcServer {
  readonly server: http2.Http2Server;
  /** Binds host:port (0 picks a free port) and resolves to the port bound. */
  listen(host: string, port: number): Promise<number>;
  /**
   * Closes the port and sends GOAWAY to every client (calls in flight go on), then cuts what is left
   * after drainMs. server/app.ts calls it once the admitted calls are answered.
   */
  shutdown(drainMs: number): Promise<void>;
}

export function buildQdrantGrpc(ctx: GrpcContext): QdrantGrpcServer {
  const s = qdrantServices();
  const handler = connectNodeAdapter({
    grpc: true,
    grpcWeb: false,
    connect: false,
    acceptCompression: [compressionGzip],
    readMaxBytes: ctx.options.bodyLimit,
    writeMaxBytes: maxSendBytes(ctx.options.answerLimit, ctx.options.maxBatch),
    routes: (router) => {
      const r = new QdrantRouter(router, ctx);
      bindCollections(r, s.collections, s.qdrant, ctx);
      bindPointReads(r, s.points, ctx);
      bindPointWrites(r, s.points, ctx);
      const snapshots = snapshotsService();
      bindSnapshots(r, snapshots, ctx);
      for (const svc of [s.qdrant, s.collections, s.points, snapshots]) r.rest(svc);
    },
  });
  const server = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  let stopped: Promise<void> | null = null;
  return {
    server,
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const a = server.address();
          resolve(typeof a === 'object' && a !== null ? a.port : port);
        });
      }),
    shutdown(drainMs) {
      stopped ??= new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        const timer = setTimeout(() => {
          for (const session of sessions) session.destroy();
        }, drainMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        for (const session of sessions) session.close();
      });
      return stopped;
    },
  };
}
