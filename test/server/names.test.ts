// Collection names are capped at 255 bytes (Qdrant's limit) on every route and method, and no error
// message echoes more than a bounded piece of its input. A gRPC collection_name of ~64 KiB used to
// be echoed into the grpc-message header, past HTTP/2's header limits: the call and its channel hung.
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { MAX_ECHO } from '../../common/errors.js';
import { Engine, MAX_COLLECTION_NAME_BYTES } from '../../engine/engine.js';
import { MAX_MESSAGE_CHARS } from '../../server/errors.js';
import { grpcClients, grpcFailure, http, servedSuite, unary } from './fixture.js';

const t = servedSuite();

const HUGE = 'n'.repeat(100 * 1024);
const errorOf = (body: unknown): string => (body as { status: { error: string } }).status.error;

describe('collection names and echoed input', () => {
  it('refuses a 100 KiB gRPC collection_name at once on every method, and the channel keeps working', async () => {
    const c = grpcClients(t.srv.addr.grpc!);
    try {
      const vector = Array.from(t.ix.query(0));
      const calls: Array<[GrpcClientsKey, string, object]> = [
        ['points', 'Search', { collection_name: HUGE, vector, limit: 3 }],
        ['points', 'SearchBatch', { collection_name: HUGE, searches: [{ vector, limit: 3 }] }],
        ['points', 'Get', { collection_name: HUGE, ids: [1] }],
        ['points', 'Count', { collection_name: HUGE }],
        ['collections', 'Get', { collection_name: HUGE }],
      ];
      for (const [client, method, req] of calls) {
        // The deadline is only a guard: a hung call would end DEADLINE_EXCEEDED instead.
        const f = await grpcFailure(unary(c[client], method, req, new grpc.Metadata(), 30_000));
        expect(f.code, method).toBe(grpc.status.INVALID_ARGUMENT);
        expect(f.details, method).toMatch(/^collection_name: at most 255 bytes, got 102400 \("n{32}…"\)$/);
      }
      // A stream's request too.
      const stream = (c.points['SearchStream'] as () => grpc.ClientDuplexStream<object, object>).call(c.points);
      const ended = new Promise<grpc.ServiceError>((resolve) => stream.on('error', resolve));
      stream.on('data', () => {});
      stream.write({ collection_name: HUGE, vector, limit: 3 });
      const e = await ended;
      expect(e.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(e.details).toMatch(/^request 0: collection_name: at most 255 bytes/);
      // The same channel still answers.
      expect((await unary(c.points, 'Count', { collection_name: 'vectors' }))['count']).toBe(2000);
      const h = await grpcFailure(unary(c.health, 'Check', { service: HUGE }));
      expect(h.code).toBe(grpc.status.NOT_FOUND);
      expect(h.details.length).toBeLessThan(200);
    } finally {
      c.close();
    }
  });

  it('counts the 255 in bytes, and quotes at most 64 characters of a name in REST messages', async () => {
    expect(MAX_COLLECTION_NAME_BYTES).toBe(255);
    const at = 'a'.repeat(255);
    const over = 'a'.repeat(256);
    const body = { vector: Array.from(t.ix.query(0)), limit: 3 };
    const notFound = await http(t.srv.url, 'POST', `/collections/${at}/points/search`, body);
    expect(notFound.status).toBe(404);
    expect(errorOf(notFound.body)).toBe(`collection "${'a'.repeat(MAX_ECHO)}…" not found (loaded: vectors)`);
    for (const path of [`/collections/${over}/points/search`, `/collections/${over}/points/count`, `/collections/${over}/exists`]) {
      const r = await http(t.srv.url, 'POST', path, body);
      if (path.endsWith('/exists')) expect((await http(t.srv.url, 'GET', path)).status).toBe(400);
      else expect(r.status, path).toBe(400);
      if (!path.endsWith('/exists')) expect(errorOf(r.body)).toMatch(/^collection_name: at most 255 bytes, got 256 \("a{32}…"\)$/);
    }
    // Multi-byte characters: 128 × "é" is 128 characters but 256 bytes.
    expect(() => t.engine.collection('é'.repeat(128))).toThrow(/^collection_name: at most 255 bytes, got 256/);
    expect(() => t.engine.collection('é'.repeat(127))).toThrow(/not found/);
  });

  it('bounds every other echo: unknown paths, content types, point ids, filter keys, query keys', async () => {
    const long = 'x'.repeat(5000);
    const cases = [
      await http(t.srv.url, 'GET', `/${long}`),
      await http(t.srv.url, 'POST', '/collections/vectors/points/search', undefined, { raw: '{}', headers: { 'content-type': `text/${long}` } }),
      await http(t.srv.url, 'POST', '/collections/vectors/points/search', { vector: Array.from(t.ix.query(0)), limit: 3, filter: { [long]: [1] } }),
      await http(t.srv.url, 'POST', '/collections/vectors/points/query', { query: { [long]: 1 } }),
      await http(t.srv.url, 'POST', '/collections/vectors/points/query', { query: Array.from(t.ix.query(0)), using: long }),
    ];
    for (const r of cases) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      const message = errorOf(r.body);
      expect(message).not.toContain('x'.repeat(MAX_ECHO + 1));
      expect(message.length).toBeLessThan(400);
    }
    const point = await http(t.srv.url, 'GET', `/collections/vectors/points/1${'0'.repeat(19)}`);
    expect(point.status).toBe(404);
    expect(errorOf(point.body).length).toBeLessThan(200);
    expect(MAX_MESSAGE_CHARS).toBeLessThanOrEqual(1024);
  });

  it('refuses a served name over 255 bytes at startup, naming the option', async () => {
    await expect(Engine.open([{ dir: t.ix.l2, name: over256() }], { searchThreads: 0, memory: { mode: 'emulate' } })).rejects.toThrow(
      /^name: at most 255 bytes, got 300/,
    );
  });
});

type GrpcClientsKey = 'points' | 'collections';
const over256 = (): string => 'z'.repeat(300);
