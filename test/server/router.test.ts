// `strata router` on loopback: three shard servers built by `strata build --shards 3` (shard 0 with
// two replicas) behind one router, all real servers on real ports, driven by undici. Recall through
// the router equals one index over all the data (within 0.01); a killed replica changes no answer;
// a killed shard fails with 502 naming it, or (--partial allow) answers marked partial; a restarted
// shard is picked up again; writes reach the shard their id hashes to.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bruteForceKnn, generateClustered, writeFvecs } from '../../datasets/index.js';
import { Engine } from '../../engine/engine.js';
import { buildIndex } from '../../index/build/build-index.js';
import { buildShards, shardOf } from '../../index/build/build-shards.js';
import * as grpc from '@grpc/grpc-js';
import { bindGrpc, shutdownGrpc } from '../../server/grpc/grpc-server.js';
import { buildRouterGrpc } from '../../server/router/router-grpc.js';
import { buildRouter, type StrataRouter } from '../../server/router/router-server.js';
import { makeTempDir } from '../helpers/temp.js';
import { grpcClients, grpcFailure, http, startServer, type Running, unary } from './fixture.js';

const DIM = 16;
const COUNT = 3000;
const tmp = makeTempDir('strata-router-');
const set = generateClustered({ count: COUNT, dim: DIM, clusters: 10, seed: 21 }, 40);
const build = { metric: 'l2' as const, m: 8, efConstruction: 64, dramBudget: '20%', placement: 'profile' as const, profileSamples: 200 };

const engines: Engine[] = [];
let single: Running;
let replicaA: Running;
let replicaB: Running;
let shard1: Running;
let shard2: Running;
let shard2Engine: Engine;
let router: StrataRouter;
let routerUrl: string;
let allowRouter: StrataRouter;
let allowUrl: string;

async function serve(dir: string, port = 0, dataDir?: string): Promise<{ srv: Running; engine: Engine }> {
  const engine = await Engine.open([{ dir, name: 'vectors' }], { searchThreads: 0, memory: { mode: 'emulate' }, ...(dataDir ? { dataDir } : {}) });
  engines.push(engine);
  return { srv: await startServer(engine, { port, grpcPort: null }), engine };
}

// The deadline is far beyond any call here: a compaction on a loaded machine takes seconds, and no
// test in this file is about the deadline (hedging and failover are, with their own settings).
async function startRouter(shards: string[][], partial: 'fail' | 'allow'): Promise<{ r: StrataRouter; url: string }> {
  const r = buildRouter({ shards, partial, timeoutMs: 60_000, hedgeMs: 50, apiKey: null, bodyLimit: 32 << 20, logLevel: 'silent' });
  return { r, url: await r.app.listen({ host: '127.0.0.1', port: 0 }) };
}

beforeAll(async () => {
  const input = tmp.path('base.fvecs');
  await writeFvecs(input, set.base, DIM);
  await buildShards({ input, out: tmp.path('shards'), shards: 3, ...build });
  await buildIndex({ input, out: tmp.path('single'), ...build });
  single = (await serve(tmp.path('single'))).srv;
  replicaA = (await serve(tmp.path('shards', 'shard-0'))).srv;
  replicaB = (await serve(tmp.path('shards', 'shard-0'))).srv;
  shard1 = (await serve(tmp.path('shards', 'shard-1'), 0, tmp.path('data-1'))).srv;
  ({ srv: shard2, engine: shard2Engine } = await serve(tmp.path('shards', 'shard-2'), 0, tmp.path('data-2')));
  const shards = [[replicaA.url, replicaB.url], [shard1.url], [shard2.url]];
  ({ r: router, url: routerUrl } = await startRouter(shards, 'fail'));
  ({ r: allowRouter, url: allowUrl } = await startRouter(shards, 'allow'));
}, 120_000);

afterAll(async () => {
  await router?.close();
  await allowRouter?.close();
  for (const s of [single, replicaA, replicaB, shard1, shard2]) await s?.close().catch(() => {});
  for (const e of engines) await e.close();
  tmp.cleanup();
});

const query = (i: number): number[] => Array.from(set.queries.subarray(i * DIM, (i + 1) * DIM));
const ids = (r: { body: unknown }): number[] => (r.body as { result: Array<{ id: number }> }).result.map((h) => h.id);
const search = (url: string, i: number) => http(url, 'POST', '/collections/vectors/points/search', { vector: query(i), limit: 10, params: { hnsw_ef: 64 } });

describe('strata router', () => {
  it('answers with the recall of one index over all the data (within 0.01), and counts every point', async () => {
    const gt = bruteForceKnn(set.base, set.queries, DIM, 10, 'l2');
    let viaRouter = 0;
    let viaSingle = 0;
    for (let q = 0; q < 40; q++) {
      const truth = new Set(gt.ids.subarray(q * 10, (q + 1) * 10));
      viaRouter += ids(await search(routerUrl, q)).filter((id) => truth.has(id)).length;
      viaSingle += ids(await search(single.url, q)).filter((id) => truth.has(id)).length;
    }
    expect(Math.abs(viaRouter - viaSingle) / 400).toBeLessThanOrEqual(0.01);
    expect(viaRouter / 400).toBeGreaterThan(0.9);
    expect((await http(routerUrl, 'POST', '/collections/vectors/points/count', {})).body).toMatchObject({ result: { count: COUNT } });
    expect((await http(routerUrl, 'GET', '/collections/vectors')).body).toMatchObject({
      result: { points_count: COUNT, router: { shards: 3, missing_shards: [] } },
    });
    // offset pages through the merged ranking.
    const page = await http(routerUrl, 'POST', '/collections/vectors/points/search', { vector: query(0), limit: 5, offset: 5, params: { hnsw_ef: 64 } });
    expect(ids(page)).toEqual(ids(await search(routerUrl, 0)).slice(5, 10));
  });

  it("serves the dashboard, and a collection's memory and tier history merged from its shards", async () => {
    expect((await fetch(`${routerUrl}/dashboard/`)).status).toBe(200);
    const memory = (url: string) =>
      http(url, 'GET', '/collections/vectors/memory').then((r) => (r.body as { result: { total: { dram: number; cxl: number } } }).result.total);
    const shards = await Promise.all([replicaA.url, shard1.url, shard2.url].map(memory));
    expect(await memory(routerUrl)).toEqual({ dram: shards.reduce((a, t) => a + t.dram, 0), cxl: shards.reduce((a, t) => a + t.cxl, 0) });
    for (let q = 0; q < 10; q++) await search(routerUrl, q);
    await new Promise((r) => setTimeout(r, 2200));
    const h = (await http(routerUrl, 'GET', '/collections/vectors/tiers/history')).body as {
      result: { samples: Array<{ searches: number }>; hottest_lists: Array<{ reads: number }> };
    };
    expect(h.result.samples.length).toBeGreaterThan(0);
    // Every shard answered each of the 10 searches: 30 searches in all, in the seconds sampled.
    expect(h.result.samples.reduce((a, s) => a + s.searches, 0)).toBeGreaterThanOrEqual(30);
    const reads = h.result.hottest_lists.map((x) => x.reads);
    expect(reads).toEqual([...reads].sort((a, b) => b - a));
  });

  it('fetches points from the shard their id hashes to, and scrolls in id order across shards', async () => {
    const picks = [0, 1, 2, 3, 1234, 2999];
    const got = await http(routerUrl, 'POST', '/collections/vectors/points', { ids: picks, with_vector: true });
    expect(ids(got)).toEqual(picks);
    for (const id of picks) {
      const one = await http(routerUrl, 'GET', `/collections/vectors/points/${id}`);
      expect(one.status).toBe(200);
      expect((one.body as { result: { vector: number[] } }).result.vector).toEqual(Array.from(set.base.subarray(id * DIM, (id + 1) * DIM)));
    }
    const scrolled = await http(routerUrl, 'POST', '/collections/vectors/points/scroll', { offset: 100, limit: 7 });
    expect((scrolled.body as { result: { points: Array<{ id: number }>; next_page_offset: number } }).result).toMatchObject({
      points: [100, 101, 102, 103, 104, 105, 106].map((id) => ({ id })),
      next_page_offset: 107,
    });
  });

  it('passes a bad request through with the shard\u2019s 400 naming the field', async () => {
    const r = await http(routerUrl, 'POST', '/collections/vectors/points/search', { vector: [1, 2], limit: 3 });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/vector: expected 16 dimensions/);
  });

  it('routes writes by id hash to their shard (single-replica shards), and refuses them on a replicated one', async () => {
    // An id of shard 1 or 2, which run with a data directory.
    let id = 10_000;
    while (shardOf(id, 3) === 0) id++;
    const far = Array.from({ length: DIM }, () => 500);
    const w = await http(routerUrl, 'PUT', '/collections/vectors/points?wait=true', { points: [{ id, vector: far }] });
    expect(w.status, w.text).toBe(200);
    expect(ids(await http(routerUrl, 'POST', '/collections/vectors/points/search', { vector: far, limit: 1 }))).toEqual([id]);
    expect((await http(routerUrl, 'POST', '/collections/vectors/points/count', {})).body).toMatchObject({ result: { count: COUNT + 1 } });
    await http(routerUrl, 'POST', '/collections/vectors/points/delete?wait=true', { points: [id] });
    expect((await http(routerUrl, 'POST', '/collections/vectors/points/count', {})).body).toMatchObject({ result: { count: COUNT } });
    let id0 = 10_000;
    while (shardOf(id0, 3) !== 0) id0++;
    const refused = await http(routerUrl, 'PUT', '/collections/vectors/points', { points: [{ id: id0, vector: far }] });
    expect(refused.status).toBe(405);
    expect(refused.text).toMatch(/--write-log .* --replicated-writes/);
  });

  it('serves the gRPC API of strata serve: searches, counts, gets, writes and errors answer as over REST', async () => {
    const grpcServer = buildRouterGrpc(router, { bodyLimit: 32 << 20, maxBatch: 64 });
    const port = await bindGrpc(grpcServer, '127.0.0.1', 0);
    const c = grpcClients(`127.0.0.1:${port}`);
    try {
      for (let q = 0; q < 5; q++) {
        const viaGrpc = (await unary(c.points, 'Search', { collection_name: 'vectors', vector: query(q), limit: 10, params: { hnsw_ef: 64 } })) as {
          result: Array<{ id: number; score: number }>;
        };
        const viaRest = (await search(routerUrl, q)).body as { result: Array<{ id: number; score: number }> };
        expect(viaGrpc.result.map((h) => h.id)).toEqual(viaRest.result.map((h) => h.id));
        viaGrpc.result.forEach((h, i) => expect(h.score).toBeCloseTo(viaRest.result[i]!.score, 4));
      }
      const batch = (await unary(c.points, 'SearchBatch', {
        collection_name: 'vectors',
        searches: [0, 1].map((q) => ({ vector: query(q), limit: 5, params: { hnsw_ef: 64 } })),
      })) as { result: Array<{ result: Array<{ id: number }> }> };
      expect(batch.result.map((r) => r.result.map((h) => h.id))).toEqual([
        ids(await search(routerUrl, 0)).slice(0, 5),
        ids(await search(routerUrl, 1)).slice(0, 5),
      ]);
      expect(await unary(c.points, 'Count', { collection_name: 'vectors' })).toMatchObject({ count: COUNT });
      const got = (await unary(c.points, 'Get', { collection_name: 'vectors', ids: [3, 77, 10_000_000], with_vector: true })) as {
        result: Array<{ id: number; vector: number[] }>;
      };
      expect(got.result.map((p) => p.id).sort((a, b) => a - b)).toEqual([3, 77]);
      expect(got.result.find((p) => p.id === 3)!.vector.map((x) => Math.fround(x))).toEqual(Array.from(set.base.subarray(3 * DIM, 4 * DIM)));
      // A write to a single-replica shard, through gRPC, then its delete.
      let id = 20_000;
      while (shardOf(id, 3) === 0) id++;
      const far = Array.from({ length: DIM }, () => 700);
      expect(await unary(c.points, 'Upsert', { collection_name: 'vectors', points: [{ id, vector: far, payload_json: '{"k":1}' }] })).toMatchObject({
        status: 'completed',
      });
      const near = (await unary(c.points, 'Search', { collection_name: 'vectors', vector: far, limit: 1 })) as { result: Array<{ id: number }> };
      expect(near.result.map((h) => h.id)).toEqual([id]);
      await unary(c.points, 'Delete', { collection_name: 'vectors', ids: [id] });
      expect(await unary(c.points, 'Count', { collection_name: 'vectors' })).toMatchObject({ count: COUNT });
      // Errors keep their gRPC status and Strata code, from the router or relayed from a shard.
      const missing = await grpcFailure(unary(c.points, 'Count', { collection_name: 'nope' }));
      expect([missing.code, missing.strataCode]).toEqual([grpc.status.NOT_FOUND, 'STRATA_COLLECTION_NOT_FOUND']);
      const bad = await grpcFailure(unary(c.points, 'Search', { collection_name: 'vectors', vector: [1, 2], limit: 10 }));
      expect([bad.code, bad.strataCode]).toEqual([grpc.status.INVALID_ARGUMENT, 'STRATA_INVALID_ARGUMENT']);
      expect(bad.details).toMatch(/vector/);
      const listed = (await unary(c.collections as never, 'List', {})) as { collections: Array<{ name: string }> };
      expect(listed.collections.map((x) => x.name)).toEqual(['vectors']);
      const info = (await unary(c.collections as never, 'Get', { collection_name: 'vectors' })) as { result: { dimension: number; points_count: number } };
      expect([info.result.dimension, info.result.points_count]).toEqual([DIM, COUNT]);
      // SearchStream: answers in the order sent, then a bad request ends it naming which one.
      const stream = (c.points['SearchStream'] as (md: grpc.Metadata) => grpc.ClientDuplexStream<object, { result: Array<{ id: number }> }>).call(
        c.points,
        new grpc.Metadata(),
      );
      const streamed: number[][] = [];
      const ended = new Promise<{ code: number; details: string } | null>((resolve) => {
        stream.on('data', (m: { result: Array<{ id: number }> }) => streamed.push(m.result.map((h) => h.id)));
        stream.on('end', () => resolve(null));
        stream.on('error', (e: grpc.ServiceError) => resolve({ code: e.code, details: e.details }));
      });
      for (let q = 0; q < 6; q++) stream.write({ collection_name: 'vectors', vector: query(q), limit: 10, params: { hnsw_ef: 64 } });
      stream.write({ collection_name: 'vectors', vector: [1, 2], limit: 10 });
      stream.end();
      const streamError = await ended;
      expect(streamError?.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(streamError?.details).toMatch(/^request 6: .*vector/);
      expect(streamed).toEqual(await Promise.all([0, 1, 2, 3, 4, 5].map(async (q) => ids(await search(routerUrl, q)))));
      // Shard 0's replicas have no data directory: their refusal comes back with its code.
      const create = await grpcFailure(unary(c.collections as never, 'Create', { collection_name: 'other', dimension: DIM, distance: 'Dot' }));
      expect([create.code, create.strataCode]).toEqual([grpc.status.UNIMPLEMENTED, 'STRATA_READ_ONLY']);
    } finally {
      c.close();
      await shutdownGrpc(grpcServer, 1000);
    }
  });

  it('hedges: a replica that stalls is overtaken by the next one after --hedge-ms, and the answer is the same', async () => {
    // A replica that accepts the connection and never answers, in front of a healthy one.
    const stall = createServer(() => {});
    await new Promise<void>((r) => stall.listen(0, '127.0.0.1', () => r()));
    const port = (stall.address() as AddressInfo).port;
    const { r, url } = await startRouter([[`http://127.0.0.1:${port}`, replicaB.url], [shard1.url], [shard2.url]], 'fail');
    try {
      const want = ids(await search(routerUrl, 3));
      // Round robin starts every call at a different replica: some of these go to the stalled one first.
      for (let i = 0; i < 4; i++) {
        const got = await search(url, 3);
        expect(got.status).toBe(200);
        expect(ids(got)).toEqual(want);
      }
      const calls = [...r.shards.calls.entries()].filter(([k]) => k.startsWith('0 ')).map(([k, n]) => `${k}=${n}`);
      expect(calls.some((c) => c.startsWith(`0 ${replicaB.url} ok`))).toBe(true);
      expect(calls.some((c) => c.includes(`127.0.0.1:${port}`) && c.includes(' ok'))).toBe(false);
    } finally {
      await r.close();
      stall.closeAllConnections();
      await new Promise((res) => stall.close(res));
    }
  });

  it('fails over at once from a replica that answers 5xx', async () => {
    const broken = createServer((_req, res) => {
      res.statusCode = 500;
      res.end('{"status":{"error":"broken"},"result":null,"time":0}');
    });
    await new Promise<void>((r) => broken.listen(0, '127.0.0.1', () => r()));
    const port = (broken.address() as AddressInfo).port;
    // Hedge and deadline far beyond the test's own time limit: only the failover can answer.
    const r = buildRouter({
      shards: [[`http://127.0.0.1:${port}`, replicaB.url], [shard1.url], [shard2.url]],
      partial: 'fail',
      timeoutMs: 600_000,
      hedgeMs: 600_000,
      apiKey: null,
      bodyLimit: 1 << 20,
      logLevel: 'silent',
    });
    const url = await r.app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const want = ids(await search(routerUrl, 4));
      for (let i = 0; i < 4; i++) {
        const got = await search(url, 4);
        expect(got.status).toBe(200);
        expect(ids(got)).toEqual(want);
      }
      // Round robin sends about half of the calls to the broken replica first: each fails over to B.
      expect(r.shards.calls.get(`0 http://127.0.0.1:${port} failed`)).toBeGreaterThanOrEqual(2);
      expect(r.shards.calls.get(`0 ${replicaB.url} ok`)).toBeGreaterThanOrEqual(4);
    } finally {
      await r.close();
      await new Promise((res) => broken.close(res));
    }
  });

  it('answers the same after a replica dies; fails (or, allowed, answers partial) while a shard is down; picks the shard up again', async () => {
    const before = await Promise.all(Array.from({ length: 10 }, (_, q) => search(routerUrl, q).then(ids)));
    await replicaA.close();
    for (let q = 0; q < 10; q++) expect(ids(await search(routerUrl, q))).toEqual(before[q]);

    const port = Number(new URL(shard2.url).port);
    await shard2.close();
    const failed = await search(routerUrl, 0);
    expect(failed.status).toBe(502);
    expect(failed.text).toMatch(/shard 2 did not answer/);
    expect((await http(routerUrl, 'GET', '/readyz')).status).toBe(503);
    const partial = await search(allowUrl, 0);
    expect(partial.status).toBe(200);
    expect(partial.body).toMatchObject({ partial: true, missing_shards: [2] });
    for (const id of ids(partial)) expect(shardOf(id, 3)).not.toBe(2);
    expect((await http(allowUrl, 'GET', '/readyz')).status).toBe(200);

    shard2 = await startServer(shard2Engine, { port, grpcPort: null });
    for (let q = 0; q < 10; q++) expect(ids(await search(routerUrl, q))).toEqual(before[q]);
    expect((await http(routerUrl, 'GET', '/readyz')).status).toBe(200);
  });

  it('compacts on every replica of every shard (REST and gRPC), adding the shards up; a read-only replica refuses it (405)', async () => {
    // Shards 1 and 2 run with a data directory: a router over them alone.
    const { r: live, url } = await startRouter([[shard1.url], [shard2.url]], 'fail');
    try {
      const far = Array.from({ length: DIM }, (_, j) => 300 + j);
      const written = Array.from({ length: 6 }, (_, i) => 20_000 + i);
      const w = await http(url, 'PUT', '/collections/vectors/points?wait=true', { points: written.map((id) => ({ id, vector: far })) });
      expect(w.status, w.text).toBe(200);
      const total = ((await http(url, 'POST', '/collections/vectors/points/count', {})).body as { result: { count: number } }).result.count;
      const r = await http(url, 'POST', '/collections/vectors/compact');
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ result: { compacted: true, points: total, fresh_before: written.length, fresh_after: 0, hidden_after: 0 } });
      expect(((await http(url, 'POST', '/collections/vectors/points/count', {})).body as { result: { count: number } }).result.count).toBe(total);
      // Through the router's gRPC API: the same call, nothing left to fold in but the bases rebuilt.
      const grpcServer = buildRouterGrpc(live, { bodyLimit: 32 << 20, maxBatch: 64 });
      const port = await bindGrpc(grpcServer, '127.0.0.1', 0);
      const c = grpcClients(`127.0.0.1:${port}`);
      try {
        const g = (await unary(c.collections as never, 'Compact', { collection_name: 'vectors' })) as { result: Record<string, unknown> };
        expect(g.result).toMatchObject({ compacted: true, points: total, fresh_before: 0 });
      } finally {
        c.close();
        await shutdownGrpc(grpcServer, 1000);
      }
      await http(url, 'POST', '/collections/vectors/points/delete?wait=true', { points: written });
    } finally {
      await live.close();
    }
    // The full router: shard 0's replicas have no data directory.
    const refused = await http(routerUrl, 'POST', '/collections/vectors/compact');
    expect(refused.status, refused.text).toBe(405);
  });
});
