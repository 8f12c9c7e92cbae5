// The server over an engine with a search thread (searchThreads: 1, dist/engine/workers): answers
// equal the inline engine's; and a request whose deadline passes while its search runs on the
// thread fails with 504 (REST) / DEADLINE_EXCEEDED (gRPC).
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { costModel } from '../../tiers/cost-model.js';
import { ensureBuilt } from '../helpers/cli.js';
import { buildIndexes, grpcClients, grpcFailure, http, openEngine, startServer, unary, type Indexes, type Running } from './fixture.js';

let ix: Indexes;

beforeAll(async () => {
  ensureBuilt();
  ix = await buildIndexes();
});

afterAll(() => ix?.tmp.cleanup());

describe('server over a search thread', () => {
  let inline: Engine;
  let threaded: Engine;
  let srv: Running;
  beforeAll(async () => {
    inline = await openEngine(ix);
    threaded = await openEngine(ix, { searchThreads: 1 });
    srv = await startServer(threaded);
  });
  afterAll(async () => {
    await srv?.close();
    await threaded?.close();
    await inline?.close();
  });

  it('answers REST (JSON and MessagePack) and gRPC searches exactly like the inline engine', async () => {
    const c = grpcClients(srv.addr.grpc!);
    try {
      const n = 12;
      const want = await Promise.all(
        Array.from({ length: n }, async (_, i) => (await inline.collection('vectors').search({ vector: ix.query(i), k: 8 })).hits.map((h) => h.id)),
      );
      const json = await Promise.all(
        Array.from({ length: n }, (_, i) => http(srv.url, 'POST', '/collections/vectors/points/search', { vector: Array.from(ix.query(i)), limit: 8 })),
      );
      const mp = await Promise.all(
        Array.from({ length: n }, (_, i) => http(srv.url, 'POST', '/collections/vectors/points/search', { vector: ix.query(i), limit: 8 }, { msgpack: true })),
      );
      const rpc = await Promise.all(
        Array.from({ length: n }, (_, i) => unary(c.points, 'Search', { collection_name: 'vectors', vector: Array.from(ix.query(i)), limit: 8 })),
      );
      const ids = (r: { result: Array<{ id: number }> }): number[] => r.result.map((p) => p.id);
      expect(json.map((r) => ids(r.body as { result: Array<{ id: number }> }))).toEqual(want);
      expect(mp.map((r) => ids(r.body as { result: Array<{ id: number }> }))).toEqual(want);
      expect(rpc.map((r) => ids(r as unknown as { result: Array<{ id: number }> }))).toEqual(want);
    } finally {
      c.close();
    }
  });
});

describe('deadlines', () => {
  it('fails a search still running at its deadline with 504 over REST and DEADLINE_EXCEEDED over gRPC', async () => {
    // Injected CXL stalls of ~2 ms per access make one search take far longer than its 5 ms deadline.
    const slow = await openEngine(ix, { searchThreads: 1, inject: true, cost: costModel({ cxlExtraLatencyNs: 2_000_000 }) });
    const srv = await startServer(slow);
    const c = grpcClients(srv.addr.grpc!);
    try {
      const r = await http(srv.url, 'POST', '/collections/vectors/points/search?timeout=0.005', { vector: Array.from(ix.query(0)), limit: 3 });
      expect(r.status).toBe(504);
      expect((r.body as { status: { error: string } }).status.error).toBe('no answer within 5 ms');
      const f = await grpcFailure(unary(c.points, 'Search', { collection_name: 'vectors', vector: Array.from(ix.query(1)), limit: 3, timeout_ms: 5 }));
      expect(f.code).toBe(grpc.status.DEADLINE_EXCEEDED);
      expect(f.strataCode).toBe('STRATA_DEADLINE_EXCEEDED');
    } finally {
      c.close();
      await srv.close();
      await slow.close();
    }
  });
});
