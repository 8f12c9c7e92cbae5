// Filters and payload operations through `strata router` over two real shard servers with data
// directories, with Qdrant's official JS client (REST) and a grpc-js client (the router's gRPC):
// counts add up over the shards, scroll and search pages merge, payload writes and deletes by filter
// reach every shard, payload indexes are created and dropped on every shard and their point counts
// add up in payload_schema; a bad filter is refused as a shard refuses it, never dropped; a facet's
// counts add up, a collection update and aliases reach every shard.
import * as grpc from '@grpc/grpc-js';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { shardOf } from '../../index/build/build-shards.js';
import { bindGrpc, shutdownGrpc } from '../../server/grpc/grpc-server.js';
import { buildRouterGrpc } from '../../server/router/router-grpc.js';
import type { StrataRouter } from '../../server/router/router-server.js';
import { makeTempDir } from '../helpers/temp.js';
import { dataPoints, FILTER_CASES, FILTER_DIM, handIds, nearest, type DataPoint, expectEveryCase } from './filter-data.js';
import { grpcClients, grpcFailure, http, startServer, type GrpcClients, type Running, unary } from './fixture.js';
import { listenRouter } from './router-cluster.js';

const NAME = 'routed';
const tmp = makeTempDir('strata-router-filters-');
const engines: Engine[] = [];
const shards: Running[] = [];
let router: StrataRouter;
let url: string;
let client: QdrantClient;
let grpcServer: grpc.Server;
let g: GrpcClients;
const points: DataPoint[] = dataPoints();
const query = [-0.2, 0.4, 0.1, -0.3];

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path(`data-${i}`) });
    engines.push(engine);
    shards.push(await startServer(engine, { grpcPort: null }));
  }
  ({ router, url } = await listenRouter(shards.map((s) => s.url)));
  client = new QdrantClient({ url, checkCompatibility: false });
  grpcServer = buildRouterGrpc(router, { bodyLimit: 32 << 20, maxBatch: 64 });
  g = grpcClients(`127.0.0.1:${await bindGrpc(grpcServer, '127.0.0.1', 0)}`);
  await client.createCollection(NAME, { vectors: { size: FILTER_DIM, distance: 'Euclid' } });
  await client.upsert(NAME, { wait: true, points });
}, 60_000);

afterAll(async () => {
  g?.close();
  if (grpcServer) await shutdownGrpc(grpcServer, 1000);
  await router?.close();
  for (const s of shards) await s.close().catch(() => {});
  for (const e of engines) await e.close();
  tmp.cleanup();
});

describe('the router with filters', () => {
  it('holds points on both shards (the test means something)', () => {
    const perShard = [0, 1].map((s) => points.filter((p) => shardOf(p.id, 2) === s).length);
    expect(perShard.every((n) => n > 0)).toBe(true);
  });

  it('adds up filtered counts, merges filtered scroll pages and searches over the shards', async () => {
    await expectEveryCase(client, NAME, points, query, 3);
  });

  it('merges a filtered query (with offset) over the shards', async () => {
    const c = FILTER_CASES.find((x) => x.name === 'range (float)')!;
    const res = await client.query(NAME, { query: [...query], limit: 4, offset: 2, filter: c.filter, params: { exact: true } });
    expect(res.points.map((p) => Number(p.id))).toEqual(nearest(points, handIds(points, c), query, 6).slice(2));
  });

  it('merges nearest queries, and refuses in grouped queries, naming the field, the kinds whose groups it cannot fill', async () => {
    const plain = await client.query(NAME, { query: [...query], limit: 5 });
    expect(await client.query(NAME, { query: { nearest: [...query] }, limit: 5 })).toEqual(plain);
    // Grouped, only a nearest query: its groups are filled from shards that left them out.
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ query: { nearest: [...query], mmr: { diversity: 0.5 } } }, /^query\.mmr: /],
      [{ prefetch: [{ query: [...query], limit: 10 }], query: { fusion: 'rrf' } }, /^prefetch: /],
    ];
    for (const [body, field] of refusals) {
      const r = await http(url, 'POST', `/collections/${NAME}/points/query/groups`, { ...body, group_by: 'city', limit: 5 });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect((r.body as { status: { error: string } }).status.error).toMatch(field);
    }
  });

  it("answers gRPC Count, Scroll and Search with filter_json through the router's routes", async () => {
    const c = FILTER_CASES[4]!;
    const filter_json = JSON.stringify(c.filter);
    const want = handIds(points, c);
    expect(Number((await unary(g.points, 'Count', { collection_name: NAME, filter_json }))['count'])).toBe(want.length);
    const page = await unary(g.points, 'Scroll', { collection_name: NAME, limit: 100, filter_json });
    expect((page['result'] as Array<{ id: number }>).map((p) => Number(p.id))).toEqual(want);
    const hits = await unary(g.points, 'Search', { collection_name: NAME, vector: query, limit: 3, params: { exact: true }, filter_json });
    expect((hits['result'] as Array<{ id: number }>).map((p) => Number(p.id))).toEqual(nearest(points, want, query, 3));
    const bad = await grpcFailure(unary(g.points, 'Count', { collection_name: NAME, filter_json: JSON.stringify({ must: [{ key: 'city', match: {} }] }) }));
    expect(bad.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(bad.details).toMatch(/^filter\.must\[0\]\.match/);
  });

  it('refuses a bad filter with the 400 a shard gives, naming the field', async () => {
    const r = await http(url, 'POST', `/collections/${NAME}/points/count`, { filter: { must: [{ key: 'price', range: { gte: 'x' } }] } });
    expect(r.status).toBe(400);
    expect((r.body as { status: { error: string } }).status.error).toMatch(/^filter\.must\[0\]\.range\.gte: /);
  });

  it('creates a payload index on every shard: payload_schema adds up the points of each', async () => {
    await client.createPayloadIndex(NAME, { field_name: 'city', field_schema: 'keyword', wait: true });
    for (const s of shards) {
      const info = await http(s.url, 'GET', `/collections/${NAME}`);
      expect(Object.keys((info.body as { result: { payload_schema: object } }).result.payload_schema)).toEqual(['city']);
    }
    const schema = (await client.getCollection(NAME)).payload_schema as Record<string, { data_type: string; points: number }>;
    expect(schema['city']).toMatchObject({ data_type: 'keyword', points: points.length });
    const info = (await unary(g.collections, 'Get', { collection_name: NAME }))['result'] as { payload_indexes: Array<{ key: string; points: number }> };
    expect(info.payload_indexes.map((p) => [p.key, Number(p.points)])).toEqual([['city', points.length]]);
  });

  it('adds up a facet over the shards as one server would count it, and checks its limit at the edge', async () => {
    const counts = new Map<string, number>();
    for (const p of points) counts.set(p.payload['city'] as string, (counts.get(p.payload['city'] as string) ?? 0) + 1);
    const byHand = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([value, count]) => ({ value, count }));
    for (const limit of [1, 2, 3, 5]) expect((await client.facet(NAME, { key: 'city', limit })).hits, `limit ${limit}`).toEqual(byHand.slice(0, limit));
    const berlin = (await client.facet(NAME, { key: 'city', filter: { must: [{ key: 'city', match: { value: 'Berlin' } }] } })).hits;
    expect(berlin).toEqual([{ value: 'Berlin', count: counts.get('Berlin') }]);
    const bad = await http(url, 'POST', `/collections/${NAME}/facet`, { key: 'city', limit: 0 });
    expect(bad.status).toBe(400);
    expect((bad.body as { status: { error: string } }).status.error).toMatch(/^limit: /);
  });

  it('updates a collection on every shard', async () => {
    expect(await client.updateCollection(NAME, { hnsw_config: { m: 8, ef_construct: 40 } })).toBe(true);
    for (const s of shards) {
      const info = await http(s.url, 'GET', `/collections/${NAME}`);
      expect((info.body as { result: { config: { hnsw_config: object } } }).result.config.hnsw_config).toMatchObject({ m: 8, ef_construct: 40 });
    }
    const refused = await http(url, 'PATCH', `/collections/${NAME}`, { hnsw_config: { payload_m: 1 } });
    expect(refused.status).toBe(400);
  });

  it('creates aliases on every shard, lists them once, searches by them, and refuses a bad action, changing no shard', async () => {
    expect(await client.collectionExists(NAME)).toEqual({ exists: true });
    expect(await client.collectionExists('nowhere')).toEqual({ exists: false });
    await client.updateCollectionAliases({ actions: [{ create_alias: { alias_name: 'by-alias', collection_name: NAME } }] });
    for (const s of shards) {
      const listed = await http(s.url, 'GET', '/aliases');
      expect((listed.body as { result: { aliases: unknown[] } }).result.aliases).toEqual([{ alias_name: 'by-alias', collection_name: NAME }]);
    }
    expect((await client.getAliases()).aliases).toEqual([{ alias_name: 'by-alias', collection_name: NAME }]);
    expect((await client.getCollectionAliases(NAME)).aliases).toEqual([{ alias_name: 'by-alias', collection_name: NAME }]);
    const direct = await client.search(NAME, { vector: [...query], limit: 5 });
    expect(await client.search('by-alias', { vector: [...query], limit: 5 })).toEqual(direct);
    const bad = await http(url, 'POST', '/collections/aliases', {
      actions: [{ create_alias: { alias_name: 'second', collection_name: NAME } }, { drop_alias: {} }],
    });
    expect(bad.status).toBe(400);
    expect((bad.body as { status: { error: string } }).status.error).toMatch(/^actions\[1\]/);
    for (const s of shards) {
      const listed = await http(s.url, 'GET', '/aliases');
      expect((listed.body as { result: { aliases: unknown[] } }).result.aliases).toHaveLength(1);
    }
    await client.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: 'by-alias' } }] });
    expect((await client.getAliases()).aliases).toEqual([]);
  });

  it('sets payload and deletes points by filter on every shard', async () => {
    const berlin = { must: [{ key: 'city', match: { value: 'Berlin' } }] };
    const targets = handIds(points, FILTER_CASES[0]!);
    expect(new Set(targets.map((id) => shardOf(id, 2))).size).toBe(2);
    await client.setPayload(NAME, { payload: { vip: true }, filter: berlin, wait: true });
    const vip = { must: [{ key: 'vip', match: { value: true } }] };
    expect((await client.count(NAME, { filter: vip })).count).toBe(targets.length);
    await client.delete(NAME, { filter: vip, wait: true });
    expect((await client.count(NAME)).count).toBe(points.length - targets.length);
    expect((await client.count(NAME, { filter: berlin })).count).toBe(0);
  });

  it('drops a payload index on every shard', async () => {
    await client.deletePayloadIndex(NAME, 'city', { wait: true });
    for (const s of shards) {
      const info = await http(s.url, 'GET', `/collections/${NAME}`);
      expect((info.body as { result: { payload_schema: object } }).result.payload_schema).toEqual({});
    }
  });
});
