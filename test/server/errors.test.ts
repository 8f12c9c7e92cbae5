// REST error answers: bad input is a 400 naming the field, unknown names a 404, an oversize body or
// batch a 413 that states the limit and how to split, an unknown media type a 415; every code has
// one HTTP status and one gRPC status (server/errors.ts).
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../common/errors.js';
import type { Engine } from '../../engine/engine.js';
import { STATUS_OF } from '../../server/errors.js';
import { buildIndexes, DIM, http, openEngine, startServer, type Indexes, type Running } from './fixture.js';

let ix: Indexes;
let engine: Engine;
let srv: Running;

beforeAll(async () => {
  ix = await buildIndexes();
  engine = await openEngine(ix);
  srv = await startServer(engine, { bodyLimit: 64 * 1024, maxBatch: 4 });
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  ix?.tmp.cleanup();
});

const errorOf = (body: unknown): string => (body as { status: { error: string } }).status.error;

describe('REST bad input', () => {
  // Cases are built before beforeAll runs, so they use a fixed vector of the right dimension.
  const v = (): number[] => Array.from({ length: DIM }, (_, i) => i * 0.5);
  const cases: Array<[string, string, unknown, RegExp]> = [
    ['a vector of the wrong dimension', 'search', { vector: [1, 2, 3], limit: 3 }, /^vector: expected 16 dimensions, got 3$/],
    ['a non-numeric vector element', 'search', { vector: [...v().slice(1), 'x'], limit: 3 }, /^vector: element 15 must be a number, got "x"$/],
    ['a null vector element', 'search', { vector: [null, ...v().slice(1)], limit: 3 }, /^vector: element 0 must be a number, got null$/],
    ['an element beyond float32 range', 'search', { vector: [1e300, ...v().slice(1)], limit: 3 }, /^vector: element 0 is not a finite float32 number/],
    ['a missing vector', 'search', { limit: 3 }, /^vector: required/],
    [
      'a named vector',
      'search',
      { vector: { name: 'image', vector: v() }, limit: 3 },
      /^vector.name: no vector named "image": this collection has one unnamed dense vector/,
    ],
    ['a missing limit', 'search', { vector: v() }, /^limit: must be a number, got nothing$/],
    ['limit 0', 'search', { vector: v(), limit: 0 }, /^limit: must be an integer in 1\.\.10000, got 0$/],
    ['a negative limit', 'search', { vector: v(), limit: -4 }, /^limit: /],
    ['a fractional limit', 'search', { vector: v(), limit: 2.5 }, /^limit: /],
    ['a string limit', 'search', { vector: v(), limit: '10' }, /^limit: must be a number, got "10"$/],
    ['a limit too large', 'search', { vector: v(), limit: 10001 }, /^limit: /],
    ['a negative offset', 'search', { vector: v(), limit: 3, offset: -1 }, /^offset: /],
    ['limit + offset too large', 'search', { vector: v(), limit: 9000, offset: 2000 }, /^offset: limit \+ offset must be at most 10000/],
    ['hnsw_ef 0', 'search', { vector: v(), limit: 3, params: { hnsw_ef: 0 } }, /^params\.hnsw_ef: must be an integer in 1\.\.10000, got 0$/],
    ['hnsw_ef too large', 'search', { vector: v(), limit: 3, params: { hnsw_ef: 10001 } }, /^params\.hnsw_ef: /],
    ['a non-boolean exact', 'search', { vector: v(), limit: 3, params: { exact: 'yes' } }, /^params\.exact: must be true or false/],
    ['params that are not an object', 'search', { vector: v(), limit: 3, params: 5 }, /^params: must be an object/],
    [
      'a filter with a float match value',
      'search',
      { vector: v(), limit: 3, filter: { must: [{ key: 'city', match: { value: 1.5 } }] } },
      /^filter\.must\[0\]\.match\.value: /,
    ],
    ['a non-boolean with_vector', 'search', { vector: v(), limit: 3, with_vector: 'yes' }, /^with_vector: /],
    ['a string score_threshold', 'search', { vector: v(), limit: 3, score_threshold: 'x' }, /^score_threshold: must be a finite number/],
    ['a body that is an array', 'search', [1, 2, 3], /^body: must be an object, got an array of 3$/],
    ['a body that is a string', 'search', 'hello', /^body: must be an object/],
    [
      'a batch member with a wrong vector',
      'search/batch',
      {
        searches: [
          { vector: v(), limit: 1 },
          { vector: [1], limit: 1 },
        ],
      },
      /^searches\[1\]\.vector: expected 16 dimensions, got 1$/,
    ],
    ['a batch without searches', 'search/batch', {}, /^searches: must be an array/],
    ['a query without a query', 'query', { limit: 3 }, /^query: required/],
    [
      'a sample query',
      'query',
      { query: { sample: 'random' } },
      /^query: only nearest \(with mmr\), recommend \(average_vector\), discover, context, order_by and fusion \(rrf, dbsf\) queries are supported/,
    ],
    [
      'a discover query without candidates',
      'query',
      { query: { discover: { target: 1, context: [] } } },
      /^params\.exact: a discover query scores each candidate/,
    ],
    ['a recommendation without positives', 'query', { query: { recommend: { negative: [1] } } }, /^query\.recommend\.positive: required/],
    ['a recommend route by best_score', 'recommend', { positive: [1], limit: 3, strategy: 'best_score' }, /^strategy: only average_vector/],
    ['a query by an id that is neither integer nor UUID', 'query', { query: 'abc' }, /^query: must be an unsigned integer or a UUID, got "abc"$/],
    ['a nearest query of the wrong size', 'query', { query: { nearest: [1, 2] } }, /^query\.nearest: expected 16 dimensions, got 2$/],
    [
      'a prefetch looked up in another collection',
      'query',
      { query: v(), prefetch: [{ query: v(), lookup_from: { collection: 'x' } }] },
      /^prefetch\[0\]\.lookup_from: /,
    ],
    ['a fusion without prefetch', 'query', { query: { fusion: 'rrf' } }, /^query\.fusion: fuses the answers of prefetches/],
    ['an unknown fusion', 'query', { query: { fusion: 'max' }, prefetch: [{ query: v() }] }, /^query\.fusion: must be "rrf" or "dbsf"/],
    [
      'RRF weights not one per prefetch',
      'query',
      { query: { rrf: { weights: [1] } }, prefetch: [{ query: v() }, { query: v() }] },
      /^query\.rrf\.weights: needs one weight per prefetch \(2\)/,
    ],
    ['an MMR diversity out of range', 'query', { query: { nearest: v(), mmr: { diversity: 1.5 } } }, /^query\.mmr\.diversity: must be between 0 and 1/],
    [
      'MMR candidates fewer than the limit',
      'query',
      { query: { nearest: v(), mmr: { candidates_limit: 2 } }, limit: 5 },
      /^query\.mmr\.candidates_limit: must be at least limit \+ offset \(5\)/,
    ],
    ['an MMR field Strata does not know', 'query', { query: { nearest: v(), mmr: { lambda: 0.5 } } }, /^query\.mmr\.lambda: is not supported/],
    ['a query field Strata does not honour', 'query', { query: v(), lookup_from: { collection: 'x' } }, /^lookup_from: /],
    [
      'prefetches nested too deep',
      'query',
      { query: v(), prefetch: { query: v(), prefetch: { query: v(), prefetch: { query: v(), prefetch: { query: v(), prefetch: { query: v() } } } } } },
      /prefetch: prefetches nest at most 4 deep/,
    ],
    ['a named `using`', 'query', { query: v(), using: 'image' }, /^using: no vector named "image"/],
    ['an id that is neither integer nor UUID', '', { ids: [1, 'abc'] }, /^ids\[1\]: must be an unsigned integer or a UUID, got "abc"$/],
    ['ids that are not an array', '', { ids: 5 }, /^ids: must be an array/],
    ['a negative scroll offset', 'scroll', { offset: -3 }, /^offset: must be an unsigned integer or a UUID/],
    ['ordering by a key without a range index', 'scroll', { order_by: 'price' }, /^order_by\.key: "price" needs an integer, float or datetime payload index/],
    ['a count filter condition with no test', 'count', { filter: { should: [{ key: 'a' }] } }, /^filter\.should\[0\]/],
  ];
  for (const [what, endpoint, body, message] of cases) {
    it(`answers 400 naming the field for ${what}`, async () => {
      const r = await http(srv.url, 'POST', `/collections/vectors/points${endpoint ? '/' + endpoint : ''}`, body);
      expect(r.status).toBe(400);
      expect(errorOf(r.body)).toMatch(message);
      expect(r.body).toMatchObject({ result: null, time: expect.any(Number) });
    });
  }

  it('answers 400 naming the body for malformed JSON and an empty JSON body', async () => {
    const bad = await http(srv.url, 'POST', '/collections/vectors/points/search', undefined, {
      raw: '{"vector": [1, 2',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body)).toBe('body: malformed JSON');
    const empty = await http(srv.url, 'POST', '/collections/vectors/points/search', undefined, { raw: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    expect(errorOf(empty.body)).toMatch(/^body: empty body/);
  });

  it('answers 400 naming the timeout query parameter when it is not a positive number', async () => {
    for (const t of ['abc', '0', '-1', '1e400', '7200']) {
      const r = await http(srv.url, 'POST', `/collections/vectors/points/search?timeout=${t}`, { vector: Array.from(ix.query(0)), limit: 3 });
      expect(r.status).toBe(400);
      expect(errorOf(r.body)).toMatch(/^timeout: /);
    }
  });

  it('answers 400 naming the path for a malformed %-escape or an overlong collection name', async () => {
    const bad = await http(srv.url, 'GET', '/collections/%ZZ');
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body)).toMatch(/^path: not a valid URL/);
    const long = await http(srv.url, 'GET', `/collections/${'a'.repeat(600)}`);
    expect(long.status).toBe(400);
    expect(errorOf(long.body)).toMatch(/^path: a path parameter .* longer than 512 characters/);
  });

  it('answers 400 for a GET of a malformed point id and 404 naming an unknown collection', async () => {
    const bad = await http(srv.url, 'GET', '/collections/vectors/points/not-an-id');
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body)).toMatch(/^id: must be an unsigned integer or a UUID/);
    // A valid Qdrant id that cannot exist here (a UUID, or beyond 2^53) is a 404, not a 400.
    expect((await http(srv.url, 'GET', '/collections/vectors/points/18446744073709551615')).status).toBe(404);
    expect((await http(srv.url, 'GET', '/collections/vectors/points/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    const nf = await http(srv.url, 'POST', '/collections/missing/points/search', { vector: Array.from(ix.query(0)), limit: 3 });
    expect(nf.status).toBe(404);
    expect(errorOf(nf.body)).toBe('collection "missing" not found (loaded: vectors)');
    expect((await http(srv.url, 'GET', '/collections/missing')).status).toBe(404);
  });
});

describe('REST limits', () => {
  it('answers 413 over the body limit, stating the limit and how to split', async () => {
    const searches = Array.from({ length: 400 }, () => ({ vector: Array.from(ix.query(0)), limit: 1 }));
    const r = await http(srv.url, 'POST', '/collections/vectors/points/search/batch', { searches });
    expect(r.status).toBe(413);
    expect(errorOf(r.body)).toMatch(/larger than the 64 KiB limit \(--body-limit\): split it into several requests/);
  });

  it('answers 413 over the batch limit, stating the limit and the batch size to use', async () => {
    const searches = Array.from({ length: 5 }, () => ({ vector: Array.from(ix.query(0)), limit: 1 }));
    const r = await http(srv.url, 'POST', '/collections/vectors/points/search/batch', { searches });
    expect(r.status).toBe(413);
    expect(errorOf(r.body)).toBe('searches: 5 requests exceed the batch limit of 4: split them into batches of at most 4 (the limit is --max-batch)');
    const ok = await http(srv.url, 'POST', '/collections/vectors/points/search/batch', { searches: searches.slice(0, 4) });
    expect(ok.status).toBe(200);
  });

  it('answers 415 for a body that is neither JSON nor MessagePack', async () => {
    const r = await http(srv.url, 'POST', '/collections/vectors/points/search', undefined, {
      raw: '<search/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(r.status).toBe(415);
    expect(errorOf(r.body)).toMatch(/send application\/json or application\/msgpack/);
  });
});

describe('error code mapping', () => {
  it('gives every Strata code one HTTP status and one gRPC status', () => {
    expect(Object.keys(STATUS_OF).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    const want: Partial<Record<ErrorCode, [number, grpc.status]>> = {
      STRATA_INVALID_ARGUMENT: [400, grpc.status.INVALID_ARGUMENT],
      STRATA_UNAUTHENTICATED: [401, grpc.status.UNAUTHENTICATED],
      STRATA_COLLECTION_NOT_FOUND: [404, grpc.status.NOT_FOUND],
      STRATA_POINT_NOT_FOUND: [404, grpc.status.NOT_FOUND],
      STRATA_READ_ONLY: [405, grpc.status.UNIMPLEMENTED],
      STRATA_PAYLOAD_TOO_LARGE: [413, grpc.status.RESOURCE_EXHAUSTED],
      STRATA_UNSUPPORTED_MEDIA_TYPE: [415, grpc.status.INVALID_ARGUMENT],
      STRATA_OVERLOADED: [429, grpc.status.RESOURCE_EXHAUSTED],
      STRATA_SHUTTING_DOWN: [503, grpc.status.UNAVAILABLE],
      STRATA_DEADLINE_EXCEEDED: [504, grpc.status.DEADLINE_EXCEEDED],
      STRATA_STORAGE: [507, grpc.status.UNAVAILABLE],
      STRATA_INTERNAL: [500, grpc.status.INTERNAL],
    };
    for (const [code, [http, g]] of Object.entries(want) as Array<[ErrorCode, [number, grpc.status]]>) expect(STATUS_OF[code], code).toEqual({ http, grpc: g });
  });
});
