// Overload: with a tiny engine queue (maxQueue 1), concurrent requests are either answered correctly
// or rejected at once with 429 (REST) / RESOURCE_EXHAUSTED (gRPC); never a 5xx.
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { buildIndexes, grpcClients, http, openEngine, startServer, unary, type GrpcFailure, type Indexes, type Running } from './fixture.js';

let ix: Indexes;
let engine: Engine;
let srv: Running;
let expected: number[][];

const ROUNDS = 6;
const CONCURRENT = 24;

beforeAll(async () => {
  ix = await buildIndexes();
  // The reference answers come from an engine with room in its queue.
  const reference = await openEngine(ix);
  expected = await Promise.all(
    Array.from({ length: CONCURRENT }, async (_, i) => (await reference.collection('vectors').search({ vector: ix.query(i), k: 5 })).hits.map((h) => h.id)),
  );
  await reference.close();
  engine = await openEngine(ix, { maxQueue: 1 });
  srv = await startServer(engine);
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

describe('overload', () => {
  it('rejects REST searches beyond the queue with 429 and Retry-After, answers the rest correctly, and never 5xx', async () => {
    const statuses: number[] = [];
    // Rounds of concurrent requests until some were rejected (bounded): whether two requests meet
    // in the queue depends on scheduling, not on a timer.
    for (let round = 0; round < ROUNDS && !statuses.includes(429); round++) {
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          http(srv.url, 'POST', '/collections/vectors/points/search', { vector: Array.from(ix.query(i)), limit: 5 }),
        ),
      );
      answers.forEach((r, i) => {
        statuses.push(r.status);
        if (r.status === 200) expect((r.body as { result: Array<{ id: number }> }).result.map((p) => p.id)).toEqual(expected[i]);
        if (r.status === 429) {
          expect(r.headers['retry-after']).toBe('1');
          expect((r.body as { status: { error: string } }).status.error).toMatch(
            /queue full \(1 requests waiting or running\): retry later or raise --max-queue/,
          );
        }
      });
    }
    expect(statuses).toContain(429);
    expect(statuses).toContain(200);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    const metrics = await http(srv.url, 'GET', '/metrics');
    expect(metrics.text).toMatch(/strata_queue_rejected_total\{collection="vectors"\} [1-9]/);
  });

  it('rejects gRPC searches beyond the queue with RESOURCE_EXHAUSTED and answers the rest correctly', async () => {
    const c = grpcClients(srv.addr.grpc!);
    try {
      const codes: number[] = [];
      for (let round = 0; round < ROUNDS && !codes.includes(grpc.status.RESOURCE_EXHAUSTED); round++) {
        const answers = await Promise.all(
          Array.from({ length: CONCURRENT }, (_, i) =>
            unary(c.points, 'Search', { collection_name: 'vectors', vector: Array.from(ix.query(i)), limit: 5 }).then(
              (r) => ({ code: grpc.status.OK, ids: (r['result'] as Array<{ id: number }>).map((p) => p.id) }),
              (e: GrpcFailure) => ({ code: e.code, ids: [] as number[] }),
            ),
          ),
        );
        answers.forEach((a, i) => {
          codes.push(a.code);
          if (a.code === grpc.status.OK) expect(a.ids).toEqual(expected[i]);
        });
      }
      expect(codes).toContain(grpc.status.RESOURCE_EXHAUSTED);
      expect(codes.every((k) => k === grpc.status.OK || k === grpc.status.RESOURCE_EXHAUSTED)).toBe(true);
    } finally {
      c.close();
    }
  });
});
