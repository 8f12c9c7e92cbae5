// REST over JSON (undici): every read endpoint answers in Qdrant's shapes, and searches answer
// exactly what the in-process engine answers, with scores converted as documented.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { buildIndexes, COUNT, DIM, expectedScore, http, openEngine, startServer, type Indexes, type Running } from './fixture.js';

let ix: Indexes;
let engine: Engine;
let srv: Running;

interface Envelope<T> {
  result: T;
  status: string;
  time: number;
  strata?: Record<string, unknown>;
}
interface Scored {
  id: number;
  version: number;
  score: number;
  payload: Record<string, never> | null;
  vector?: number[];
}

beforeAll(async () => {
  ix = await buildIndexes({ cosine: true });
  engine = await openEngine(ix, {}, true);
  srv = await startServer(engine);
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

const post = <T>(path: string, body: unknown): Promise<{ status: number; body: Envelope<T> }> =>
  http(srv.url, 'POST', path, body) as Promise<{ status: number; body: Envelope<T> }>;

async function engineHits(
  collection: string,
  q: Float32Array,
  k: number,
  extra: { ef?: number; exact?: boolean } = {},
): Promise<Array<{ id: number; score: number }>> {
  const c = engine.collection(collection);
  const r = await c.search({ vector: q, k, ...extra });
  return r.hits.map((h) => ({ id: h.id, score: expectedScore(c.metric, h.distance) }));
}

describe('REST collections (JSON)', () => {
  it('lists the loaded collections', async () => {
    const r = await http(srv.url, 'GET', '/collections');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', result: { collections: [{ name: 'vectors' }, { name: 'cosine' }] } });
  });

  it("describes a collection in Qdrant's shape with its tiers, bytes, bindings and memory mode", async () => {
    const r = await http(srv.url, 'GET', '/collections/vectors');
    const info = (r.body as Envelope<Record<string, unknown>>).result as {
      status: string;
      points_count: number;
      config: { params: { vectors: { size: number; distance: string } }; hnsw_config: { m: number; ef_construct: number } };
      strata: { tiers: Array<{ kind: string; nodes: number; bytes: number; binding: { mode: string } }>; memory: { mode: string }; read_only: boolean };
    };
    expect(r.status).toBe(200);
    expect(info.status).toBe('green');
    expect(info.points_count).toBe(COUNT);
    expect(info.config.params.vectors).toMatchObject({ size: DIM, distance: 'Euclid' });
    expect(info.config.hnsw_config).toMatchObject({ m: 8, ef_construct: 64 });
    expect(info.strata.tiers.map((t) => t.kind)).toEqual(['dram', 'cxl']);
    expect(info.strata.tiers.reduce((a, t) => a + t.nodes, 0)).toBe(COUNT);
    expect(info.strata.tiers.every((t) => t.bytes > 0)).toBe(true);
    // Emulation: the DRAM tier is plain local memory, the CXL tier runs under the cost model.
    expect(info.strata.tiers.map((t) => t.binding.mode)).toEqual(['unbound', 'emulated']);
    expect(info.strata.memory.mode).toBe('emulated');
    expect(info.strata.read_only).toBe(true);
    const cos = await http(srv.url, 'GET', '/collections/cosine');
    expect((cos.body as Envelope<{ config: { params: { vectors: { distance: string } } } }>).result.config.params.vectors.distance).toBe('Cosine');
  });

  it('answers exists for a loaded and an unknown collection', async () => {
    expect((await http(srv.url, 'GET', '/collections/vectors/exists')).body).toMatchObject({ result: { exists: true } });
    expect((await http(srv.url, 'GET', '/collections/nope/exists')).body).toMatchObject({ result: { exists: false } });
  });

  it("answers Qdrant's version endpoint at /", async () => {
    const r = await http(srv.url, 'GET', '/');
    expect(r.body).toMatchObject({ version: expect.any(String) });
  });
});

describe('REST search (JSON)', () => {
  it("answers the engine's ids with Euclidean distances as scores, best first, for every query", async () => {
    for (let i = 0; i < 10; i++) {
      const q = ix.query(i);
      const r = await post<Scored[]>('/collections/vectors/points/search', { vector: Array.from(q), limit: 10 });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('ok');
      expect(r.body.result.map((p) => ({ id: p.id, score: p.score }))).toEqual(await engineHits('vectors', q, 10));
      expect(r.body.result.every((p) => p.version === 0 && p.payload === null && p.vector === undefined)).toBe(true);
      const scores = r.body.result.map((p) => p.score);
      expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    }
  });

  it('converts cosine distances to similarities (larger is better)', async () => {
    const q = ix.query(3);
    const r = await post<Scored[]>('/collections/cosine/points/search', { vector: Array.from(q), limit: 5 });
    expect(r.body.result.map((p) => ({ id: p.id, score: p.score }))).toEqual(await engineHits('cosine', q, 5));
    const scores = r.body.result.map((p) => p.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(scores[0]!).toBeLessThanOrEqual(1 + 1e-6);
  });

  it('skips `offset` results and keeps `limit` of the rest', async () => {
    const q = ix.query(5);
    const all = await engineHits('vectors', q, 15);
    const r = await post<Scored[]>('/collections/vectors/points/search', { vector: Array.from(q), limit: 10, offset: 5 });
    expect(r.body.result.map((p) => p.id)).toEqual(all.slice(5).map((h) => h.id));
  });

  it('keeps scores at or below score_threshold for Euclid and at or above it for Cosine', async () => {
    const q = ix.query(6);
    const all = await engineHits('vectors', q, 10);
    const threshold = all[4]!.score;
    const r = await post<Scored[]>('/collections/vectors/points/search', { vector: Array.from(q), limit: 10, score_threshold: threshold });
    expect(r.body.result.map((p) => p.id)).toEqual(all.filter((h) => h.score <= threshold).map((h) => h.id));
    const cos = await engineHits('cosine', q, 10);
    const ct = cos[3]!.score;
    const rc = await post<Scored[]>('/collections/cosine/points/search', { vector: Array.from(q), limit: 10, score_threshold: ct });
    expect(rc.body.result.map((p) => p.id)).toEqual(cos.filter((h) => h.score >= ct).map((h) => h.id));
  });

  it('returns stored vectors with with_vector and an empty payload with with_payload', async () => {
    const q = ix.query(7);
    const r = await post<Scored[]>('/collections/vectors/points/search', { vector: Array.from(q), limit: 3, with_vector: true, with_payload: true });
    for (const p of r.body.result) {
      expect(p.payload).toEqual({});
      expect(p.vector).toEqual(Array.from(engine.collection('vectors').getPoint(p.id)!.vector));
    }
  });

  it('honours params.exact (brute force) and params.hnsw_ef (search effort)', async () => {
    const q = ix.query(8);
    const exact = await post<Scored[]>('/collections/vectors/points/search', { vector: Array.from(q), limit: 10, params: { exact: true } });
    expect(exact.body.result.map((p) => p.id)).toEqual((await engineHits('vectors', q, 10, { exact: true })).map((h) => h.id));
    const low = await post<Scored[]>('/collections/vectors/points/search', { vector: Array.from(q), limit: 10, with_stats: true, params: { hnsw_ef: 10 } });
    const high = await post<Scored[]>('/collections/vectors/points/search', { vector: Array.from(q), limit: 10, with_stats: true, params: { hnsw_ef: 300 } });
    expect(low.body.result.map((p) => p.id)).toEqual((await engineHits('vectors', q, 10, { ef: 10 })).map((h) => h.id));
    expect(Number(high.body.strata!['distance_computations'])).toBeGreaterThan(Number(low.body.strata!['distance_computations']));
  });

  it("reports per-query cost in the envelope's strata field when asked (with_stats): hops, distances, per-tier accesses and bytes, DRAM share, modelled time", async () => {
    const plain = await post<Scored[]>('/collections/vectors/points/search', { vector: Array.from(ix.query(9)), limit: 10 });
    expect(plain.body.strata).toBeUndefined();
    const r = await post<Scored[]>('/collections/vectors/points/search', { vector: Array.from(ix.query(9)), limit: 10, with_stats: true });
    const s = r.body.strata as {
      mode: string;
      hops: number;
      distance_computations: number;
      accesses: { dram: number; cxl: number };
      bytes: { dram: number; cxl: number };
      dram_share: number;
      modelled_memory_ns: number;
    };
    expect(s.mode).toBe('local');
    expect(s.hops).toBeGreaterThan(0);
    expect(s.distance_computations).toBeGreaterThanOrEqual(10);
    expect(s.accesses.dram + s.accesses.cxl).toBeGreaterThan(0);
    expect(s.bytes.dram + s.bytes.cxl).toBeGreaterThan(0);
    expect(s.dram_share).toBeCloseTo(s.accesses.dram / (s.accesses.dram + s.accesses.cxl), 9);
    expect(s.modelled_memory_ns).toBeGreaterThan(0);
  });

  it('accepts an empty filter and ignores unknown fields', async () => {
    const q = ix.query(10);
    const r = await post<Scored[]>('/collections/vectors/points/search', {
      vector: Array.from(q),
      limit: 4,
      filter: { must: [] },
      consistency: 'all',
      shard_key: null,
      whatever: { x: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.map((p) => p.id)).toEqual((await engineHits('vectors', q, 4)).map((h) => h.id));
  });

  it('answers search/batch in request order, with one stats entry per search (null where not asked for), its searches run as one task', async () => {
    const qs = [0, 1, 2, 3].map((i) => ix.query(i));
    const tasks = engine.collection('vectors').queueStats.tasks;
    const plain = await post<Scored[][]>('/collections/vectors/points/search/batch', { searches: qs.map((q, i) => ({ vector: Array.from(q), limit: 3 + i })) });
    expect(plain.body.strata).toBeUndefined();
    // The idle engine got the four searches as one task, not the first alone and the rest after.
    expect(engine.collection('vectors').queueStats.tasks - tasks).toBe(1);
    const r = await post<Scored[][]>('/collections/vectors/points/search/batch', {
      searches: qs.map((q, i) => ({ vector: Array.from(q), limit: 3 + i, with_stats: i !== 2 })),
    });
    expect(r.status).toBe(200);
    for (let i = 0; i < qs.length; i++) expect(r.body.result[i]!.map((p) => p.id)).toEqual((await engineHits('vectors', qs[i]!, 3 + i)).map((h) => h.id));
    expect(r.body.strata).toHaveLength(4);
    const entries = r.body.strata as unknown as Array<Record<string, unknown> | null>;
    expect(entries[2]).toBeNull();
    expect(Number(entries[3]!['distance_computations'])).toBeGreaterThan(0);
  });

  it('answers query with a plain vector or {nearest: vector}, defaulting limit to 10', async () => {
    const q = ix.query(11);
    const want = (await engineHits('vectors', q, 10)).map((h) => h.id);
    const a = await post<{ points: Scored[] }>('/collections/vectors/points/query', { query: Array.from(q) });
    const b = await post<{ points: Scored[] }>('/collections/vectors/points/query', { query: { nearest: Array.from(q) }, with_payload: true });
    expect(a.body.result.points.map((p) => p.id)).toEqual(want);
    expect(b.body.result.points.map((p) => p.id)).toEqual(want);
    expect(b.body.result.points[0]!.payload).toEqual({});
  });
});

describe('REST points (JSON)', () => {
  it('retrieves points by id, once each, leaving out missing ids and UUIDs', async () => {
    const r = await post<Array<{ id: number; payload: unknown; vector?: number[] }>>('/collections/vectors/points', {
      ids: [5, 7, 5, COUNT + 10, '3f1c2d6e-7a8b-4c9d-8e0f-1a2b3c4d5e6f'],
      with_vector: true,
    });
    expect(r.status).toBe(200);
    expect(r.body.result.map((p) => p.id)).toEqual([5, 7]);
    expect(r.body.result[0]!.vector).toEqual(Array.from(engine.collection('vectors').getPoint(5)!.vector));
    expect(r.body.result[0]!.payload).toEqual({});
  });

  it('gets one point with its vector, and 404 naming the id when it does not exist', async () => {
    const r = await http(srv.url, 'GET', '/collections/vectors/points/12');
    expect(r.status).toBe(200);
    expect((r.body as Envelope<{ id: number; vector: number[] }>).result).toMatchObject({
      id: 12,
      vector: Array.from(engine.collection('vectors').getPoint(12)!.vector),
    });
    const miss = await http(srv.url, 'GET', `/collections/vectors/points/${COUNT + 5}`);
    expect(miss.status).toBe(404);
    expect(miss.body).toMatchObject({ status: { error: expect.stringContaining(String(COUNT + 5)) }, result: null });
  });

  it('scrolls the whole collection in id order, page by page, with next_page_offset', async () => {
    const seen: number[] = [];
    let offset: number | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const r: { body: Envelope<{ points: Array<{ id: number }>; next_page_offset: number | null }> } = await post('/collections/vectors/points/scroll', {
        limit: 500,
        ...(offset !== null ? { offset } : {}),
      });
      seen.push(...r.body.result.points.map((p) => p.id));
      offset = r.body.result.next_page_offset;
      if (offset === null) break;
    }
    expect(offset).toBeNull();
    expect(seen).toEqual(Array.from({ length: COUNT }, (_, i) => i));
  });

  it('counts the points, with or without a body', async () => {
    expect((await post('/collections/vectors/points/count', { exact: true })).body).toMatchObject({ result: { count: COUNT } });
    expect((await http(srv.url, 'POST', '/collections/vectors/points/count')).body).toMatchObject({ result: { count: COUNT } });
  });
});

describe('REST read-only and unknown routes', () => {
  it('refuses Qdrant writes with 405 and an Allow header, saying how to take writes (--data-dir)', async () => {
    for (const [method, path] of [
      ['PUT', '/collections/vectors/points'],
      ['PUT', '/collections/newone'],
      ['DELETE', '/collections/vectors'],
      ['POST', '/collections/vectors/points/delete'],
      ['POST', '/collections/vectors/points/payload'],
      ['PATCH', '/collections/vectors'],
      ['POST', '/collections/vectors/points/batch'],
      ['PUT', '/collections/vectors/points/vectors'],
    ] as const) {
      const body = path.endsWith('/points')
        ? { points: [{ id: 1, vector: Array.from({ length: 16 }, () => 1) }] }
        : path.endsWith('payload')
          ? { payload: { a: 1 }, points: [1] }
          : path.endsWith('delete')
            ? { points: [1] }
            : { vectors: { size: 4, distance: 'Cosine' } };
      const r = await http(srv.url, method, path, body);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect((r.body as { status: { error: string } }).status.error).toMatch(method === 'DELETE' ? /served from an index directory/ : /--data-dir/);
    }
    expect((await http(srv.url, 'PUT', '/collections/vectors/points', {})).headers['allow']).toBe('POST');
  });

  it("answers unknown endpoints 404 in Qdrant's error envelope", async () => {
    const r = await http(srv.url, 'GET', '/collections/vectors/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: { error: expect.stringContaining('no endpoint GET') }, result: null, time: expect.any(Number) });
  });
});
