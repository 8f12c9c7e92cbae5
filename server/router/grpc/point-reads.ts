// The router's strata.v1.Points reads: Search, SearchStream, SearchBatch, Get, Count and Scroll, each
// the router's REST route of the same name called in process (filter_json as the body's filter).
import * as grpc from '@grpc/grpc-js';
import { MAX_MESSAGE_CHARS } from '../../errors.js';
import { secondsSince } from '../../grpc/calls.js';
import { filterMember } from '../../grpc/json-text.js';
import type { CountRequestMsg, GetRequestMsg, ScrollRequestMsg, SearchBatchRequestMsg, SearchRequestMsg } from '../../grpc/messages.js';
import { type Malformed, malformedReason } from '../../grpc/protos.js';
import { collectionPath } from '../collection-paths.js';
import type { RestCall } from './rest-call.js';
import { malformedStatus, unary } from './unary.js';

type Hit = { id: number; score: number; vector?: number[] };

const f32 = (v: unknown): Float32Array => (v instanceof Float32Array ? v : Float32Array.from((v as number[] | undefined) ?? []));
const scored = (hits: Hit[]) => hits.map((h) => ({ id: Number(h.id), score: h.score, vector: f32(h.vector) }));

/** A gRPC search as the REST body the router takes (the same field names; gRPC-only fields out). */
function searchBody(r: SearchRequestMsg): Record<string, unknown> {
  const {
    collection_name: _c,
    timeout_ms: _t,
    with_stats: _s,
    filter_json: _f,
    ...rest
  } = r as SearchRequestMsg & { timeout_ms?: number; with_stats?: boolean };
  // with_stats is passed on when asked for, so that the REST route refuses it, naming it.
  return { ...rest, ...filterMember(r), ...(_s === true ? { with_stats: true } : {}), vector: Array.from(r.vector as ArrayLike<number>) };
}

/**
 * Answers a stream of searches in order, one at a time: input is paused while a search is out and
 * while the client does not read (backpressure). The first failure ends the stream with its status,
 * its message naming the request (counting from 0), as strata serve's does.
 */
function searchStream(searchOne: (r: SearchRequestMsg, md: grpc.Metadata) => Promise<unknown>): grpc.handleBidiStreamingCall<unknown, unknown> {
  return ((call: grpc.ServerDuplexStream<SearchRequestMsg | Malformed, unknown>) => {
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
          if (why !== null) throw malformedStatus(why);
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
}

export function pointReads(rest: RestCall): grpc.UntypedServiceImplementation {
  async function searchOne(r: SearchRequestMsg, md: grpc.Metadata): Promise<unknown> {
    const t0 = performance.now();
    const hits = (await rest(md, 'POST', collectionPath(r.collection_name, '/points/search'), searchBody(r))) as Hit[];
    return { result: scored(hits), strata: null, time: secondsSince(t0) };
  }

  return {
    Search: unary<SearchRequestMsg, unknown>(searchOne),
    SearchStream: searchStream(searchOne),
    SearchBatch: unary<SearchBatchRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const answers = (await rest(md, 'POST', collectionPath(r.collection_name, '/points/search/batch'), {
        searches: r.searches.map(searchBody),
      })) as Hit[][];
      const time = secondsSince(t0);
      return { result: answers.map((hits) => ({ result: scored(hits), strata: null, time })), time };
    }),
    Get: unary<GetRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const found = (await rest(md, 'POST', collectionPath(r.collection_name, '/points'), { ids: r.ids, with_vector: r.with_vector })) as Hit[];
      return { result: found.map((p) => ({ id: Number(p.id), vector: f32(p.vector) })), time: secondsSince(t0) };
    }),
    Count: unary<CountRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const c = (await rest(md, 'POST', collectionPath(r.collection_name, '/points/count'), filterMember(r))) as { count: number };
      return { count: c.count, time: secondsSince(t0) };
    }),
    Scroll: unary<ScrollRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const body = {
        ...(r.offset !== undefined ? { offset: r.offset } : {}),
        limit: r.limit === 0 ? 10 : r.limit,
        with_vector: r.with_vector,
        with_payload: false,
        ...filterMember(r),
      };
      const page = (await rest(md, 'POST', collectionPath(r.collection_name, '/points/scroll'), body)) as { points: Hit[]; next_page_offset: number | null };
      return {
        result: page.points.map((p) => ({ id: Number(p.id), vector: Array.from(p.vector ?? []) })),
        ...(page.next_page_offset !== null ? { next_page_offset: Number(page.next_page_offset) } : {}),
        time: secondsSince(t0),
      };
    }),
  };
}
