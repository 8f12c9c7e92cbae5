// gRPC with a real client (proto-loader over proto/strata.proto): Points and Collections
// answer what the engine answers, SearchStream answers in order, errors map to gRPC status codes
// with messages naming the field, and the standard health service reports readiness.
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import {
  buildIndexes,
  COUNT,
  DIM,
  expectedScore,
  grpcClients,
  grpcFailure,
  openEngine,
  startServer,
  unary,
  type GrpcClients,
  type Indexes,
  type Running,
} from './fixture.js';

let ix: Indexes;
let engine: Engine;
let srv: Running;
let c: GrpcClients;

interface ScoredMsg {
  id: number;
  score: number;
  version: number;
  vector: number[];
}

beforeAll(async () => {
  ix = await buildIndexes();
  engine = await openEngine(ix);
  srv = await startServer(engine);
  c = grpcClients(srv.addr.grpc!);
});

afterAll(async () => {
  c?.close();
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

async function engineHits(q: Float32Array, k: number): Promise<Array<{ id: number; score: number }>> {
  const r = await engine.collection('vectors').search({ vector: q, k });
  // `float score` on the wire: compare with the float32 rounding of the documented score.
  return r.hits.map((h) => ({ id: h.id, score: Math.fround(expectedScore('l2', h.distance)) }));
}

describe('gRPC Points', () => {
  it("Search answers the engine's ids and scores, with per-query stats only when asked for", async () => {
    const plain = await unary(c.points, 'Search', { collection_name: 'vectors', vector: Array.from(ix.query(0)), limit: 10 });
    expect(plain['strata'] ?? null).toBeNull();
    for (let i = 0; i < 6; i++) {
      const q = ix.query(i);
      const r = await unary(c.points, 'Search', { collection_name: 'vectors', vector: Array.from(q), limit: 10, with_stats: true });
      expect((r['result'] as ScoredMsg[]).map((p) => ({ id: p.id, score: p.score }))).toEqual(await engineHits(q, 10));
      expect((r['strata'] as { distance_computations: number; mode: string }).distance_computations).toBeGreaterThan(0);
      expect((r['strata'] as { mode: string }).mode).toBe('local');
    }
  });

  it('Search honours offset, params, with_vector and score_threshold like REST', async () => {
    const q = ix.query(7);
    const all = await engineHits(q, 12);
    const r = await unary(c.points, 'Search', {
      collection_name: 'vectors',
      vector: Array.from(q),
      limit: 6,
      offset: 2,
      params: { hnsw_ef: 80 },
      with_vector: true,
      score_threshold: all[5]!.score,
    });
    const hits = r['result'] as ScoredMsg[];
    expect(hits.map((p) => p.id)).toEqual(all.slice(2, 6).map((h) => h.id));
    expect(hits[0]!.vector).toEqual(Array.from(engine.collection('vectors').getPoint(hits[0]!.id)!.vector));
  });

  it('SearchBatch answers each search in order', async () => {
    const qs = [0, 1, 2].map((i) => ix.query(i));
    const r = await unary(c.points, 'SearchBatch', { collection_name: 'vectors', searches: qs.map((q) => ({ vector: Array.from(q), limit: 5 })) });
    const result = r['result'] as Array<{ result: ScoredMsg[] }>;
    for (let i = 0; i < qs.length; i++) expect(result[i]!.result.map((p) => p.id)).toEqual((await engineHits(qs[i]!, 5)).map((h) => h.id));
  });

  it('SearchStream answers a stream of searches in the order they were sent, past the in-flight limit', async () => {
    // More requests than the 256 in flight that pause the stream's reading.
    const n = 300;
    const call = (c.points['SearchStream'] as (md: grpc.Metadata) => grpc.ClientDuplexStream<object, { result: ScoredMsg[] }>).call(
      c.points,
      new grpc.Metadata(),
    );
    const answers: number[][] = [];
    const done = new Promise<void>((resolve, reject) => {
      call.on('data', (m: { result: ScoredMsg[] }) => answers.push(m.result.map((p) => p.id)));
      call.on('end', resolve);
      call.on('error', reject);
    });
    for (let i = 0; i < n; i++) call.write({ collection_name: 'vectors', vector: Array.from(ix.query(i % 40)), limit: 1 + (i % 7) });
    call.end();
    await done;
    expect(answers).toHaveLength(n);
    for (let i = 0; i < n; i++) expect(answers[i]).toEqual((await engineHits(ix.query(i % 40), 1 + (i % 7))).map((h) => h.id));
  });

  it('SearchStream ends with INVALID_ARGUMENT naming the failing request and field', async () => {
    const call = (c.points['SearchStream'] as (md: grpc.Metadata) => grpc.ClientDuplexStream<object, unknown>).call(c.points, new grpc.Metadata());
    const got: unknown[] = [];
    const err = await new Promise<grpc.ServiceError>((resolve, reject) => {
      call.on('data', (m) => got.push(m));
      call.on('error', resolve);
      call.on('end', () => reject(new Error('stream ended without an error')));
      call.write({ collection_name: 'vectors', vector: Array.from(ix.query(0)), limit: 3 });
      call.write({ collection_name: 'vectors', vector: [1, 2, 3], limit: 3 });
      call.end();
    });
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toBe(`request 1: vector: expected ${DIM} dimensions, got 3`);
    expect(got).toHaveLength(1);
  });

  it('Get returns existing points (with vectors on request) and Count the number of points', async () => {
    const r = await unary(c.points, 'Get', { collection_name: 'vectors', ids: [4, COUNT + 1, 2], with_vector: true });
    const pts = r['result'] as Array<{ id: number; vector: number[] }>;
    expect(pts.map((p) => p.id)).toEqual([4, 2]);
    expect(pts[0]!.vector).toEqual(Array.from(engine.collection('vectors').getPoint(4)!.vector));
    expect((await unary(c.points, 'Count', { collection_name: 'vectors' }))['count']).toBe(COUNT);
  });
});

describe('gRPC Collections', () => {
  it('List names the collections and Get describes one with its tiers', async () => {
    expect((await unary(c.collections, 'List', {}))['collections']).toEqual([{ name: 'vectors' }]);
    const info = (await unary(c.collections, 'Get', { collection_name: 'vectors' }))['result'] as {
      dimension: number;
      distance: string;
      points_count: number;
      hnsw_m: number;
      tiers: Array<{ kind: string; binding_mode: string }>;
    };
    expect(info).toMatchObject({ dimension: DIM, distance: 'Euclid', points_count: COUNT, hnsw_m: 8 });
    expect(info.tiers.map((t) => [t.kind, t.binding_mode])).toEqual([
      ['dram', 'unbound'],
      ['cxl', 'emulated'],
    ]);
    // The promotion pool, as REST shows it (the fixture's 20% build has one).
    const rest = (engine.collection('vectors').info().placement.promotionPool ?? null) as { slots: number; tenants: number; moves: number } | null;
    expect(rest).not.toBeNull();
    const pool = (info as unknown as { promotion_pool?: { slots: number; tenants: number; moves: number | string } }).promotion_pool;
    expect(pool && { slots: pool.slots, tenants: pool.tenants, moves: Number(pool.moves) }).toEqual(rest);
  });
});

describe('gRPC errors', () => {
  it('maps bad input to INVALID_ARGUMENT with the field in the message and the Strata code in metadata', async () => {
    const cases: Array<[object, RegExp]> = [
      [{ collection_name: 'vectors', vector: [1, 2], limit: 3 }, /^vector: expected 16 dimensions, got 2$/],
      [{ collection_name: 'vectors', vector: Array.from(ix.query(0)), limit: 0 }, /^limit: must be an integer in 1\.\.10000, got 0$/],
      [{ collection_name: 'vectors', vector: Array.from(ix.query(0)), limit: 3, params: { hnsw_ef: 20000 } }, /^params\.hnsw_ef: /],
      [{ collection_name: 'vectors', vector: new Array<number>(DIM).fill(Number.NaN), limit: 3 }, /^vector: element 0 is not a finite/],
      [{ collection_name: '', vector: Array.from(ix.query(0)), limit: 3 }, /^collection_name: required/],
      [{ collection_name: 'vectors', vector: Array.from(ix.query(0)), limit: 3, timeout_ms: 0 }, /^timeout_ms: /],
    ];
    for (const [req, msg] of cases) {
      const f = await grpcFailure(unary(c.points, 'Search', req));
      expect(f.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(f.details).toMatch(msg);
      expect(f.strataCode).toBe('STRATA_INVALID_ARGUMENT');
    }
  });

  it('maps an unknown collection to NOT_FOUND and a batch over the limit to RESOURCE_EXHAUSTED', async () => {
    const nf = await grpcFailure(unary(c.points, 'Search', { collection_name: 'nope', vector: Array.from(ix.query(0)), limit: 3 }));
    expect(nf.code).toBe(grpc.status.NOT_FOUND);
    expect(nf.details).toMatch(/collection "nope" not found/);
    const big = await grpcFailure(
      unary(c.points, 'SearchBatch', {
        collection_name: 'vectors',
        searches: Array.from({ length: 257 }, () => ({ vector: Array.from(ix.query(0)), limit: 1 })),
      }),
    );
    expect(big.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(big.details).toMatch(/batch limit of 256: split them into batches of at most 256/);
  });

  it('answers undecodable request bytes with INVALID_ARGUMENT, not INTERNAL', async () => {
    const raw = await new Promise<grpc.ServiceError | null>((resolve) => {
      c.points.makeUnaryRequest(
        '/strata.v1.Points/Search',
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]),
        (e) => resolve(e),
      );
    });
    expect(raw?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(raw?.details).toMatch(/^message: malformed protobuf/);
  });
});

describe('gRPC health', () => {
  it('reports SERVING for the server and its services, and NOT_FOUND for an unknown service', async () => {
    expect(await unary(c.health, 'Check', { service: '' })).toEqual({ status: 'SERVING' });
    expect(await unary(c.health, 'Check', { service: 'strata.v1.Points' })).toEqual({ status: 'SERVING' });
    expect((await grpcFailure(unary(c.health, 'Check', { service: 'other.Service' }))).code).toBe(grpc.status.NOT_FOUND);
  });
});
