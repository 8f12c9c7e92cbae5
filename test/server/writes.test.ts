// Live collections over REST, on a real server with a data directory: the official Qdrant client and
// plain undici create collections, upsert (rows and columns), delete, set payloads and read them
// back; a built collection becomes writable (its base points hidden when deleted or replaced);
// searches merge the base and the fresh layer, and exact search over the merge equals brute force
// over the final data; bad input changes nothing; a restart replays the log to the same state.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { QdrantClient } from '@qdrant/js-client-rest';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { collectionDir } from '../../storage/collection-dir.js';
import { mulberry32 } from '../../common/random.js';
import * as grpc from '@grpc/grpc-js';
import { buildIndexes, COUNT, DIM, grpcClients, grpcFailure, http, openEngine, startServer, unary, type Indexes, type Running } from './fixture.js';

let ix: Indexes;
let dataDir: string;
let engine: Engine;
let srv: Running;
let client: QdrantClient;

async function start(): Promise<void> {
  engine = await openEngine(ix, { dataDir });
  srv = await startServer(engine);
  client = new QdrantClient({ url: srv.url, checkCompatibility: false });
}

async function stop(): Promise<void> {
  await srv.close();
  await engine.close();
}

beforeAll(async () => {
  ix = await buildIndexes();
  dataDir = ix.tmp.path('data');
  await start();
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

const rnd = mulberry32(5);
const randomVector = (dim = DIM): number[] => Array.from({ length: dim }, () => rnd() * 2 - 1);
const body = <T>(r: { body: unknown }): T => (r.body as { result: T }).result;

/** Brute force over (id, vector) pairs: ids of the k nearest by cosine similarity. */
function bruteCosine(points: Map<number, number[]>, q: number[], k: number): number[] {
  const norm = (v: number[]): number => Math.hypot(...v);
  const qn = norm(q);
  return [...points.entries()]
    .map(([id, v]) => ({ id, s: v.reduce((a, x, i) => a + x * q[i]!, 0) / (norm(v) * qn) }))
    .sort((a, b) => b.s - a.s || a.id - b.id)
    .slice(0, k)
    .map((x) => x.id);
}

describe('collections created over the API', () => {
  const name = 'fresh/one';
  const final = new Map<number, number[]>();

  it('creates a collection with the Qdrant client and describes it as writable and empty', async () => {
    expect(await client.createCollection(name, { vectors: { size: 8, distance: 'Cosine' } })).toBe(true);
    expect((await client.collectionExists(name)).exists).toBe(true);
    const info = await client.getCollection(name);
    expect(info.points_count).toBe(0);
    expect(info.config.params.vectors).toMatchObject({ size: 8, distance: 'Cosine' });
    const raw = await http(srv.url, 'GET', `/collections/${encodeURIComponent(name)}`);
    expect(body<{ strata: { read_only: boolean; live: { fresh_points: number } } }>(raw).strata).toMatchObject({ read_only: false, live: { fresh_points: 0 } });
    // Its files live under a directory named from the name's hash (the name holds a slash).
    expect(existsSync(collectionDir(dataDir, name))).toBe(true);
  });

  it('applies a batch update in order with the Qdrant client, one result each; a bad operation anywhere writes nothing', async () => {
    const col = 'batched';
    await client.createCollection(col, { vectors: { size: 8, distance: 'Euclid' } });
    const vec = Array.from({ length: 4 }, () => randomVector(8));
    const results = await client.batchUpdate(col, {
      wait: true,
      operations: [
        { upsert: { points: vec.map((vector, id) => ({ id, vector, payload: { a: id, b: 'x' } })) } },
        { set_payload: { payload: { c: true }, points: [0, 1] } },
        { overwrite_payload: { payload: { only: 1 }, points: [2] } },
        { delete_payload: { keys: ['b'], points: [1] } },
        { clear_payload: { points: [3] } },
        { delete: { points: [0] } },
      ],
    });
    expect(results.map((r) => r.status)).toEqual(new Array(6).fill('completed'));
    const got = await client.retrieve(col, { ids: [0, 1, 2, 3] });
    expect(Object.fromEntries(got.map((p) => [p.id, p.payload]))).toEqual({ 1: { a: 1, c: true }, 2: { only: 1 }, 3: {} });
    // Nothing of a batch with a bad member is written, and the error names the member's field.
    const bad = await http(srv.url, 'POST', `/collections/${col}/points/batch?wait=true`, {
      operations: [{ delete: { points: [1] } }, { upsert: { points: [{ id: 9, vector: [1, 2] }] } }],
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).status.error).toMatch(/^operations\[1\]\.upsert\.points\[0\]\.vector: /);
    const vectors = await http(srv.url, 'POST', `/collections/${col}/points/batch`, {
      operations: [{ delete: { points: [1] } }, { delete_vectors: { points: [2], vector: [''] } }],
    });
    expect(vectors.status).toBe(400);
    expect(JSON.parse(vectors.text).status.error).toMatch(/^operations\[1\]\.delete_vectors\.vector\[0\]: a point's primary dense vector cannot be deleted/);
    expect((await client.count(col)).count).toBe(3);
    expect((await http(srv.url, 'DELETE', `/collections/${col}`)).status).toBe(200);
  });

  it('switches an alias between collections with the Qdrant client; every route takes the alias; it survives a restart and goes with its collection', async () => {
    for (const col of ['blue', 'green']) {
      await client.createCollection(col, { vectors: { size: 8, distance: 'Euclid' } });
      await client.upsert(col, { wait: true, points: [{ id: col === 'blue' ? 1 : 2, vector: randomVector(8), payload: { col } }] });
    }
    await client.updateCollectionAliases({ actions: [{ create_alias: { collection_name: 'blue', alias_name: 'live' } }] });
    expect((await client.scroll('live')).points.map((p) => p.id)).toEqual([1]);
    // The switch: one request, all or none.
    await client.updateCollectionAliases({
      actions: [{ delete_alias: { alias_name: 'live' } }, { create_alias: { collection_name: 'green', alias_name: 'live' } }],
    });
    expect((await client.scroll('live')).points.map((p) => p.id)).toEqual([2]);
    await client.upsert('live', { wait: true, points: [{ id: 3, vector: randomVector(8) }] });
    expect((await client.count('green')).count).toBe(2);
    await client.updateCollectionAliases({ actions: [{ rename_alias: { old_alias_name: 'live', new_alias_name: 'prod' } }] });
    expect((await client.getAliases()).aliases).toEqual([{ alias_name: 'prod', collection_name: 'green' }]);
    expect((await client.getCollectionAliases('green')).aliases).toEqual([{ alias_name: 'prod', collection_name: 'green' }]);
    // Refused whole, naming the field: an alias on a collection's name, an unknown alias; nothing changed.
    const clash = await http(srv.url, 'POST', '/collections/aliases', {
      actions: [{ create_alias: { collection_name: 'green', alias_name: 'other' } }, { create_alias: { collection_name: 'green', alias_name: 'blue' } }],
    });
    expect(clash.status).toBe(400);
    expect(JSON.parse(clash.text).status.error).toMatch(/^actions\[1\]\.create_alias\.alias_name: "blue" is a collection's name/);
    const missing = await http(srv.url, 'POST', '/collections/aliases', { actions: [{ delete_alias: { alias_name: 'nope' } }] });
    expect(missing.status).toBe(404);
    expect((await client.getAliases()).aliases).toEqual([{ alias_name: 'prod', collection_name: 'green' }]);
    expect((await http(srv.url, 'PUT', '/collections/prod', { vectors: { size: 8, distance: 'Euclid' } })).status).toBe(400);
    await stop();
    await start();
    expect((await client.scroll('prod')).points.map((p) => p.id)).toEqual([2, 3]);
    expect((await http(srv.url, 'DELETE', '/collections/green')).status).toBe(200);
    expect((await client.getAliases()).aliases).toEqual([]);
    expect((await http(srv.url, 'DELETE', '/collections/blue')).status).toBe(200);
  });

  it('facets a keyword, an integer and a bool field with the Qdrant client, counts exact under a filter; an unindexed key is refused', async () => {
    const col = 'faceted';
    await client.createCollection(col, { vectors: { size: 8, distance: 'Euclid' } });
    const colors = ['red', 'green', 'blue'];
    const points = Array.from({ length: 90 }, (_, i) => ({
      id: i,
      vector: randomVector(8),
      payload: { color: colors[i % 3 === 0 ? 0 : i % 5 === 0 ? 2 : 1], year: 2000 + (i % 4), ok: i % 2 === 0, tags: i < 10 ? ['a', 'a'] : ['b'] },
    }));
    await client.upsert(col, { wait: true, points });
    for (const [field, type] of [
      ['color', 'keyword'],
      ['year', 'integer'],
      ['ok', 'bool'],
      ['tags', 'keyword'],
    ] as const)
      await client.createPayloadIndex(col, { field_name: field, field_schema: type, wait: true });
    // The model: counted from the points themselves.
    const model = (key: 'color' | 'year' | 'ok' | 'tags', keep: (i: number) => boolean) => {
      const m = new Map<string | number | boolean, number>();
      for (const p of points) if (keep(p.id)) for (const v of new Set<string | number | boolean>([p.payload[key]!].flat())) m.set(v, (m.get(v) ?? 0) + 1);
      return [...m].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
    };
    for (const key of ['color', 'year', 'ok', 'tags'] as const) {
      expect((await client.facet(col, { key, limit: 10 })).hits, key).toEqual(model(key, () => true));
      const filtered = await client.facet(col, { key, limit: 2, filter: { must: [{ key: 'ok', match: { value: true } }] } });
      expect(filtered.hits, `${key} filtered`).toEqual(model(key, (i) => i % 2 === 0).slice(0, 2));
    }
    const none = await http(srv.url, 'POST', `/collections/${col}/facet`, { key: 'nothing' });
    expect(none.status).toBe(400);
    expect(JSON.parse(none.text).status.error).toMatch(/^key: "nothing" needs a keyword, uuid, integer or bool payload index/);
    expect((await http(srv.url, 'DELETE', `/collections/${col}`)).status).toBe(200);
  });

  it('takes an upsert of 2,500 points in one request (written in steps), and answers once all are there', async () => {
    const bulk = 'bulk-load';
    await client.createCollection(bulk, { vectors: { size: 8, distance: 'Euclid' } });
    const points = Array.from({ length: 2500 }, (_, i) => ({ id: i, vector: randomVector(8), payload: { i } }));
    const up = await client.upsert(bulk, { wait: true, points });
    expect(up.status).toBe('completed');
    expect((await client.count(bulk)).count).toBe(2500);
    const last = await client.retrieve(bulk, { ids: [2499], with_vector: true });
    expect(last[0]!.vector).toEqual(points[2499]!.vector.map((x) => Math.fround(x)));
    const hit = await client.search(bulk, { vector: points[1777]!.vector, limit: 1, params: { exact: true } });
    expect(hit[0]!.id).toBe(1777);
    expect((await http(srv.url, 'DELETE', `/collections/${bulk}`)).status).toBe(200);
  });

  it('refuses at create every setting it would not honour, naming it, and creates nothing; takes the ones it meets', async () => {
    const vectors = { size: 8, distance: 'Cosine' };
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ vectors, quantization_config: { binary: { always_ram: true } } }, 'quantization_config.binary'],
      [{ vectors, sparse_vectors: { text: { index: { full_scan_threshold: 10 } } } }, 'sparse_vectors.text.index.full_scan_threshold'],
      [{ vectors, optimizers_config: { indexing_threshold: 0 } }, 'optimizers_config'],
      [{ vectors, on_disk_payload: true }, 'on_disk_payload'],
      [{ vectors, shard_number: 2 }, 'shard_number'],
      [{ vectors: { ...vectors, multivector_config: { comparator: 'max_sim' } } }, 'vectors.multivector_config'],
      [{ vectors: { ...vectors, on_disk: true } }, 'vectors.on_disk'],
      [{ vectors: { ...vectors, datatype: 'float16' } }, 'vectors.datatype'],
      [{ vectors: { dense: vectors, other: { ...vectors, on_disk: true } } }, 'vectors.other.on_disk'],
      [{ vectors: { dense: vectors, other: { ...vectors, quantization_config: { scalar: { type: 'int8' } } } } }, 'vectors.other.quantization_config'],
      [{ vectors, hnsw_config: { m: 8, payload_m: 65 } }, 'hnsw_config.payload_m'],
      [{ vectors, hnsw_config: { m: 8, full_scan_threshold: 10 } }, 'hnsw_config.full_scan_threshold'],
    ];
    for (const [body, field] of refused) {
      const r = await http(srv.url, 'PUT', '/collections/refused-settings', body);
      expect(r.status, field).toBe(400);
      expect(JSON.parse(r.text).status.error, field).toContain(field);
      expect((await http(srv.url, 'GET', '/collections/refused-settings')).status).toBe(404);
    }
    const ok = await http(srv.url, 'PUT', '/collections/met-settings', {
      vectors: { ...vectors, on_disk: false, datatype: 'float32' },
      shard_number: 1,
      replication_factor: 1,
      write_consistency_factor: 1,
      on_disk_payload: false,
      hnsw_config: { m: 12 },
      quantization_config: { scalar: { type: 'int8', always_ram: true } },
    });
    expect(ok.status, ok.text).toBe(200);
    expect((await http(srv.url, 'DELETE', '/collections/met-settings')).status).toBe(200);
  });

  it('refuses a second create of the same name with 409 STRATA_COLLECTION_EXISTS', async () => {
    const r = await http(srv.url, 'PUT', `/collections/${encodeURIComponent(name)}`, { vectors: { size: 8, distance: 'Cosine' } });
    expect(r.status).toBe(409);
    expect(r.text).toMatch(/exists already/);
  });

  it('upserts rows with payloads and columns (batch), then retrieves, counts and searches them', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => ({ id: i, vector: randomVector(8), payload: { n: i, tag: i % 2 === 0 ? 'even' : 'odd' } }));
    const up = await client.upsert(name, { wait: true, points: rows });
    expect(up.status).toBe('completed');
    for (const r of rows) final.set(r.id, r.vector);
    const ids = Array.from({ length: 40 }, (_, i) => 1000 + i);
    const vectors = ids.map(() => randomVector(8));
    const b = await http(srv.url, 'PUT', `/collections/${encodeURIComponent(name)}/points`, { batch: { ids, vectors } });
    expect(b.status).toBe(200);
    expect(body<{ status: string; operation_id: number }>(b)).toMatchObject({ status: 'acknowledged', operation_id: expect.any(Number) });
    ids.forEach((id, i) => final.set(id, vectors[i]!));
    expect((await client.count(name)).count).toBe(100);

    const got = await client.retrieve(name, { ids: [3, 1005, 99999], with_payload: true, with_vector: true });
    expect(got.map((p) => p.id).sort()).toEqual([1005, 3]);
    const p3 = got.find((p) => p.id === 3)!;
    expect(p3.payload).toEqual({ n: 3, tag: 'odd' });
    // Stored unit-normalised (cosine), as searched.
    const v3 = final.get(3)!;
    const n3 = Math.hypot(...v3);
    (p3.vector as number[]).forEach((x, i) => expect(x).toBeCloseTo(v3[i]! / n3, 5));

    const hits = await client.search(name, { vector: v3, limit: 5, with_payload: true });
    expect(hits[0]).toMatchObject({ id: 3, payload: { n: 3, tag: 'odd' } });
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    const metrics = (await http(srv.url, 'GET', '/metrics')).text;
    expect(metrics).toContain(`strata_live_fresh_points{collection="${name}"} 100`);
    expect(metrics).toMatch(new RegExp(`strata_live_applied_operation_id\\{collection="${name}"\\} [1-9]`));
  });

  it('deletes points: gone from search, retrieve, scroll and count', async () => {
    const del = await client.delete(name, { wait: true, points: [3, 1005] });
    expect(del.status).toBe('completed');
    final.delete(3);
    final.delete(1005);
    expect((await client.count(name)).count).toBe(98);
    expect(await client.retrieve(name, { ids: [3, 1005] })).toEqual([]);
    const hits = await client.search(name, { vector: randomVector(8), limit: 100 });
    expect(hits.map((h) => h.id)).not.toContain(3);
    const page = await client.scroll(name, { limit: 200 });
    expect(page.points.map((p) => p.id)).toEqual([...final.keys()].sort((a, b) => a - b));
  });

  it('sets and overwrites payloads', async () => {
    await client.setPayload(name, { wait: true, points: [4], payload: { color: 'red' } });
    expect((await client.retrieve(name, { ids: [4], with_payload: true }))[0]!.payload).toEqual({ n: 4, tag: 'even', color: 'red' });
    await client.overwritePayload(name, { wait: true, points: [4], payload: { only: true } });
    expect((await client.retrieve(name, { ids: [4], with_payload: true }))[0]!.payload).toEqual({ only: true });
  });

  it('answers exact search over the live points exactly as brute force does', async () => {
    for (let i = 0; i < 10; i++) {
      const q = randomVector(8);
      const r = await http(srv.url, 'POST', `/collections/${encodeURIComponent(name)}/points/search`, { vector: q, limit: 10, params: { exact: true } });
      expect(body<Array<{ id: number }>>(r).map((h) => h.id)).toEqual(bruteCosine(final, q, 10));
    }
  });

  it('refuses bad writes with 400 naming the field, and applies nothing of them', async () => {
    const before = (await client.count(name)).count;
    const cases: Array<[unknown, RegExp]> = [
      [
        {
          points: [
            { id: 7000, vector: randomVector(8) },
            { id: 7001, vector: randomVector(7) },
          ],
        },
        /^points\[1\]\.vector: expected 8 dimensions/,
      ],
      [{ points: [{ id: -1, vector: randomVector(8) }] }, /^points\[0\]\.id: must be an unsigned integer/],
      [{ points: [{ id: 7002, vector: [...randomVector(7), Number.NaN] }] }, /^points\[0\]\.vector: /],
      [{ points: [{ id: 7003, vector: randomVector(8), payload: 5 }] }, /^points\[0\]\.payload: must be an object/],
      [{ batch: { ids: [7004, 7005], vectors: [randomVector(8)] } }, /^batch\.vectors: 1 vectors for 2 ids/],
      [{}, /^batch: must be an object/],
      // One write holds the event loop while it is applied whole: requests are capped (writes.ts).
      [{ points: new Array(100_001).fill(0) }, /^points: at most 100000 items, got 100001/],
    ];
    for (const [b, message] of cases) {
      const r = await http(srv.url, 'PUT', `/collections/${encodeURIComponent(name)}/points`, b);
      expect(r.status, JSON.stringify(b).slice(0, 80)).toBe(400);
      expect((r.body as { status: { error: string } }).status.error).toMatch(message);
    }
    const d = await http(srv.url, 'POST', `/collections/${encodeURIComponent(name)}/points/delete`, { filter: { must: [{ key: 'x', range: { gte: 'y' } }] } });
    expect(d.status).toBe(400);
    expect((d.body as { status: { error: string } }).status.error).toMatch(/^filter\.must\[0\]\.range\.gte: /);
    expect((await client.count(name)).count).toBe(before);
    expect(await client.retrieve(name, { ids: [7000, 7001, 7002, 7003, 7004] })).toEqual([]);
  });

  it('comes back after a restart with the same points, payloads and answers (the log is replayed)', async () => {
    const q = randomVector(8);
    const before = await client.search(name, { vector: q, limit: 10, with_payload: true });
    await stop();
    await start();
    expect((await client.count(name)).count).toBe(final.size);
    expect((await client.retrieve(name, { ids: [4], with_payload: true }))[0]!.payload).toEqual({ only: true });
    expect(await client.search(name, { vector: q, limit: 10, with_payload: true })).toEqual(before);
  });

  it('deletes the collection and its files; the name can be created again', async () => {
    expect(await client.deleteCollection(name)).toBe(true);
    expect((await client.collectionExists(name)).exists).toBe(false);
    expect(existsSync(collectionDir(dataDir, name))).toBe(false);
    expect((await http(srv.url, 'DELETE', `/collections/${encodeURIComponent(name)}`)).body).toMatchObject({ result: false });
    expect(await client.createCollection(name, { vectors: { size: 4, distance: 'Euclid' } })).toBe(true);
    expect((await client.count(name)).count).toBe(0);
  });
});

describe('a built collection served with a data directory', () => {
  it('takes upserts and deletes over its base: hidden base points never come back, replaced ones answer with their new vector', async () => {
    const c = engine.collection('vectors');
    const v7 = Array.from(c.getPoint(7)!.vector);
    const v9 = Array.from(c.getPoint(9)!.vector);
    const far = randomVector().map((x) => x * 1000);
    await client.upsert('vectors', {
      wait: true,
      points: [
        { id: 9, vector: far, payload: { moved: true } },
        { id: 500_000, vector: v7 },
      ],
    });
    await client.delete('vectors', { wait: true, points: [7] });
    expect((await client.count('vectors')).count).toBe(COUNT);

    // 7's old vector now finds the fresh point 500000 first, and never 7.
    const near7 = await client.search('vectors', { vector: v7, limit: 10 });
    expect(near7[0]!.id).toBe(500_000);
    expect(near7.map((h) => h.id)).not.toContain(7);
    // 9 answers from its new place only.
    expect((await client.search('vectors', { vector: far, limit: 1, with_payload: true }))[0]).toMatchObject({ id: 9, payload: { moved: true } });
    expect((await client.search('vectors', { vector: v9, limit: 20 })).map((h) => h.id)).not.toContain(9);
    expect((await client.retrieve('vectors', { ids: [7] })).length).toBe(0);
    const page = await client.scroll('vectors', { offset: 5, limit: 5 });
    expect(page.points.map((p) => p.id)).toEqual([5, 6, 8, 9, 10]);
    const tail = await client.scroll('vectors', { offset: COUNT - 1, limit: 5 });
    expect(tail.points.map((p) => p.id)).toEqual([COUNT - 1, 500_000]);

    await stop();
    await start();
    expect((await client.search('vectors', { vector: v7, limit: 10 })).map((h) => h.id)).not.toContain(7);
    expect((await client.retrieve('vectors', { ids: [9], with_vector: true }))[0]!.vector).toEqual(far.map((x) => Math.fround(x)));
  });

  it('refuses to delete a built collection over the API (405)', async () => {
    const r = await http(srv.url, 'DELETE', '/collections/vectors');
    expect(r.status).toBe(405);
    expect(r.headers['allow']).toBe('GET');
  });
});

describe('writes over gRPC', () => {
  it('creates a collection, upserts with payloads, deletes, and the reads see it; errors carry their status', async () => {
    const g = grpcClients(srv.addr.grpc!);
    try {
      const name = 'grpc-live';
      expect(await unary(g.collections, 'Create', { collection_name: name, dimension: 4, distance: 'Euclid' })).toMatchObject({ result: true });
      const dup = await grpcFailure(unary(g.collections, 'Create', { collection_name: name, dimension: 4, distance: 'Euclid' }));
      expect(dup).toMatchObject({ code: grpc.status.ALREADY_EXISTS, strataCode: 'STRATA_COLLECTION_EXISTS' });
      const up = await unary(g.points, 'Upsert', {
        collection_name: name,
        points: [
          { id: 1, vector: [0, 0, 0, 1], payload_json: '{"a":1}' },
          { id: 2, vector: [0, 0, 1, 0] },
          { id: 3, vector: [5, 5, 5, 5] },
        ],
      });
      expect(up).toMatchObject({ status: 'completed', operation_id: expect.any(Number) });
      expect(await unary(g.points, 'Count', { collection_name: name })).toMatchObject({ count: 3 });
      const hits = (await unary(g.points, 'Search', { collection_name: name, vector: [0, 0, 0, 0.9], limit: 2 })) as { result: Array<{ id: number }> };
      expect(hits.result.map((h) => Number(h.id))).toEqual([1, 2]);
      expect((await client.retrieve(name, { ids: [1], with_payload: true }))[0]!.payload).toEqual({ a: 1 });

      const bad = await grpcFailure(unary(g.points, 'Upsert', { collection_name: name, points: [{ id: 9, vector: [1, 2, 3] }] }));
      expect(bad).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      expect(bad.details).toMatch(/^points\[0\]\.vector: expected 4 dimensions/);
      const badJson = await grpcFailure(unary(g.points, 'Upsert', { collection_name: name, points: [{ id: 9, vector: [1, 2, 3, 4], payload_json: '{' }] }));
      expect(badJson.details).toMatch(/^points\[0\]\.payload_json: is not JSON/);

      await unary(g.points, 'SetPayload', { collection_name: name, ids: [2], payload_json: '{"b":2}' });
      await unary(g.points, 'SetPayload', { collection_name: name, ids: [1], payload_json: '{"c":3}' });
      expect((await client.retrieve(name, { ids: [1, 2], with_payload: true })).map((p) => p.payload)).toEqual([{ a: 1, c: 3 }, { b: 2 }]);
      await unary(g.points, 'SetPayload', { collection_name: name, ids: [1], payload_json: '{"d":4}', overwrite: true });
      expect((await client.retrieve(name, { ids: [1], with_payload: true }))[0]!.payload).toEqual({ d: 4 });
      const notObject = await grpcFailure(unary(g.points, 'SetPayload', { collection_name: name, ids: [1], payload_json: '[1]' }));
      expect(notObject.details).toMatch(/^payload: must be an object/);
      await unary(g.points, 'Delete', { collection_name: name, ids: [1, 77] });
      expect(await unary(g.points, 'Count', { collection_name: name })).toMatchObject({ count: 2 });
      // Compact over gRPC: the live points become the collection's first tiered base.
      const compacted = (await unary(g.collections, 'Compact', { collection_name: name })) as { result: Record<string, unknown> };
      expect(compacted.result).toMatchObject({ compacted: true, points: 2, fresh_before: 2, fresh_after: 0, hidden_after: 0 });
      expect(await unary(g.points, 'Count', { collection_name: name })).toMatchObject({ count: 2 });
      const hits2 = (await unary(g.points, 'Search', { collection_name: name, vector: [0, 0, 1, 0], limit: 1 })) as { result: Array<{ id: number }> };
      expect(hits2.result.map((h) => Number(h.id))).toEqual([2]);
      expect(await grpcFailure(unary(g.collections, 'Compact', { collection_name: '' }))).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      expect(await unary(g.collections, 'Delete', { collection_name: name })).toMatchObject({ result: true });
      expect(await grpcFailure(unary(g.points, 'Count', { collection_name: name }))).toMatchObject({ code: grpc.status.NOT_FOUND });
    } finally {
      g.close();
    }
  });
});

describe('snapshots of live collections', () => {
  it('restores a snapshot (fetched from the download URL) into a collection that answers exactly as the original did', async () => {
    const src = 'snap-src';
    await client.createCollection(src, { vectors: { size: 8, distance: 'Dot' } });
    const points = Array.from({ length: 300 }, (_, i) => ({ id: i * 7, vector: randomVector(8), payload: { i } }));
    await client.upsert(src, { wait: true, points });
    await client.delete(src, { wait: true, points: [7, 14] });
    const queries = Array.from({ length: 8 }, () => randomVector(8));
    const before = await Promise.all(queries.map((q) => client.search(src, { vector: q, limit: 10, with_payload: true })));

    const snap = await client.createSnapshot(src);
    expect(snap).toMatchObject({ name: expect.stringMatching(/\.snapshot$/), size: expect.any(Number), checksum: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await client.listSnapshots(src)).map((s) => s.name)).toContain(snap!.name);
    // Writes after the snapshot are not in it.
    await client.upsert(src, { wait: true, points: [{ id: 99_999, vector: randomVector(8) }] });
    await client.delete(src, { wait: true, points: [21] });

    const location = `${srv.url}/collections/${src}/snapshots/${snap!.name}`;
    expect(await client.recoverSnapshot('snap-dst', { location, checksum: snap!.checksum! })).toBe(true);
    expect((await client.count('snap-dst')).count).toBe(298);
    const after = await Promise.all(queries.map((q) => client.search('snap-dst', { vector: q, limit: 10, with_payload: true })));
    expect(after).toEqual(before);

    // The download is the file whose SHA-256 the listing gives.
    const dl = await request(location);
    expect(dl.statusCode).toBe(200);
    expect(
      createHash('sha256')
        .update(Buffer.from(await dl.body.arrayBuffer()))
        .digest('hex'),
    ).toBe(snap!.checksum);
  });

  it('refuses a wrong checksum, a damaged snapshot, a file outside the snapshot directory and a relative file URL with 400 naming the field, and changes nothing', async () => {
    const snap = (await client.listSnapshots('snap-src'))[0]!;
    const location = `${srv.url}/collections/snap-src/snapshots/${snap.name}`;
    const wrong = await http(srv.url, 'PUT', '/collections/snap-dst/snapshots/recover', { location, checksum: '0'.repeat(64) });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toMatch(/checksum/);
    // A damaged copy inside the snapshot directory: one byte flipped.
    const file = join(dataDir, 'snapshots', basename(collectionDir(dataDir, 'snap-src')), snap.name);
    const damaged = file.replace(/\.snapshot$/, '0.snapshot').replace('snapshot-', 'snapshot-9');
    const bytes = readFileSync(file);
    const mid = bytes.length >> 1;
    bytes[mid] = bytes[mid]! ^ 0xff;
    writeFileSync(damaged, bytes);
    const bad = await http(srv.url, 'PUT', '/collections/snap-dst/snapshots/recover', { location: pathToFileURL(damaged).href });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/not a valid snapshot \(SHA-256 mismatch/);
    const outside = await http(srv.url, 'PUT', '/collections/snap-dst/snapshots/recover', { location: pathToFileURL('/etc/passwd').href });
    expect(outside.status).toBe(400);
    expect(outside.text).toMatch(/^.*location: a file location must be inside/);
    // A relative file URL names a host, not a path: a 400 saying so, not a 500.
    const relative = await http(srv.url, 'PUT', '/collections/snap-dst/snapshots/recover', { location: `file://snapshots/${snap.name}` });
    expect(relative.status).toBe(400);
    expect(relative.text).toMatch(/location: a file URL must hold an absolute path/);
    expect((await client.count('snap-dst')).count).toBe(298);
    expect((await http(srv.url, 'GET', '/collections/snap-src/snapshots/snapshot-x.snapshot')).status).toBe(400);
    await client.deleteSnapshot('snap-src', snap.name);
    expect((await client.listSnapshots('snap-src')).map((s) => s.name)).not.toContain(snap.name);
  });
});

describe('UUID point ids', () => {
  it('stores points under UUIDs beside integer ids: search, retrieve, scroll, delete and payloads by UUID, across a restart', async () => {
    const name = 'uuids';
    await client.createCollection(name, { vectors: { size: 4, distance: 'Euclid' } });
    const a = '0d4a4a4e-6ae4-4e7c-8f1b-3a2c9d1e5f60';
    const b = 'F1E2D3C4-B5A6-4978-8695-A4B3C2D1E0F9';
    await client.upsert(name, {
      wait: true,
      points: [
        { id: a, vector: [1, 0, 0, 0], payload: { who: 'a' } },
        { id: b, vector: [0, 1, 0, 0], payload: { who: 'b' } },
        { id: 5, vector: [0, 0, 1, 0] },
      ],
    });
    expect((await client.search(name, { vector: [0.9, 0, 0, 0], limit: 1, with_payload: true }))[0]).toMatchObject({ id: a, payload: { who: 'a' } });
    // Any spelling of a UUID finds it; answers use the canonical (lowercase) form.
    const got = await client.retrieve(name, { ids: [b.toLowerCase(), 5], with_payload: true, with_vector: true });
    expect(got.map((p) => p.id)).toEqual([b.toLowerCase(), 5]);
    expect((await http(srv.url, 'GET', `/collections/${name}/points/${b}`)).body).toMatchObject({ result: { id: b.toLowerCase(), payload: { who: 'b' } } });
    // Integer ids first, then UUID points in the order they were first written.
    expect((await client.scroll(name, { limit: 10 })).points.map((p) => p.id)).toEqual([5, a, b.toLowerCase()]);
    await client.setPayload(name, { wait: true, points: [a], payload: { more: 1 } });
    await client.upsert(name, { wait: true, points: [{ id: a, vector: [0, 0, 0, 1], payload: { who: 'a2' } }] });
    expect((await client.count(name)).count).toBe(3);
    await client.delete(name, { wait: true, points: [b] });
    expect(await client.retrieve(name, { ids: [b] })).toEqual([]);

    await stop();
    await start();
    expect((await client.scroll(name, { limit: 10, with_payload: true })).points.map((p) => [p.id, p.payload])).toEqual([
      [5, {}],
      [a, { who: 'a2' }],
    ]);
    expect((await client.search(name, { vector: [0, 0, 0, 1], limit: 1 }))[0]!.id).toBe(a);
    // The same UUID keeps its point after the restart: no second copy.
    await client.upsert(name, { wait: true, points: [{ id: a, vector: [0, 0, 0, 2] }] });
    expect((await client.count(name)).count).toBe(2);
    const big = await http(srv.url, 'PUT', `/collections/${name}/points`, { points: [{ id: 2 ** 52, vector: [0, 0, 0, 1] }] });
    expect(big.status).toBe(400);
    expect(big.text).toMatch(/points\[0\]\.id: must be an unsigned integer below 2\^52 or a UUID/);
  });
});
