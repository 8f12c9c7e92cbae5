// strata.v1.Points: Search, SearchBatch, SearchStream, Get, Count, Scroll, Upsert, Delete, SetPayload;
// filters as Qdrant's JSON in filter_json. Messages use the REST bodies' field names, so they go
// through the same parsers (server/api/requests.ts) and operations.
import { unnamedSpace } from '../api/vector-space.js';
import type * as grpc from '@grpc/grpc-js';
import { invalidArgument, quoted } from '../../common/errors.js';
import type { Collection, PointKey } from '../../engine/public.js';
import { checkAnswerSize, checkSearchAnswers } from '../api/answer-size.js';
import type { Fields } from '../api/fields.js';
import { retrievePoints, scrollPoints, searchBatch, searchPoints, type SearchAnswer } from '../api/points.js';
import { checkBatchSize, parseCount, parseRetrieve, parseScroll, parseSearch } from '../api/requests.js';
import { parsePayload, parsePointSelector, parseUpsert } from '../api/writes.js';
import { filterMember, jsonText, selectorMembers } from './json-text.js';
import { admit, callSignal, decoded, requestControl, secondsSince, serviceError, statusName, unary, type AnyCall, type GrpcContext } from './calls.js';
import type {
  CountRequestMsg,
  CountResponseMsg,
  DeletePointsRequestMsg,
  GetRequestMsg,
  GetResponseMsg,
  SearchBatchRequestMsg,
  SearchBatchResponseMsg,
  ScrollRequestMsg,
  ScrollResponseMsg,
  SearchRequestMsg,
  SearchResponseMsg,
  SetPayloadRequestMsg,
  UpdateResponseMsg,
  UpsertRequestMsg,
} from './messages.js';
import type { Malformed } from './protos.js';

function collectionOf(ctx: GrpcContext, name: string, field = 'collection_name'): Collection {
  if (name === '') throw invalidArgument(field, 'required: the name of a collection (Collections/List lists them)');
  return ctx.engine.collection(name);
}

const NO_VECTOR = new Float32Array(0);

/**
 * gRPC ids are uint64: a UUID point (REST only) goes out as its internal number, from 2^52 on
 * (docs/api.md).
 */
function wireId(c: Collection, key: PointKey): number {
  return typeof key === 'number' ? key : (c.resolveKey(key) ?? 0);
}

function toMessage(c: Collection, a: SearchAnswer, t0: number): SearchResponseMsg {
  return {
    result: a.hits.map((h) => ({ id: wireId(c, h.id), score: h.score, vector: h.vector ?? NO_VECTOR })),
    strata: a.stats,
    time: secondsSince(t0),
  };
}

/** A search message as the REST body: the same names, its filter_json as `filter`. */
function searchFields(req: SearchRequestMsg): Fields {
  const { filter_json, ...rest } = req;
  return { ...rest, ...filterMember({ filter_json }) } as unknown as Fields;
}

async function search(ctx: GrpcContext, req: SearchRequestMsg, call: AnyCall, signal: AbortSignal | undefined): Promise<SearchResponseMsg> {
  const t0 = performance.now();
  const c = collectionOf(ctx, req.collection_name);
  const plan = parseSearch(searchFields(req), unnamedSpace(c));
  checkSearchAnswers([plan], c.dim, ctx.options.answerLimit);
  return toMessage(c, await searchPoints(c, plan, requestControl(call, signal, req.timeout_ms)), t0);
}

/**
 * Answers a stream of searches in order. Searches run concurrently, up to the batch limit in
 * flight; beyond it, and while the client does not read its answers (write backpressure), reading
 * is paused, so memory stays bounded whatever the client does. The first failure ends the stream
 * with that request's status.
 */
function searchStream(ctx: GrpcContext): grpc.handleBidiStreamingCall<SearchRequestMsg | Malformed, SearchResponseMsg> {
  return (call) => {
    const t0 = performance.now();
    const pending: Array<Promise<SearchResponseMsg>> = [];
    let answered = 0;
    let inputEnded = false;
    let done = false;
    let writing = false;
    let ended: (() => void) | null = null;
    const finish = (err: grpc.ServerErrorResponse | null): void => {
      if (done) return;
      done = true;
      ended?.();
      ctx.metrics.observeGrpc('SearchStream', statusName(err?.code ?? 0), secondsSince(t0));
      if (err) call.emit('error', err);
      else call.end();
    };
    try {
      admit(ctx, call.metadata, false);
    } catch (e) {
      finish(serviceError(ctx, e));
      return;
    }
    ended = ctx.lifecycle.trackCall();
    const signal = callSignal(call);
    const drained = (): Promise<void> =>
      new Promise((resolve) => {
        const go = (): void => {
          call.off('drain', go);
          call.off('cancelled', go);
          resolve();
        };
        call.on('drain', go);
        call.on('cancelled', go);
      });
    const pump = async (): Promise<void> => {
      if (writing) return;
      writing = true;
      try {
        while (!done && pending.length > 0) {
          const msg = await pending[0]!;
          pending.shift();
          answered++;
          if (done) return;
          if (!call.write(msg)) await drained();
          if (call.isPaused() && pending.length < ctx.options.maxBatch) call.resume();
        }
      } catch (e) {
        finish(serviceError(ctx, e, `request ${answered}: `));
        return;
      } finally {
        writing = false;
      }
      if (inputEnded && pending.length === 0) finish(null);
    };
    call.on('data', (m: SearchRequestMsg | Malformed) => {
      if (done) return;
      const p = (async () => search(ctx, decoded(m), call, signal))();
      p.catch(() => {}); // observed in order by pump()
      pending.push(p);
      if (pending.length >= ctx.options.maxBatch) call.pause();
      void pump();
    });
    call.on('end', () => {
      inputEnded = true;
      void pump();
    });
    call.on('cancelled', () => {
      if (!done) ctx.metrics.observeGrpc('SearchStream', 'CANCELLED', secondsSince(t0));
      done = true;
      ended?.();
    });
    call.on('error', () => {
      done = true;
      ended?.();
    });
  };
}

export function pointsService(ctx: GrpcContext): grpc.UntypedServiceImplementation {
  return {
    Search: unary<SearchRequestMsg, SearchResponseMsg>(ctx, 'Search', (req, call) => search(ctx, req, call, undefined)),
    SearchBatch: unary<SearchBatchRequestMsg, SearchBatchResponseMsg>(ctx, 'SearchBatch', async (req, call) => {
      const t0 = performance.now();
      const c = collectionOf(ctx, req.collection_name);
      checkBatchSize(req.searches.length, ctx.options.maxBatch, 'searches');
      const plans = req.searches.map((s, i) => {
        if (s.collection_name !== '' && s.collection_name !== req.collection_name) {
          throw invalidArgument(
            `searches[${i}].collection_name`,
            `must be empty or ${quoted(req.collection_name)} (one collection per batch), got ${quoted(s.collection_name)}`,
          );
        }
        return parseSearch(searchFields(s), unnamedSpace(c), `searches[${i}].`);
      });
      checkSearchAnswers(plans, c.dim, ctx.options.answerLimit);
      const answers = await searchBatch(c, plans, requestControl(call, undefined, req.timeout_ms));
      return { result: answers.map((a) => toMessage(c, a, t0)), time: secondsSince(t0) };
    }),
    SearchStream: searchStream(ctx),
    Get: unary<GetRequestMsg, GetResponseMsg>(ctx, 'Get', async (req) => {
      const t0 = performance.now();
      const c = collectionOf(ctx, req.collection_name);
      const plan = parseRetrieve({ ids: req.ids, with_vector: req.with_vector, with_payload: false }, unnamedSpace(c));
      checkAnswerSize([{ points: plan.ids.length, withVector: plan.withVector }], c.dim, ctx.options.answerLimit, `${plan.ids.length} ids`);
      const result = (await retrievePoints(c, plan)).map((p) => ({ id: wireId(c, p.id), vector: p.vector ?? NO_VECTOR }));
      return { result, time: secondsSince(t0) };
    }),
    Count: unary<CountRequestMsg, CountResponseMsg>(ctx, 'Count', async (req) => {
      const t0 = performance.now();
      const c = collectionOf(ctx, req.collection_name);
      const { filter } = parseCount(filterMember(req));
      await c.settle(filter);
      return { count: c.countMatching(filter), time: secondsSince(t0) };
    }),
    Scroll: unary<ScrollRequestMsg, ScrollResponseMsg>(ctx, 'Scroll', async (req) => {
      const t0 = performance.now();
      const c = collectionOf(ctx, req.collection_name);
      const plan = parseScroll(
        {
          offset: req.offset,
          limit: req.limit === 0 ? undefined : req.limit,
          with_vector: req.with_vector,
          with_payload: false,
          ...filterMember(req),
        },
        unnamedSpace(c),
      );
      checkAnswerSize([{ points: plan.limit, withVector: plan.withVector }], c.dim, ctx.options.answerLimit, `scroll limit ${plan.limit}`);
      const page = await scrollPoints(c, plan);
      return {
        result: page.points.map((p) => ({ id: wireId(c, p.id), vector: p.vector ? Array.from(p.vector) : [] })),
        ...(page.next !== null ? { next_page_offset: wireId(c, page.next) } : {}),
        time: secondsSince(t0),
      };
    }),
    Upsert: unary<UpsertRequestMsg, UpdateResponseMsg>(ctx, 'Upsert', async (req) => {
      const t0 = performance.now();
      const c = collectionOf(ctx, req.collection_name);
      c.writable();
      // The REST row form, so the same checks name the same fields (points[i].vector, …).
      const points = parseUpsert(
        {
          points: req.points.map((p, i) => ({ id: p.id, vector: p.vector, payload: jsonText(p.payload_json, `points[${i}].payload_json`) })),
        },
        unnamedSpace(c),
      );
      const lsn = await c.upsert(points);
      return { operation_id: Number(lsn), status: 'completed', time: secondsSince(t0) };
    }),
    Delete: unary<DeletePointsRequestMsg, UpdateResponseMsg>(ctx, 'Delete', async (req) => {
      const t0 = performance.now();
      const c = collectionOf(ctx, req.collection_name);
      c.writable();
      const lsn = await c.deletePoints(parsePointSelector(selectorMembers(req)));
      return { operation_id: Number(lsn), status: 'completed', time: secondsSince(t0) };
    }),
    SetPayload: unary<SetPayloadRequestMsg, UpdateResponseMsg>(ctx, 'SetPayload', async (req) => {
      const t0 = performance.now();
      const c = collectionOf(ctx, req.collection_name);
      c.writable();
      const w = parsePayload({ ...selectorMembers(req), payload: jsonText(req.payload_json, 'payload_json'), key: req.key === '' ? undefined : req.key });
      const lsn = await c.setPayload(w.target, w.payload, req.overwrite, undefined, w.key);
      return { operation_id: Number(lsn), status: 'completed', time: secondsSince(t0) };
    }),
  };
}
