// The router's gRPC API: the same services and messages as `strata serve` (proto/strata.proto), each
// call answered by the router's own REST routes in process (fastify's inject: no socket), so fan-out,
// merging, replica failover, hedging, the partial-answer policy and write routing exist once, in
// router-server.ts. A REST error comes back as the gRPC status of its Strata code (server/errors.ts),
// with the code in the `strata-code` trailer, as `strata serve` answers.
import * as grpc from '@grpc/grpc-js';
import { ERROR_CODES, type ErrorCode } from '../../common/errors.js';
import { packMsgpack, unpackMsgpack } from '../rest/codec.js';
import { MAX_MESSAGE_CHARS, STATUS_OF } from '../errors.js';
import { maxSendBytes } from '../grpc/grpc-server.js';
import type {
  CountRequestMsg,
  CreateCollectionRequestMsg,
  DeletePointsRequestMsg,
  GetRequestMsg,
  SearchBatchRequestMsg,
  SearchRequestMsg,
  SetPayloadRequestMsg,
  UpsertRequestMsg,
} from '../grpc/messages.js';
import { loadServices, type Malformed, malformedReason } from '../grpc/protos.js';
import type { StrataRouter } from './router-server.js';

interface RestAnswer {
  status: number;
  code: string | undefined;
  body: { result?: unknown; status?: unknown; time?: number };
}

/** A gRPC status for a REST failure: its Strata code's status, else by the HTTP status. */
function statusError(a: RestAnswer): grpc.ServerErrorResponse {
  const known = a.code !== undefined && a.code in ERROR_CODES ? (a.code as ErrorCode) : null;
  const byHttp: Record<number, grpc.status> = { 400: grpc.status.INVALID_ARGUMENT, 401: grpc.status.UNAUTHENTICATED, 404: grpc.status.NOT_FOUND };
  const code = known ? STATUS_OF[known].grpc : (byHttp[a.status] ?? (a.status >= 500 ? grpc.status.UNAVAILABLE : grpc.status.UNKNOWN));
  const error = (a.body.status as { error?: unknown } | undefined)?.error;
  const details = String(error ?? `HTTP ${a.status}`).slice(0, MAX_MESSAGE_CHARS);
  const metadata = new grpc.Metadata();
  if (known) metadata.set('strata-code', known);
  return Object.assign(new Error(details), { code, details, metadata });
}

const f32 = (v: unknown): Float32Array => (v instanceof Float32Array ? v : Float32Array.from((v as number[] | undefined) ?? []));
const enc = encodeURIComponent;

export function buildRouterGrpc(router: StrataRouter, o: { bodyLimit: number; maxBatch: number }): grpc.Server {
  const app = router.app;
  /** One REST call to the router itself, with the caller's credentials. */
  async function rest(metadata: grpc.Metadata, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/msgpack' };
    for (const name of ['api-key', 'authorization']) {
      const v = metadata.get(name)[0];
      if (v !== undefined) headers[name] = String(v);
    }
    if (body !== undefined) headers['content-type'] = 'application/msgpack';
    const res = await app.inject({ method, url, headers, ...(body !== undefined ? { payload: packMsgpack(body) } : {}) });
    const parsed = (res.headers['content-type'] ?? '').toString().includes('msgpack') ? unpackMsgpack(res.rawPayload) : JSON.parse(res.body || '{}');
    const a: RestAnswer = { status: res.statusCode, code: res.headers['strata-code']?.toString(), body: parsed as RestAnswer['body'] };
    if (a.status >= 400) throw statusError(a);
    return a.body.result;
  }

  function handler<Req, Res>(fn: (req: Req, md: grpc.Metadata) => Promise<Res>): grpc.handleUnaryCall<Req | Malformed, Res> {
    return (call, callback) => {
      const why = malformedReason(call.request);
      if (why !== null) {
        const details = `message: malformed protobuf: ${why}`;
        callback(Object.assign(new Error(details), { code: grpc.status.INVALID_ARGUMENT, details }));
        return;
      }
      fn(call.request as Req, call.metadata).then(
        (res) => callback(null, res),
        (e: unknown) =>
          callback(e instanceof Error && 'code' in e ? (e as grpc.ServerErrorResponse) : Object.assign(new Error(String(e)), { code: grpc.status.INTERNAL })),
      );
    };
  }

  type Hit = { id: number; score: number; vector?: number[] };
  const scored = (hits: Hit[]) => hits.map((h) => ({ id: Number(h.id), score: h.score, vector: f32(h.vector) }));
  /** A gRPC search as the REST body the router takes (the same field names; gRPC-only fields out). */
  const searchBody = (r: SearchRequestMsg): Record<string, unknown> => {
    const { collection_name: _c, timeout_ms: _t, with_stats: _s, ...rest } = r as SearchRequestMsg & { timeout_ms?: number; with_stats?: boolean };
    return { ...rest, vector: Array.from(r.vector as ArrayLike<number>) };
  };

  async function searchOne(r: SearchRequestMsg, md: grpc.Metadata): Promise<unknown> {
    const t0 = performance.now();
    const hits = (await rest(md, 'POST', `/collections/${enc(r.collection_name)}/points/search`, searchBody(r))) as Hit[];
    return { result: scored(hits), strata: null, time: (performance.now() - t0) / 1000 };
  }

  /**
   * Answers a stream of searches in order, one at a time: input is paused while a search is out and
   * while the client does not read (backpressure). The first failure ends the stream with its status,
   * its message naming the request (counting from 0), as strata serve's does.
   */
  const searchStream = ((call: grpc.ServerDuplexStream<SearchRequestMsg | Malformed, unknown>) => {
    let chain: Promise<void> = Promise.resolve();
    let failed = false;
    let received = 0;
    call.on('data', (m: SearchRequestMsg | Malformed) => {
      const i = received++;
      call.pause();
      chain = chain.then(async () => {
        if (failed) return;
        try {
          const why = malformedReason(m);
          if (why !== null) throw Object.assign(new Error(`message: malformed protobuf: ${why}`), { code: grpc.status.INVALID_ARGUMENT });
          if (!call.write(await searchOne(m as SearchRequestMsg, call.metadata))) await new Promise((r) => call.once('drain', r));
          call.resume();
        } catch (e) {
          failed = true;
          const err = e as grpc.ServerErrorResponse;
          const details = `request ${i}: ${err.details ?? err.message}`.slice(0, MAX_MESSAGE_CHARS);
          call.emit(
            'error',
            Object.assign(new Error(details), { code: err.code ?? grpc.status.INTERNAL, details, ...(err.metadata ? { metadata: err.metadata } : {}) }),
          );
        }
      });
    });
    call.on('end', () => void chain.then(() => !failed && call.end()));
  }) as grpc.handleBidiStreamingCall<unknown, unknown>;

  const points: grpc.UntypedServiceImplementation = {
    Search: handler<SearchRequestMsg, unknown>(searchOne),
    SearchStream: searchStream,
    SearchBatch: handler<SearchBatchRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const answers = (await rest(md, 'POST', `/collections/${enc(r.collection_name)}/points/search/batch`, {
        searches: r.searches.map(searchBody),
      })) as Hit[][];
      const time = (performance.now() - t0) / 1000;
      return { result: answers.map((hits) => ({ result: scored(hits), strata: null, time })), time };
    }),
    Get: handler<GetRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const found = (await rest(md, 'POST', `/collections/${enc(r.collection_name)}/points`, { ids: r.ids, with_vector: r.with_vector })) as Hit[];
      return { result: found.map((p) => ({ id: Number(p.id), vector: f32(p.vector) })), time: (performance.now() - t0) / 1000 };
    }),
    Count: handler<CountRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const c = (await rest(md, 'POST', `/collections/${enc(r.collection_name)}/points/count`, {})) as { count: number };
      return { count: c.count, time: (performance.now() - t0) / 1000 };
    }),
    // gRPC writes answer once visible to search, as `strata serve` does: wait=true.
    Upsert: handler<UpsertRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const pts = r.points.map((p) => ({
        id: p.id,
        vector: Array.from(p.vector as ArrayLike<number>),
        ...(p.payload_json ? { payload: JSON.parse(p.payload_json) as unknown } : {}),
      }));
      const u = (await rest(md, 'PUT', `/collections/${enc(r.collection_name)}/points?wait=true`, { points: pts })) as { operation_id: number; status: string };
      return { ...u, time: (performance.now() - t0) / 1000 };
    }),
    Delete: handler<DeletePointsRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const u = (await rest(md, 'POST', `/collections/${enc(r.collection_name)}/points/delete?wait=true`, { points: r.ids })) as {
        operation_id: number;
        status: string;
      };
      return { ...u, time: (performance.now() - t0) / 1000 };
    }),
    SetPayload: handler<SetPayloadRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      let payload: unknown;
      try {
        payload = JSON.parse(r.payload_json || 'null') as unknown;
      } catch {
        throw Object.assign(new Error('payload_json: is not JSON'), { code: grpc.status.INVALID_ARGUMENT, details: 'payload_json: is not JSON' });
      }
      const u = (await rest(md, r.overwrite ? 'PUT' : 'POST', `/collections/${enc(r.collection_name)}/points/payload?wait=true`, {
        points: r.ids,
        payload,
      })) as {
        operation_id: number;
        status: string;
      };
      return { ...u, time: (performance.now() - t0) / 1000 };
    }),
  };

  const collections: grpc.UntypedServiceImplementation = {
    List: handler<unknown, unknown>(async (_r, md) => {
      const t0 = performance.now();
      const l = (await rest(md, 'GET', '/collections')) as { collections: Array<{ name: string }> };
      return { collections: l.collections.map((c) => ({ name: c.name })), time: (performance.now() - t0) / 1000 };
    }),
    Get: handler<{ collection_name: string }, unknown>(async (r, md) => {
      const t0 = performance.now();
      const c = (await rest(md, 'GET', `/collections/${enc(r.collection_name)}`)) as {
        status: string;
        points_count: number;
        config: { params: { vectors: { size: number; distance: string } }; hnsw_config?: { m?: number; ef_construct?: number } };
        strata?: { status_reasons?: string[] };
      };
      return {
        result: {
          name: r.collection_name,
          status: c.status,
          dimension: c.config.params.vectors.size,
          distance: c.config.params.vectors.distance,
          points_count: c.points_count,
          hnsw_m: c.config.hnsw_config?.m ?? 0,
          hnsw_ef_construct: c.config.hnsw_config?.ef_construct ?? 0,
          status_reasons: c.strata?.status_reasons ?? [],
        },
        time: (performance.now() - t0) / 1000,
      };
    }),
  };

  Object.assign(collections, {
    // The REST body of a create, as strata serve's gRPC Create builds it (0: the defaults).
    Create: handler<CreateCollectionRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      await rest(md, 'PUT', `/collections/${enc(r.collection_name)}`, {
        vectors: { size: r.dimension, distance: r.distance },
        hnsw_config: { ...(r.hnsw_m ? { m: r.hnsw_m } : {}), ...(r.hnsw_ef_construct ? { ef_construct: r.hnsw_ef_construct } : {}) },
      });
      return { result: true, time: (performance.now() - t0) / 1000 };
    }),
    Delete: handler<{ collection_name: string }, unknown>(async (r, md) => {
      const t0 = performance.now();
      const existed = await rest(md, 'DELETE', `/collections/${enc(r.collection_name)}`);
      return { result: existed === true, time: (performance.now() - t0) / 1000 };
    }),
    Compact: handler<{ collection_name: string }, unknown>(async (r, md) => {
      const t0 = performance.now();
      const result = await rest(md, 'POST', `/collections/${enc(r.collection_name)}/compact`);
      return { result, time: (performance.now() - t0) / 1000 };
    }),
  });

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
  server.addService(services.points, points);
  server.addService(services.collections, collections);
  server.addService(services.health, health);
  return server;
}
