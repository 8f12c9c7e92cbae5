// Qdrant's collection update (PATCH /collections/{c}) through the official JS client against a real
// server: the HNSW build and the automatic compaction threshold change, are reported, survive a
// restart and take effect (no compaction at threshold 0; a low threshold compacts, building with
// the new m and ef_construct); every other setting is refused, naming it; a collection served from
// an index directory keeps what strata build gave it.
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { Engine } from '../../engine/engine.js';
import type { QdrantCollectionView } from '../../server/api/collection-view.js';
import { buildModelBase } from '../helpers/seeded-vectors.js';
import { makeTempDir } from '../helpers/temp.js';
import { http, type Running, startServer } from './fixture.js';

const DIM = 8;
const tmp = makeTempDir('strata-collection-update-');
let engine: Engine | null = null;
let srv: Running | null = null;

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  tmp.cleanup();
});

/** A server over the data directory, with a low engine-wide compaction threshold. */
async function serve(): Promise<QdrantClient> {
  await srv?.close();
  await engine?.close();
  engine = await Engine.open([], { searchThreads: 1, memory: { mode: 'emulate' }, dataDir: tmp.path('data'), compactAt: 200 });
  srv = await startServer(engine);
  return new QdrantClient({ url: srv.url });
}

const rnd = mulberry32(5);
const batch = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, vector: Array.from({ length: DIM }, () => rnd() * 2 - 1), payload: { i: from + i } }));

async function strataOf(name: string): Promise<QdrantCollectionView> {
  return (await http(srv!.url, 'GET', `/collections/${name}`)).body as QdrantCollectionView;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('collection update', () => {
  it('changes the next build and the compaction threshold, reports them, and keeps them across a restart', async () => {
    let client = await serve();
    await client.createCollection('c', { vectors: { size: DIM, distance: 'Euclid' }, hnsw_config: { m: 16, ef_construct: 100 } });
    expect(await client.updateCollection('c', { hnsw_config: { m: 8, ef_construct: 40 }, optimizers_config: { indexing_threshold: 0 } })).toBe(true);
    let info = await client.getCollection('c');
    expect(info.config.hnsw_config).toMatchObject({ m: 8, ef_construct: 40 });
    expect(info.config.optimizer_config.indexing_threshold).toBe(0);
    // Threshold 0: past the engine's 200 points, no compaction starts by itself.
    for (let from = 0; from < 600; from += 200) await client.upsert('c', { wait: true, points: batch(from, 200) });
    await new Promise((r) => setTimeout(r, 1000));
    let view = (await strataOf('c')) as unknown as { result: QdrantCollectionView };
    // Neither compacting (yellow) nor compacted (a base, its segments): every point still fresh.
    expect(view.result.status).toBe('green');
    expect(view.result.segments_count).toBe(0);
    expect(view.result.strata.live?.fresh_points).toBe(600);
    client = await serve();
    info = await client.getCollection('c');
    expect(info.config.hnsw_config).toMatchObject({ m: 8, ef_construct: 40 });
    expect(info.config.optimizer_config.indexing_threshold).toBe(0);
    // One kilobyte of 8-d float32 vectors is 32 points: the next write compacts, with the new build.
    expect(await client.updateCollection('c', { optimizers_config: { indexing_threshold: 1 } })).toBe(true);
    await client.upsert('c', { wait: true, points: batch(600, 10) });
    await until(async () => {
      view = (await strataOf('c')) as unknown as { result: QdrantCollectionView };
      return view.result.strata.build.m === 8 && view.result.strata.live?.fresh_points === 0;
    }, 'a compaction with m 8');
    expect(view.result.strata.build).toMatchObject({ m: 8, ef_construct: 40 });
    expect((await client.count('c', {})).count).toBe(610);
    // Updated again, the next compaction builds with the new settings, not the base's.
    expect(await client.updateCollection('c', { hnsw_config: { m: 12, ef_construct: 60 } })).toBe(true);
    await client.upsert('c', { wait: true, points: batch(610, 200) });
    await until(async () => {
      view = (await strataOf('c')) as unknown as { result: QdrantCollectionView };
      return view.result.strata.build.m === 12 && view.result.strata.live?.fresh_points === 0;
    }, 'a compaction with m 12');
    expect(view.result.strata.build).toMatchObject({ m: 12, ef_construct: 60 });
    expect((await client.getCollection('c')).config.hnsw_config).toMatchObject({ m: 12, ef_construct: 60 });
  });

  it('refuses every other setting, naming it, and changes nothing', async () => {
    const client = await serve();
    await client.createCollection('r', { vectors: { size: DIM, distance: 'Cosine' } });
    const refused = async (body: Record<string, unknown>): Promise<string> => {
      const r = await http(srv!.url, 'PATCH', '/collections/r', body);
      expect(r.status, r.text).toBe(400);
      return (r.body as { status: { error: string } }).status.error;
    };
    expect(await refused({ params: { replication_factor: 2 } })).toMatch(/^params/);
    expect(await refused({ optimizers_config: { deleted_threshold: 0.2 } })).toMatch(/optimizers_config\.deleted_threshold/);
    expect(await refused({ hnsw_config: { payload_m: 1 } })).toMatch(/hnsw_config\.payload_m/);
    expect(await refused({ hnsw_config: { full_scan_threshold: 4 } })).toMatch(/hnsw_config\.full_scan_threshold/);
    expect(await refused({ hnsw_config: { m: 1 } })).toMatch(/hnsw_config\.m/);
    expect(await refused({ quantization_config: { scalar: { type: 'int8', quantile: 0.99 } } })).toMatch(/^quantization_config\.scalar\.quantile: /);
    expect(await refused({ quantization_config: { product: { compression: 'x16' } } })).toMatch(/^quantization_config\.product: /);
    expect(await refused({ quantization_config: { binary: {} } })).toMatch(/^quantization_config\.binary: /);
    expect(await refused({ quantization_config: { scalar: { type: 'int8', always_ram: false } } })).toMatch(/^quantization_config\.scalar\.always_ram: /);
    expect(await refused({ optimizers_config: { indexing_threshold: -1 } })).toMatch(/optimizers_config\.indexing_threshold/);
    const info = await client.getCollection('r');
    expect(info.config.hnsw_config).toMatchObject({ m: 16, ef_construct: 100 });
    const missing = await http(srv!.url, 'PATCH', '/collections/nope', { hnsw_config: { m: 8 } });
    expect(missing.status).toBe(404);
  });

  it("maps quantization_config's scalar int8 onto the sq8 code in DRAM, and Disabled onto full precision", async () => {
    const client = await serve();
    await client.createCollection('q', { vectors: { size: DIM, distance: 'Euclid' }, quantization_config: { scalar: { type: 'int8', always_ram: true } } });
    expect((await client.getCollection('q')).config.quantization_config).toEqual({ scalar: { type: 'int8', always_ram: true } });
    const points = batch(0, 400);
    await client.upsert('q', { wait: true, points });
    await client.updateCollection('q', { optimizers_config: { indexing_threshold: 0 } });
    await http(srv!.url, 'POST', '/collections/q/compact', {});
    const view = ((await strataOf('q')) as unknown as { result: QdrantCollectionView }).result;
    expect(view.strata.code?.kind).toBe('sq8');
    // The quantized search finds each point's own vector first.
    expect((await client.search('q', { vector: points[17]!.vector, limit: 1 }))[0]!.id).toBe(17);
    // Disabled: the next compaction keeps full vectors, and the view says no quantization.
    await client.updateCollection('q', { quantization_config: 'Disabled' });
    expect((await client.getCollection('q')).config.quantization_config ?? null).toBeNull();
    await client.upsert('q', { wait: true, points: batch(400, 10) });
    await http(srv!.url, 'POST', '/collections/q/compact', {});
    expect(((await strataOf('q')) as unknown as { result: QdrantCollectionView }).result.strata.code).toBeNull();
    // Kept across a restart, as the config holds it.
    await client.updateCollection('q', { quantization_config: { scalar: { type: 'int8' } } });
    const again = await serve();
    expect((await again.getCollection('q')).config.quantization_config).toEqual({ scalar: { type: 'int8', always_ram: true } });
  });

  it('keeps the build strata build gave a collection served from an index directory', async () => {
    const base = new Float32Array(500 * DIM).map(() => rnd());
    const dir = await buildModelBase({ path: (n: string) => tmp.path(`idx-${n}`) }, base, DIM);
    const e = await Engine.open([{ dir, name: 'built' }], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path('data-built') });
    const s = await startServer(e);
    const readOnly = await Engine.open([{ dir, name: 'built' }], { searchThreads: 0, memory: { mode: 'emulate' } });
    const ro = await startServer(readOnly);
    try {
      const r = await http(s.url, 'PATCH', '/collections/built', { hnsw_config: { m: 8 } });
      expect(r.status).toBe(405);
      expect(r.text).toMatch(/strata build/);
      // It compacts its writes at the engine's threshold (in Qdrant's kilobytes); served read-only, never.
      const threshold = async (url: string): Promise<number> =>
        ((await http(url, 'GET', '/collections/built')).body as { result: QdrantCollectionView }).result.config.optimizer_config.indexing_threshold;
      expect(await threshold(s.url)).toBeGreaterThan(0);
      expect(await threshold(ro.url)).toBe(0);
    } finally {
      await ro.close();
      await readOnly.close();
      await s.close();
      await e.close();
    }
  });
});
