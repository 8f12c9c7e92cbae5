// Compactions of a collection with a secondary dense vector: each builds the vector a tiered base of
// its own beside the collection's (codes in DRAM, full vectors in the CXL tier); rewriting only the
// secondary vectors starts one by itself (compactAt); searches by the vector run on the search
// thread and answer as a brute-force model before and after, and after a restart, which loads the
// vector's base from its directory.
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Collection } from '../../engine/collection.js';
import { Engine } from '../../engine/engine.js';
import { collectionDir } from '../../storage/collection-dir.js';
import { namedBaseDir } from '../../storage/compacted.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-compaction-secondary-');
afterAll(() => tmp.cleanup());

const DIM = 4;
const IMAGE = 12;
const POINTS = 400;
const vec = (id: number, dim: number, turn = 0): Float32Array =>
  Float32Array.from({ length: dim }, (_, i) => Math.fround(Math.sin(id * 1.3 + i * 0.7 + turn) * 5));
const l2 = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + (x - b[i]!) ** 2, 0);

/** A collection whose points carry a secondary vector, `image`, beside their own. */
function withImage(engine: Engine, name: string): Promise<Collection> {
  return engine.createCollection({ name, dim: DIM, metric: 'l2', m: 8, efConstruction: 40, secondary: { image: { dim: IMAGE, metric: 'l2' } } });
}

/** Every image search (exact, and by the graph at full recall on this small set) against the model. */
async function agrees(c: Collection, model: Map<number, Float32Array>): Promise<void> {
  for (let t = 0; t < 8; t++) {
    const q = vec(10_000 + t, IMAGE);
    const want = [...model]
      .map(([id, v]) => ({ id, d: l2(q, v) }))
      .sort((a, b) => a.d - b.d || a.id - b.id)
      .slice(0, 10)
      .map((h) => h.id);
    expect((await c.searchSecondary('image', q, 10, { exact: true })).hits.map((h) => h.id)).toEqual(want);
    expect((await c.searchSecondary('image', q, 10, { ef: 200 })).hits.map((h) => h.id)).toEqual(want);
  }
}

describe('a compaction of a collection with a secondary vector', () => {
  it('builds the vector a tiered base of its own, compacts by itself when only that vector changes, and loads the base after a restart', async () => {
    const dataDir = tmp.path('data');
    const model = new Map<number, Float32Array>();
    const engine = await Engine.open([], { searchThreads: 1, dataDir, compactAt: 100, memory: { mode: 'emulate' } });
    try {
      const c = await withImage(engine, 'made');
      const ids = Array.from({ length: POINTS }, (_, i) => i * 3);
      await c.upsert(ids.map((id) => ({ key: id, vector: vec(id, DIM), payload: null, secondary: { image: vec(id, IMAGE) } })));
      for (const id of ids) model.set(id, vec(id, IMAGE));
      // The upserts started a compaction by themselves (400 changes past compactAt 100).
      await c.compacting;
      const col = c.live!.secondary.get('image')!;
      expect(col.tiered).not.toBeNull();
      expect(col.changed).toBe(0);
      const memory = c.memory().parts.find((p) => p.part === 'vector image')!;
      expect(memory.cxl).toBeGreaterThan(memory.dram);
      // Searched on the search thread, in tasks of the vector's own.
      const before = c.namedQueueStats['image']?.completed ?? 0;
      await agrees(c, model);
      expect(c.namedQueueStats['image']!.completed).toBe(before + 16);

      // Only the secondary vectors rewritten: past 30% of the base, another compaction starts.
      const first = c.compactions;
      const rewritten = ids.slice(0, 130);
      await c.updateVectors(rewritten.map((id) => ({ key: id, secondary: { image: vec(id, IMAGE, 1) } })));
      for (const id of rewritten) model.set(id, vec(id, IMAGE, 1));
      expect(c.compacting).not.toBeNull();
      await c.compacting;
      expect(c.compactions).toBe(first + 1);
      expect(col.changed).toBe(0);
      await agrees(c, model);
      // One base and its vector's beside it: the superseded ones are gone.
      const dir = collectionDir(dataDir, 'made');
      const bases = readdirSync(dir).filter((f) => f.startsWith('base-'));
      expect(bases).toHaveLength(2);
      const own = bases.find((b) => !b.includes('.vector-'))!;
      expect(existsSync(namedBaseDir(`${dir}/${own}`, 'image'))).toBe(true);
      // A later write, in the log only.
      await c.updateVectors([{ key: 0, secondary: { image: vec(0, IMAGE, 2) } }]);
      model.set(0, vec(0, IMAGE, 2));
    } finally {
      await engine.close();
    }
    const again = await Engine.open([], { searchThreads: 1, dataDir, compactAt: 0, memory: { mode: 'emulate' } });
    try {
      const c = again.collection('made');
      expect(c.live!.secondary.get('image')!.tiered).not.toBeNull();
      expect(c.live!.secondary.get('image')!.changed).toBe(2);
      await agrees(c, model);
      expect(c.namedQueueStats['image']!.completed).toBe(16);
    } finally {
      await again.close();
    }
  }, 120_000);

  it('forgets the vector on the search threads once a compaction leaves it no base', async () => {
    const engine = await Engine.open([], { searchThreads: 1, dataDir: tmp.path('dropped'), compactAt: 0, memory: { mode: 'emulate' } });
    try {
      const c = await withImage(engine, 'dropped');
      const ids = Array.from({ length: 200 }, (_, i) => i);
      await c.upsert(ids.map((id) => ({ key: id, vector: vec(id, DIM), payload: null, secondary: { image: vec(id, IMAGE) } })));
      await engine.compact('dropped');
      expect(c.live!.secondary.get('image')!.tiered).not.toBeNull();
      await c.searchSecondary('image', vec(1, IMAGE), 5, {});
      expect(Object.keys(c.namedQueueStats)).toEqual(['image']);

      await c.deleteVectors(ids, ['image']);
      await engine.compact('dropped');
      expect(c.live!.secondary.get('image')!.tiered).toBeNull();
      expect(c.namedQueueStats).toEqual({});
      expect(await c.searchSecondary('image', vec(1, IMAGE), 5, {})).toMatchObject({ hits: [] });
    } finally {
      await engine.close();
    }
  }, 120_000);
});
