// Qdrant's official gRPC client (@qdrant/js-client-grpc) against `strata serve --qdrant-grpc-port`:
// collections, points, payloads and payload indexes over qdrant.Points / qdrant.Collections, each
// read checked against the REST answer of the same request on the same server (one parse → plan →
// execute path), and the refusals: a field Strata does not honour is INVALID_ARGUMENT naming it, an
// RPC it does not serve is UNIMPLEMENTED naming itself.
import { create } from '@bufbuild/protobuf';
import {
  type Condition,
  ConditionSchema,
  ConnectError,
  ConnectErrorCode,
  Distance,
  FieldType,
  Fusion,
  type Filter,
  FilterSchema,
  PayloadSchemaType,
  QuantizationType,
  type PointId,
  QdrantClient,
  RecommendStrategy,
  type RetrievedPoint,
  type ScoredPoint,
  TokenizerType,
  toDenseVector,
  type Value,
} from '@qdrant/js-client-grpc';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { http } from './fixture.js';
import { type ServeChild, serveChild } from './serve-child.js';

const NAME = 'docs';
const DIM = 4;
const UUID = '5c56c793-69f3-4fbf-87e6-c4bf54c28c26';
const COLORS = ['red', 'blue', 'green'] as const;

let tmp: TempDir;
let s: ServeChild;
let client: QdrantClient;
let warn: MockInstance<typeof console.warn>;

const num = (n: number): PointId => ({ pointIdOptions: { case: 'num', value: BigInt(n) } }) as PointId;
const vec = (i: number): number[] => [Math.cos(i), Math.sin(i), (i % 5) / 5, (i % 7) / 7];

/** A PointId or REST id as a comparable string. */
function idOf(id: PointId | undefined): string {
  const o = id?.pointIdOptions;
  return o?.case === undefined ? '?' : String(o.value);
}

function plain(v: Value): unknown {
  const k = v.kind;
  if (k.case === 'integerValue') return Number(k.value);
  if (k.case === 'listValue') return k.value.values.map(plain);
  if (k.case === 'structValue') return Object.fromEntries(Object.entries(k.value.fields).map(([a, b]) => [a, plain(b)]));
  return k.value ?? null;
}

function payloadOf(p: RetrievedPoint | ScoredPoint): Record<string, unknown> {
  return Object.fromEntries(Object.entries(p.payload).map(([k, v]) => [k, plain(v)]));
}

async function rest(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await http(s.rest, method, path, body);
  expect(r.status, r.text).toBe(200);
  return (r.body as { result: Record<string, unknown> }).result;
}

function cond(c: Record<string, unknown>): Condition {
  return create(ConditionSchema, c as never);
}

const field = (key: string, rest: Record<string, unknown>): Condition => cond({ conditionOneOf: { case: 'field', value: { key, ...rest } } });
const keyword = (key: string, value: string): Condition => field(key, { match: { matchValue: { case: 'keyword', value } } });

/** Rejects with the ConnectError the call failed with. */
async function failure(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ConnectError) return e;
    throw e;
  }
  throw new Error('the call succeeded');
}

beforeAll(async () => {
  tmp = makeTempDir('strata-qdrant-grpc-');
  s = await serveChild(['--data-dir', tmp.path('data'), '--no-grpc', '--log-level', 'silent']);
  const [host, port] = s.qdrantGrpc!.split(':');
  // With the client's own version check on, as a user leaves it: a warning fails the first test.
  warn = vi.spyOn(console, 'warn');
  client = new QdrantClient({ host: host!, port: Number(port) });
}, 60_000);

afterAll(async () => {
  s?.child.kill('SIGTERM');
  await s?.exited;
  tmp?.cleanup();
});

describe('Qdrant gRPC client', () => {
  it('health check reports the title and version of the REST root, a version the client finds compatible', async () => {
    const h = await client.api('service').healthCheck({});
    // The client's check runs on its first call; give its answer a turn to arrive.
    await new Promise((r) => setTimeout(r, 200));
    expect(warn.mock.calls.filter((c) => String(c[0]).includes('ompatib'))).toEqual([]);
    const root = (await http(s.rest, 'GET', '/')).body as { title: string; version: string };
    expect(h.title).toBe(root.title);
    expect(h.version).toBe(root.version);
  });

  it('creates a collection and describes it', async () => {
    const c = client.api('collections');
    const made = await c.create({
      collectionName: NAME,
      vectorsConfig: { config: { case: 'params', value: { size: BigInt(DIM), distance: Distance.Euclid } } },
      hnswConfig: { m: 12n, efConstruct: 80n },
    });
    expect(made.result).toBe(true);
    expect((await c.collectionExists({ collectionName: NAME })).result?.exists).toBe(true);
    expect((await c.collectionExists({ collectionName: 'nope' })).result?.exists).toBe(false);
    expect((await c.list({})).collections.map((x) => x.name)).toEqual([NAME]);
    const info = (await c.get({ collectionName: NAME })).result!;
    const params = info.config?.params?.vectorsConfig?.config;
    expect(params?.case).toBe('params');
    expect(params?.value).toMatchObject({ size: BigInt(DIM), distance: Distance.Euclid });
    expect(info.config?.hnswConfig).toMatchObject({ m: 12n, efConstruct: 80n });
    expect(info.pointsCount).toBe(0n);
  });

  it("updates a collection's next build and compaction threshold, and refuses other settings, naming them", async () => {
    const c = client.api('collections');
    await c.create({ collectionName: 'tuned', vectorsConfig: { config: { case: 'params', value: { size: BigInt(DIM), distance: Distance.Cosine } } } });
    const r = await c.update({ collectionName: 'tuned', hnswConfig: { m: 10n, efConstruct: 50n }, optimizersConfig: { indexingThreshold: 0n } });
    expect(r.result).toBe(true);
    const info = (await c.get({ collectionName: 'tuned' })).result!;
    expect(info.config?.hnswConfig).toMatchObject({ m: 10n, efConstruct: 50n });
    expect(info.config?.optimizerConfig?.indexingThreshold).toBe(0n);
    const e = await failure(c.update({ collectionName: 'tuned', optimizersConfig: { deletedThreshold: 0.5 } }));
    expect(e.code).toBe(ConnectErrorCode.InvalidArgument);
    expect(e.rawMessage).toContain('optimizers_config.deleted_threshold');
    expect((await c.delete({ collectionName: 'tuned' })).result).toBe(true);
  });

  it('deletes a collection, answering whether it existed', async () => {
    const c = client.api('collections');
    const params = { config: { case: 'params' as const, value: { size: 2n, distance: Distance.Dot } } };
    expect((await c.create({ collectionName: 'scratch', vectorsConfig: params })).result).toBe(true);
    const taken = await failure(c.create({ collectionName: 'scratch', vectorsConfig: params }));
    expect(taken.code).toBe(ConnectErrorCode.AlreadyExists);
    expect((await c.delete({ collectionName: 'scratch' })).result).toBe(true);
    expect((await c.collectionExists({ collectionName: 'scratch' })).result?.exists).toBe(false);
    expect((await c.delete({ collectionName: 'scratch' })).result).toBe(false);
  });

  it('upserts points with payloads (integer and UUID ids) and gets them back', async () => {
    const points = Array.from({ length: 40 }, (_, i) => ({
      id: i === 39 ? { pointIdOptions: { case: 'uuid' as const, value: UUID } } : num(i),
      vectors: { vectorsOptions: { case: 'vector' as const, value: { data: vec(i) } } },
      payload: {
        color: { kind: { case: 'stringValue' as const, value: COLORS[i % 3]! } },
        n: { kind: { case: 'integerValue' as const, value: BigInt(i) } },
        price: { kind: { case: 'doubleValue' as const, value: i * 1.5 } },
        ...(i % 4 === 0 ? { tag: { kind: { case: 'listValue' as const, value: { values: [{ kind: { case: 'stringValue' as const, value: 't' } }] } } } } : {}),
      },
    }));
    const r = await client.api('points').upsert({ collectionName: NAME, wait: true, points });
    expect(r.result?.status).toBe(2); // Completed
    const got = await client.api('points').get({
      collectionName: NAME,
      ids: [num(4), { pointIdOptions: { case: 'uuid', value: UUID } }],
      withPayload: { selectorOptions: { case: 'enable', value: true } },
      withVectors: { selectorOptions: { case: 'enable', value: true } },
    });
    expect(got.result.map((p) => idOf(p.id))).toEqual(['4', UUID]);
    expect(payloadOf(got.result[0]!)).toEqual({ color: 'blue', n: 4, price: 6, tag: ['t'] });
    // Read the way the client's documentation says (toDenseVector), which takes `data` as Qdrant sends it.
    const v = got.result[0]!.vectors?.vectorsOptions;
    expect(v?.case === 'vector' ? toDenseVector(v.value)?.data : null).toEqual(vec(4).map(Math.fround));
    expect(v?.case === 'vector' ? v.value.data : null).toEqual(vec(4).map(Math.fround));
    const info = (await client.api('collections').get({ collectionName: NAME })).result!;
    expect(info.pointsCount).toBe(40n);
  });

  it('searches with a filter of several condition kinds, answering what REST answers', async () => {
    const filter = create(FilterSchema, {
      must: [field('n', { range: { gte: 2, lt: 35 } })],
      mustNot: [
        cond({ conditionOneOf: { case: 'hasId', value: { hasId: [num(5), num(8)] } } }),
        cond({ conditionOneOf: { case: 'isEmpty', value: { key: 'tag' } } }),
      ],
      should: [keyword('color', 'red'), keyword('color', 'blue')],
    } as never) as Filter;
    const restFilter = {
      must: [{ key: 'n', range: { gte: 2, lt: 35 } }],
      must_not: [{ has_id: [5, 8] }, { is_empty: { key: 'tag' } }],
      should: [
        { key: 'color', match: { value: 'red' } },
        { key: 'color', match: { value: 'blue' } },
      ],
    };
    const q = vec(10);
    const g = await client.api('points').search({
      collectionName: NAME,
      vector: q,
      filter,
      limit: 20n,
      withPayload: { selectorOptions: { case: 'enable', value: true } },
      params: { hnswEf: 64n, exact: true },
    });
    const r = (await rest('POST', `/collections/${NAME}/points/search`, {
      vector: q,
      filter: restFilter,
      limit: 20,
      with_payload: true,
      params: { hnsw_ef: 64, exact: true },
    })) as unknown as Array<{ id: number; score: number }>;
    expect(g.result.length).toBeGreaterThan(0);
    expect(g.result.map((p) => idOf(p.id))).toEqual(r.map((p) => String(p.id)));
    expect(g.result.map((p) => p.score)).toEqual(r.map((p) => Math.fround(p.score)));
    // Every hit passes the filter: n in [2,35), tag present, red or blue, not 5 or 8 (5 and 8 have no tag anyway).
    for (const p of g.result) {
      const pl = payloadOf(p);
      expect(pl['n'] as number).toBeGreaterThanOrEqual(2);
      expect(pl['n'] as number).toBeLessThan(35);
      expect(pl['tag']).toEqual(['t']);
      expect(['red', 'blue']).toContain(pl['color']);
    }
    // score_threshold and offset go through the same plan.
    const cut = g.result[2]!.score;
    const t = await client.api('points').search({ collectionName: NAME, vector: q, filter, limit: 20n, offset: 1n, scoreThreshold: cut });
    expect(t.result.map((p) => idOf(p.id))).toEqual(g.result.slice(1, 3).map((p) => idOf(p.id)));
  });

  it('runs a search batch and a nearest query like the searches', async () => {
    const one = await client.api('points').search({ collectionName: NAME, vector: vec(3), limit: 5n });
    const batch = await client.api('points').searchBatch({
      collectionName: NAME,
      searchPoints: [
        { collectionName: NAME, vector: vec(3), limit: 5n },
        { collectionName: NAME, vector: vec(20), limit: 3n },
      ],
    });
    expect(batch.result.map((b) => b.result.length)).toEqual([5, 3]);
    expect(batch.result[0]!.result.map((p) => idOf(p.id))).toEqual(one.result.map((p) => idOf(p.id)));
    const query = await client.api('points').query({
      collectionName: NAME,
      query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: vec(3) } } } } },
      limit: 5n,
    });
    expect(query.result.map((p) => idOf(p.id))).toEqual(one.result.map((p) => idOf(p.id)));
    // By a point id: what REST answers for the same query, the point itself left out.
    const byId = await client.api('points').query({
      collectionName: NAME,
      query: { variant: { case: 'nearest', value: { variant: { case: 'id', value: num(3) } } } },
      limit: 5n,
    });
    const r = (await rest('POST', `/collections/${NAME}/points/query`, { query: 3, limit: 5 })) as { points: Array<{ id: number }> };
    expect(byId.result.map((p) => idOf(p.id))).toEqual(r.points.map((p) => String(p.id)));
    expect(byId.result.map((p) => idOf(p.id))).not.toContain('3');
    // A recommendation, ids and a vector as examples: what REST answers for the same one.
    const reco = await client.api('points').query({
      collectionName: NAME,
      query: {
        variant: {
          case: 'recommend',
          value: {
            positive: [{ variant: { case: 'id', value: num(3) } }, { variant: { case: 'dense', value: { data: vec(20) } } }],
            negative: [{ variant: { case: 'id', value: num(4) } }],
          },
        },
      },
      limit: 5n,
    });
    const rr = (await rest('POST', `/collections/${NAME}/points/query`, { query: { recommend: { positive: [3, vec(20)], negative: [4] } }, limit: 5 })) as {
      points: Array<{ id: number }>;
    };
    expect(reco.result.map((p) => idOf(p.id))).toEqual(rr.points.map((p) => String(p.id)));
    expect(reco.result).toHaveLength(5);
  });

  it('runs prefetch stages with RRF and DBSF fusion, a re-scoring vector and MMR as REST does', async () => {
    const dense = (i: number) => ({ variant: { case: 'dense' as const, value: { data: vec(i) } } });
    const nearestQ = (i: number) => ({ variant: { case: 'nearest' as const, value: dense(i) } });
    const prefetch = [
      { query: nearestQ(3), limit: 12n, params: { exact: true }, prefetch: [] },
      { query: nearestQ(17), limit: 9n, params: { exact: true }, prefetch: [] },
    ];
    const restPrefetch = [
      { query: vec(3), limit: 12, params: { exact: true } },
      { query: vec(17), limit: 9, params: { exact: true } },
    ];
    const cases: Array<[unknown, unknown]> = [
      [{ variant: { case: 'fusion', value: Fusion.RRF } }, { fusion: 'rrf' }],
      [{ variant: { case: 'fusion', value: Fusion.DBSF } }, { fusion: 'dbsf' }],
      [{ variant: { case: 'rrf', value: { k: 10, weights: [2, 1] } } }, { rrf: { k: 10, weights: [2, 1] } }],
      [nearestQ(5), vec(5)],
    ];
    for (const [grpcQuery, restQuery] of cases) {
      const g = await client.api('points').query({ collectionName: NAME, prefetch, query: grpcQuery as never, limit: 6n });
      const r = (await rest('POST', `/collections/${NAME}/points/query`, { prefetch: restPrefetch, query: restQuery, limit: 6 })) as {
        points: Array<{ id: number; score: number }>;
      };
      expect(g.result.map((p) => idOf(p.id))).toEqual(r.points.map((p) => String(p.id)));
      g.result.forEach((p, i) => expect(p.score).toBeCloseTo(r.points[i]!.score, 5));
      expect(g.result.length).toBeGreaterThan(0);
    }
    const mmr = await client.api('points').query({
      collectionName: NAME,
      query: { variant: { case: 'nearestWithMmr', value: { nearest: dense(3), mmr: { diversity: 0.8, candidatesLimit: 20 } } } },
      params: { exact: true },
      limit: 5n,
    });
    const rm = (await rest('POST', `/collections/${NAME}/points/query`, {
      query: { nearest: vec(3), mmr: { diversity: 0.8, candidates_limit: 20 } },
      params: { exact: true },
      limit: 5,
    })) as { points: Array<{ id: number }> };
    expect(mmr.result.map((p) => idOf(p.id))).toEqual(rm.points.map((p) => String(p.id)));
    const plain = (await rest('POST', `/collections/${NAME}/points/query`, { query: vec(3), params: { exact: true }, limit: 5 })) as {
      points: Array<{ id: number }>;
    };
    expect(rm.points.map((p) => p.id)).not.toEqual(plain.points.map((p) => p.id));
    const refused = await failure(
      client.api('points').query({
        collectionName: NAME,
        prefetch: [{ query: nearestQ(3), prefetch: [], lookupFrom: { collectionName: 'other' } }],
        query: nearestQ(3),
      }),
    );
    expect(refused.code).toBe(ConnectErrorCode.InvalidArgument);
    expect(refused.rawMessage).toMatch(/^STRATA_INVALID_ARGUMENT: prefetch\[0\]\.lookup_from: /);
  });

  it('answers QueryBatch, Recommend, RecommendBatch and RecommendGroups as REST does', async () => {
    const num3 = num(3);
    const nearestQ = { variant: { case: 'nearest' as const, value: { variant: { case: 'dense' as const, value: { data: vec(9) } } } } };
    const qb = await client.api('points').queryBatch({
      collectionName: NAME,
      queryPoints: [
        { collectionName: NAME, query: nearestQ, limit: 3n, prefetch: [] },
        { collectionName: '', query: { variant: { case: 'nearest', value: { variant: { case: 'id', value: num3 } } } }, limit: 2n, prefetch: [] },
      ],
    } as never);
    const restQ = (await rest('POST', `/collections/${NAME}/points/query/batch`, {
      searches: [
        { query: vec(9), limit: 3 },
        { query: 3, limit: 2 },
      ],
    })) as unknown as Array<{
      points: Array<{ id: number }>;
    }>;
    expect(qb.result.map((b) => b.result.map((p) => idOf(p.id)))).toEqual(restQ.map((b) => b.points.map((p) => String(p.id))));
    const reco = { positive: [num3], negative: [num(4)], positiveVectors: [{ data: vec(20) }], negativeVectors: [], limit: 4n };
    const one = await client.api('points').recommend({ collectionName: NAME, ...reco } as never);
    const restReco = (await rest('POST', `/collections/${NAME}/points/recommend`, { positive: [3, vec(20)], negative: [4], limit: 4 })) as unknown as Array<{
      id: number;
    }>;
    expect(one.result.map((p) => idOf(p.id))).toEqual(restReco.map((p) => String(p.id)));
    const batch = await client.api('points').recommendBatch({
      collectionName: NAME,
      recommendPoints: [
        { collectionName: NAME, ...reco },
        { collectionName: NAME, ...reco, limit: 2n },
      ],
    } as never);
    expect(batch.result.map((b) => b.result.map((p) => idOf(p.id)))).toEqual([
      restReco.map((p) => String(p.id)),
      restReco.slice(0, 2).map((p) => String(p.id)),
    ]);
    const groups = await client.api('points').recommendGroups({ collectionName: NAME, ...reco, groupBy: 'color', groupSize: 2, limit: 2 } as never);
    const restGroups = (await rest('POST', `/collections/${NAME}/points/recommend/groups`, {
      positive: [3, vec(20)],
      negative: [4],
      group_by: 'color',
      group_size: 2,
      limit: 2,
    })) as { groups: Array<{ id: string; hits: Array<{ id: number }> }> };
    expect(groups.result?.groups.map((g) => ({ id: g.id?.kind.value, hits: g.hits.map((h) => idOf(h.id)) }))).toEqual(
      restGroups.groups.map((g) => ({ id: g.id, hits: g.hits.map((h) => String(h.id)) })),
    );
    const other = await failure(
      client.api('points').recommendBatch({ collectionName: NAME, recommendPoints: [{ collectionName: 'other', ...reco }] } as never),
    );
    expect(other.rawMessage).toMatch(/recommend_points\[0\]\.collection_name: must be empty or "docs"/);
  });

  it('discovers by Discover, DiscoverBatch and query.discover / query.context as REST does', async () => {
    const example = (i: number) => ({ example: { case: 'id' as const, value: num(i) } });
    const pairs = [{ positive: example(5), negative: example(6) }];
    const d = await client.api('points').discover({
      collectionName: NAME,
      target: { target: { case: 'single', value: { example: { case: 'vector', value: { data: vec(12) } } } } },
      context: pairs,
      limit: 5n,
      params: { exact: true },
    } as never);
    const restD = (await rest('POST', `/collections/${NAME}/points/discover`, {
      target: vec(12),
      context: [{ positive: 5, negative: 6 }],
      limit: 5,
      params: { exact: true },
    })) as unknown as Array<{ id: number; score: number }>;
    expect(d.result.map((p) => idOf(p.id))).toEqual(restD.map((p) => String(p.id)));
    d.result.forEach((p, i) => expect(p.score).toBeCloseTo(restD[i]!.score, 5));
    const batch = await client.api('points').discoverBatch({
      collectionName: NAME,
      discoverPoints: [{ collectionName: NAME, context: pairs, limit: 3n, params: { exact: true } }],
    } as never);
    const restC = (await rest('POST', `/collections/${NAME}/points/discover`, {
      context: [{ positive: 5, negative: 6 }],
      limit: 3,
      params: { exact: true },
    })) as unknown as Array<{
      id: number;
    }>;
    expect(batch.result[0]!.result.map((p) => idOf(p.id))).toEqual(restC.map((p) => String(p.id)));
    const input = (i: number) => ({ variant: { case: 'id' as const, value: num(i) } });
    const q = await client.api('points').query({
      collectionName: NAME,
      query: {
        variant: {
          case: 'discover',
          value: { target: { variant: { case: 'dense', value: { data: vec(12) } } }, context: { pairs: [{ positive: input(5), negative: input(6) }] } },
        },
      },
      params: { exact: true },
      limit: 5n,
      prefetch: [],
    } as never);
    expect(q.result.map((p) => idOf(p.id))).toEqual(restD.map((p) => String(p.id)));
    const noExact = await failure(client.api('points').discover({ collectionName: NAME, context: pairs, limit: 3n } as never));
    expect(noExact.rawMessage).toMatch(/params\.exact: discovery scores each point/);
  });

  it('groups a search and a query by a payload key as REST does, group ids in their kinds', async () => {
    const plainId = (g: { kind: { case?: string; value?: unknown } } | undefined): unknown =>
      g?.kind.case === 'stringValue' ? g.kind.value : Number(g?.kind.value as bigint);
    const shape = (groups: Array<{ id?: { kind: { case?: string; value?: unknown } }; hits: ScoredPoint[] }>) =>
      groups.map((g) => ({ id: plainId(g.id), hits: g.hits.map((h) => idOf(h.id)) }));
    const restShape = (r: { groups: Array<{ id: unknown; hits: Array<{ id: unknown }> }> }) =>
      r.groups.map((g) => ({ id: g.id, hits: g.hits.map((h) => String(h.id)) }));
    for (const [key, size, limit] of [
      ['color', 2, 3],
      ['n', 1, 4],
    ] as const) {
      const g = await client.api('points').searchGroups({
        collectionName: NAME,
        vector: vec(7),
        groupBy: key,
        groupSize: size,
        limit,
        params: { exact: true },
        withPayload: { selectorOptions: { case: 'enable', value: true } },
      });
      const r = (await rest('POST', `/collections/${NAME}/points/search/groups`, {
        vector: vec(7),
        group_by: key,
        group_size: size,
        limit,
        params: { exact: true },
      })) as { groups: Array<{ id: unknown; hits: Array<{ id: unknown }> }> };
      expect(shape(g.result!.groups), key).toEqual(restShape(r));
      expect(g.result!.groups).toHaveLength(limit);
      for (const grp of g.result!.groups) for (const h of grp.hits) expect(payloadOf(h)[key]).toEqual(plainId(grp.id));
    }
    const q = await client.api('points').queryGroups({
      collectionName: NAME,
      query: { variant: { case: 'nearest', value: { variant: { case: 'id', value: num(3) } } } },
      groupBy: 'color',
      groupSize: 2n,
      limit: 2n,
      params: { exact: true },
    });
    const rq = (await rest('POST', `/collections/${NAME}/points/query/groups`, {
      query: 3,
      group_by: 'color',
      group_size: 2,
      limit: 2,
      params: { exact: true },
    })) as {
      groups: Array<{ id: unknown; hits: Array<{ id: unknown }> }>;
    };
    expect(shape(q.result!.groups)).toEqual(restShape(rq));
    expect(shape(q.result!.groups).flatMap((g) => g.hits)).not.toContain('3');
    // A lookup in another collection is refused, naming the field.
    const e = await failure(
      client
        .api('points')
        .searchGroups({ collectionName: NAME, vector: vec(7), groupBy: 'color', groupSize: 1, limit: 2, withLookup: { collection: 'other' } }),
    );
    expect(e.code).toBe(ConnectErrorCode.InvalidArgument);
    expect(e.rawMessage).toContain('with_lookup');
  });

  it('scrolls and counts with a filter as REST does', async () => {
    const page = await client.api('points').scroll({ collectionName: NAME, limit: 7, filter: { must: [keyword('color', 'green')] } });
    const r = (await rest('POST', `/collections/${NAME}/points/scroll`, { limit: 7, filter: { must: [{ key: 'color', match: { value: 'green' } }] } })) as {
      points: Array<{ id: number }>;
      next_page_offset: number | null;
    };
    expect(page.result.map((p) => idOf(p.id))).toEqual(r.points.map((p) => String(p.id)));
    expect(idOf(page.nextPageOffset)).toBe(String(r.next_page_offset));
    const next = await client
      .api('points')
      .scroll({ collectionName: NAME, limit: 7, offset: page.nextPageOffset!, filter: { must: [keyword('color', 'green')] } });
    expect(Number(idOf(next.result[0]!.id))).toBe(r.next_page_offset);
    const count = await client
      .api('points')
      .count({ collectionName: NAME, filter: { must: [keyword('color', 'green'), field('n', { range: { lt: 20 } })] }, exact: true });
    const rc = await rest('POST', `/collections/${NAME}/points/count`, {
      filter: {
        must: [
          { key: 'color', match: { value: 'green' } },
          { key: 'n', range: { lt: 20 } },
        ],
      },
    });
    expect(Number(count.result?.count)).toBe(rc['count']);
    expect(Number(count.result?.count)).toBe(6); // n < 20 with n % 3 === 2: 2, 5, 8, 11, 14, 17
  });

  it('counts with the other condition kinds as REST does', async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [
        { must: [field('color', { match: { matchValue: { case: 'keywords', value: { strings: ['red', 'green'] } } } })] },
        { must: [{ key: 'color', match: { any: ['red', 'green'] } }] },
      ],
      [
        { must: [field('n', { match: { matchValue: { case: 'exceptIntegers', value: { integers: [1n, 2n, 3n] } } } })] },
        { must: [{ key: 'n', match: { except: [1, 2, 3] } }] },
      ],
      [{ must: [field('tag', { valuesCount: { gte: 1n } })] }, { must: [{ key: 'tag', values_count: { gte: 1 } }] }],
      [
        { minShould: { conditions: [keyword('color', 'red'), field('n', { range: { lt: 10 } }), field('price', { range: { gt: 30 } })], minCount: 2n } },
        {
          min_should: {
            conditions: [
              { key: 'color', match: { value: 'red' } },
              { key: 'n', range: { lt: 10 } },
              { key: 'price', range: { gt: 30 } },
            ],
            min_count: 2,
          },
        },
      ],
      [
        {
          must: [
            cond({
              conditionOneOf: {
                case: 'filter',
                value: { should: [keyword('color', 'blue'), cond({ conditionOneOf: { case: 'isNull', value: { key: 'tag' } } })] },
              },
            }),
          ],
        },
        { must: [{ should: [{ key: 'color', match: { value: 'blue' } }, { is_null: { key: 'tag' } }] }] },
      ],
    ];
    for (const [g, r] of cases) {
      const count = await client.api('points').count({ collectionName: NAME, filter: create(FilterSchema, g as never) });
      const rc = await rest('POST', `/collections/${NAME}/points/count`, { filter: r });
      expect(Number(count.result?.count), JSON.stringify(r)).toBe(rc['count']);
      expect(rc['count'], JSON.stringify(r)).toBeGreaterThan(0);
    }
  });

  it('sets, overwrites and deletes payloads', async () => {
    const p = client.api('points');
    const ids = { pointsSelectorOneOf: { case: 'points' as const, value: { ids: [num(1), num(2)] } } };
    const payloadOfId = async (id: number) =>
      payloadOf((await p.get({ collectionName: NAME, ids: [num(id)], withPayload: { selectorOptions: { case: 'enable', value: true } } })).result[0]!);
    await p.setPayload({ collectionName: NAME, wait: true, payload: { extra: { kind: { case: 'boolValue', value: true } } }, pointsSelector: ids });
    expect(await payloadOfId(1)).toEqual({ color: 'blue', n: 1, price: 1.5, extra: true });
    await p.overwritePayload({ collectionName: NAME, wait: true, payload: { only: { kind: { case: 'stringValue', value: 'x' } } }, pointsSelector: ids });
    expect(await payloadOfId(2)).toEqual({ only: 'x' });
    await p.deletePayload({ collectionName: NAME, wait: true, keys: ['only'], pointsSelector: ids });
    expect(await payloadOfId(2)).toEqual({});
    await p.clearPayload({ collectionName: NAME, wait: true, points: { pointsSelectorOneOf: { case: 'points', value: { ids: [num(3)] } } } });
    expect(await payloadOfId(3)).toEqual({});
    // By filter: every blue point gets the key.
    await p.setPayload({
      collectionName: NAME,
      wait: true,
      payload: { hue: { kind: { case: 'stringValue', value: 'cold' } } },
      pointsSelector: { pointsSelectorOneOf: { case: 'filter', value: { must: [keyword('color', 'blue')] } } },
    });
    const rc = await rest('POST', `/collections/${NAME}/points/count`, { filter: { must: [{ key: 'hue', match: { value: 'cold' } }] } });
    expect(rc['count']).toBe(12); // n % 3 === 1 in 0..38 is 13 points, less point 1, overwritten above
  });

  it('creates and deletes field indexes, shown in payload_schema', async () => {
    const p = client.api('points');
    await p.createFieldIndex({ collectionName: NAME, wait: true, fieldName: 'color', fieldType: FieldType.FieldTypeKeyword });
    await p.createFieldIndex({ collectionName: NAME, wait: true, fieldName: 'n', fieldType: FieldType.FieldTypeInteger });
    const schema = (await client.api('collections').get({ collectionName: NAME })).result!.payloadSchema;
    expect(Object.keys(schema).sort()).toEqual(['color', 'n']);
    expect(schema['color']?.dataType).toBe(PayloadSchemaType.Keyword);
    expect(schema['n']?.dataType).toBe(PayloadSchemaType.Integer);
    expect(schema['color']?.points).toBeGreaterThan(30n);
    const rest = (await http(s.rest, 'GET', `/collections/${NAME}`)).body as { result: { payload_schema: Record<string, { points: number }> } };
    expect(Number(schema['color']?.points)).toBe(rest.result.payload_schema['color']?.points);
    // A text index keeps its parameters; a tokenizer Strata lacks is refused naming it.
    await p.createFieldIndex({
      collectionName: NAME,
      wait: true,
      fieldName: 'note',
      fieldType: FieldType.FieldTypeText,
      fieldIndexParams: { indexParams: { case: 'textIndexParams', value: { tokenizer: TokenizerType.Whitespace, lowercase: true } } },
    });
    const note = (await client.api('collections').get({ collectionName: NAME })).result!.payloadSchema['note'];
    expect(note?.dataType).toBe(PayloadSchemaType.Text);
    expect(note?.params?.indexParams.case === 'textIndexParams' ? note.params.indexParams.value.tokenizer : null).toBe(TokenizerType.Whitespace);
    const prefix = await failure(
      p.createFieldIndex({
        collectionName: NAME,
        fieldName: 'other',
        fieldType: FieldType.FieldTypeText,
        fieldIndexParams: { indexParams: { case: 'textIndexParams', value: { tokenizer: TokenizerType.Prefix } } },
      }),
    );
    expect(prefix.code).toBe(ConnectErrorCode.InvalidArgument);
    expect(prefix.rawMessage).toContain('tokenizer');
    await p.deleteFieldIndex({ collectionName: NAME, wait: true, fieldName: 'note' });
    await p.deleteFieldIndex({ collectionName: NAME, wait: true, fieldName: 'n' });
    expect(Object.keys((await client.api('collections').get({ collectionName: NAME })).result!.payloadSchema)).toEqual(['color']);
  });

  it('counts payload values by Facet as REST does', async () => {
    const g = await client.api('points').facet({ collectionName: NAME, key: 'color', limit: 5n, exact: true });
    const r = (await rest('POST', `/collections/${NAME}/facet`, { key: 'color', limit: 5 })) as { hits: Array<{ value: string; count: number }> };
    expect(g.hits.map((h) => ({ value: h.value?.variant.value, count: Number(h.count) }))).toEqual(r.hits);
    expect(r.hits.map((h) => h.value).sort()).toEqual(['blue', 'green', 'red']);
    const unindexed = await failure(client.api('points').facet({ collectionName: NAME, key: 'note' }));
    expect(unindexed.rawMessage).toMatch(/key: "note" needs a keyword, uuid, integer or bool payload index/);
  });

  it('writes a batch by UpdateBatch as REST does, keeps aliases, snapshots and the cluster view', async () => {
    const p = client.api('points');
    const c = client.api('collections');
    const id = (n: number) => ({ pointIdOptions: { case: 'num' as const, value: BigInt(n) } });
    const ids = (...n: number[]) => ({ pointsSelectorOneOf: { case: 'points' as const, value: { ids: n.map(id) } } });
    const batch = await p.updateBatch({
      collectionName: NAME,
      wait: true,
      operations: [
        {
          operation: {
            case: 'upsert',
            value: { points: [{ id: id(900), vectors: { vectorsOptions: { case: 'vector', value: { data: [9, 9, 9, 9] } } }, payload: {} }] },
          },
        },
        { operation: { case: 'setPayload', value: { payload: { tag: { kind: { case: 'stringValue', value: 'batch' } } }, pointsSelector: ids(900) } } },
        {
          operation: {
            case: 'updateVectors',
            value: { points: [{ id: id(900), vectors: { vectorsOptions: { case: 'vector', value: { data: [8, 8, 8, 8] } } } }] },
          },
        },
      ],
    } as never);
    expect(batch.result).toHaveLength(3);
    const got = (await rest('POST', `/collections/${NAME}/points`, { ids: [900], with_vector: true })) as unknown as Array<{
      payload: unknown;
      vector: number[];
    }>;
    expect(got[0]).toMatchObject({ payload: { tag: 'batch' }, vector: [8, 8, 8, 8] });
    const bad = await failure(
      p.updateBatch({
        collectionName: NAME,
        operations: [
          { operation: { case: 'deletePoints', value: { points: ids(900) } } },
          { operation: { case: 'deleteVectors', value: { pointsSelector: ids(900), vectors: { names: [''] } } } },
        ],
      } as never),
    );
    expect(bad.rawMessage).toMatch(/operations\[1\]\.delete_vectors\.vector\[0\]: a point's primary dense vector cannot be deleted/);
    expect((await p.get({ collectionName: NAME, ids: [id(900)] })).result).toHaveLength(1);
    await p.updateBatch({ collectionName: NAME, wait: true, operations: [{ operation: { case: 'deletePoints', value: { points: ids(900) } } }] } as never);
    expect((await p.get({ collectionName: NAME, ids: [id(900)] })).result).toHaveLength(0);

    await c.updateAliases({ actions: [{ action: { case: 'createAlias', value: { collectionName: NAME, aliasName: 'docs-alias' } } }] } as never);
    expect((await c.listAliases({})).aliases.map((a) => [a.aliasName, a.collectionName])).toContainEqual(['docs-alias', NAME]);
    expect((await c.listCollectionAliases({ collectionName: NAME })).aliases.map((a) => a.aliasName)).toEqual(['docs-alias']);
    expect(((await rest('GET', '/aliases')) as { aliases: Array<{ alias_name: string }> }).aliases.map((a) => a.alias_name)).toContain('docs-alias');
    await c.updateAliases({ actions: [{ action: { case: 'deleteAlias', value: { aliasName: 'docs-alias' } } }] } as never);
    expect((await c.listAliases({})).aliases).toEqual([]);

    const info = await c.collectionClusterInfo({ collectionName: NAME });
    const count = Number((await p.count({ collectionName: NAME, exact: true })).result?.count);
    expect([info.shardCount, info.localShards.map((s) => Number(s.pointsCount))]).toEqual([1n, [count]]);

    const snaps = client.api('snapshots');
    const made = await snaps.create({ collectionName: NAME });
    const listed = (await rest('GET', `/collections/${NAME}/snapshots`)) as unknown as Array<{ name: string; size: number; checksum: string }>;
    expect(listed.map((l) => l.name)).toContain(made.snapshotDescription?.name);
    const mine = listed.find((l) => l.name === made.snapshotDescription?.name)!;
    expect([Number(made.snapshotDescription?.size), made.snapshotDescription?.checksum]).toEqual([mine.size, mine.checksum]);
    expect((await snaps.list({ collectionName: NAME })).snapshotDescriptions.map((d) => d.name)).toContain(mine.name);
    await snaps.delete({ collectionName: NAME, snapshotName: mine.name });
    expect((await snaps.list({ collectionName: NAME })).snapshotDescriptions.map((d) => d.name)).not.toContain(mine.name);
  });

  it('takes scalar int8 quantization at create and Disabled at update, as REST does; refuses product', async () => {
    const c = client.api('collections');
    await c.create({
      collectionName: 'quantized',
      vectorsConfig: { config: { case: 'params', value: { size: 4n, distance: Distance.Cosine } } },
      quantizationConfig: { quantization: { case: 'scalar', value: { type: QuantizationType.Int8, alwaysRam: true } } },
    } as never);
    expect(((await rest('GET', '/collections/quantized')) as { config: { quantization_config: unknown } }).config.quantization_config).toEqual({
      scalar: { type: 'int8', always_ram: true },
    });
    const got = (await c.get({ collectionName: 'quantized' })).result!.config!.quantizationConfig?.quantization;
    expect(got?.case).toBe('scalar');
    await c.update({ collectionName: 'quantized', quantizationConfig: { quantization: { case: 'disabled', value: {} } } } as never);
    expect(((await rest('GET', '/collections/quantized')) as { config: { quantization_config: unknown } }).config.quantization_config).toBeNull();
    const product = await failure(
      c.create({
        collectionName: 'product',
        vectorsConfig: { config: { case: 'params', value: { size: 4n, distance: Distance.Cosine } } },
        quantizationConfig: { quantization: { case: 'product', value: { compression: 1 } } },
      } as never),
    );
    expect(product.rawMessage).toMatch(/quantization_config\.product/);
    await c.delete({ collectionName: 'quantized' });
  });

  it('deletes by filter and by ids', async () => {
    const p = client.api('points');
    const before = Number((await p.count({ collectionName: NAME })).result?.count);
    const greens = Number((await p.count({ collectionName: NAME, filter: { must: [keyword('color', 'green')] } })).result?.count);
    await p.delete({ collectionName: NAME, wait: true, points: { pointsSelectorOneOf: { case: 'filter', value: { must: [keyword('color', 'green')] } } } });
    expect(Number((await p.count({ collectionName: NAME })).result?.count)).toBe(before - greens);
    expect((await rest('POST', `/collections/${NAME}/points/count`, { filter: { must: [{ key: 'color', match: { value: 'green' } }] } }))['count']).toBe(0);
    await p.delete({ collectionName: NAME, wait: true, points: { pointsSelectorOneOf: { case: 'points', value: { ids: [num(0)] } } } });
    expect((await p.get({ collectionName: NAME, ids: [num(0)] })).result).toEqual([]);
  });

  it('refuses a field Strata does not honour, naming it', async () => {
    const p = client.api('points');
    const named = await failure(p.search({ collectionName: NAME, vector: vec(1), limit: 3n, vectorName: 'image' }));
    expect(named.code).toBe(ConnectErrorCode.InvalidArgument);
    expect(named.rawMessage).toContain('vector_name');
    const quant = await failure(p.search({ collectionName: NAME, vector: vec(1), limit: 3n, params: { quantization: { ignore: true } } }));
    expect(quant.code).toBe(ConnectErrorCode.InvalidArgument);
    expect(quant.rawMessage).toContain('params.quantization');
    expect(quant.rawMessage).toContain('STRATA_INVALID_ARGUMENT');
    const shard = await failure(
      client.api('collections').create({
        collectionName: 'sharded',
        vectorsConfig: { config: { case: 'params', value: { size: 4n, distance: Distance.Dot } } },
        shardNumber: 3,
      }),
    );
    expect(shard.code).toBe(ConnectErrorCode.InvalidArgument);
    expect(shard.rawMessage).toContain('shard_number');
    const formula = await failure(p.query({ collectionName: NAME, query: { variant: { case: 'sample', value: 0 } } } as never));
    expect(formula.code).toBe(ConnectErrorCode.InvalidArgument);
    expect(formula.rawMessage).toContain('query.sample');
    const bestScore = await failure(
      p.query({
        collectionName: NAME,
        query: { variant: { case: 'recommend', value: { positive: [{ variant: { case: 'id', value: num(1) } }], strategy: RecommendStrategy.BestScore } } },
      }),
    );
    expect(bestScore.code).toBe(ConnectErrorCode.InvalidArgument);
    expect(bestScore.rawMessage).toContain('query.recommend.strategy');
    const missing = await failure(p.search({ collectionName: 'nope', vector: vec(1), limit: 3n }));
    expect(missing.code).toBe(ConnectErrorCode.NotFound);
  });

  it('answers UNIMPLEMENTED, naming the RPC, for what it does not serve', async () => {
    const e = await failure(client.api('collections').listShardKeys({ collectionName: NAME }));
    expect(e.code).toBe(ConnectErrorCode.Unimplemented);
    expect(e.rawMessage).toContain('qdrant.Collections/ListShardKeys');
    const snap = await failure(client.api('snapshots').listFull({}));
    expect(snap.code).toBe(ConnectErrorCode.Unimplemented);
    expect(snap.rawMessage).toContain('qdrant.Snapshots/ListFull');
    // Counted in the gRPC metrics under the full method name, with strata.v1's status spelling.
    const metrics = (await http(s.rest, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/strata_grpc_requests_total\{method="qdrant\.Points\/Search",code="OK"\} [1-9]/);
    expect(metrics).toMatch(/strata_grpc_requests_total\{method="qdrant\.Points\/Search",code="INVALID_ARGUMENT"\} [1-9]/);
  });
});

describe('Qdrant gRPC client with an API key', () => {
  it("needs Qdrant's api-key header on every RPC but the health check", async () => {
    const keyed = await serveChild(['--data-dir', tmp.path('keyed'), '--no-grpc', '--log-level', 'silent'], {
      STRATA_API_KEY: 'sesame',
    });
    try {
      const [host, port] = keyed.qdrantGrpc!.split(':');
      // https: false, as the client would otherwise switch to TLS when given a key.
      const at = { host: host!, port: Number(port), https: false, checkCompatibility: false };
      const anonymous = new QdrantClient(at);
      expect((await anonymous.api('service').healthCheck({})).title).toContain('strata');
      const refused = await failure(anonymous.api('collections').list({}));
      expect(refused.code).toBe(ConnectErrorCode.Unauthenticated);
      const wrong = await failure(new QdrantClient({ ...at, apiKey: 'open' }).api('collections').list({}));
      expect(wrong.code).toBe(ConnectErrorCode.Unauthenticated);
      const ok = await new QdrantClient({ ...at, apiKey: 'sesame' }).api('collections').list({});
      expect(ok.collections).toEqual([]);
    } finally {
      keyed.child.kill('SIGTERM');
      await keyed.exited;
    }
  }, 60_000);
});
