// Huge finite query values (1e20 on Euclid, 3e38 on Dot) used to overflow float32 distances: 200
// with "score": null and arbitrary ids. Values beyond the collection's bound are refused on every
// protocol, naming the field; values just inside it score as finite numbers.
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { maxQueryMagnitude } from '../../index/search/bounds.js';
import { buildIndexes, DIM, grpcClients, grpcFailure, http, startServer, unary, type Indexes, type Running } from './fixture.js';

let ix: Indexes;
let engine: Engine;
let srv: Running;

beforeAll(async () => {
  ix = await buildIndexes({ ip: true });
  engine = await Engine.open(
    [
      { dir: ix.l2, name: 'euclid' },
      { dir: ix.ip, name: 'dot' },
    ],
    { searchThreads: 0, memory: { mode: 'emulate' } },
  );
  srv = await startServer(engine);
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

const errorOf = (body: unknown): string => (body as { status: { error: string } }).status.error;
const bound = maxQueryMagnitude(DIM);

function withValue(x: number, at = 2): number[] {
  const v = Array.from(ix.query(0));
  v[at] = x;
  return v;
}

describe('query values that would overflow float32 distances', () => {
  it('are refused over REST JSON, MessagePack and gRPC, naming the field and the bound', async () => {
    expect(bound.toPrecision(3)).toBe('2.31e+18');
    const c = grpcClients(srv.addr.grpc!);
    try {
      for (const [collection, x] of [
        ['euclid', 1e20],
        ['dot', 3e38],
        ['euclid', -3e38],
      ] as const) {
        const message = new RegExp(`^vector: element 2 is ${x.toPrecision(3).replace('+', '\\+')}, beyond ±2\\.31e\\+18: the largest magnitude a 16-d query`);
        const json = await http(srv.url, 'POST', `/collections/${collection}/points/search`, { vector: withValue(x), limit: 5 });
        expect(json.status).toBe(400);
        expect(errorOf(json.body)).toMatch(message);
        const mp = await http(
          srv.url,
          'POST',
          `/collections/${collection}/points/search`,
          { vector: Float32Array.from(withValue(x)), limit: 5 },
          { msgpack: true },
        );
        expect(mp.status).toBe(400);
        expect(errorOf(mp.body)).toMatch(message);
        const f = await grpcFailure(unary(c.points, 'Search', { collection_name: collection, vector: withValue(x), limit: 5 }));
        expect(f.code).toBe(grpc.status.INVALID_ARGUMENT);
        expect(f.details).toMatch(message);
      }
      const batch = await http(srv.url, 'POST', '/collections/dot/points/search/batch', {
        searches: [
          { vector: withValue(1), limit: 3 },
          { vector: withValue(3e38, 7), limit: 3 },
        ],
      });
      expect(batch.status).toBe(400);
      expect(errorOf(batch.body)).toMatch(/^searches\[1\]\.vector: element 7 is 3\.00e\+38/);
      const query = await http(srv.url, 'POST', '/collections/euclid/points/query', { query: { nearest: withValue(1e20) } });
      expect(errorOf(query.body)).toMatch(/^query\.nearest: element 2 is 1\.00e\+20/);
    } finally {
      c.close();
    }
  });

  it('score as finite numbers just inside the bound, on every protocol and metric', async () => {
    const edge = Math.fround(bound * 0.999);
    const vector = new Array<number>(DIM).fill(edge).map((x, i) => (i % 2 ? -x : x));
    const c = grpcClients(srv.addr.grpc!);
    try {
      for (const collection of ['euclid', 'dot']) {
        const json = await http(srv.url, 'POST', `/collections/${collection}/points/search`, { vector, limit: 10 });
        expect(json.status).toBe(200);
        const mp = await http(srv.url, 'POST', `/collections/${collection}/points/search`, { vector: Float32Array.from(vector), limit: 10 }, { msgpack: true });
        const rpc = await unary(c.points, 'Search', { collection_name: collection, vector, limit: 10 });
        for (const result of [(json.body as { result: unknown[] }).result, (mp.body as { result: unknown[] }).result, rpc['result'] as unknown[]]) {
          expect(result).toHaveLength(10);
          for (const p of result as Array<{ score: unknown }>) {
            expect(typeof p.score).toBe('number');
            expect(Number.isFinite(p.score)).toBe(true);
          }
        }
      }
    } finally {
      c.close();
    }
  });
});
