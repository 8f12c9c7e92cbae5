// The gRPC server: Points, Collections and the standard health service on one port, with the
// message limit set to the REST body limit (grpc-js's default is 4 MiB) so both protocols take the
// same batch sizes. Answers are bounded before any search runs (server/api/answer-size.ts); the send
// limit is that bound plus room for per-search stats and protobuf framing, finite so that nothing
// unbounded is ever serialised.
import * as grpc from '@grpc/grpc-js';
import type { GrpcContext } from './calls.js';
import { collectionsService } from './collections-service.js';
import { healthService } from './health-service.js';
import { pointsService } from './points-service.js';
import { loadServices } from './protos.js';

/** Stats and framing of one search in a SearchBatch answer, bytes (measured ~150; doubled). */
const PER_SEARCH_BYTES = 512;

/** The largest answer message: the answer limit (which counts 64 bytes a point, more than protobuf spends) plus per-search stats. */
export function maxSendBytes(answerLimit: number, maxBatch: number): number {
  return Math.min(2 ** 31 - 1, answerLimit + maxBatch * PER_SEARCH_BYTES + 64 * 1024);
}

export function buildGrpc(ctx: GrpcContext): grpc.Server {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': ctx.options.bodyLimit,
    'grpc.max_send_message_length': maxSendBytes(ctx.options.answerLimit, ctx.options.maxBatch),
  });
  const services = loadServices();
  server.addService(services.points, pointsService(ctx));
  server.addService(services.collections, collectionsService(ctx));
  server.addService(services.health, healthService(ctx));
  return server;
}

/** Binds host:port (0 picks a free port) and resolves to the port bound. */
export function bindGrpc(server: grpc.Server, host: string, port: number): Promise<number> {
  // IPv6 literals need brackets in a gRPC target.
  const target = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
  });
}

/** Lets calls in flight finish for up to drainMs, then cancels what is left (open streams). */
export function shutdownGrpc(server: grpc.Server, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, drainMs);
    timer.unref();
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
