// The official Qdrant JS client (@qdrant/js-client-rest) against a Strata server: its read calls
// work and answer what the in-process engine answers; its write calls fail with the read-only error
// on a server without a data directory (writes with one: test/server/writes.test.ts).
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { buildIndexes, COUNT, DIM, expectedScore, openEngine, startServer, type Indexes, type Running } from './fixture.js';

let ix: Indexes;
let engine: Engine;
let srv: Running;
let client: QdrantClient;

beforeAll(async () => {
  ix = await buildIndexes({ cosine: true });
  engine = await openEngine(ix, {}, true);
  srv = await startServer(engine);
  client = new QdrantClient({ url: srv.url, checkCompatibility: false });
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

async function engineHits(collection: string, q: Float32Array, k: number): Promise<Array<{ id: number; score: number }>> {
  const c = engine.collection(collection);
  const r = await c.search({ vector: q, k });
  return r.hits.map((h) => ({ id: h.id, score: expectedScore(c.metric, h.distance) }));
}

describe('official Qdrant client', () => {
  it('is compatible by the client’s own version check: a client left at its defaults warns of nothing', async () => {
    const warn = vi.spyOn(console, 'warn');
    try {
      const fresh = new QdrantClient({ url: srv.url });
      await fresh.getCollections();
      // The check's own request may answer after the first call: give it a moment.
      await new Promise((r) => setTimeout(r, 200));
      expect(warn.mock.calls.filter((c) => String(c[0]).includes('ompatib'))).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('lists collections, describes one and checks existence', async () => {
    expect((await client.getCollections()).collections.map((c) => c.name)).toEqual(['vectors', 'cosine']);
    const info = await client.getCollection('vectors');
    expect(info.status).toBe('green');
    expect(info.points_count).toBe(COUNT);
    expect(info.config.params.vectors).toMatchObject({ size: DIM, distance: 'Euclid' });
    expect(info.config.hnsw_config.m).toBe(8);
    expect((await client.collectionExists('cosine')).exists).toBe(true);
    expect((await client.collectionExists('nope')).exists).toBe(false);
  });

  it("searches (Euclid and Cosine) and gets the engine's ids and converted scores", async () => {
    for (const name of ['vectors', 'cosine']) {
      for (let i = 0; i < 5; i++) {
        const q = ix.query(i);
        const hits = await client.search(name, { vector: Array.from(q), limit: 10 });
        expect(hits.map((h) => ({ id: h.id, score: h.score }))).toEqual(await engineHits(name, q, 10));
        // The client asks for payloads by default; Strata points have an empty one.
        expect(hits.every((h) => h.version === 0 && JSON.stringify(h.payload) === '{}')).toBe(true);
      }
    }
  });

  it('runs a search batch, a query, retrieve, scroll and count', async () => {
    const q0 = ix.query(0);
    const q1 = ix.query(1);
    const batch = await client.searchBatch('vectors', {
      searches: [
        { vector: Array.from(q0), limit: 3 },
        { vector: Array.from(q1), limit: 4 },
      ],
    });
    expect(batch.map((hits) => hits.map((h) => h.id))).toEqual([
      (await engineHits('vectors', q0, 3)).map((h) => h.id),
      (await engineHits('vectors', q1, 4)).map((h) => h.id),
    ]);

    const query = await client.query('vectors', { query: Array.from(q1), limit: 5, with_vector: true });
    expect(query.points.map((p) => p.id)).toEqual((await engineHits('vectors', q1, 5)).map((h) => h.id));
    expect(query.points[0]!.vector).toEqual(Array.from(engine.collection('vectors').getPoint(Number(query.points[0]!.id))!.vector));

    const got = await client.retrieve('vectors', { ids: [3, 1, 999_999], with_vector: true });
    expect(got.map((p) => p.id)).toEqual([3, 1]);
    expect(got[0]!.vector).toEqual(Array.from(engine.collection('vectors').getPoint(3)!.vector));

    const page = await client.scroll('vectors', { limit: 5, offset: 100 });
    expect(page.points.map((p) => p.id)).toEqual([100, 101, 102, 103, 104]);
    expect(page.next_page_offset).toBe(105);

    expect((await client.count('vectors')).count).toBe(COUNT);
    expect((await client.count('vectors', { exact: false })).count).toBe(COUNT);
  });

  it('queries by a point id: the nearest to its stored vector, itself left out; an unknown id is a 404', async () => {
    for (const id of [7, 123]) {
      const v = engine.collection('vectors').getPoint(id)!.vector;
      const want = (await engineHits('vectors', v, 6)).map((h) => h.id).filter((x) => x !== id);
      for (const query of [id, { nearest: id }]) {
        const got = await client.query('vectors', { query, limit: 5 });
        expect(got.points.map((p) => p.id)).toEqual(want.slice(0, 5));
      }
    }
    // The offset counts from what remains once the point is left out.
    const v7 = engine.collection('vectors').getPoint(7)!.vector;
    const rest7 = (await engineHits('vectors', v7, 9)).map((h) => h.id).filter((x) => x !== 7);
    expect((await client.query('vectors', { query: 7, limit: 3, offset: 2 })).points.map((p) => p.id)).toEqual(rest7.slice(2, 5));
    const miss = await client.query('vectors', { query: 999_999, limit: 5 }).then(
      () => null,
      (e: { status?: number }) => e,
    );
    expect(miss?.status).toBe(404);
  });

  it('recommends from positive and negative examples (ids and vectors) by average_vector, the named ids left out', async () => {
    const c = engine.collection('vectors');
    const stored = (id: number): Float32Array => c.getPoint(id)!.vector;
    // An Euclid collection: a raw vector is averaged as given (a cosine one would take it at unit length).
    expect(c.metric).toBe('l2');
    const raw = Array.from(ix.query(2));
    // 2 × mean(positives) − mean(negatives), the positives 10, 20 and the raw vector, the negative 30.
    const want = Float32Array.from(stored(10), (_, d) => (2 * (stored(10)[d]! + stored(20)[d]! + raw[d]!)) / 3 - stored(30)[d]!);
    const expected = (await engineHits('vectors', want, 8))
      .map((h) => h.id)
      .filter((id) => ![10, 20, 30].includes(id))
      .slice(0, 5);
    const viaQuery = await client.query('vectors', { query: { recommend: { positive: [10, 20, raw], negative: [30] } }, limit: 5 });
    expect(viaQuery.points.map((p) => p.id)).toEqual(expected);
    const viaRoute = await client.recommend('vectors', { positive: [10, 20, raw], negative: [30], limit: 5 });
    expect(viaRoute.map((p) => p.id)).toEqual(expected);
    // Strategies that score against every example are refused, naming the field.
    const refused = await client.query('vectors', { query: { recommend: { positive: [10], strategy: 'best_score' } }, limit: 5 }).then(
      () => null,
      (e: { status?: number; data?: { status?: { error?: string } } }) => e,
    );
    expect(refused?.status).toBe(400);
    expect(refused?.data?.status?.error).toMatch(/^query\.recommend\.strategy: only average_vector/);
  });

  it('filters a built collection (no payloads) by id, in search, scroll and count', async () => {
    const has = { must: [{ has_id: [3, 17, 1999, 5_000_000] }] };
    expect((await client.count('vectors', { filter: has })).count).toBe(3);
    expect((await client.scroll('vectors', { filter: has })).points.map((p) => p.id)).toEqual([3, 17, 1999]);
    const hits = await client.search('vectors', { vector: Array.from(ix.query(0)), limit: 10, filter: has });
    expect(hits.map((h) => h.id).sort((a, b) => Number(a) - Number(b))).toEqual([3, 17, 1999]);
    // No point has a payload: a payload condition matches none, its negation all.
    expect((await client.count('vectors', { filter: { must: [{ key: 'a', match: { value: 1 } }] } })).count).toBe(0);
    expect((await client.count('vectors', { filter: { must_not: [{ key: 'a', match: { value: 1 } }] } })).count).toBe(COUNT);
  });

  it('fails writes (upsert, delete, create, payload and index writes) with the read-only error without a data directory', async () => {
    const calls: Array<Promise<unknown>> = [
      client.upsert('vectors', { wait: true, points: [{ id: 1, vector: new Array<number>(DIM).fill(0) }] }),
      client.delete('vectors', { points: [1] }),
      client.createCollection('other', { vectors: { size: DIM, distance: 'Cosine' } }),
      client.delete('vectors', { filter: { must: [{ has_id: [1] }] } }),
      client.setPayload('vectors', { payload: { a: 1 }, points: [1] }),
      client.clearPayload('vectors', { points: [1] }),
      client.deletePayload('vectors', { keys: ['a'], points: [1] }),
      client.createPayloadIndex('vectors', { field_name: 'a', field_schema: 'keyword', wait: true }),
      client.deletePayloadIndex('vectors', 'a'),
    ];
    // Each outcome taken at once: a refusal that settles while an earlier one is awaited is not unhandled.
    const outcomes = calls.map((p) =>
      p.then(
        () => null,
        (err: unknown) => err as { status?: number; message: string; data?: unknown },
      ),
    );
    for (const o of outcomes) {
      const e = await o;
      expect(e).not.toBeNull();
      expect(e!.status).toBe(405);
      expect(JSON.stringify(e!.data)).toMatch(/--data-dir/);
    }
  });

  it('surfaces a 404 for an unknown collection and a 400 naming the field for a wrong dimension', async () => {
    const miss = await client.search('nope', { vector: Array.from(ix.query(0)), limit: 3 }).then(
      () => null,
      (e: unknown) => e as { status: number; data: unknown },
    );
    expect(miss!.status).toBe(404);
    expect(JSON.stringify(miss!.data)).toMatch(/collection \\"nope\\" not found/);
    const bad = await client.search('vectors', { vector: [1, 2, 3], limit: 3 }).then(
      () => null,
      (e: unknown) => e as { status: number; data: unknown },
    );
    expect(bad!.status).toBe(400);
    expect(JSON.stringify(bad!.data)).toMatch(/vector: expected 16 dimensions, got 3/);
  });
});
