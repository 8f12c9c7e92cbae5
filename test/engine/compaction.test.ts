// Compaction of live collections (Engine.compact): writes and searches go on while the new base
// builds, and afterwards the collection answers exactly as a brute-force model of every
// acknowledged write; the fresh layer keeps only points written since the cut and the tombstones
// only ids written since the cut; a restart recovers the compacted base and replays only the writes
// past the cut; a created collection's first base is searched on the search threads, after a
// restart too; a compaction abandoned at close leaves the previous state.
import { existsSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClustered, writeFvecs } from '../../datasets/index.js';
import type { Collection } from '../../engine/collection.js';
import { Engine, listDramShare, RETIER_WINDOW } from '../../engine/engine.js';
import { buildIndex } from '../../index/build/build-index.js';
import { collectionDir } from '../../storage/collection-dir.js';
import { recoverLog } from '../../storage/wal.js';
import { COMPACTED_FILE } from '../../storage/compacted.js';
import { isStrataError } from '../../common/errors.js';
import { clusteredHalves } from '../helpers/halves.js';
import { makeTempDir } from '../helpers/temp.js';

const DIM = 8;
const BASE = 600;
const tmp = makeTempDir('strata-compaction-');
const data = generateClustered({ count: BASE, dim: DIM, clusters: 6, seed: 23 }, 20);
let built = '';

beforeAll(async () => {
  const input = tmp.path('base.fvecs');
  await writeFvecs(input, data.base, DIM);
  built = tmp.path('index');
  await buildIndex({ input, out: built, metric: 'l2', m: 8, efConstruction: 40, dramBudget: '30%', placement: 'profile', profileSamples: 100 });
}, 60_000);
afterAll(() => tmp.cleanup());

const vec = (id: number): Float32Array => Float32Array.from({ length: DIM }, (_, i) => Math.fround(Math.sin(id * 1.7 + i) * 8));
/** Upserts the points `ids`, each with its vec(id) and no payload. */
const upsertIds = (c: Collection, ids: readonly number[]): Promise<unknown> => c.upsert(ids.map((id) => ({ key: id, vector: vec(id), payload: null })));
const l2 = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + (x - b[i]!) ** 2, 0);

/** The collection answers exact searches, gets and counts as the model does. */
async function agrees(c: Collection, model: Map<number, Float32Array>): Promise<void> {
  expect(c.count()).toBe(model.size);
  for (let q = 0; q < 20; q++) {
    const query = data.queries.subarray(q * DIM, (q + 1) * DIM);
    const want = [...model.entries()].map(([, v]) => l2(query, v)).sort((a, b) => a - b);
    const got = await c.search({ vector: query, k: 10, exact: true });
    got.hits.forEach((h, i) => {
      expect(model.has(h.id), `hit ${h.id} is not live`).toBe(true);
      expect(h.distance).toBeCloseTo(want[i]!, 2);
    });
    const approx = await c.search({ vector: query, k: 10, ef: 64 });
    for (const h of approx.hits) expect(model.has(h.id), `approximate hit ${h.id} is not live`).toBe(true);
  }
  for (const [id, v] of model) expect(Array.from(c.getPoint(id)!.vector)).toEqual(Array.from(v));
}

function baseModel(): Map<number, Float32Array> {
  const m = new Map<number, Float32Array>();
  for (let i = 0; i < BASE; i++) m.set(i, data.base.slice(i * DIM, (i + 1) * DIM));
  return m;
}

describe('compaction of a live collection', () => {
  it('takes writes and answers searches while it builds, then holds exactly what was acknowledged, with only the later writes fresh', async () => {
    const dataDir = tmp.path('data-during');
    const model = baseModel();
    const engine = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 1, memory: { mode: 'emulate' }, dataDir, compactAt: 0 });
    try {
      const c = engine.collection('b');
      const before = Array.from({ length: 200 }, (_, i) => 10_000 + i);
      await c.upsert(before.map((id) => ({ key: id, vector: vec(id), payload: { id } })));
      for (const id of before) model.set(id, vec(id));
      const gone = Array.from({ length: 50 }, (_, i) => i * 3);
      await c.deletePoints(gone);
      for (const id of gone) model.delete(id);
      expect([c.live!.fresh.size, c.live!.tombstones.size]).toEqual([200, 50]);

      const running = engine.compact('b');
      expect(engine.collection('b').health().reasons.join()).toMatch(/compacting/);
      // While it builds: new points, points replaced (fresh and base), deletes (fresh and base), searches.
      const during = Array.from({ length: 30 }, (_, i) => 20_000 + i);
      const replaced = [10_000, 10_001, 5, 7];
      const deleted = [10_002, 8, 11];
      const writes = [
        c.upsert([...during, ...replaced].map((id) => ({ key: id, vector: vec(id + 1), payload: null }))),
        c.deletePoints(deleted),
        ...Array.from({ length: 10 }, (_, q) => c.search({ vector: data.queries.subarray(q * DIM, (q + 1) * DIM), k: 10 })),
      ];
      await Promise.all(writes);
      for (const id of [...during, ...replaced]) model.set(id, vec(id + 1));
      for (const id of deleted) model.delete(id);
      expect(c.live!.cutOpen).toBe(true);

      const report = await running;
      expect(report).toMatchObject({ compacted: true, before: { fresh: 200, hidden: 50 } });
      // The base holds the state at the cut; fresh: the points written since (new and replaced);
      // hidden: the base ids written since (replaced or deleted, those in the new base).
      expect(c.live!.fresh.size).toBe(during.length + replaced.length);
      expect(c.live!.tombstones.size).toBe(replaced.length + deleted.length);
      expect(report.points).toBe(BASE - gone.length + before.length);
      expect(c.health().reasons.join()).not.toMatch(/compacting/);
      await agrees(c, model);

      // A second compaction folds the rest in, and cuts the log's head: its records are in the base.
      const logFile = join(collectionDir(dataDir, 'b'), 'wal.log');
      const logBefore = statSync(logFile).size;
      const cutBefore = c.live!.logCutBytes;
      await engine.compact('b');
      expect([c.live!.fresh.size, c.live!.tombstones.size]).toEqual([0, 0]);
      expect(c.live!.logCutBytes).toBeGreaterThan(cutBefore);
      expect(statSync(logFile).size).toBeLessThan(logBefore);
      expect(recoverLog(logFile).records).toEqual([]);
      await agrees(c, model);
      const after = [30_000, 30_001];
      await upsertIds(c, after);
      for (const id of after) model.set(id, vec(id));
    } finally {
      await engine.close();
    }

    // Restarted: the compacted base is loaded (not the directory given), and only later writes replayed.
    const again = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 1, memory: { mode: 'emulate' }, dataDir, compactAt: 0 });
    try {
      const c = again.collection('b');
      expect(c.base!.manifest.build.source).toBe('compaction of b');
      expect([c.live!.fresh.size, c.live!.tombstones.size]).toEqual([2, 0]);
      await agrees(c, model);
      expect(c.payload(10_005)).toEqual({ id: 10_005 });
      // The log holds the two later writes only, after the mark of the last cut.
      const log = recoverLog(join(collectionDir(dataDir, 'b'), 'wal.log'));
      expect(log.records).toHaveLength(1);
      expect(log.cutAt).toBeGreaterThan(0n);
      // One base directory: the superseded one was removed.
      expect(readdirSync(collectionDir(dataDir, 'b')).filter((f) => f.startsWith('base-')).length).toBe(1);
    } finally {
      await again.close();
    }
    // Without the compacted base that holds the dropped records, the cut log is refused, not replayed short.
    const record = join(collectionDir(dataDir, 'b'), COMPACTED_FILE);
    renameSync(record, `${record}.away`);
    try {
      const e: unknown = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir, compactAt: 0 }).then(
        async (x) => {
          await x.close();
          return null;
        },
        (x: unknown) => x,
      );
      expect(isStrataError(e, 'STRATA_INDEX_CORRUPT')).toBe(true);
      expect((e as Error).message).toMatch(/were dropped after a compaction, but the compacted base is missing/);
    } finally {
      renameSync(`${record}.away`, record);
    }
  }, 120_000);

  it('holds everything written before the call when a compaction was running already: it waits for that one, then compacts the rest', async () => {
    const dataDir = tmp.path('data-join');
    const model = baseModel();
    const engine = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir, compactAt: 0 });
    try {
      const c = engine.collection('b');
      const first = Array.from({ length: 100 }, (_, i) => 70_000 + i);
      await upsertIds(c, first);
      const running = engine.compact('b');
      // Written after the running compaction's cut: only a compaction of its own holds them.
      const later = Array.from({ length: 40 }, (_, i) => 80_000 + i);
      await upsertIds(c, later);
      for (const id of [...first, ...later]) model.set(id, vec(id));
      const asked = await engine.compact('b');
      expect((await running).before.fresh).toBe(first.length);
      expect(asked).toMatchObject({ compacted: true, before: { fresh: later.length } });
      expect(c.live!.fresh.size).toBe(0);
      expect(c.compactions).toBe(2);
      // Nothing written meanwhile, but a payload index may have been: the asked one compacts anyway,
      // and a third call joins it.
      const again = engine.compact('b');
      await c.createPayloadIndex('id', { type: 'integer' });
      await Promise.all([again, engine.compact('b'), engine.compact('b')]);
      expect(c.compactions).toBe(4);
      await agrees(c, model);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it("sets the collection's payload index DRAM aside from the new base's budget, as strata build does, its base's code giving way", async () => {
    const dataDir = tmp.path('data-payload-budget');
    const engine = await Engine.open([], { searchThreads: 0, dataDir, compactAt: 0 });
    try {
      const c = await engine.createCollection({ name: 'p', dim: DIM, metric: 'l2', m: 8, efConstruction: 40 });
      await c.upsert(Array.from({ length: 400 }, (_, id) => ({ key: id, vector: vec(id), payload: { city: `c${id % 9}`, n: id } })));
      await engine.compact('p');
      const code = c.base!.manifest.plan.code?.kind;
      expect(code).toBeDefined();
      await c.createPayloadIndex('city', { type: 'keyword' });
      await c.createPayloadIndex('n', { type: 'integer' });
      await upsertIds(c, [1_000]);
      const held = Object.values(c.payloadIndexBytes()).reduce((a, b) => a + b, 0);
      expect(held).toBeGreaterThan(0);
      // The base's code no longer fits beside them: the compaction picks another rather than fail.
      expect(await engine.compact('p')).toMatchObject({ compacted: true });
      const reason = c.base!.manifest.plan.reason;
      expect(reason).toContain(`${held} bytes of payload indexes set aside first`);
      expect(reason).toContain(`(${code}, the code asked for, no longer fits)`);
      // A code the collection asked for (quantization_config) is kept, over the budget.
      engine.updateCollection('p', { codes: 'sq8' });
      await upsertIds(c, [1_001]);
      expect(await engine.compact('p')).toMatchObject({ compacted: true });
      expect(c.base!.manifest.plan.code?.kind).toBe('sq8');
      expect(c.base!.manifest.plan.reason).toMatch(/^sq8: as asked, \d+ bytes over the budget/);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it("plans a created collection's base within the server's DRAM budget share, at every compaction", async () => {
    const plannedShare = (c: Collection): number => c.base!.manifest.plan.dramBudgetBytes / c.base!.manifest.plan.fullPrecisionBytes;
    const dataDir = tmp.path('data-budget-share');
    const engine = await Engine.open([], { searchThreads: 0, dataDir, compactAt: 0, collectionDramBudget: 0.6 });
    try {
      const c = await engine.createCollection({ name: 's', dim: DIM, metric: 'l2', m: 8, efConstruction: 40 });
      await upsertIds(
        c,
        Array.from({ length: 300 }, (_, i) => i),
      );
      await engine.compact('s');
      expect(plannedShare(c)).toBeCloseTo(0.6, 3);
    } finally {
      await engine.close();
    }
    // Restarted with another share: the next compaction takes it.
    const again = await Engine.open([], { searchThreads: 0, dataDir, compactAt: 0, collectionDramBudget: 0.3 });
    try {
      const c = again.collection('s');
      await upsertIds(c, [5_000]);
      await again.compact('s');
      expect(plannedShare(c)).toBeCloseTo(0.3, 3);
    } finally {
      await again.close();
    }
  }, 60_000);

  it('gives a collection created over the API its first base, searched on the search threads, after a restart too', async () => {
    const dataDir = tmp.path('data-created');
    const model = new Map<number, Float32Array>();
    const engine = await Engine.open([], { searchThreads: 1, dataDir, compactAt: 0 });
    try {
      const c = await engine.createCollection({ name: 'made', dim: DIM, metric: 'l2', m: 8, efConstruction: 40 });
      const ids = Array.from({ length: 400 }, (_, i) => i * 2);
      await upsertIds(c, ids);
      for (const id of ids) model.set(id, vec(id));
      expect(c.index).toBeNull();
      const r = await engine.compact('made');
      expect(r).toMatchObject({ compacted: true, points: 400, after: { fresh: 0, hidden: 0 } });
      expect(c.index).not.toBeNull();
      expect(engine.metrics().searchThreads).toBe(1);
      await agrees(c, model);
      // Still a created collection: it can be deleted and snapshotted, unlike a built one.
      expect(engine.listSnapshots('made')).toEqual([]);
    } finally {
      await engine.close();
    }
    const again = await Engine.open([], { searchThreads: 1, dataDir, compactAt: 0 });
    try {
      const c = again.collection('made');
      expect(c.index).not.toBeNull();
      await agrees(c, model);
      expect(await again.deleteCollection('made')).toBe(true);
    } finally {
      await again.close();
    }
  }, 120_000);

  it('compacts by itself once enough has changed (compactAt), and a compaction abandoned at close leaves the previous state', async () => {
    const dataDir = tmp.path('data-auto');
    const model = baseModel();
    const engine = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir, compactAt: 100 });
    try {
      const c = engine.collection('b');
      // 30% of a 600-point base is 180 changes: below it nothing happens, past it a compaction starts.
      const ids = Array.from({ length: 150 }, (_, i) => 40_000 + i);
      await upsertIds(c, ids);
      expect(c.compacting).toBeNull();
      const more = Array.from({ length: 40 }, (_, i) => 50_000 + i);
      await upsertIds(c, more);
      for (const id of [...ids, ...more]) model.set(id, vec(id));
      expect(c.compacting).not.toBeNull();
      await c.compacting;
      expect(c.compactions).toBe(1);
      await agrees(c, model);
      // Started and abandoned: the engine closes while the build runs (the late writes are far
      // below the threshold: only the call below starts it).
      const late = Array.from({ length: 20 }, (_, i) => 60_000 + i);
      await upsertIds(c, late);
      for (const id of late) model.set(id, vec(id));
      const abandoned = engine.compact('b').catch((e: Error) => e);
      await engine.close();
      expect(await abandoned).toBeInstanceOf(Error);
    } finally {
      await engine.close();
    }
    const again = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir, compactAt: 0 });
    try {
      const c = again.collection('b');
      await agrees(c, model);
      expect(c.live!.fresh.size).toBe(20);
      expect(readdirSync(collectionDir(dataDir, 'b')).filter((f) => f.startsWith('base-')).length).toBe(1);
      expect(existsSync(collectionDir(dataDir, 'b'))).toBe(true);
    } finally {
      await again.close();
    }
  }, 120_000);

  it('re-tiers by itself when the query load moves: the new placement serves more neighbour-list reads of the new load from DRAM', async () => {
    const { base, dim: d, load: rows } = clusteredHalves();
    const input = tmp.path('halves.fvecs');
    await writeFvecs(input, base, d);
    await buildIndex({ input, out: tmp.path('halves'), metric: 'l2', m: 8, efConstruction: 40, dramBudget: '12%', placement: 'profile', profileSamples: 300 });
    const engine = await Engine.open([{ dir: tmp.path('halves'), name: 'h' }], {
      searchThreads: 1,
      memory: { mode: 'emulate' },
      dataDir: tmp.path('data-retier'),
      compactAt: 0,
      // This test is about re-tiering by compaction: the in-place rounds (pool-rounds.test.ts) stay off.
      poolRoundMs: 0,
    });
    try {
      const c = engine.collection('h');
      const windowShare = async (q: Float32Array): Promise<number> => {
        const before = c.totals.slice();
        for (let k = 0; k < RETIER_WINDOW; k++) await c.search({ vector: q.subarray(k * d, (k + 1) * d), k: 10, ef: 32 });
        return listDramShare(c.totals.map((v, i) => v - before[i]!));
      };
      const A = rows(0, RETIER_WINDOW);
      const B = rows(1, RETIER_WINDOW);
      // Laid out for load A first (a compaction profiled with the recorded A queries).
      await windowShare(A);
      await engine.compact('h');
      engine.retierCheck();
      const shareA = await windowShare(A);
      engine.retierCheck(); // baseline
      expect(c.compacting).toBeNull();
      await windowShare(A);
      engine.retierCheck(); // the same load: no re-tiering
      expect(c.compacting).toBeNull();
      const staticB = await windowShare(B);
      engine.retierCheck();
      // B was served from DRAM less than A by more than the drop: re-tiering (a compaction) runs.
      expect(staticB).toBeLessThan(shareA - 0.05);
      expect(c.compacting).not.toBeNull();
      await c.compacting;
      const retieredB = await windowShare(B);
      expect(retieredB).toBeGreaterThan(staticB + 0.05);
      expect(c.compactions).toBe(2);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('snapshots a built collection (its base, the log, the cut) before and after a compaction; restored under another name, it answers as the original', async () => {
    const dataDir = tmp.path('data-snap');
    const model = baseModel();
    const engine = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 1, memory: { mode: 'emulate' }, dataDir, compactAt: 0 });
    try {
      const c = engine.collection('b');
      const ids = Array.from({ length: 120 }, (_, i) => 70_000 + i);
      await c.upsert(ids.map((id) => ({ key: id, vector: vec(id), payload: { id } })));
      await c.deletePoints([1, 2, 3, 70_000]);
      for (const id of ids) model.set(id, vec(id));
      for (const id of [1, 2, 3, 70_000]) model.delete(id);
      // Over the base it was built with (cut 0: the whole log replays on it).
      const first = await engine.createSnapshot('b');
      const restored = await engine.recoverSnapshot(
        'copy',
        readFileSync(join(dataDir, 'snapshots', basename(collectionDir(dataDir, 'b')), first.name)),
        'test',
      );
      expect(restored.index).not.toBeNull();
      await agrees(restored, model);
      expect(restored.payload(70_005)).toEqual({ id: 70_005 });
      // After a compaction and more writes: the compacted base, its cut and the later writes.
      await engine.compact('b');
      await c.upsert([{ key: 80_000, vector: vec(80_000), payload: null }]);
      model.set(80_000, vec(80_000));
      const second = await engine.createSnapshot('b');
      const again = await engine.recoverSnapshot('copy2', readFileSync(join(dataDir, 'snapshots', basename(collectionDir(dataDir, 'b')), second.name)), 'test');
      expect([again.live!.fresh.size, again.live!.tombstones.size]).toEqual([1, 0]);
      await agrees(again, model);
      expect(again.payload(70_005)).toEqual({ id: 70_005 });
      // The copies are collections of their own: deletable, unlike the built one.
      expect(await engine.deleteCollection('copy')).toBe(true);
    } finally {
      await engine.close();
    }
    // And they survive a restart (the restored base is loaded from the copy's directory).
    const reopened = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 1, memory: { mode: 'emulate' }, dataDir, compactAt: 0 });
    try {
      await agrees(reopened.collection('copy2'), model);
    } finally {
      await reopened.close();
    }
  }, 120_000);
});
