// REST search over undici's pooled keep-alive connections, with JSON or MessagePack bodies. Request
// bodies are encoded once per step (they differ only by ef), so the client's per-request work is
// sending bytes and decoding the answer: the load generator's own limit stays far above the server's.
import { Packr, Unpackr } from 'msgpackr';
import { type Dispatcher, Pool } from 'undici';
import { asksStats, costFrom, hitsFrom, transportStatus, type ClientOptions, type SearchAnswer, type SearchClient } from './types.js';

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

function encodeBodies(o: RestClientOptions): Buffer[] {
  const n = o.queries.length / o.dim;
  const out: Buffer[] = new Array<Buffer>(n);
  for (let q = 0; q < n; q++) {
    const v = o.queries.subarray(q * o.dim, (q + 1) * o.dim);
    const req = {
      vector: o.encoding === 'json' ? Array.from(v) : v.slice(),
      limit: o.k,
      params: { hnsw_ef: o.ef },
      ...(asksStats(o, q) ? { with_stats: true } : {}),
    };
    out[q] = o.encoding === 'json' ? Buffer.from(JSON.stringify(req)) : packr.pack(req);
  }
  return out;
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
  const path = `/collections/${encodeURIComponent(o.collection)}/points/search`;
  const headers: Record<string, string> =
    o.encoding === 'json' ? { 'content-type': 'application/json' } : { 'content-type': 'application/msgpack', accept: 'application/msgpack' };
  if (o.apiKey !== undefined) headers['api-key'] = o.apiKey;

  const decode = (buf: Buffer, msgpack: boolean): Envelope => {
    const v: unknown = msgpack ? unpackr.unpack(buf) : JSON.parse(buf.toString('utf8'));
    return typeof v === 'object' && v !== null ? (v as Envelope) : {};
  };

  return {
    async search(q: number): Promise<SearchAnswer> {
      let status: number;
      let buf: Buffer;
      let type: string;
      try {
        const r = await dispatch(pool, {
          origin: o.origin,
          method: 'POST',
          path,
          headers,
          body: bodies[q % bodies.length]!,
        });
        status = r.status;
        type = r.type;
        buf = r.body;
      } catch (e) {
        return { ok: false, at: o.now(), status: transportStatus(e), transport: true, message: e instanceof Error ? e.message : String(e) };
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
        const env = decode(buf, msgpack);
        const hits = hitsFrom(env.result);
        if (hits === null) return { ok: false, at, status: 'bad-answer', transport: false, message: 'answer has no result list' };
        return { ok: true, at, ids: hits.ids, scores: hits.scores, cost: costFrom(env.strata) };
      } catch (e) {
        return { ok: false, at, status: 'bad-answer', transport: false, message: e instanceof Error ? e.message : String(e) };
      }
    },
    close: () => pool.close(),
  };
}
