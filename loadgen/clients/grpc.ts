// gRPC search (strata.v1.Points/Search) with @grpc/grpc-js over one HTTP/2 channel: concurrent calls
// are multiplexed streams on it, which is how a gRPC client normally runs. Messages are loaded from
// proto/strata.proto at run time, the same file the server serves (the contract, not server code).
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoFile } from '../../common/paths.js';
import {
  allRequests,
  asksStats,
  costFrom,
  hitsFrom,
  noResultLists,
  type ClientOptions,
  type QueryAnswer,
  type SearchAnswer,
  type SearchClient,
} from './types.js';

type Callback = (e: grpc.ServiceError | null, v: { result?: unknown; strata?: unknown } | undefined) => void;

export interface PointsStub extends grpc.Client {
  Search(req: object, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback): grpc.ClientUnaryCall;
  SearchBatch(req: object, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback): grpc.ClientUnaryCall;
}

export interface CollectionsStub extends grpc.Client {
  Get(
    req: object,
    md: grpc.Metadata,
    opts: grpc.CallOptions,
    cb: (e: grpc.ServiceError | null, v: { result?: { dimension?: number; distance?: string } } | undefined) => void,
  ): grpc.ClientUnaryCall;
}

interface StrataPackage {
  strata: { v1: { Points: grpc.ServiceClientConstructor; Collections: grpc.ServiceClientConstructor } };
}

let pkg: StrataPackage | null = null;

function strataPackage(): StrataPackage {
  // longs as Number: ids are below 2^53; keepCase: field names as in the REST API.
  pkg ??= grpc.loadPackageDefinition(
    protoLoader.loadSync(protoFile('strata.proto'), { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true }),
  ) as unknown as StrataPackage;
  return pkg;
}

export function pointsStub(target: string): PointsStub {
  return new (strataPackage().strata.v1.Points)(target, grpc.credentials.createInsecure()) as unknown as PointsStub;
}

export function collectionsStub(target: string): CollectionsStub {
  return new (strataPackage().strata.v1.Collections)(target, grpc.credentials.createInsecure()) as unknown as CollectionsStub;
}

export function apiKeyMetadata(apiKey: string | undefined): grpc.Metadata {
  const md = new grpc.Metadata();
  if (apiKey !== undefined) md.set('api-key', apiKey);
  return md;
}

/** UNAVAILABLE without Strata's `strata-code` trailer: the channel never reached a Strata server. */
export function isTransportFailure(e: grpc.ServiceError): boolean {
  return e.code === grpc.status.UNAVAILABLE && e.metadata?.get('strata-code').length === 0;
}

export interface GrpcClientOptions extends ClientOptions {
  target: string;
  collection: string;
  queries: Float32Array;
  dim: number;
}

export function grpcClient(o: GrpcClientOptions): SearchClient {
  const stub = pointsStub(o.target);
  const n = o.queries.length / o.dim;
  // `repeated float` takes plain arrays (a Float32Array is rejected): converted once per step.
  const one = (q: number): object => ({
    collection_name: o.collection,
    vector: Array.from(o.queries.subarray(q * o.dim, (q + 1) * o.dim)),
    limit: o.k,
    params: { hnsw_ef: o.ef },
    with_stats: asksStats(o, q),
  });
  const requests = allRequests(n, o.batch).map((qs) => (o.batch === 1 ? one(qs[0]!) : { collection_name: o.collection, searches: qs.map(one) }));
  const md = apiKeyMetadata(o.apiKey);
  // Search answers {result, strata}; SearchBatch {result: [{result, strata}]}, one per search.
  const answersOf = (v: { result?: unknown; strata?: unknown } | undefined): QueryAnswer[] | null => {
    const each: unknown[] = o.batch === 1 ? [v] : Array.isArray(v?.result) ? v.result : [];
    if (each.length !== o.batch) return null;
    const out: QueryAnswer[] = [];
    for (const a of each) {
      const r = a as { result?: unknown; strata?: unknown } | undefined;
      const hits = hitsFrom(r?.result);
      if (hits === null) return null;
      out.push({ ...hits, cost: costFrom(r?.strata) });
    }
    return out;
  };
  return {
    search(r: number): Promise<SearchAnswer> {
      return new Promise((resolve) => {
        const done: Callback = (e, v) => {
          const at = o.now();
          if (e) {
            resolve({ ok: false, at, status: grpc.status[e.code] ?? String(e.code), transport: isTransportFailure(e), message: e.details });
            return;
          }
          const answers = answersOf(v);
          if (answers === null) resolve({ ok: false, at, status: 'bad-answer', transport: false, message: noResultLists(o.batch) });
          else resolve({ ok: true, at, answers });
        };
        const req = requests[r % requests.length]!;
        const opts = { deadline: Date.now() + o.timeoutMs };
        if (o.batch === 1) stub.Search(req, md, opts, done);
        else stub.SearchBatch(req, md, opts, done);
      });
    },
    close: async () => stub.close(),
  };
}
