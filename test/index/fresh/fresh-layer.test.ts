// The fresh layer: its HNSW search agrees with brute force over the live points after upserts,
// updates and deletes; a deleted point never comes back; and once deleted nodes outnumber live ones
// its graph is rebuilt in the background, without losing a point written meanwhile, the collection
// reporting itself yellow (optimizing) while it is.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { Engine } from '../../../engine/engine.js';
import { FreshLayer } from '../../../index/fresh/fresh-layer.js';
import { makeTempDir } from '../../helpers/temp.js';

const DIM = 12;
const rnd = mulberry32(9);
const vec = (): Float32Array => Float32Array.from({ length: DIM }, () => rnd() * 2 - 1);

/** Share of the exact k nearest that the graph search returns, over `queries` random queries. */
function recall(f: FreshLayer, queries: number, k = 10): number {
  let hit = 0;
  for (let i = 0; i < queries; i++) {
    const q = vec();
    const truth = new Set(f.exact(q, k).map((h) => h.id));
    for (const h of f.search(q, k, 64)) if (truth.has(h.id)) hit++;
  }
  return hit / (queries * k);
}

describe('fresh layer', () => {
  it('finds what brute force finds after upserts, in-place updates and deletes; deleted points never come back', () => {
    const f = new FreshLayer(DIM, 'l2');
    for (let id = 0; id < 2000; id++) f.upsert(id, vec());
    const far = Float32Array.from({ length: DIM }, () => 50);
    f.upsert(7, far);
    for (let id = 100; id < 300; id++) f.delete(id);
    expect(f.size).toBe(1800);
    expect(f.search(far, 1, 64)[0]).toMatchObject({ id: 7 });
    for (let i = 0; i < 50; i++) for (const h of f.search(vec(), 20, 64)) expect(h.id < 100 || h.id >= 300).toBe(true);
    expect(recall(f, 100)).toBeGreaterThan(0.95);
    // A deleted id upserted again is live again.
    f.upsert(150, far);
    expect(f.search(far, 2, 64).map((h) => h.id)).toEqual([7, 150]);
  });

  it('keeps ids past 2^32 apart (hnswlib labels are 32-bit: the layer numbers its own)', () => {
    const f = new FreshLayer(DIM, 'l2');
    const far = Float32Array.from({ length: DIM }, () => 40);
    const near = Float32Array.from({ length: DIM }, () => 0);
    f.upsert(2 ** 40 + 3, far);
    f.upsert(3, near);
    f.upsert(
      2 ** 52 + 1,
      near.map((x) => x + 1),
    );
    expect(f.search(far, 1, 16)).toEqual([{ id: 2 ** 40 + 3, distance: 0 }]);
    expect(f.search(near, 3, 16).map((h) => h.id)).toEqual([3, 2 ** 52 + 1, 2 ** 40 + 3]);
    f.delete(2 ** 40 + 3);
    expect(f.search(far, 3, 16).map((h) => h.id)).toEqual([2 ** 52 + 1, 3]);
  });

  it('rebuilds its graph once deleted nodes outnumber live ones, keeping every write made during the rebuild', async () => {
    const f = new FreshLayer(DIM, 'cosine');
    const norm = (v: Float32Array): Float32Array => {
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    for (let id = 0; id < 4000; id++) f.upsert(id, norm(vec()));
    for (let id = 0; id < 2800; id++) f.delete(id);
    expect(f.graphNodes).toBe(4000);
    // The rebuild copies a slice per event-loop turn (highest ids first): write between slices, so
    // that some writes hit points already copied and some points not yet copied.
    const gone = new Set<number>();
    let fresh = 10_000;
    for (let turn = 0; turn < 10; turn++) {
      await new Promise((r) => setImmediate(r));
      for (let j = 0; j < 20; j++) f.upsert(fresh++, norm(vec()));
      for (const id of [3999 - turn, 3000 + turn]) {
        f.delete(id);
        gone.add(id);
      }
      f.upsert(3500 + turn, norm(vec()));
    }
    await f.settled();
    expect(f.rebuilds).toBe(1);
    expect(f.size).toBe(1200 - gone.size + 200);
    // The new graph holds the live points and at most the few deleted after being copied.
    expect(f.graphNodes).toBeGreaterThanOrEqual(f.size);
    expect(f.graphNodes).toBeLessThanOrEqual(f.size + gone.size);
    expect(recall(f, 100)).toBeGreaterThan(0.95);
    for (let i = 0; i < 50; i++) for (const h of f.search(norm(vec()), 30, 64)) expect(h.id >= 2800 && !gone.has(h.id)).toBe(true);
    for (const id of gone) expect(f.has(id)).toBe(false);
  });
});

describe('a live collection while its fresh graph is rebuilt', () => {
  it('reports itself yellow (optimizing) until the rebuild takes over, then green', async () => {
    const tmp = makeTempDir('strata-optimizing-');
    const engine = await Engine.open([], { searchThreads: 0, dataDir: tmp.path('data') });
    try {
      const c = await engine.createCollection({ name: 'c', dim: DIM, metric: 'l2', m: 8, efConstruction: 32 });
      const ids = Array.from({ length: 3000 }, (_, i) => i);
      for (let i = 0; i < ids.length; i += 500) await c.upsert(ids.slice(i, i + 500).map((key) => ({ key, vector: vec(), payload: null })));
      expect(c.health().status).toBe('green');
      await c.deletePoints(ids.slice(0, 2000));
      expect(c.health()).toMatchObject({ status: 'yellow', reasons: [expect.stringMatching(/^optimizing: rebuilding the fresh graph/)] });
      await c.live!.fresh.settled();
      expect(c.health().status).toBe('green');
      expect(c.count()).toBe(1000);
    } finally {
      await engine.close();
      tmp.cleanup();
    }
  });
});
