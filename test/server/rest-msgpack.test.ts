// REST over MessagePack (undici): requests with Content-Type application/msgpack, answers to
// Accept: application/msgpack, vectors as Float32Array both ways; answers equal the engine's and
// the JSON answers.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { packMsgpack, unpackMsgpack } from '../../server/rest/codec.js';
import { buildIndexes, COUNT, DIM, expectedScore, http, openEngine, startServer, type Indexes, type Running } from './fixture.js';

let ix: Indexes;
let engine: Engine;
let srv: Running;

interface Scored {
  id: number;
  score: number;
  payload: unknown;
  vector?: Float32Array;
}

beforeAll(async () => {
  ix = await buildIndexes();
  engine = await openEngine(ix);
  srv = await startServer(engine);
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

const mp = (path: string, body: unknown) => http(srv.url, 'POST', path, body, { msgpack: true });

async function engineHits(q: Float32Array, k: number): Promise<Array<{ id: number; score: number }>> {
  const r = await engine.collection('vectors').search({ vector: q, k });
  return r.hits.map((h) => ({ id: h.id, score: expectedScore('l2', h.distance) }));
}

describe('REST over MessagePack', () => {
  it("takes a Float32Array query vector and answers the engine's hits in MessagePack", async () => {
    for (let i = 0; i < 8; i++) {
      const q = ix.query(i);
      const r = await mp('/collections/vectors/points/search', { vector: q, limit: 10, with_stats: true });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/application\/msgpack/);
      const body = r.body as { result: Scored[]; status: string; strata: { distance_computations: number } };
      expect(body.status).toBe('ok');
      expect(body.result.map((p) => ({ id: p.id, score: p.score }))).toEqual(await engineHits(q, 10));
      expect(body.strata.distance_computations).toBeGreaterThan(0);
    }
  });

  it('takes a plain array of numbers as the vector too', async () => {
    const q = ix.query(1);
    const r = await mp('/collections/vectors/points/search', { vector: Array.from(q), limit: 5 });
    expect((r.body as { result: Scored[] }).result.map((p) => p.id)).toEqual((await engineHits(q, 5)).map((h) => h.id));
  });

  it("returns stored vectors as Float32Array (4 bytes a number), equal to the JSON answer's arrays", async () => {
    const q = ix.query(2);
    const m = await mp('/collections/vectors/points/search', { vector: q, limit: 4, with_vector: true });
    const j = await http(srv.url, 'POST', '/collections/vectors/points/search', { vector: Array.from(q), limit: 4, with_vector: true });
    const mr = (m.body as { result: Scored[] }).result;
    const jr = (j.body as { result: Array<{ id: number; vector: number[] }> }).result;
    expect(mr.every((p) => p.vector instanceof Float32Array && p.vector.length === DIM)).toBe(true);
    expect(mr.map((p) => ({ id: p.id, vector: Array.from(p.vector!) }))).toEqual(jr.map((p) => ({ id: p.id, vector: p.vector })));
  });

  it('negotiates each direction separately: JSON in, MessagePack out, and MessagePack in, JSON out', async () => {
    const q = ix.query(3);
    const want = (await engineHits(q, 3)).map((h) => h.id);
    const a = await request(`${srv.url}/collections/vectors/points/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/msgpack' },
      body: JSON.stringify({ vector: Array.from(q), limit: 3 }),
    });
    expect((unpackMsgpack(Buffer.from(await a.body.arrayBuffer())) as { result: Scored[] }).result.map((p) => p.id)).toEqual(want);
    const b = await request(`${srv.url}/collections/vectors/points/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/msgpack' },
      body: packMsgpack({ vector: q, limit: 3 }),
    });
    expect(b.headers['content-type']).toMatch(/application\/json/);
    expect(((await b.body.json()) as { result: Scored[] }).result.map((p) => p.id)).toEqual(want);
  });

  it('answers batch, query, retrieve, scroll and count in MessagePack like in JSON', async () => {
    const qs = [4, 5].map((i) => ix.query(i));
    const batch = (await mp('/collections/vectors/points/search/batch', { searches: qs.map((q) => ({ vector: q, limit: 3 })) })).body as { result: Scored[][] };
    for (let i = 0; i < qs.length; i++) expect(batch.result[i]!.map((p) => p.id)).toEqual((await engineHits(qs[i]!, 3)).map((h) => h.id));
    const query = (await mp('/collections/vectors/points/query', { query: { nearest: qs[0] }, limit: 3 })).body as { result: { points: Scored[] } };
    expect(query.result.points.map((p) => p.id)).toEqual(batch.result[0]!.map((p) => p.id));
    const got = (await mp('/collections/vectors/points', { ids: [1, 2], with_vector: true })).body as { result: Array<{ id: number; vector: Float32Array }> };
    expect(got.result.map((p) => p.id)).toEqual([1, 2]);
    expect(Array.from(got.result[0]!.vector)).toEqual(Array.from(engine.collection('vectors').getPoint(1)!.vector));
    const page = (await mp('/collections/vectors/points/scroll', { offset: 10, limit: 5 })).body as {
      result: { points: Array<{ id: number }>; next_page_offset: number };
    };
    expect(page.result.points.map((p) => p.id)).toEqual([10, 11, 12, 13, 14]);
    expect(page.result.next_page_offset).toBe(15);
    expect((await mp('/collections/vectors/points/count', {})).body).toMatchObject({ result: { count: COUNT } });
  });

  it('answers errors in MessagePack too, naming the field (a NaN element)', async () => {
    const v = ix.query(0);
    v[3] = Number.NaN;
    const r = await mp('/collections/vectors/points/search', { vector: v, limit: 3 });
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/application\/msgpack/);
    expect((r.body as { status: { error: string }; result: null }).status.error).toMatch(/^vector: element 3 /);
  });

  it('rejects a malformed MessagePack body with 400 naming the body', async () => {
    const r = await http(srv.url, 'POST', '/collections/vectors/points/search', undefined, {
      raw: Buffer.from([0xc1, 0xff, 0x00]),
      headers: { 'content-type': 'application/msgpack' },
    });
    expect(r.status).toBe(400);
    expect((r.body as { status: { error: string } }).status.error).toMatch(/^body: malformed MessagePack/);
  });
});
