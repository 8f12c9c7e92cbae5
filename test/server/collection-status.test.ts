// Collection info reports real values, not canned ones: segments_count is the number of memory
// segments across the tiers, status is green / yellow / red from the tiers' bindings and the engine's
// state (with the reasons), on REST and gRPC alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { buildIndex } from '../../index/build/build-index.js';
import { readManifest } from '../../index/format/load-index.js';
import { collectionView } from '../../server/api/collection-view.js';
import { buildIndexes, grpcClients, http, startServer, unary, type Indexes } from './fixture.js';

let ix: Indexes;

beforeAll(async () => {
  ix = await buildIndexes();
});

afterAll(() => ix?.tmp.cleanup());

interface View {
  status: string;
  optimizer_status: unknown;
  segments_count: number;
  indexed_vectors_count: number;
  strata: { status_reasons: string[] };
}

describe('collection info', () => {
  it('reports the real segment count and green while every tier is where it was planned', async () => {
    // Two expanders split the CXL tier's vectors in two segments; the other stores add theirs.
    const engine = await Engine.open([{ dir: ix.l2, name: 'vectors' }], { searchThreads: 0, ndp: true, expanders: 2, memory: { mode: 'emulate' } });
    const srv = await startServer(engine);
    const c = grpcClients(srv.addr.grpc!);
    try {
      const index = engine.collection('vectors').index!;
      const segments = index.tiers.reduce((a, t) => a + t.segments.length, 0);
      expect(index.vectors.segments.filter((s) => s.tier === 1)).toHaveLength(2);
      expect(segments).toBeGreaterThan(3);
      const r = await http(srv.url, 'GET', '/collections/vectors');
      const view = (r.body as { result: View }).result;
      expect(view.segments_count).toBe(segments);
      expect(view.status).toBe('green');
      expect(view.strata.status_reasons).toEqual([]);
      expect(view.optimizer_status).toBe('ok');
      const g = (await unary(c.collections, 'Get', { collection_name: 'vectors' }))['result'] as Record<string, unknown>;
      expect(g).toMatchObject({ status: 'green', segments_count: segments, status_reasons: [] });
    } finally {
      c.close();
      await srv.close();
      await engine.close();
    }
  });

  it('counts as indexed only the points the graph search can reach', async () => {
    // A sparse graph (M 4, efConstruction 8) kept as hnswlib built it leaves some points unreachable.
    const sparse = ix.tmp.path('sparse');
    await buildIndex({
      input: ix.tmp.path('base.fvecs'),
      out: sparse,
      m: 4,
      efConstruction: 8,
      dramBudget: '20%',
      placement: 'hops',
      keepUnreachable: true,
      fillAlpha: 0,
    });
    const unreachable = readManifest(sparse).graph.unreachable;
    expect(unreachable).toBeGreaterThan(0);
    const engine = await Engine.open([{ dir: sparse, name: 'sparse' }], { searchThreads: 0, memory: { mode: 'emulate' } });
    const srv = await startServer(engine);
    try {
      const view = ((await http(srv.url, 'GET', '/collections/sparse')).body as { result: View & { points_count: number } }).result;
      expect(view.points_count).toBe(2000);
      expect(view.indexed_vectors_count).toBe(2000 - unreachable);
    } finally {
      await srv.close();
      await engine.close();
    }
  });

  it('counts every point as indexed when the build links in the ones hnswlib left unreachable', async () => {
    const linked = ix.tmp.path('sparse-linked');
    const summary = await buildIndex({ input: ix.tmp.path('base.fvecs'), out: linked, m: 4, efConstruction: 8, dramBudget: '20%', placement: 'hops' });
    expect(summary.connected.unreachableBefore).toBeGreaterThan(0);
    expect(summary.connected.linksAdded).toBeGreaterThan(0);
    expect(readManifest(linked).graph.unreachable).toBe(0);
    const engine = await Engine.open([{ dir: linked, name: 'linked' }], { searchThreads: 0, memory: { mode: 'emulate' } });
    const srv = await startServer(engine);
    try {
      const view = ((await http(srv.url, 'GET', '/collections/linked')).body as { result: View & { points_count: number } }).result;
      expect(view.indexed_vectors_count).toBe(2000);
    } finally {
      await srv.close();
      await engine.close();
    }
  });

  it('is yellow with the reason when a tier planned on a NUMA node fell back, and red once the engine closes', async () => {
    // Node 1 exists on few hosts: there the CXL tier falls back to emulation (with a warning), and
    // the collection serves degraded. Where it does bind, the answer is green.
    const engine = await Engine.open([{ dir: ix.l2, name: 'vectors' }], {
      searchThreads: 0,
      memory: { mode: 'numa', dramNode: 0, cxlNode: 1, allowEmulation: true, onWarning: () => {} },
    });
    const srv = await startServer(engine);
    const c = grpcClients(srv.addr.grpc!);
    try {
      const tiers = engine.collection('vectors').index!.tiers;
      const degraded = tiers.some((t) => t.binding.mode !== 'numa' || (t.binding.pagesElsewhere ?? 0) > 0);
      const view = ((await http(srv.url, 'GET', '/collections/vectors')).body as { result: View }).result;
      const g = (await unary(c.collections, 'Get', { collection_name: 'vectors' }))['result'] as Record<string, unknown>;
      if (degraded) {
        expect(view.status).toBe('yellow');
        expect(view.strata.status_reasons.length).toBeGreaterThan(0);
        expect(view.strata.status_reasons[0]).toMatch(/tier: planned on node \d, running (emulated|unbound)|pages are not on node/);
        expect(g['status']).toBe('yellow');
        expect(g['status_reasons']).toEqual(view.strata.status_reasons);
      } else {
        expect(view.status).toBe('green');
      }
    } finally {
      c.close();
      await srv.close();
      await engine.close();
    }
    const closed = collectionView(engine.collection('vectors').info());
    expect(closed.status).toBe('red');
    expect(closed.strata.status_reasons).toEqual(['shutting down: new searches are refused']);
  });
});
