// Qdrant's hnsw_config.payload_m through the official JS client against a real server: a collection
// created with it compacts into a base with filter links (index/filter-links/), reports it, walks an
// anti-correlated filter on the links when asked (with_stats names the plan), keeps them across a
// restart, reports their memory as a part of the base's, and drops them when an update sets
// payload_m 0; a payload_m it cannot build is refused, naming it.
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClustered } from '../../datasets/index.js';
import { Engine } from '../../engine/engine.js';
import { makeTempDir } from '../helpers/temp.js';
import { http, type Running, startServer } from './fixture.js';

const DIM = 16;
const COUNT = 3000;
const set = generateClustered({ count: COUNT, dim: DIM, clusters: 10, seed: 21 }, 200);
const along = (v: Float32Array, r: number): number => {
  let s = 0;
  for (let j = 0; j < DIM; j++) s += v[r * DIM + j]! * (j % 3 === 0 ? 1 : -0.5);
  return s;
};
const sides = Float64Array.from({ length: COUNT }, (_, r) => along(set.base, r));
const median = Float64Array.from(sides).sort()[COUNT >> 1]!;
const below = { must: [{ key: 'side', range: { lt: median } }] };
// Queries far on the other side: the filter leaves out their neighbourhoods.
const far = Array.from({ length: 200 }, (_, q) => q)
  .filter((q) => along(set.queries, q) > median + 1)
  .slice(0, 20)
  .map((q) => Array.from(set.queries.subarray(q * DIM, (q + 1) * DIM)));

const tmp = makeTempDir('strata-filter-links-');
let engine: Engine | null = null;
let srv: Running | null = null;
let client: QdrantClient;

async function serve(): Promise<void> {
  await srv?.close();
  await engine?.close();
  engine = await Engine.open([], { searchThreads: 1, memory: { mode: 'emulate' }, dataDir: tmp.path('data'), compactAt: 1_000_000 });
  srv = await startServer(engine);
  client = new QdrantClient({ url: srv.url });
}

beforeAll(async () => {
  await serve();
  await client.createCollection('c', { vectors: { size: DIM, distance: 'Euclid' }, hnsw_config: { payload_m: 8 } });
  const points = Array.from({ length: COUNT }, (_, i) => ({
    id: i,
    vector: Array.from(set.base.subarray(i * DIM, (i + 1) * DIM)),
    payload: { side: sides[i]!, tag: i % 2 === 0 ? 'a' : 'b' },
  }));
  for (let from = 0; from < COUNT; from += 1000) await client.upsert('c', { wait: true, points: points.slice(from, from + 1000) });
  await client.createPayloadIndex('c', { field_name: 'side', field_schema: 'float', wait: true });
  await client.createPayloadIndex('c', { field_name: 'tag', field_schema: 'keyword', wait: true });
  expect((await http(srv!.url, 'POST', '/collections/c/compact')).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  tmp.cleanup();
});

/** Per far query: the plan with_stats names and recall@10 against the exact filtered answer. */
async function searchFar(plan?: string): Promise<{ plans: string[]; recall: number }> {
  const plans: string[] = [];
  let recall = 0;
  for (const vector of far) {
    const exact = (await client.search('c', { vector, limit: 10, filter: below, params: { exact: true } })).map((h) => h.id);
    const r = await http(srv!.url, 'POST', '/collections/c/points/search', {
      vector,
      limit: 10,
      filter: below,
      params: { hnsw_ef: 128, ...(plan ? { filter_plan: plan } : {}) },
      with_stats: true,
    });
    expect(r.status).toBe(200);
    const body = r.body as { result: Array<{ id: number }>; strata: { filter: { plan: string } } };
    plans.push(body.strata.filter.plan);
    recall += body.result.filter((h) => exact.includes(h.id)).length / 10;
  }
  return { plans, recall: recall / far.length };
}

describe('hnsw_config.payload_m', () => {
  it('is reported, and builds filter links the linked plan walks at the recall bound', async () => {
    expect((await client.getCollection('c')).config.hnsw_config.payload_m).toBe(8);
    const forced = await searchFar('linked');
    expect(forced.plans.every((p) => p === 'linked')).toBe(true);
    expect(forced.recall).toBeGreaterThan(0.9);
  });

  it('keeps the links across a restart', async () => {
    await serve();
    expect((await searchFar('linked')).plans.every((p) => p === 'linked')).toBe(true);
  });

  it('reports the links as a part of the memory, and its index parts add up to the tiers it reports', async () => {
    const memory = (await http(srv!.url, 'GET', '/collections/c/memory')).body as { result: { parts: Array<{ part: string; dram: number; cxl: number }> } };
    const info = (await http(srv!.url, 'GET', '/collections/c')).body as { result: { strata: { tiers: Array<{ bytes: number }> } } };
    const parts = memory.result.parts;
    const links = parts.find((p) => p.part === 'filter links');
    expect(links?.cxl).toBeGreaterThan(0);
    const index = parts.filter((p) => !/^(payload|fresh)/.test(p.part));
    const sum = (t: 'dram' | 'cxl') => index.reduce((a, p) => a + p[t], 0);
    expect([sum('dram'), sum('cxl')]).toEqual(info.result.strata.tiers.map((t) => t.bytes));
  });

  it('drops them at the next compaction once an update sets payload_m 0', async () => {
    expect(await client.updateCollection('c', { hnsw_config: { payload_m: 0 } })).toBe(true);
    expect((await client.getCollection('c')).config.hnsw_config.payload_m).toBe(0);
    await client.upsert('c', { wait: true, points: [{ id: COUNT, vector: Array.from({ length: DIM }, () => 0), payload: { side: 0 } }] });
    expect((await http(srv!.url, 'POST', '/collections/c/compact')).status).toBe(200);
    const after = await searchFar('linked');
    expect(after.plans.every((p) => p === 'graph')).toBe(true);
  });

  it('refuses a payload_m it cannot build, naming the field', async () => {
    for (const payload_m of [1, 65, -1, 2.5]) {
      const r = await http(srv!.url, 'PUT', '/collections/bad', { vectors: { size: 4, distance: 'Dot' }, hnsw_config: { payload_m } });
      expect(r.status, String(payload_m)).toBe(400);
      expect((r.body as { status: { error: string } }).status.error.startsWith('hnsw_config.payload_m: ')).toBe(true);
    }
  });
});
