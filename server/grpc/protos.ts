// Loading proto/*.proto with proto-loader. The .proto files are read at run time from the project
// root (they are not compiled into dist/), so the server, the tests and any client use the same
// files. Field names stay snake_case (keepCase) so a decoded message has the REST body's names.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoFile } from '../../common/paths.js';
import { encodeGetResponse, encodeSearchBatchResponse, encodeSearchResponse } from './answer-encoding.js';

export const STRATA_PROTO = protoFile('strata.proto');
export const HEALTH_PROTO = protoFile('health.proto');

/** longs as Number: ids are below 2^53; defaults: absent scalars read as 0 / "" / false. */
export const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };

const MALFORMED = Symbol('malformed protobuf message');

/** What a handler receives when the request bytes did not decode (answered INVALID_ARGUMENT). */
export interface Malformed {
  readonly [MALFORMED]: string;
}

export function malformedReason(m: unknown): string | null {
  return typeof m === 'object' && m !== null && MALFORMED in m ? (m as Malformed)[MALFORMED] : null;
}

export interface LoadedServices {
  points: grpc.ServiceDefinition;
  collections: grpc.ServiceDefinition;
  health: grpc.ServiceDefinition;
}

/**
 * grpc-js answers a request that fails to decode with INTERNAL, which reads as a server bug; the
 * wrapped deserializer hands the handler a marker instead, answered as INVALID_ARGUMENT.
 */
function tolerant(def: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, m] of Object.entries(def)) {
    const de = m.requestDeserialize;
    out[name] = {
      ...m,
      requestDeserialize: (buf: Buffer): unknown => {
        try {
          return de(buf);
        } catch (e) {
          return { [MALFORMED]: e instanceof Error ? e.message.slice(0, 120) : 'cannot decode' };
        }
      },
    };
  }
  return out as grpc.ServiceDefinition;
}

/** Points answers are written by answer-encoding.ts rather than protobufjs (which blocks for seconds on large ones). */
const ANSWER_ENCODERS: Record<string, (v: never) => Buffer> = {
  Search: encodeSearchResponse,
  SearchStream: encodeSearchResponse,
  SearchBatch: encodeSearchBatchResponse,
  Get: encodeGetResponse,
};

function fastAnswers(def: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, m] of Object.entries(def)) {
    const encode = ANSWER_ENCODERS[name];
    out[name] = encode ? { ...m, responseSerialize: encode as (v: unknown) => Buffer } : m;
  }
  return out as grpc.ServiceDefinition;
}

export function loadPackage(): grpc.GrpcObject {
  return grpc.loadPackageDefinition(protoLoader.loadSync([STRATA_PROTO, HEALTH_PROTO], LOADER_OPTIONS));
}

function service(pkg: grpc.GrpcObject, path: string): grpc.ServiceDefinition {
  let node: unknown = pkg;
  for (const part of path.split('.')) node = (node as Record<string, unknown>)[part];
  return (node as grpc.ServiceClientConstructor).service;
}

export function loadServices(): LoadedServices {
  const pkg = loadPackage();
  return {
    points: fastAnswers(tolerant(service(pkg, 'strata.v1.Points'))),
    collections: tolerant(service(pkg, 'strata.v1.Collections')),
    health: tolerant(service(pkg, 'grpc.health.v1.Health')),
  };
}
