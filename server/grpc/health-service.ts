// grpc.health.v1.Health, the standard health protocol (what Kubernetes' gRPC probes and grpc
// load balancers call): SERVING while the server is ready (as /readyz), NOT_SERVING while draining.
// Like /livez it needs no API key: probes cannot send one.
import * as grpc from '@grpc/grpc-js';
import { quoted } from '../../common/errors.js';
import { decoded, GrpcStatusError, serviceError, unary, type GrpcContext } from './calls.js';
import type { HealthCheckRequestMsg, HealthCheckResponseMsg, ServingStatus } from './messages.js';
import type { Malformed } from './protos.js';

/** "" is the server as a whole. */
export const HEALTH_SERVICES = ['', 'strata.v1.Points', 'strata.v1.Collections'];

function statusOf(ctx: GrpcContext, service: string): ServingStatus | null {
  if (!HEALTH_SERVICES.includes(service)) return null;
  return ctx.lifecycle.ready ? 'SERVING' : 'NOT_SERVING';
}

export function healthService(ctx: GrpcContext): grpc.UntypedServiceImplementation {
  const check = unary<HealthCheckRequestMsg, HealthCheckResponseMsg>(
    ctx,
    'Health/Check',
    (req) => {
      const status = statusOf(ctx, req.service);
      // The health protocol answers NOT_FOUND for a service it does not know.
      if (status === null)
        throw new GrpcStatusError(
          grpc.status.NOT_FOUND,
          `unknown service ${quoted(req.service)}: known are ${HEALTH_SERVICES.map((s) => `"${s}"`).join(', ')}`,
        );
      return { status };
    },
    { public: true },
  );
  const watch: grpc.handleServerStreamingCall<HealthCheckRequestMsg | Malformed, HealthCheckResponseMsg> = (call) => {
    let req: HealthCheckRequestMsg;
    try {
      req = decoded(call.request);
    } catch (e) {
      call.emit('error', serviceError(ctx, e));
      return;
    }
    // Watch sends the status now and again on every change; an unknown service is SERVICE_UNKNOWN.
    let last: ServingStatus | null = null;
    const send = (): void => {
      const s = statusOf(ctx, req.service) ?? 'SERVICE_UNKNOWN';
      if (s !== last) {
        last = s;
        call.write({ status: s });
      }
    };
    const off = ctx.lifecycle.onChange(send);
    call.on('cancelled', off);
    call.on('close', off);
    send();
  };
  return { Check: check, Watch: watch };
}
