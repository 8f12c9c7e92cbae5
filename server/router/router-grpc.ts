// The router's gRPC API: the same services and messages as `strata serve` (proto/strata.proto), each
// call answered by the router's own REST routes in process (grpc/rest-call.ts), so fan-out, merging,
// replica failover, hedging, the partial-answer policy and write routing exist once, in the REST
// routes. This module composes the services.
import * as grpc from '@grpc/grpc-js';
import { maxSendBytes } from '../grpc/grpc-server.js';
import { loadServices } from '../grpc/protos.js';
import { collectionsService } from './grpc/collections-service.js';
import { pointWrites } from './grpc/point-writes.js';
import { pointReads } from './grpc/point-reads.js';
import { restCall } from './grpc/rest-call.js';
import type { StrataRouter } from './router-server.js';

export function buildRouterGrpc(router: StrataRouter, o: { bodyLimit: number; maxBatch: number }): grpc.Server {
  const app = router.app;
  const rest = restCall(app);

  // The standard health service follows /readyz: SERVING while every shard answers (per the policy).
  const health: grpc.UntypedServiceImplementation = {
    Check: ((_call, callback) => {
      void app.inject({ method: 'GET', url: '/readyz' }).then((res) => callback(null, { status: res.statusCode === 200 ? 'SERVING' : 'NOT_SERVING' }));
    }) as grpc.handleUnaryCall<unknown, unknown>,
  };

  const services = loadServices();
  const server = new grpc.Server({
    'grpc.max_receive_message_length': o.bodyLimit,
    'grpc.max_send_message_length': maxSendBytes(o.bodyLimit, o.maxBatch),
  });
  server.addService(services.points, { ...pointReads(rest), ...pointWrites(rest) });
  server.addService(services.collections, collectionsService(rest));
  server.addService(services.health, health);
  return server;
}
