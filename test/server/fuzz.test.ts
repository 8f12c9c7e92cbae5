// Property tests over the wire (fast-check): random JSON values, random bytes, random MessagePack
// values and random field types in search requests (REST), and random bytes and field values
// (gRPC) never get a 5xx / INTERNAL / UNKNOWN, and the server keeps answering correctly afterwards.
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { packMsgpack } from '../../server/rest/codec.js';
import {
  buildIndexes,
  DIM,
  grpcClients,
  http,
  openEngine,
  startServer,
  unary,
  type GrpcClients,
  type GrpcFailure,
  type Indexes,
  type Running,
} from './fixture.js';

let ix: Indexes;
let engine: Engine;
let srv: Running;
let c: GrpcClients;
let tried = 0;

const RUNS = 60;
const ENDPOINTS = ['search', 'search/batch', 'query', '', 'scroll', 'count'].map((e) => `/collections/vectors/points${e ? '/' + e : ''}`);
const BAD_GRPC = new Set([grpc.status.INTERNAL, grpc.status.UNKNOWN, grpc.status.DATA_LOSS]);

beforeAll(async () => {
  ix = await buildIndexes();
  engine = await openEngine(ix);
  srv = await startServer(engine, { bodyLimit: 256 * 1024 });
  c = grpcClients(srv.addr.grpc!);
});

afterAll(async () => {
  // The count of inputs tried, for the record.
  console.log(`server fuzz: ${tried} inputs tried (REST JSON, MessagePack, raw bytes; gRPC fields and raw bytes)`);
  c?.close();
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

const endpoint = fc.constantFrom(...ENDPOINTS);

/** Values of every JSON type, biased towards the shapes the fields expect. */
const fieldValue = fc.oneof(
  fc.constantFrom(null, undefined, true, false, 0, -1, 1, 2.5, 1e6, 10001, '', 'x', '10', [], {}),
  fc.integer({ min: -5, max: 20_000 }),
  fc.double(),
  fc.string({ maxLength: 12 }),
  fc.array(fc.double(), { maxLength: DIM + 4 }),
  fc.array(fc.oneof(fc.double(), fc.string({ maxLength: 3 }), fc.constant(null)), { minLength: DIM, maxLength: DIM }),
  fc.dictionary(fc.constantFrom('must', 'should', 'hnsw_ef', 'exact', 'nearest', 'x'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/** A search-shaped body whose fields may have any type. */
const searchLike = fc.record(
  {
    vector: fc.oneof(fieldValue, fc.array(fc.float({ noDefaultInfinity: false }), { minLength: DIM, maxLength: DIM })),
    query: fieldValue,
    limit: fieldValue,
    offset: fieldValue,
    params: fc.oneof(fieldValue, fc.record({ hnsw_ef: fieldValue, exact: fieldValue }, { requiredKeys: [] })),
    filter: fieldValue,
    with_vector: fieldValue,
    with_payload: fieldValue,
    score_threshold: fieldValue,
    ids: fc.oneof(fieldValue, fc.array(fieldValue, { maxLength: 4 })),
    searches: fc.oneof(fieldValue, fc.array(fc.record({ vector: fieldValue, limit: fieldValue }), { maxLength: 3 })),
  },
  { requiredKeys: [] },
);

function noServerError(status: number, what: string): boolean {
  tried++;
  if (status >= 500) throw new Error(`${what}: got ${status}`);
  return true;
}

describe('REST fuzz', () => {
  it('never answers 5xx to random JSON bodies on any endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(endpoint, fc.jsonValue({ maxDepth: 4 }), async (path, body) =>
        noServerError((await http(srv.url, 'POST', path, body)).status, `${path} ${JSON.stringify(body).slice(0, 200)}`),
      ),
      { numRuns: RUNS },
    );
  });

  it('never answers 5xx to search-shaped JSON and MessagePack bodies with random field types', async () => {
    await fc.assert(
      fc.asyncProperty(endpoint, searchLike, fc.boolean(), async (path, body, msgpack) => {
        const r = await http(srv.url, 'POST', path, body, { msgpack });
        if (r.status === 200 && path.endsWith('/search')) {
          const limit = (body as { limit?: unknown }).limit;
          expect((r.body as { result: unknown[] }).result.length).toBeLessThanOrEqual(limit as number);
        }
        return noServerError(r.status, `${path} ${msgpack ? 'msgpack' : 'json'}`);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('never answers 5xx to random bytes sent as JSON or MessagePack', async () => {
    await fc.assert(
      fc.asyncProperty(
        endpoint,
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom('application/json', 'application/msgpack', 'application/x-msgpack', 'text/plain'),
        async (path, bytes, type) =>
          noServerError(
            (await http(srv.url, 'POST', path, undefined, { raw: Buffer.from(bytes), headers: { 'content-type': type } })).status,
            `${path} ${type} ${Buffer.from(bytes).toString('hex').slice(0, 120)}`,
          ),
      ),
      { numRuns: RUNS },
    );
  });

  it('never answers 5xx to random MessagePack values (typed arrays, maps, big integers, dates)', async () => {
    const value = fc.anything({ maxDepth: 3, withTypedArray: true, withBigInt: true, withMap: true, withSet: true, withDate: true, withNullPrototype: true });
    await fc.assert(
      fc.asyncProperty(endpoint, value, async (path, v) => {
        let bytes: Buffer;
        try {
          bytes = packMsgpack(v);
        } catch {
          return true; // not encodable: nothing reaches the server
        }
        return noServerError((await http(srv.url, 'POST', path, undefined, { raw: bytes, headers: { 'content-type': 'application/msgpack' } })).status, path);
      }),
      { numRuns: RUNS },
    );
  });

  it('never answers 5xx to random path segments and query strings', async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 20 }).map(encodeURIComponent),
      fc.stringMatching(/^[%A-Za-z0-9._~-]{0,30}$/),
      fc.constantFrom('vectors', '', '..', '%', '%ZZ', 'a'.repeat(600)),
    );
    const query = fc.oneof(
      fc.constant(''),
      fc.stringMatching(/^[%A-Za-z0-9._~=&+-]{0,30}$/).map((q) => `?timeout=${q}`),
      fc.constantFrom('?timeout=1e400', '?timeout=-0', '?timeout=0.0001', '?timeout=NaN', '?timeout=1&timeout=2'),
    );
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') as fc.Arbitrary<'GET' | 'POST' | 'PUT' | 'DELETE'>;
    const shape = fc.constantFrom(
      '/collections/{s}',
      '/collections/{s}/exists',
      '/collections/{s}/points/{s}',
      '/collections/vectors/points/{s}',
      '/collections/{s}/points/search',
      '/{s}',
    );
    await fc.assert(
      fc.asyncProperty(method, shape, segment, segment, query, async (m, sh, a, b, q) => {
        let i = 0;
        const path = sh.replace(/\{s\}/g, () => (i++ === 0 ? a : b)) + q;
        const body = m === 'POST' ? { vector: Array.from({ length: DIM }, () => 0.5), limit: 2 } : undefined;
        return noServerError((await http(srv.url, m, path, body)).status, `${m} ${path}`);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('gRPC fuzz', () => {
  const methods = ['Search', 'SearchBatch', 'Get', 'Count'];

  it('never answers INTERNAL or UNKNOWN to random bytes as a request', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...methods), fc.uint8Array({ maxLength: 200 }), async (method, bytes) => {
        const err = await new Promise<grpc.ServiceError | null>((resolve) => {
          c.points.makeUnaryRequest(
            `/strata.v1.Points/${method}`,
            (b: Buffer) => b,
            (b: Buffer) => b,
            Buffer.from(bytes),
            (e) => resolve(e),
          );
        });
        tried++;
        if (err && BAD_GRPC.has(err.code)) throw new Error(`${method} ${Buffer.from(bytes).toString('hex')}: ${grpc.status[err.code]} ${err.details}`);
        return true;
      }),
      { numRuns: RUNS },
    );
  });

  it('never answers INTERNAL or UNKNOWN to search requests with random field values', async () => {
    const u32 = fc.oneof(fc.constantFrom(0, 1, 10, 10_000, 10_001, 2 ** 32 - 1), fc.nat());
    const req = fc.record(
      {
        collection_name: fc.constantFrom('vectors', '', 'nope', 'x'.repeat(300)),
        vector: fc.array(fc.float(), { maxLength: DIM + 2 }),
        limit: u32,
        offset: u32,
        params: fc.record({ hnsw_ef: u32, exact: fc.boolean() }, { requiredKeys: [] }),
        with_vector: fc.boolean(),
        score_threshold: fc.float(),
        timeout_ms: fc.constantFrom(0, 1, 1000, 2 ** 32 - 1),
      },
      { requiredKeys: ['collection_name', 'vector', 'limit'] },
    );
    await fc.assert(
      fc.asyncProperty(req, async (r) => {
        const code = await unary(c.points, 'Search', r).then(
          () => grpc.status.OK,
          (e: GrpcFailure) => e.code,
        );
        tried++;
        if (BAD_GRPC.has(code)) throw new Error(`Search ${JSON.stringify(r).slice(0, 200)}: ${grpc.status[code]}`);
        return true;
      }),
      { numRuns: RUNS },
    );
  });

  it('still answers correctly after all of it', async () => {
    expect((await http(srv.url, 'GET', '/livez')).status).toBe(200);
    const q = ix.query(0);
    const want = (await engine.collection('vectors').search({ vector: q, k: 5 })).hits.map((h) => h.id);
    const r = await http(srv.url, 'POST', '/collections/vectors/points/search', { vector: Array.from(q), limit: 5 });
    expect((r.body as { result: Array<{ id: number }> }).result.map((p) => p.id)).toEqual(want);
    const g = await unary(c.points, 'Search', { collection_name: 'vectors', vector: Array.from(q), limit: 5 });
    expect((g['result'] as Array<{ id: number }>).map((p) => p.id)).toEqual(want);
  });
});
