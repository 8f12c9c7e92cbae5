// REST search over undici's pooled keep-alive connections, with JSON or MessagePack bodies. Request
// bodies are encoded once per step (they differ only by ef), so the client's per-request work is
// sending bytes and decoding the answer: the load generator's own limit stays far above the server's.
import { Packr, Unpackr } from 'msgpackr';
import { type Dispatcher, Pool } from 'undici';
import {
  allRequests,
  asksStats,
  costFrom,
  hitsFrom,
  noResultLists,
  planFrom,
  type QueryAnswer,
  transportStatus,
  type ClientOptions,
  type SearchAnswer,
  type SearchClient,
} from './types.js';
import { errorMessage } from '../../common/errors.js';

export type RestEncoding = 'json' | 'msgpack';

// Plain MessagePack maps (no msgpackr records) and float32 vectors as the typed-array extension, as
// docs/api.md describes; 64-bit integers decode as numbers (ids are below 2^53).
const packr = new Packr({ moreTypes: true, useRecords: false });
const unpackr = new Unpackr({ moreTypes: true, useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

export interface RestClientOptions extends ClientOptions {
  origin: string;
  collection: string;
  encoding: RestEncoding;
  queries: Float32Array;
  dim: number;
}

/** Each request's body (allRequests): one search, or with a batch `{searches: [...]}` for …/search/batch. */
function encodeBodies(o: RestClientOptions): Buffer[] {
  const one = (q: number): object => {
    const v = o.queries.subarray(q * o.dim, (q + 1) * o.dim);
    return {
      vector: o.encoding === 'json' ? Array.from(v) : v.slice(),
      limit: o.k,
      params: { hnsw_ef: o.ef },
      ...(o.filters?.[q] ? { filter: o.filters[q] } : {}),
      ...(asksStats(o, q) ? { with_stats: true } : {}),
    };
  };
  return allRequests(o.queries.length / o.dim, o.batch).map((qs) => {
    const req = o.batch === 1 ? one(qs[0]!) : { searches: qs.map(one) };
    return o.encoding === 'json' ? Buffer.from(JSON.stringify(req)) : packr.pack(req);
  });
}

interface RawAnswer {
  status: number;
  type: string;
  body: Buffer;
}

/**
 * One request through undici's dispatch API: the answer's chunks are gathered as they arrive. The
 * `request` API wraps every body in a readable stream and its own promises, which cost the client
 * more CPU per request than the server's own HTTP handling; the client shares the machine with the
 * server it measures, so what it spends is taken from the server.
 */
function dispatch(pool: Pool, opts: Dispatcher.DispatchOptions): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let type = '';
    const chunks: Buffer[] = [];
    pool.dispatch(opts, {
      // Its presence is what marks this handler as the current (controller) kind for undici.
      onRequestStart() {},
      onResponseStart(_controller, statusCode, headers) {
        status = statusCode;
        const t = headers['content-type'];
        type = Array.isArray(t) ? t.join(',') : (t ?? '');
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        resolve({ status, type, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
      },
      onResponseError(_controller, error) {
        reject(error);
      },
    });
  });
}

interface Envelope {
  result?: unknown;
  strata?: unknown;
  status?: unknown;
}

export function restClient(o: RestClientOptions): SearchClient {
  const bodies = encodeBodies(o);
  const pool = new Pool(o.origin, { connections: o.connections, pipelining: 1, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs });
  const path = `/collections/${encodeURIComponent(o.collection)}/points/search${o.batch === 1 ? '' : '/batch'}`;
  const headers: Record<string, string> =
    o.encoding === 'json' ? { 'content-type': 'application/json' } : { 'content-type': 'application/msgpack', accept: 'application/msgpack' };
  if (o.apiKey !== undefined) headers['api-key'] = o.apiKey;

  const decode = (buf: Buffer, msgpack: boolean): Envelope => {
    const v: unknown = msgpack ? unpackr.unpack(buf) : JSON.parse(buf.toString('utf8'));
    return typeof v === 'object' && v !== null ? (v as Envelope) : {};
  };
  const answerOf = (hits: Pick<QueryAnswer, 'ids' | 'scores'>, stats: unknown): QueryAnswer => {
    const plan = planFrom(stats);
    return { ...hits, cost: costFrom(stats), ...(plan !== undefined ? { plan } : {}) };
  };
  // A single search answers {result: [point], strata}; a batch {result: [[point]], strata: [stats | null]}.
  const answersOf = (env: Envelope): QueryAnswer[] | null => {
    if (o.batch === 1) {
      const hits = hitsFrom(env.result);
      return hits === null ? null : [answerOf(hits, env.strata)];
    }
    if (!Array.isArray(env.result) || env.result.length !== o.batch) return null;
    const costs: unknown[] = Array.isArray(env.strata) ? env.strata : [];
    const out: QueryAnswer[] = [];
    for (let j = 0; j < o.batch; j++) {
      const hits = hitsFrom(env.result[j]);
      if (hits === null) return null;
      out.push(answerOf(hits, costs[j]));
    }
    return out;
  };

  return {
    async search(r: number): Promise<SearchAnswer> {
      let status: number;
      let buf: Buffer;
      let type: string;
      try {
        const raw = await dispatch(pool, {
          origin: o.origin,
          method: 'POST',
          path,
          headers,
          body: bodies[r % bodies.length]!,
        });
        status = raw.status;
        type = raw.type;
        buf = raw.body;
      } catch (e) {
        return { ok: false, at: o.now(), status: transportStatus(e), transport: true, message: errorMessage(e) };
      }
      const at = o.now();
      const msgpack = type.includes('msgpack');
      if (status < 200 || status > 299) {
        let message = '';
        try {
          const env = decode(buf, msgpack);
          const err = (env.status as { error?: unknown } | undefined)?.error;
          message = typeof err === 'string' ? err : buf.toString('utf8').slice(0, 200);
        } catch {
          message = buf.toString('utf8').slice(0, 200);
        }
        return { ok: false, at, status: String(status), transport: false, message };
      }
      try {
        const answers = answersOf(decode(buf, msgpack));
        if (answers === null) return { ok: false, at, status: 'bad-answer', transport: false, message: noResultLists(o.batch) };
        return { ok: true, at, answers };
      } catch (e) {
        return { ok: false, at, status: 'bad-answer', transport: false, message: errorMessage(e) };
      }
    },
    close: () => pool.close(),
  };
}
