// The one place where errors meet protocols: each Strata error code's HTTP status and gRPC status,
// and the normalisation of anything thrown into a StrataError. REST and gRPC both answer from here,
// so a code never means 429 on one and UNAVAILABLE on the other.
import { status as GrpcStatus } from '@grpc/grpc-js';
import { StrataError, type ErrorCode } from '../common/errors.js';

export interface ProtocolStatus {
  http: number;
  grpc: GrpcStatus;
}

/** Every code is listed (the Record type makes a new code fail to compile until it is mapped). */
export const STATUS_OF: Readonly<Record<ErrorCode, ProtocolStatus>> = {
  STRATA_INVALID_ARGUMENT: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  STRATA_DATASET_FORMAT: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  STRATA_DATASET_VALUE: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  STRATA_DATASET_DIMENSION: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  STRATA_INDEX_EXISTS: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS },
  STRATA_INDEX_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  STRATA_INDEX_CORRUPT: { http: 500, grpc: GrpcStatus.DATA_LOSS },
  STRATA_INDEX_VERSION: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  STRATA_DRAM_BUDGET: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  STRATA_NUMA_UNAVAILABLE: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  STRATA_NUMA_BIND: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  STRATA_KERNEL: { http: 500, grpc: GrpcStatus.INTERNAL },
  STRATA_COLLECTION_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  STRATA_COLLECTION_EXISTS: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS },
  STRATA_OVERLOADED: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  STRATA_DEADLINE_EXCEEDED: { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED },
  // 499 (client closed request): the client is gone and will not read it, but logs and metrics do.
  STRATA_CANCELLED: { http: 499, grpc: GrpcStatus.CANCELLED },
  STRATA_SHUTTING_DOWN: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  STRATA_WORKER_FAILED: { http: 500, grpc: GrpcStatus.INTERNAL },
  STRATA_UNREACHABLE: { http: 502, grpc: GrpcStatus.UNAVAILABLE },
  STRATA_POINT_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  STRATA_ALIAS_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  STRATA_SNAPSHOT_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  STRATA_UNAUTHENTICATED: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  STRATA_READ_ONLY: { http: 405, grpc: GrpcStatus.UNIMPLEMENTED },
  STRATA_PAYLOAD_TOO_LARGE: { http: 413, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  STRATA_UNSUPPORTED_MEDIA_TYPE: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT },
  STRATA_ROUTE_NOT_FOUND: { http: 404, grpc: GrpcStatus.UNIMPLEMENTED },
  STRATA_NOT_IMPLEMENTED: { http: 501, grpc: GrpcStatus.UNIMPLEMENTED },
  // 507 Insufficient Storage: the server's disk, not the request, is at fault; retry once it is fixed.
  STRATA_STORAGE: { http: 507, grpc: GrpcStatus.UNAVAILABLE },
  STRATA_WRITE_LOG: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  STRATA_INTERNAL: { http: 500, grpc: GrpcStatus.INTERNAL },
};

/** Errors that are the server's fault: logged with their stack, answered without internals. */
export function isServerFault(e: StrataError): boolean {
  return STATUS_OF[e.code].http >= 500 && e.code !== 'STRATA_SHUTTING_DOWN' && e.code !== 'STRATA_DEADLINE_EXCEEDED' && e.code !== 'STRATA_NOT_IMPLEMENTED';
}

/** Something thrown that is not a StrataError: a bug. The message says so without leaking internals. */
export function internalError(cause: unknown): StrataError {
  return new StrataError('STRATA_INTERNAL', 'internal error while serving the request (logged on the server)', {}, { cause });
}

/**
 * Longest error message sent to a client (REST envelope, gRPC details). Echoes of input are cut where
 * they are made (common/errors.ts, quoted); this is the backstop: gRPC sends the message in the
 * grpc-message header, and past HTTP/2's header limits a call and its channel hang.
 */
export const MAX_MESSAGE_CHARS = 1024;

export function messageOf(e: StrataError): string {
  return e.message.length > MAX_MESSAGE_CHARS ? `${e.message.slice(0, MAX_MESSAGE_CHARS - 1)}…` : e.message;
}

export function asStrataError(e: unknown): StrataError {
  return e instanceof StrataError ? e : internalError(e);
}
