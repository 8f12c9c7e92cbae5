// Operations: health and readiness (REST and gRPC), Prometheus metrics, the OpenAPI document, API-key
// authentication on both protocols, and draining when the engine shuts down.
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { buildServer } from '../../server/app.js';
import { isLoopback, resolveOptions } from '../../server/options.js';
import { HEALTH_PATHS } from '../../server/rest/routes/health.js';
import { buildIndexes, grpcClients, grpcFailure, here, http, openEngine, startServer, unary, type Indexes, type Running } from './fixture.js';

let ix: Indexes;

beforeAll(async () => {
  ix = await buildIndexes();
});

afterAll(() => ix?.tmp.cleanup());

describe('health, metrics and OpenAPI', () => {
  let engine: Engine;
  let srv: Running;
  beforeAll(async () => {
    engine = await openEngine(ix);
    srv = await startServer(engine);
  });
  afterAll(async () => {
    await srv?.close();
    await engine?.close();
  });

  it('answers /livez, /healthz and /readyz with 200 once listening', async () => {
    for (const p of ['/livez', '/healthz', '/readyz']) expect((await http(srv.url, 'GET', p)).status, p).toBe(200);
    expect(srv.server.lifecycle.ready).toBe(true);
  });

  it('exposes request, search, tier, queue and thread metrics in Prometheus format', async () => {
    await http(srv.url, 'POST', '/collections/vectors/points/search', { vector: Array.from(ix.query(0)), limit: 5 });
    await http(srv.url, 'POST', '/collections/vectors/points/search', { vector: [1], limit: 5 });
    const r = await http(srv.url, 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toMatch(/^text\/plain/);
    for (const name of [
      'strata_http_requests_total',
      'strata_http_request_duration_seconds_bucket',
      'strata_grpc_requests_total',
      'strata_searches_total',
      'strata_search_distance_computations_total',
      'strata_search_hops_total',
      'strata_tier_accesses_total',
      'strata_tier_bytes_total',
      'strata_dram_hit_share',
      'strata_queue_depth',
      'strata_queue_rejected_total',
      'strata_search_thread_utilisation',
      'process_cpu_seconds_total',
    ]) {
      expect(r.text, name).toContain(name);
    }
    expect(r.text).toMatch(/strata_http_requests_total\{route="\/collections\/:collection_name\/points\/search",method="POST",status="200"\} [1-9]/);
    expect(r.text).toMatch(/strata_http_requests_total\{route="\/collections\/:collection_name\/points\/search",method="POST",status="400"\} [1-9]/);
    expect(r.text).toMatch(/strata_searches_total\{collection="vectors"\} [1-9]/);
    expect(r.text).toMatch(/strata_search_tasks_total\{collection="vectors"\} [1-9]/);
    expect(r.text).toMatch(/strata_tier_accesses_total\{collection="vectors",tier="cxl"\} [1-9]/);
  });

  it('serves the OpenAPI document equal to the checked-in docs/openapi.json', async () => {
    const served = await http(srv.url, 'GET', '/openapi.json');
    const file = JSON.parse(readFileSync(here('..', '..', 'docs', 'openapi.json'), 'utf8')) as unknown;
    expect(served.body).toEqual(file);
    expect((file as { paths: Record<string, unknown> }).paths).toHaveProperty(['/collections/{collection_name}/points/search']);
  });
});

describe('API key', () => {
  const KEY = 'secret-key-for-tests';
  let engine: Engine;
  let srv: Running;
  beforeAll(async () => {
    engine = await openEngine(ix);
    srv = await startServer(engine, { apiKey: KEY });
  });
  afterAll(async () => {
    await srv?.close();
    await engine?.close();
  });

  it("refuses every REST route but the health probes without the key (401), in Qdrant's envelope", async () => {
    for (const p of ['/collections', '/metrics', '/openapi.json', '/collections/vectors', '/nope', '/']) {
      const r = await http(srv.url, 'GET', p);
      expect(r.status, p).toBe(401);
      expect((r.body as { status: { error: string } }).status.error).toMatch(/API key/);
    }
    expect((await http(srv.url, 'POST', '/collections/vectors/points/search', { vector: Array.from(ix.query(0)), limit: 3 })).status).toBe(401);
    expect((await http(srv.url, 'GET', '/collections', undefined, { headers: { 'api-key': 'wrong' } })).status).toBe(401);
  });

  it('answers every health probe without a key: they reveal nothing, and probes cannot send one', async () => {
    expect([...HEALTH_PATHS].sort()).toEqual(['/healthz', '/livez', '/readyz']);
    for (const p of HEALTH_PATHS) {
      const r = await http(srv.url, 'GET', p);
      expect(r.status, p).toBe(200);
      expect(r.text, p).not.toMatch(/vectors|secret/);
    }
  });

  it('fails closed in the library too: an empty key, or a non-loopback host without one, is refused', async () => {
    expect(() => resolveOptions({ apiKey: '' })).toThrow(/^apiKey: is empty/);
    expect(() => resolveOptions({ apiKey: ' \t' })).toThrow(/^apiKey: is empty/);
    for (const host of ['0.0.0.0', '::', '192.0.2.7', 'example.internal', '::ffff:192.0.2.7']) {
      expect(() => resolveOptions({ host }), host).toThrow(/^host: .* no API key is set/);
      expect(resolveOptions({ host, apiKey: KEY }).apiKey).toBe(KEY);
      expect(resolveOptions({ host, insecureNoAuth: true }).apiKey).toBeNull();
    }
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost']) expect(isLoopback(host), host).toBe(true);
    expect(() => buildServer(engine, { apiKey: '', logLevel: 'silent' })).toThrow(/apiKey/);
  });

  it('accepts the key in the api-key header or as Authorization: Bearer', async () => {
    expect((await http(srv.url, 'GET', '/collections', undefined, { headers: { 'api-key': KEY } })).status).toBe(200);
    expect((await http(srv.url, 'GET', '/collections', undefined, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    const r = await http(srv.url, 'POST', '/collections/vectors/points/search', { vector: Array.from(ix.query(0)), limit: 3 }, { headers: { 'api-key': KEY } });
    expect(r.status).toBe(200);
  });

  it("works with the official client's apiKey option and fails without it", async () => {
    const good = new QdrantClient({ url: srv.url, apiKey: KEY, checkCompatibility: false });
    expect((await good.getCollections()).collections).toEqual([{ name: 'vectors' }]);
    const bad = new QdrantClient({ url: srv.url, checkCompatibility: false });
    expect(
      await bad.getCollections().then(
        () => 200,
        (e: { status: number }) => e.status,
      ),
    ).toBe(401);
  });

  it('requires the key as gRPC metadata, except for the health service', async () => {
    const c = grpcClients(srv.addr.grpc!);
    try {
      const f = await grpcFailure(unary(c.points, 'Count', { collection_name: 'vectors' }));
      expect(f.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(f.details).toMatch(/API key/);
      const md = new grpc.Metadata();
      md.set('api-key', KEY);
      expect((await unary(c.points, 'Count', { collection_name: 'vectors' }, md))['count']).toBe(2000);
      const bearer = new grpc.Metadata();
      bearer.set('authorization', `Bearer ${KEY}`);
      expect((await unary(c.collections, 'List', {}, bearer))['collections']).toEqual([{ name: 'vectors' }]);
      expect(await unary(c.health, 'Check', { service: '' })).toEqual({ status: 'SERVING' });
    } finally {
      c.close();
    }
  });
});

describe('draining', () => {
  it('answers 503 and NOT_SERVING once the engine shuts down, and /readyz says why', async () => {
    const engine = await openEngine(ix);
    const srv = await startServer(engine);
    const c = grpcClients(srv.addr.grpc!);
    try {
      expect((await http(srv.url, 'GET', '/readyz')).status).toBe(200);
      await engine.close();
      const ready = await http(srv.url, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.text).toMatch(/shutting down/);
      const r = await http(srv.url, 'POST', '/collections/vectors/points/search', { vector: Array.from(ix.query(0)), limit: 3 });
      expect(r.status).toBe(503);
      expect(r.headers['retry-after']).toBe('1');
      expect((await http(srv.url, 'GET', '/livez')).status).toBe(200);
      expect(await unary(c.health, 'Check', { service: '' })).toEqual({ status: 'NOT_SERVING' });
      expect((await grpcFailure(unary(c.points, 'Count', { collection_name: 'vectors' }))).code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      c.close();
      await srv.close();
    }
  });

  it('stops being ready as soon as close() begins', async () => {
    const engine = await openEngine(ix);
    const srv = await startServer(engine);
    const closing = srv.close();
    expect(srv.server.lifecycle.ready).toBe(false);
    await closing;
    await engine.close();
  });
});
