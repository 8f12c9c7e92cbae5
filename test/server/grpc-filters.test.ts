// Filters over gRPC with a real client (proto-loader + grpc-js over proto/strata.proto): Search,
// SearchBatch, Count and Scroll take Qdrant's filter as JSON text in filter_json, Delete and
// SetPayload select by it, the filter plan comes back in the stats, and a bad filter is
// INVALID_ARGUMENT naming the field as REST does.
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { dataPoints, evaluatorIds, FILTER_CASES, FILTER_DIM, handIds, nearest, type DataPoint, type Payload } from './filter-data.js';
import { grpcClients, grpcFailure, http, startServer, unary, type GrpcClients, type Running } from './fixture.js';

const NAME = 'grpc-filtered';
let tmp: TempDir;
let engine: Engine;
let srv: Running;
let c: GrpcClients;
const points: DataPoint[] = dataPoints();
const query = [0.3, 0.1, -0.4, 0.2];

beforeAll(async () => {
  tmp = makeTempDir('strata-grpc-filters-');
  engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path('data') });
  srv = await startServer(engine);
  c = grpcClients(srv.addr.grpc!);
  await unary(c.collections, 'Create', { collection_name: NAME, dimension: FILTER_DIM, distance: 'Euclid' });
  await unary(c.points, 'Upsert', {
    collection_name: NAME,
    points: points.map((p) => ({ id: p.id, vector: p.vector, payload_json: JSON.stringify(p.payload) })),
  });
});

afterAll(async () => {
  c?.close();
  await srv?.close();
  await engine?.close();
  tmp?.cleanup();
});

const ids = (r: Record<string, unknown>): number[] => (r['result'] as Array<{ id: number }>).map((p) => Number(p.id));

describe('gRPC filters', () => {
  it('Search takes filter_json: the nearest matching points only', async () => {
    for (const fc of FILTER_CASES.slice(0, 8)) {
      const r = await unary(c.points, 'Search', {
        collection_name: NAME,
        vector: query,
        limit: 4,
        params: { exact: true },
        filter_json: JSON.stringify(fc.filter),
      });
      expect(ids(r), fc.name).toEqual(nearest(points, handIds(points, fc), query, 4));
    }
  });

  it('SearchBatch gives each search its own filter_json', async () => {
    const [a, b] = [FILTER_CASES[1]!, FILTER_CASES[5]!];
    const r = await unary(c.points, 'SearchBatch', {
      collection_name: NAME,
      searches: [a, b].map((fc) => ({ vector: query, limit: 3, params: { exact: true }, filter_json: JSON.stringify(fc.filter) })),
    });
    expect((r['result'] as Array<Record<string, unknown>>).map(ids)).toEqual([a, b].map((fc) => nearest(points, handIds(points, fc), query, 3)));
  });

  it('SearchStream takes the filter_json of each search, answering in order', async () => {
    const call = (c.points['SearchStream'] as (md: grpc.Metadata) => grpc.ClientDuplexStream<object, { result: Array<{ id: number }> }>).call(
      c.points,
      new grpc.Metadata(),
    );
    const answers: number[][] = [];
    const done = new Promise<void>((resolve, reject) => {
      call.on('data', (m: { result: Array<{ id: number }> }) => answers.push(m.result.map((p) => Number(p.id))));
      call.on('end', resolve);
      call.on('error', reject);
    });
    for (const fc of FILTER_CASES)
      call.write({ collection_name: NAME, vector: query, limit: 2, params: { exact: true }, filter_json: JSON.stringify(fc.filter) });
    call.end();
    await done;
    expect(answers).toEqual(FILTER_CASES.map((fc) => nearest(points, handIds(points, fc), query, 2)));
  });

  it('Count and Scroll take filter_json', async () => {
    for (const fc of FILTER_CASES) {
      const filter_json = JSON.stringify(fc.filter);
      const want = handIds(points, fc);
      expect(Number((await unary(c.points, 'Count', { collection_name: NAME, filter_json }))['count']), fc.name).toBe(want.length);
      const seen: number[] = [];
      let offset: number | undefined;
      for (;;) {
        const page = await unary(c.points, 'Scroll', { collection_name: NAME, limit: 10, filter_json, ...(offset !== undefined ? { offset } : {}) });
        seen.push(...ids(page));
        if (page['next_page_offset'] === undefined || page['next_page_offset'] === null) break;
        offset = Number(page['next_page_offset']);
      }
      expect(seen, fc.name).toEqual(want);
    }
  });

  it('reports the filter plan in the stats of a filtered search', async () => {
    const fc = FILTER_CASES[0]!;
    const r = await unary(c.points, 'Search', { collection_name: NAME, vector: query, limit: 3, with_stats: true, filter_json: JSON.stringify(fc.filter) });
    const f = (r['strata'] as { filter: { plan: string; matched: number; estimated: { min: number; max: number } } }).filter;
    expect(['scan', 'graph', 'none']).toContain(f.plan);
    expect(f.matched).toBe(handIds(points, fc).length);
    expect(f.estimated.min).toBeLessThanOrEqual(f.matched);
    expect(f.estimated.max).toBeGreaterThanOrEqual(f.matched);
  });

  it('SetPayload and Delete select by filter_json', async () => {
    const model = new Map<number, Payload>(points.map((p) => [p.id, structuredClone(p.payload)]));
    const berlin = { must: [{ key: 'city', match: { value: 'Berlin' } }] };
    const targets = evaluatorIds(points, berlin, model);
    await unary(c.points, 'SetPayload', { collection_name: NAME, payload_json: JSON.stringify({ tier: 'gold' }), filter_json: JSON.stringify(berlin) });
    const gold = { must: [{ key: 'tier', match: { value: 'gold' } }] };
    expect(Number((await unary(c.points, 'Count', { collection_name: NAME, filter_json: JSON.stringify(gold) }))['count'])).toBe(targets.length);
    await unary(c.points, 'SetPayload', { collection_name: NAME, payload_json: JSON.stringify({ deep: 1 }), key: 'meta', filter_json: JSON.stringify(gold) });
    const deep = { must: [{ key: 'meta.deep', match: { value: 1 } }] };
    expect(Number((await unary(c.points, 'Count', { collection_name: NAME, filter_json: JSON.stringify(deep) }))['count'])).toBe(targets.length);
    await unary(c.points, 'Delete', { collection_name: NAME, filter_json: JSON.stringify(gold) });
    expect(Number((await unary(c.points, 'Count', { collection_name: NAME }))['count'])).toBe(points.length - targets.length);
    expect(Number((await unary(c.points, 'Count', { collection_name: NAME, filter_json: JSON.stringify(berlin) }))['count'])).toBe(0);
  });

  it('Collections/Get lists the payload indexes with their points and bytes, and the payload bytes', async () => {
    for (const [field_name, field_schema] of [
      ['city', 'keyword'],
      ['desc', { type: 'text', tokenizer: 'whitespace' }],
    ] as const) {
      const r = await http(srv.url, 'PUT', `/collections/${NAME}/index?wait=true`, { field_name, field_schema });
      expect(r.status).toBe(200);
    }
    const live = Number((await unary(c.points, 'Count', { collection_name: NAME }))['count']);
    const info = (await unary(c.collections, 'Get', { collection_name: NAME }))['result'] as {
      payload_indexes: Array<{ key: string; data_type: string; points: number; bytes: number; params_json: string }>;
      payload_values_bytes: number;
    };
    expect(info.payload_indexes.map((p) => [p.key, p.data_type, Number(p.points)])).toEqual([
      ['city', 'keyword', live],
      ['desc', 'text', live],
    ]);
    expect(info.payload_indexes.every((p) => Number(p.bytes) > 0)).toBe(true);
    expect(JSON.parse(info.payload_indexes[1]!.params_json)).toMatchObject({ type: 'text', tokenizer: 'whitespace' });
    expect(info.payload_indexes[0]!.params_json).toBe('');
    expect(Number(info.payload_values_bytes)).toBeGreaterThan(0);
  });

  it('takes params.filter_plan: after a compaction the base runs the plan asked for', async () => {
    await unary(c.collections, 'Compact', { collection_name: NAME });
    const fc = FILTER_CASES.find((x) => x.name === 'match any')!;
    for (const plan of ['scan', 'graph', 'two_hop']) {
      const r = await unary(c.points, 'Search', {
        collection_name: NAME,
        vector: query,
        limit: 3,
        params: { filter_plan: plan },
        with_stats: true,
        filter_json: JSON.stringify(fc.filter),
      });
      const f = (r['strata'] as { filter: Record<string, unknown> }).filter;
      expect(f['plan']).toBe(plan);
      // What the plan did: the scan scores every matching base code, the walks none.
      expect(Number(f['scanned']), plan).toBe(plan === 'scan' ? Number(f['base']) : 0);
      expect(Number(f['linked_walks'])).toBe(0);
      // The same counters as REST's with_stats for the same search.
      const rest = await http(srv.url, 'POST', `/collections/${NAME}/points/search`, {
        vector: query,
        limit: 3,
        params: { filter_plan: plan },
        with_stats: true,
        filter: fc.filter,
      });
      const rf = (rest.body as { strata: { filter: Record<string, unknown> } }).strata.filter;
      for (const k of ['scanned', 'from_runs', 'scarce_scans', 'scan_fallbacks', 'linked_walks', 'filter_link_reads', 'filter_link_bytes', 'seeded_walks'])
        expect(Number(f[k]), `${plan} ${k}`).toBe(rf[k]);
      expect(f['fresh_plan']).toBe(rf['fresh_plan']);
    }
  });

  it('refuses filter_json that is not JSON, or a bad filter, with INVALID_ARGUMENT naming the field', async () => {
    const notJson = await grpcFailure(unary(c.points, 'Count', { collection_name: NAME, filter_json: '{must:' }));
    expect(notJson.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(notJson.details).toMatch(/^filter_json: /);
    const bad = JSON.stringify({ must: [{ key: 'price', range: { gte: 'x' } }] });
    for (const [method, req] of [
      ['Search', { collection_name: NAME, vector: query, limit: 1, filter_json: bad }],
      ['Count', { collection_name: NAME, filter_json: bad }],
      ['Scroll', { collection_name: NAME, filter_json: bad }],
      ['Delete', { collection_name: NAME, filter_json: bad }],
      ['SetPayload', { collection_name: NAME, payload_json: '{"a":1}', filter_json: bad }],
    ] as const) {
      const e = await grpcFailure(unary(c.points, method, req));
      expect(e.code, method).toBe(grpc.status.INVALID_ARGUMENT);
      expect(e.details, method).toMatch(/^filter\.must\[0\]\.range\.gte: /);
      expect(e.strataCode, method).toBe('STRATA_INVALID_ARGUMENT');
    }
    const batch = await grpcFailure(
      unary(c.points, 'SearchBatch', {
        collection_name: NAME,
        searches: [
          { vector: query, limit: 1 },
          { vector: query, limit: 1, filter_json: bad },
        ],
      }),
    );
    expect(batch.details).toMatch(/^searches\[1\]\.filter\.must\[0\]\.range\.gte: /);
  });
});
