// The read routes `strata router` fans out beyond search and query, each answer compared with one
// `strata serve` holding all the points: query batches, grouped searches (search, query, recommend
// groups: the groups merged by their best hit and filled in from the shards that left them out),
// and the classic recommend and discover routes (one and batch: the examples named by id fetched
// from their shards and sent as vectors, the named points left out of the answer). Three shard
// servers with data directories and one single server, all real, on loopback.
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { shardOf } from '../../index/build/build-shards.js';
import { makeTempDir } from '../helpers/temp.js';
import { type HttpAnswer, http, type Running } from './fixture.js';
import { type RouterCluster, startRouterCluster } from './router-cluster.js';

const DIM = 8;
const COUNT = 400;
const SHARDS = 3;
const CITIES = Array.from({ length: 12 }, (_, i) => `city-${i}`);
const tmp = makeTempDir('strata-router-reads-');
let cluster: RouterCluster | undefined;
let single: Running;
let url: string;

const rnd = mulberry32(91);
const points = Array.from({ length: COUNT }, (_, k) => {
  const id = k + 1;
  const tags = ['a', 'b', 'c', 'd'].filter(() => rnd() < 0.4);
  return {
    id,
    vector: Array.from({ length: DIM }, () => Math.round((rnd() * 2 - 1) * 1000) / 1000),
    payload: { city: CITIES[Math.floor(rnd() * CITIES.length)]!, n: id % 9, tags },
  };
});
const vectorOf = (id: number): number[] => points[id - 1]!.vector;
const query = (i: number): number[] => Array.from({ length: DIM }, (_, d) => Math.sin(i * 7 + d));
const exact = { exact: true };

beforeAll(async () => {
  cluster = await startRouterCluster(tmp, SHARDS);
  ({ single, url } = cluster);
  for (const [name, distance] of [
    ['l2', 'Euclid'],
    ['cos', 'Cosine'],
  ] as const) {
    for (const u of [url, single.url]) {
      expect((await http(u, 'PUT', `/collections/${name}`, { vectors: { size: DIM, distance } })).status).toBe(200);
      const w = await http(u, 'PUT', `/collections/${name}/points?wait=true`, { points });
      expect(w.status, w.text).toBe(200);
    }
  }
}, 60_000);

afterAll(async () => {
  await cluster?.close();
  tmp.cleanup();
});

/** Scores to 5 decimals (a Cosine example's stored vector is normalised again on its way through the router). */
function rounded(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(rounded);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'score' ? Math.round((x as number) * 1e5) / 1e5 : rounded(x)]));
  return v;
}

/** The same call to the router and to the single server: the router's answer, checked equal to the server's. */
async function same(path: string, body: unknown): Promise<HttpAnswer> {
  const [viaRouter, viaSingle] = await Promise.all([http(url, 'POST', path, body), http(single.url, 'POST', path, body)]);
  expect(viaRouter.status, `${path} ${viaRouter.text.slice(0, 300)}`).toBe(viaSingle.status);
  if (viaSingle.status === 200)
    expect(rounded((viaRouter.body as { result: unknown }).result), path).toEqual(rounded((viaSingle.body as { result: unknown }).result));
  else expect((viaRouter.body as { status: { error: string } }).status.error).toBe((viaSingle.body as { status: { error: string } }).status.error);
  return viaRouter;
}

const errorOf = (r: HttpAnswer): string => (r.body as { status: { error: string } }).status.error;
const groupsOf = (r: HttpAnswer) => (r.body as { result: { groups: Array<{ id: string | number; hits: Array<{ id: number }> }> } }).result.groups;

describe('the router against one server holding every point', () => {
  it('spreads the points over every shard (the comparisons mean something)', () => {
    const perShard = Array.from({ length: SHARDS }, (_, s) => points.filter((p) => shardOf(p.id, SHARDS) === s).length);
    expect(Math.min(...perShard)).toBeGreaterThan(COUNT / 5);
  });

  it('answers a query batch as the server does, each query with its own window and filter', async () => {
    const searches = [
      { query: query(1), limit: 5, params: exact },
      { query: { nearest: query(2) }, limit: 4, offset: 9, params: exact, with_payload: true },
      { query: query(3), limit: 6, filter: { must: [{ key: 'city', match: { any: ['city-1', 'city-2'] } }] }, params: exact, with_vector: true },
      { query: query(4), params: exact },
    ];
    for (const c of ['l2', 'cos']) {
      const r = await same(`/collections/${c}/points/query/batch`, { searches });
      expect((r.body as { result: Array<{ points: unknown[] }> }).result.map((m) => m.points.length)).toEqual([5, 4, 6, 10]);
    }
  });

  it('refuses in a query batch, naming the member and field, what it refuses in one query', async () => {
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      [{ query: query(1), with_stats: true }, /^searches\[1\]\.with_stats: /],
      [{ prefetch: [{ query: query(1) }], query: { fusion: 'rrf' }, with_stats: true }, /^searches\[1\]\.with_stats: /],
    ];
    for (const [member, field] of refused) {
      const r = await http(url, 'POST', '/collections/l2/points/query/batch', { searches: [{ query: query(0) }, { limit: 3, ...member }] });
      expect(r.status, JSON.stringify(member)).toBe(400);
      expect(errorOf(r)).toMatch(field);
    }
    const single = await http(url, 'POST', '/collections/l2/points/query', { query: query(1), with_stats: true });
    expect([single.status, errorOf(single)]).toEqual([400, expect.stringMatching(/^with_stats: /)]);
  });

  it("answers order_by, and the query API's recommend, discover and context, as the server does: by value (ties by id), or by score with the named points left out", async () => {
    for (const u of [url, single.url])
      expect((await http(u, 'PUT', '/collections/l2/index?wait=true', { field_name: 'n', field_schema: 'integer' })).status).toBe(200);
    const cases: Array<Record<string, unknown>> = [
      { query: { order_by: 'n' }, limit: 7, offset: 3, with_payload: true },
      {
        query: { order_by: { key: 'n', direction: 'desc', start_from: 6 } },
        limit: 12,
        filter: { must: [{ key: 'city', match: { any: ['city-1', 'city-4'] } }] },
      },
      { query: { recommend: { positive: [3, 8], negative: [11] } }, limit: 6, params: exact },
      { query: { recommend: { positive: [5, query(2)] } }, limit: 4, offset: 2, params: exact, with_vector: true },
      { query: { discover: { target: 12, context: [{ positive: 30, negative: query(1) }] } }, limit: 5, params: exact },
      {
        query: {
          context: [
            { positive: 4, negative: 40 },
            { positive: query(3), negative: 7 },
          ],
        },
        limit: 6,
        params: exact,
        with_payload: true,
      },
      // MMR: the candidates' vectors fetched, and the picks made by the router.
      { query: { nearest: query(1), mmr: { diversity: 0.5 } }, limit: 5, params: exact },
      { query: { nearest: 15, mmr: { diversity: 0.8, candidates_limit: 30 } }, limit: 6, offset: 1, params: exact, with_payload: true },
    ];
    for (const body of cases) {
      const r = await same('/collections/l2/points/query', body);
      expect((r.body as { result: { points: unknown[] } }).result.points.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    await same('/collections/cos/points/query', cases[2]);
    await same('/collections/cos/points/query', cases[8]);
    const batch = await same('/collections/l2/points/query/batch', { searches: [cases[0], { query: query(3), limit: 2, params: exact }, cases[2]] });
    expect((batch.body as { result: unknown[] }).result).toHaveLength(3);
  });

  it('takes a query vector sent as a MessagePack Float32Array, in one query and in a batch', async () => {
    const body = { query: new Float32Array(query(5)), limit: 5, params: exact };
    const one = await http(url, 'POST', '/collections/l2/points/query', body, { msgpack: true });
    expect(one.status, one.text).toBe(200);
    const batch = await http(url, 'POST', '/collections/l2/points/query/batch', { searches: [{ ...body, query: { nearest: body.query } }] }, { msgpack: true });
    expect(batch.status, batch.text).toBe(200);
    const want = (await http(single.url, 'POST', '/collections/l2/points/query', { ...body, query: query(5) })).body as {
      result: { points: Array<{ id: number }> };
    };
    const ids = (r: HttpAnswer, at: (x: never) => Array<{ id: number }>) => at(r.body as never).map((h) => h.id);
    expect(ids(one, (b: { result: { points: Array<{ id: number }> } }) => b.result.points)).toEqual(want.result.points.map((h) => h.id));
    expect(ids(batch, (b: { result: Array<{ points: Array<{ id: number }> }> }) => b.result[0]!.points)).toEqual(want.result.points.map((h) => h.id));
  });

  it('groups a search and a query (by vector or point id) as the server does: the best groups, each filled with its best hits from every shard', async () => {
    const cases: Array<Record<string, unknown>> = [
      { group_by: 'city', limit: 3, group_size: 4 },
      { group_by: 'city', limit: 2, group_size: 6, with_payload: true },
      { group_by: 'city', limit: 12, group_size: 2 },
      { group_by: 'n', limit: 4, group_size: 3, filter: { must_not: [{ key: 'city', match: { value: 'city-0' } }] } },
      { group_by: 'tags', limit: 2, group_size: 5, with_payload: ['tags'] },
      { group_by: 'city' },
    ];
    let spread = 0;
    for (const c of ['l2', 'cos'])
      for (const [i, g] of cases.entries()) {
        const r = await same(`/collections/${c}/points/search/groups`, { vector: query(i), params: exact, ...g });
        await same(`/collections/${c}/points/query/groups`, { query: query(i), params: exact, ...g });
        // By a point id: its stored vector, the point left out of every group.
        await same(`/collections/${c}/points/query/groups`, { query: 5 + i, params: exact, ...g });
        // A group whose hits came from more than one shard: the merge had something to do.
        spread += groupsOf(r).filter((grp) => new Set(grp.hits.map((h) => shardOf(h.id, SHARDS))).size > 1).length;
      }
    expect(spread).toBeGreaterThan(10);
    const bad = await same('/collections/l2/points/search/groups', { vector: query(0), limit: 3 });
    expect(errorOf(bad)).toMatch(/^group_by: /);
    const refused = await http(url, 'POST', '/collections/l2/points/query/groups', { query: { order_by: 'n' }, group_by: 'city' });
    expect([refused.status, errorOf(refused)]).toEqual([400, expect.stringMatching(/^query\.order_by: /)]);
  });

  it('answers recommend as the server does: examples by id or vector, the named points left out, offset and filter applied', async () => {
    // Examples from every shard: the k-th id held by shard s.
    const on = (s: number, k: number): number => points.filter((p) => shardOf(p.id, SHARDS) === s)[k]!.id;
    const cases: Array<Record<string, unknown>> = [
      { positive: [on(0, 0)], limit: 5 },
      { positive: [on(0, 1), on(1, 1)], negative: [on(2, 1)], limit: 8, offset: 2, with_payload: true },
      { positive: [on(1, 2), vectorOf(9)], negative: [query(3)], limit: 6, with_vector: true },
      {
        positive: [on(2, 3), String(on(0, 3))],
        limit: 5,
        filter: { must: [{ key: 'city', match: { any: ['city-3', 'city-4', 'city-5'] } }] },
        strategy: 'average_vector',
      },
      { positive: [on(1, 4)], negative: [on(1, 4)], limit: 4, score_threshold: 0.2 },
      // An example is its own nearest point: its shard must give limit + offset others besides it.
      ...Array.from({ length: 9 }, (_, k) => ({ positive: [on(k % SHARDS, 5 + k)], limit: 1, offset: k % 2 })),
    ];
    for (const c of ['l2', 'cos'])
      for (const body of cases) {
        const r = await same(`/collections/${c}/points/recommend`, { params: exact, ...body });
        const named = [...(body['positive'] as unknown[]), ...((body['negative'] as unknown[] | undefined) ?? [])].filter((x) => !Array.isArray(x)).map(Number);
        for (const h of (r.body as { result: Array<{ id: number }> }).result) expect(named).not.toContain(h.id);
      }
    const batch = await same('/collections/l2/points/recommend/batch', { searches: cases.map((b) => ({ params: exact, ...b })) });
    expect((batch.body as { result: unknown[][] }).result.map((m) => m.length).slice(0, 4)).toEqual([5, 8, 6, 5]);
    await same('/collections/cos/points/recommend/batch', { searches: cases.map((b) => ({ params: exact, ...b })) });
  });

  it('refuses what the server refuses in recommend: 400 naming the field, 404 naming a missing example', async () => {
    expect(errorOf(await same('/collections/l2/points/recommend', { positive: [1], limit: 3, strategy: 'best_score' }))).toMatch(/^strategy: /);
    expect(errorOf(await same('/collections/l2/points/recommend', { positive: [], limit: 3 }))).toMatch(/^positive: /);
    expect(errorOf(await same('/collections/l2/points/recommend', { positive: [1] }))).toMatch(/^limit: /);
    expect(
      errorOf(
        await same('/collections/l2/points/recommend/batch', {
          searches: [
            { positive: [1], limit: 2 },
            { positive: [[1, 2]], limit: 2 },
          ],
        }),
      ),
    ).toMatch(/^searches\[1\]\.positive/);
    const missing = await same('/collections/l2/points/recommend', { positive: [1, 99_999], limit: 3 });
    expect([missing.status, missing.headers['strata-code']]).toEqual([404, 'STRATA_POINT_NOT_FOUND']);
    const stats = await http(url, 'POST', '/collections/l2/points/recommend', { positive: [1], limit: 3, with_stats: true });
    expect([stats.status, errorOf(stats)]).toEqual([400, expect.stringMatching(/^with_stats: /)]);
  });

  it('answers discover (with a target, and context only) and its batch as the server does, best first whatever the metric', async () => {
    const cases: Array<Record<string, unknown>> = [
      { target: 10, context: [{ positive: 11, negative: 12 }], limit: 6 },
      { target: query(2), context: { positive: 13, negative: query(1) }, limit: 5, offset: 2, with_payload: true },
      {
        context: [
          { positive: 14, negative: 15 },
          { positive: 16, negative: 17 },
        ],
        limit: 7,
        filter: { must: [{ key: 'n', range: { gte: 3 } }] },
      },
    ];
    for (const c of ['l2', 'cos']) {
      for (const body of cases) await same(`/collections/${c}/points/discover`, { params: exact, ...body });
      await same(`/collections/${c}/points/discover/batch`, { searches: cases.map((b) => ({ params: exact, ...b })) });
    }
    expect(errorOf(await same('/collections/l2/points/discover', { target: 10, limit: 3 }))).toMatch(/^params\.exact: /);
  });

  it('groups a recommendation as the server does, without the points it names', async () => {
    const cases: Array<Record<string, unknown>> = [
      { positive: [1, 2], negative: [3], group_by: 'city', limit: 3, group_size: 3 },
      { positive: [20, query(4)], group_by: 'n', limit: 4, group_size: 4, with_payload: true },
      { positive: [vectorOf(30)], group_by: 'city', limit: 2, group_size: 2, filter: { must: [{ key: 'n', range: { lt: 5 } }] } },
    ];
    for (const c of ['l2', 'cos'])
      for (const body of cases) {
        const r = await same(`/collections/${c}/points/recommend/groups`, { params: exact, ...body });
        for (const g of groupsOf(r)) for (const h of g.hits) expect([1, 2, 3, 20]).not.toContain(h.id);
      }
  });

  it('serves a collection whose vector is named as the server does: search, query, recommend and retrieve by name', async () => {
    const named = points.map((p) => ({ ...p, vector: { dense: p.vector } }));
    for (const u of [url, single.url]) {
      expect((await http(u, 'PUT', '/collections/named', { vectors: { dense: { size: DIM, distance: 'Cosine' } } })).status).toBe(200);
      const w = await http(u, 'PUT', '/collections/named/points?wait=true', { points: named });
      expect(w.status, w.text).toBe(200);
    }
    const c = '/collections/named/points';
    // A columnar upsert naming the vector, cut by shard under its name.
    const columnar = { batch: { ids: [901, 902, 903], vectors: { dense: [query(7), query(8), query(9)] }, payloads: [{ n: 1 }, { n: 2 }, { n: 3 }] } };
    for (const u of [url, single.url]) {
      const w = await http(u, 'PUT', '/collections/named/points?wait=true', columnar);
      expect(w.status, w.text).toBe(200);
    }
    await same(c, { ids: [901, 902, 903], with_vector: true, with_payload: true });
    await same(`${c}/search`, { vector: { name: 'dense', vector: query(3) }, limit: 5, params: exact, with_vector: true });
    await same(`${c}/query`, { query: query(4), using: 'dense', limit: 5, params: exact });
    await same(`${c}/recommend`, { positive: [1, 2], negative: [30], using: 'dense', limit: 5, params: exact });
    await same(c, { ids: [1, 2, 3], with_vector: ['dense'] });
    const wrong = await same(`${c}/query`, { query: query(4), limit: 5 });
    expect(wrong.status).toBe(400);
  });

  it("refuses with_stats on search and its batch, and a search without limit, as the server's route has it", async () => {
    for (const [path, body, field] of [
      ['/collections/l2/points/search', { vector: query(1), limit: 3, with_stats: true }, 'with_stats'],
      ['/collections/l2/points/search/batch', { searches: [{ vector: query(1), limit: 3, with_stats: true }] }, 'searches[0].with_stats'],
    ] as const) {
      const r = await http(url, 'POST', path, body);
      expect(r.status).toBe(400);
      expect(errorOf(r)).toMatch(new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: the shards' stats do not add up`));
    }
    const noLimit = await same('/collections/l2/points/search', { vector: query(1) });
    expect(noLimit.status).toBe(400);
    expect(errorOf(noLimit)).toMatch(/^limit: /);
  });

  it('answers a query naming a point, alone and in a batch, as the server does: its stored vector searched, the point left out', async () => {
    for (const c of ['l2', 'cos']) {
      await same(`/collections/${c}/points/query`, { query: 7, limit: 5, offset: 2, params: exact });
      await same(`/collections/${c}/points/query`, { query: { nearest: 300 }, limit: 4, params: exact, filter: { must: [{ key: 'n', range: { gte: 3 } }] } });
      await same(`/collections/${c}/points/query/batch`, {
        searches: [
          { query: 12, limit: 3, params: exact },
          { query: query(2), limit: 3, params: exact },
        ],
      });
    }
    const missing = await same('/collections/l2/points/query', { query: 100_000, limit: 3 });
    expect(missing.status).toBe(404);
  });

  it("answers the search matrix from a sample of every shard's matches, each row its nearest others by the collection's score", async () => {
    const matching = (id: number): boolean => id % 9 < 5;
    const score = (c: 'l2' | 'cos', a: number[], b: number[]): number => {
      if (c === 'l2') return Math.sqrt(a.reduce((s, x, d) => s + (x - b[d]!) ** 2, 0));
      const norm = (v: number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      return a.reduce((s, x, d) => s + x * b[d]!, 0) / (norm(a) * norm(b));
    };
    for (const c of ['l2', 'cos'] as const) {
      const r = await http(url, 'POST', `/collections/${c}/points/search/matrix/offsets`, {
        sample: 30,
        limit: 4,
        filter: { must: [{ key: 'n', range: { lt: 5 } }] },
      });
      expect(r.status, r.text.slice(0, 300)).toBe(200);
      const m = (r.body as { result: { ids: number[]; offsets_row: number[]; offsets_col: number[]; scores: number[] } }).result;
      expect(new Set(m.ids).size).toBe(30);
      expect(m.ids.every(matching)).toBe(true);
      // drawn from every shard (a shard left out of 30 draws over three: about 1 in 70,000)
      expect(new Set(m.ids.map((id) => shardOf(id, SHARDS))).size).toBe(SHARDS);
      // each row: the 4 best others of the sample, by exact score
      const better = c === 'l2' ? 1 : -1;
      for (let i = 0; i < 30; i++) {
        const want = m.ids
          .map((id, j) => ({ j, s: score(c, vectorOf(m.ids[i]!), vectorOf(id)) }))
          .filter((o) => o.j !== i)
          .sort((a, b) => better * (a.s - b.s) || a.j - b.j)
          .slice(0, 4);
        const at = m.offsets_row.flatMap((row, k) => (row === i ? [k] : []));
        expect(at.map((k) => m.offsets_col[k])).toEqual(want.map((o) => o.j));
        for (const [n, k] of at.entries()) expect(m.scores[k]).toBeCloseTo(want[n]!.s, 4);
      }
    }
    // fewer matches than the sample: all of them, as pairs
    const few = points.filter((p) => p.payload.city === 'city-3' && p.id % 9 === 0).map((p) => p.id);
    const filter = {
      must: [
        { key: 'city', match: { value: 'city-3' } },
        { key: 'n', match: { value: 0 } },
      ],
    };
    const pairs = await http(url, 'POST', '/collections/l2/points/search/matrix/pairs', { sample: 100, limit: 1, filter });
    expect(pairs.status).toBe(200);
    const got = (pairs.body as { result: { pairs: Array<{ a: number; b: number }> } }).result.pairs;
    expect(new Set(got.map((p) => p.a))).toEqual(new Set(few));
    // and what the server refuses, the router refuses in its words
    await same('/collections/l2/points/search/matrix/pairs', { sample: 1 });
  });
});

describe('facets over shards holding more values than one facet lists', () => {
  // Every shard holds more distinct values of `w` and `u` than a facet lists (MAX_FACET_LIMIT):
  // each point has its own, but for 20 values of `w` held by 30 points each, 29 on shard 0 and one
  // on shard 1, where that one ranks last among ties and is left out of the shard's list.
  const WIDE = 33_000;
  const HOT = 20;
  const hotIds = (shard: number, n: number, from: number): number[] => {
    const out: number[] = [];
    for (let id = from; out.length < n; id++) if (shardOf(id, SHARDS) === shard) out.push(id);
    return out;
  };
  beforeAll(async () => {
    const on0 = hotIds(0, 29 * HOT, 100_001);
    const on1 = hotIds(1, HOT, 200_001);
    const wide = [
      ...Array.from({ length: WIDE }, (_, i) => ({ id: i + 1, w: i + 1 })),
      ...on0.map((id, k) => ({ id, w: 1_000_000 + (k % HOT) })),
      ...on1.map((id, k) => ({ id, w: 1_000_000 + k })),
    ].map((p) => ({ id: p.id, vector: [1, p.id % 7], payload: { w: p.w, u: p.id } }));
    for (const u of [url, single.url]) {
      expect((await http(u, 'PUT', '/collections/wide', { vectors: { size: 2, distance: 'Dot' } })).status).toBe(200);
      for (const field of ['w', 'u'])
        expect((await http(u, 'PUT', '/collections/wide/index?wait=true', { field_name: field, field_schema: 'integer' })).status).toBe(200);
      for (let at = 0; at < wide.length; at += 5000) {
        const r = await http(u, 'PUT', '/collections/wide/points?wait=true', { points: wide.slice(at, at + 5000) });
        expect(r.status, r.text).toBe(200);
      }
    }
  }, 240_000);

  it("counts the top values exactly, a value's count on a shard that left it out asked again", async () => {
    const r = await same('/collections/wide/facet', { key: 'w', limit: 10 });
    expect((r.body as { result: { hits: Array<{ value: number; count: number }> } }).result.hits).toEqual(
      Array.from({ length: 10 }, (_, j) => ({ value: 1_000_000 + j, count: 30 })),
    );
    await same('/collections/wide/facet', { key: 'w', limit: 25, filter: { must: [{ key: 'u', range: { gte: 100_000 } }] } });
  });

  it('refuses, naming the key, a facet whose top it cannot find exactly: values counted too evenly over too many', async () => {
    const r = await http(url, 'POST', '/collections/wide/facet', { key: 'u', limit: 10 });
    expect([r.status, errorOf(r)]).toEqual([400, expect.stringMatching(/^key: "u" has more than 10000 values on a shard/)]);
  });
});

describe('sparse and secondary vectors, and fusions of prefetches, through the router', () => {
  // The primary distance (Euclid: smaller first) and the secondary one (Dot: larger first) sort
  // opposite ways, so that a merge by the wrong vector's order gives another answer.
  const config = { vectors: { dense: { size: DIM, distance: 'Euclid' }, image: { size: 3, distance: 'Dot' } }, sparse_vectors: { text: {} } };
  const sparseOf = (id: number) => ({ indices: [id % 11, 11 + (id % 5)], values: [1 + (id % 3), 0.5 + (id % 4)] });
  const hybrid = points.slice(0, 150).map((p) => ({
    id: p.id,
    // Every tenth point has no image vector.
    vector: { dense: p.vector, text: sparseOf(p.id), ...(p.id % 10 === 0 ? {} : { image: [Math.sin(p.id), Math.cos(3 * p.id), (p.id % 7) / 7] }) },
    payload: p.payload,
  }));
  const text = { indices: [3, 12], values: [1, 2] };
  const image = [0.3, -0.8, 0.5];

  beforeAll(async () => {
    for (const u of [url, single.url]) {
      expect((await http(u, 'PUT', '/collections/hyb', config)).status).toBe(200);
      const w = await http(u, 'PUT', '/collections/hyb/points?wait=true', { points: hybrid });
      expect(w.status, w.text).toBe(200);
    }
  }, 60_000);

  it("merges a search by a sparse or secondary vector by that vector's own score order, as the server answers it", async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/points/search', { vector: { name: 'text', vector: text }, limit: 7, with_payload: true }],
      ['/points/search', { vector: { name: 'image', vector: image }, limit: 6, offset: 3, params: exact }],
      ['/points/query', { query: text, using: 'text', limit: 8 }],
      ['/points/query', { query: { nearest: image }, using: 'image', limit: 5, filter: { must: [{ key: 'n', range: { gte: 3 } }] }, params: exact }],
      // By point id: the point's own vector of that name, the point left out.
      ['/points/query', { query: 17, using: 'image', limit: 5, params: exact, with_vector: ['image'] }],
      ['/points/query', { query: { nearest: 23 }, using: 'text', limit: 5 }],
      [
        '/points/search/batch',
        {
          searches: [
            { vector: { name: 'dense', vector: query(1) }, limit: 3, params: exact },
            { vector: { name: 'text', vector: text }, limit: 4 },
            { vector: { name: 'image', vector: image }, limit: 4, params: exact },
          ],
        },
      ],
      ['/points/query/groups', { query: text, using: 'text', group_by: 'city', limit: 3, group_size: 2 }],
      ['/points/recommend', { positive: [5, 9], using: 'image', limit: 4, params: exact }],
      ['/points/query', { query: { recommend: { positive: [5, 9], negative: [12] } }, using: 'image', limit: 4, params: exact }],
    ];
    for (const [path, body] of cases) {
      const r = await same(`/collections/hyb${path}`, body);
      expect(r.status, `${path} ${JSON.stringify(body)} ${r.text.slice(0, 200)}`).toBe(200);
    }
    // A point named by a vector it does not hold: the server's 400, naming `using`.
    const bare = await same('/collections/hyb/points/query', { query: 20, using: 'image', limit: 3 });
    expect([bare.status, errorOf(bare)]).toEqual([400, expect.stringMatching(/^using: point 20 has no vector "image"/)]);
  });

  it('runs queries with prefetches as the server does: fusions (rrf, dbsf) and re-scores by a vector or by examples, nested, with filters, weights, thresholds and windows', async () => {
    const dense = { query: query(2), using: 'dense', limit: 20, params: exact };
    const sparse = { query: text, using: 'text', limit: 20 };
    const cases: Array<Record<string, unknown>> = [
      { prefetch: [dense, sparse], query: { fusion: 'rrf' }, limit: 6, with_payload: true },
      { prefetch: [dense, sparse], query: { fusion: 'dbsf' }, limit: 5, offset: 2, filter: { must: [{ key: 'tags', match: { any: ['a', 'b'] } }] } },
      { prefetch: [{ ...dense, filter: { must: [{ key: 'n', range: { lt: 5 } }] } }, sparse], query: { rrf: { k: 5, weights: [2, 1] } }, limit: 8 },
      {
        prefetch: [
          { query: 31, using: 'image', limit: 15, params: exact },
          { query: 31, using: 'text', limit: 15 },
        ],
        query: { fusion: 'rrf' },
        with_vector: ['image'],
      },
      {
        prefetch: [dense, { ...sparse, score_threshold: 3 }, { query: image, using: 'image', limit: 10, params: exact }],
        query: { fusion: 'dbsf' },
        score_threshold: 0.9,
      },
      // Multi-stage: the prefetches' points re-scored by another vector, and stages of stages.
      { prefetch: [sparse, { ...dense, limit: 10 }], query: image, using: 'image', limit: 7, with_payload: true },
      {
        prefetch: [{ ...sparse, limit: 30 }],
        query: query(5),
        using: 'dense',
        limit: 5,
        offset: 1,
        score_threshold: 2.5,
        filter: { must: [{ key: 'n', range: { gte: 2 } }] },
      },
      {
        prefetch: [
          { prefetch: [sparse, dense], query: { fusion: 'rrf' }, limit: 25 },
          { query: image, using: 'image', limit: 10, params: exact },
        ],
        query: 41,
        using: 'image',
        limit: 6,
      },
      { prefetch: [{ prefetch: [{ ...sparse, limit: 40 }], query: query(6), using: 'dense', limit: 12 }, sparse], query: { fusion: 'rrf' }, limit: 9 },
      // MMR over re-scored candidates, and as a prefetch.
      { prefetch: [sparse, dense], query: { nearest: image, mmr: { diversity: 0.4 } }, using: 'image', limit: 5, score_threshold: -1 },
      {
        prefetch: [{ query: { nearest: query(7), mmr: { diversity: 0.6, candidates_limit: 25 } }, using: 'dense', limit: 8, params: exact }, sparse],
        query: { fusion: 'dbsf' },
      },
      // Examples named by id, re-scoring candidates: a recommendation, a discovery and a context.
      { prefetch: [{ ...sparse, limit: 40 }], query: { recommend: { positive: [7, 13], negative: [22] } }, using: 'dense', limit: 6 },
      { prefetch: [dense, sparse], query: { discover: { target: 9, context: [{ positive: 14, negative: 25 }] } }, using: 'image', limit: 5 },
      {
        prefetch: [{ query: { context: { positive: 3, negative: 8 } }, using: 'dense', limit: 15, params: exact }, sparse],
        query: { fusion: 'rrf' },
        limit: 8,
      },
    ];
    for (const body of cases) {
      const r = await same('/collections/hyb/points/query', body);
      expect(r.status, `${JSON.stringify(body)} ${r.text.slice(0, 200)}`).toBe(200);
      expect((r.body as { result: { points: unknown[] } }).result.points.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    // A stage's plain prefetches go together: one query batch per shard for a hybrid query.
    const calls = async (): Promise<number> => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return [...text.matchAll(/^strata_router_shard_calls_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    };
    const before = await calls();
    expect((await http(url, 'POST', '/collections/hyb/points/query', cases[0])).status).toBe(200);
    expect((await calls()) - before).toBe(SHARDS);
    // Qdrant's official client, as an application's hybrid retrieval sends it, gets one server's answer.
    const hybrid = {
      prefetch: [
        { query: query(2), using: 'dense', limit: 20, params: exact },
        { query: text, using: 'text', limit: 20 },
      ],
      query: { fusion: 'rrf' as const },
      limit: 6,
      with_payload: true,
    };
    const [viaRouter, viaSingle] = await Promise.all(
      [url, single.url].map((u) => new QdrantClient({ url: u, checkCompatibility: false }).query('hyb', hybrid)),
    );
    expect(rounded(viaRouter)).toEqual(rounded(viaSingle));
    expect(viaRouter!.points).toHaveLength(6);
    // In a batch, beside plain members.
    const batch = await same('/collections/hyb/points/query/batch', {
      searches: [cases[0], { query: query(4), using: 'dense', limit: 3, params: exact }, cases[1]],
    });
    expect((batch.body as { result: unknown[] }).result).toHaveLength(3);
  });

  it('refuses, naming the field, a stage it cannot run over the shards, and checks the body as the server does', async () => {
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      // A sparse re-score: the server scores a candidate holding the vector but no index of the query 0; a sparse search leaves it out.
      [{ prefetch: [{ query: query(1), using: 'dense' }], query: text, using: 'text' }, /^query: /],
      [
        {
          prefetch: [
            { query: image, using: 'image' },
            { prefetch: [{ query: query(1), using: 'dense' }], query: text, using: 'text' },
          ],
          query: { fusion: 'rrf' },
        },
        /^prefetch\[1\]\.query: /,
      ],
    ];
    for (const [body, field] of refused) {
      const r = await http(url, 'POST', '/collections/hyb/points/query', body);
      expect([r.status, errorOf(r)], JSON.stringify(body)).toEqual([400, expect.stringMatching(field)]);
    }
    // A body the server refuses is the server's 400, whether it fuses or not.
    await same('/collections/hyb/points/query', { prefetch: [{ query: text, using: 'nope' }], query: { fusion: 'rrf' } });
    await same('/collections/hyb/points/query', { prefetch: [{ query: text, using: 'text' }], query: { fusion: 'rrf', extra: 1 } });
  });
});
