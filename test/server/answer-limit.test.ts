// The answer bound (docs/api.md#limits): a small request must not make the server build and encode
// an answer of gigabytes. Requests whose answer may exceed --answer-limit are refused before any
// search runs (413 / RESOURCE_EXHAUSTED naming the limit); answers within it are streamed in chunks
// over REST, so the event loop keeps serving probes while the largest allowed answer is written.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerBytes, POINT_BYTES } from '../../server/api/answer-size.js';
import { DEFAULT_ANSWER_LIMIT } from '../../server/options.js';
import { ensureBuilt } from '../helpers/cli.js';
import { COUNT, DIM, grpcClients, grpcFailure, http, servedSuite, startServer, unary } from './fixture.js';

beforeAll(() => ensureBuilt());
// A search thread, so that the main thread's time goes to the protocols (as in production).
const t = servedSuite({ engine: { searchThreads: 1 } });

const search = (i: number, limit: number, withVector: boolean): Record<string, unknown> => ({
  vector: Array.from(t.ix.query(i % 40)),
  limit,
  with_vector: withVector,
});
const errorOf = (body: unknown): string => (body as { status: { error: string } }).status.error;

async function referenceIds(limit: number): Promise<number[][]> {
  const c = t.engine.collection('vectors');
  return Promise.all(Array.from({ length: 40 }, async (_, i) => (await c.search({ vector: t.ix.query(i), k: limit })).hits.map((h) => h.id)));
}

describe('answer limit', () => {
  it('refuses the reported batch (256 searches × limit 10000 × with_vector) at once with 413 naming the limit, over REST and gRPC', async () => {
    const before = t.engine.collection('vectors').searches;
    const body = { searches: Array.from({ length: 256 }, (_, i) => search(i, 10_000, true)) };
    const r = await http(t.srv.url, 'POST', '/collections/vectors/points/search/batch', body);
    expect(r.status).toBe(413);
    expect(errorOf(r.body)).toMatch(
      /^answer too large: 256 searches would answer up to 2560000 points with 16-d vectors, about 312\.5 MiB, over the 32 MiB answer limit \(--answer-limit; 64 bytes a point \+ 4 a vector element\): ask for fewer points/,
    );
    const c = grpcClients(t.srv.addr.grpc!);
    try {
      const f = await grpcFailure(
        unary(c.points, 'SearchBatch', { collection_name: 'vectors', searches: body.searches.map((s) => ({ ...s, collection_name: '' })) }),
      );
      expect(f.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(f.strataCode).toBe('STRATA_PAYLOAD_TOO_LARGE');
      expect(f.details).toMatch(/^answer too large: 256 searches .* over the 32 MiB answer limit/);
    } finally {
      c.close();
    }
    // Refused before any search ran.
    expect(t.engine.collection('vectors').searches).toBe(before);
  });

  it('bounds search, query, retrieve and scroll the same way, up to the exact limit and not one point more', async () => {
    const limit = 64 * 1024;
    const small = await startServer(t.engine, { answerLimit: limit });
    const c = grpcClients(small.addr.grpc!);
    try {
      const fit = limit / answerBytes(1, DIM, true); // points with vectors that fit exactly
      expect(fit).toBe(limit / (POINT_BYTES + 4 * DIM));
      const post = (path: string, body: unknown): ReturnType<typeof http> => http(small.url, 'POST', `/collections/vectors/points${path}`, body);
      expect((await post('/search', search(0, fit, true))).status).toBe(200);
      const over = await post('/search', search(0, fit + 1, true));
      expect(over.status).toBe(413);
      expect(errorOf(over.body)).toMatch(new RegExp(`^answer too large: limit ${fit + 1} would answer up to ${fit + 1} points with 16-d vectors`));
      expect((await post('/search', search(0, fit + 1, false))).status).toBe(200);
      expect((await post('/query', { query: Array.from(t.ix.query(0)), limit: fit + 1, with_vector: true })).status).toBe(413);
      expect((await post('/scroll', { limit: fit, with_vector: true })).status).toBe(200);
      const scroll = await post('/scroll', { limit: fit + 1, with_vector: true });
      expect(scroll.status).toBe(413);
      expect(errorOf(scroll.body)).toMatch(/^answer too large: scroll limit 513 would answer/);
      const ids = Array.from({ length: fit + 1 }, (_, i) => i);
      const get = await post('', { ids, with_vector: true });
      expect(get.status).toBe(413);
      expect(errorOf(get.body)).toMatch(/^answer too large: 513 ids would answer/);
      expect((await post('', { ids, with_vector: false })).status).toBe(200);
      const f = await grpcFailure(unary(c.points, 'Get', { collection_name: 'vectors', ids, with_vector: true }));
      expect(f.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      const g = await grpcFailure(unary(c.points, 'Search', { collection_name: 'vectors', ...search(0, fit + 1, true) }));
      expect(g.strataCode).toBe('STRATA_PAYLOAD_TOO_LARGE');
      const ok = await unary(c.points, 'Search', { collection_name: 'vectors', ...search(0, fit, true) });
      expect(ok['result']).toHaveLength(fit);
    } finally {
      c.close();
      await small.close();
    }
  });

  it('streams a large answer in chunks whose content is the full answer (JSON and MessagePack)', async () => {
    const limit = 300;
    const want = await referenceIds(limit);
    const body = { searches: Array.from({ length: 64 }, (_, i) => ({ ...search(i, limit, true), with_stats: true })) };
    for (const msgpack of [false, true]) {
      const r = await http(t.srv.url, 'POST', '/collections/vectors/points/search/batch', body, { msgpack });
      expect(r.status).toBe(200);
      expect(r.headers['transfer-encoding']).toBe('chunked');
      const result = (r.body as { result: Array<Array<{ id: number; vector: ArrayLike<number> }>>; strata: unknown[] }).result;
      expect(result.map((hits) => hits.map((h) => h.id))).toEqual(body.searches.map((_, i) => want[i % 40]));
      expect((r.body as { strata: unknown[] }).strata).toHaveLength(64);
      const p = result[5]![7]!;
      expect(Array.from(p.vector)).toEqual(Array.from(t.engine.collection('vectors').getPoint(p.id)!.vector));
    }
  });

  it('answers /livez while the largest allowed batch is being written: by the order of events, not by time', async () => {
    // The largest batch the default limit allows on this 16-d collection: 256 × 1024 points with
    // vectors = 32 MiB counted, ~95 MB of JSON.
    const limit = DEFAULT_ANSWER_LIMIT / 256 / answerBytes(1, DIM, true);
    expect(limit).toBe(1024);
    expect(COUNT).toBeGreaterThan(limit);
    const events: string[] = [];
    const raw = t.srv.server.rest.server;
    const onRequest = (req: { url?: string }, res: { write: unknown; end: unknown; once(e: 'finish', f: () => void): unknown }): void => {
      if (req.url?.endsWith('/points/search/batch')) {
        const write = res.write as (...a: unknown[]) => boolean;
        const end = res.end as (...a: unknown[]) => unknown;
        res.write = (...a: unknown[]): boolean => {
          events.push('answer-chunk');
          return write.apply(res, a);
        };
        res.end = (...a: unknown[]): unknown => {
          events.push('answer-end');
          return end.apply(res, a);
        };
      } else if (req.url === '/livez') {
        res.once('finish', () => events.push('livez'));
      }
    };
    raw.on('request', onRequest);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    try {
      const body = { searches: Array.from({ length: 256 }, (_, i) => search(i, limit, true)) };
      delay.enable();
      // undici resolves at the headers: the body is still being written (and, unread, held back by
      // the socket), so the probe is sent while the answer is in progress.
      const big = await request(`${t.srv.url}/collections/vectors/points/search/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(big.statusCode).toBe(200);
      const live = await http(t.srv.url, 'GET', '/livez');
      expect(live.status).toBe(200);
      const parts: Buffer[] = [];
      for await (const chunk of big.body) parts.push(chunk as Buffer);
      delay.disable();
      const text = Buffer.concat(parts).toString('utf8');
      // The probe was answered between two writes of the answer: the answer was still being encoded
      // and written, in many pieces, after the probe's turn. (Encoded in one piece, as before, the
      // whole answer is one write, or one end() with no write, and the probe comes after it.)
      const livez = events.indexOf('livez');
      expect(livez).toBeGreaterThan(events.indexOf('answer-chunk'));
      expect(livez).toBeLessThan(events.lastIndexOf('answer-chunk'));
      expect(events.indexOf('answer-end')).toBe(events.length - 1);
      // Measured, not asserted (the machine is shared): the longest the event loop was held, client included.
      console.info(
        `largest allowed JSON batch: ${(text.length / 1e6).toFixed(1)} MB in ${events.filter((e) => e === 'answer-chunk').length} writes; longest event-loop block ${(delay.max / 1e6).toFixed(0)} ms`,
      );
      const result = (JSON.parse(text) as { result: Array<Array<{ id: number }>> }).result;
      const want = await referenceIds(limit);
      expect(result).toHaveLength(256);
      result.forEach((hits, i) => expect(hits.map((h) => h.id)).toEqual(want[i % 40]));
    } finally {
      raw.off('request', onRequest);
    }
  });
});
