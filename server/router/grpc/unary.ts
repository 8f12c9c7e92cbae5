// What the router's gRPC handlers share: undecodable messages refused as INVALID_ARGUMENT, and a
// unary call answered by an async function whose rejection is the call's status.
import * as grpc from '@grpc/grpc-js';
import { StrataError } from '../../../common/errors.js';
import { strataStatus } from '../../grpc/calls.js';
import { type Malformed, malformedReason } from '../../grpc/protos.js';

/** The status of a request whose bytes were not a valid message. */
export function malformedStatus(why: string): grpc.ServerErrorResponse {
  const details = `message: malformed protobuf: ${why}`;
  return Object.assign(new Error(details), { code: grpc.status.INVALID_ARGUMENT, details });
}

export function unary<Req, Res>(fn: (req: Req, md: grpc.Metadata) => Promise<Res>): grpc.handleUnaryCall<Req | Malformed, Res> {
  return (call, callback) => {
    const why = malformedReason(call.request);
    if (why !== null) {
      callback(malformedStatus(why));
      return;
    }
    // A handler's own check (a JSON text field that is not JSON) fails as a StrataError.
    Promise.resolve()
      .then(() => fn(call.request as Req, call.metadata))
      .then(
        (res) => callback(null, res),
        (e: unknown) =>
          callback(
            e instanceof StrataError
              ? strataStatus(e)
              : e instanceof Error && 'code' in e
                ? (e as grpc.ServerErrorResponse)
                : Object.assign(new Error(String(e)), { code: grpc.status.INTERNAL }),
          ),
      );
  };
}
