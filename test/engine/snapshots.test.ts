// A snapshot is taken in one step and written on a worker thread: what it holds is the collection
// at the moment it was asked for, even when the base's files are removed and the log is cut (as a
// compaction finishing meanwhile does) before the worker reads them. Restored, it answers as the
// collection did then. A restore is unpacked off the event loop into a directory of its own, which a
// crash leaves to be removed at the next open. A damaged saved state is refused.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Collection } from '../../engine/collection.js';
import { Engine } from '../../engine/engine.js';
import { collectionDir, RESTORING_DIR } from '../../storage/collection-dir.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-snapshots-');
afterAll(() => tmp.cleanup());

const vec = (i: number): Float32Array => Float32Array.of(Math.cos(i), Math.sin(i), (i % 13) / 13, 1);

/** An engine over a data directory with collection `src` of `n` points ({i} payloads), compacted. */
async function compacted(dir: string, n: number): Promise<{ engine: Engine; c: Collection; dataDir: string }> {
  const dataDir = tmp.path(dir);
  const engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir, compactAt: 0 });
  const c = await engine.createCollection({ name: 'src', dim: 4, metric: 'l2', m: 8, efConstruction: 40 });
  await c.upsert(Array.from({ length: n }, (_, i) => ({ key: i, vector: vec(i), payload: { i } })));
  await engine.compact('src');
  return { engine, c, dataDir };
}

describe('snapshots', () => {
  it('hold the collection as it was when asked for, though its base files go and its log is cut before they are written', async () => {
    const { engine, c, dataDir } = await compacted('data', 300);
    try {
      await c.upsert(Array.from({ length: 20 }, (_, i) => ({ key: 1000 + i, vector: vec(1000 + i), payload: { late: true } })));
      await c.deletePoints([5, 6]);
      expect(c.base).not.toBeNull();

      const pending = engine.createSnapshot('src');
      // What a compaction finishing now would do: its predecessor's base removed, the log replaced.
      rmSync(c.base!.dir, { recursive: true, force: true });
      const log = join(collectionDir(dataDir, 'src'), 'wal.log');
      writeFileSync(`${log}.other`, 'not the log');
      renameSync(`${log}.other`, log);
      const snap = await pending;

      const bytes = readFileSync(join(dataDir, 'snapshots', basename(collectionDir(dataDir, 'src')), snap.name));
      const copy = await engine.recoverSnapshot('copy', bytes, 'test');
      expect(copy.count()).toBe(318);
      expect(copy.payload(1003)).toEqual({ late: true });
      expect(copy.payload(7)).toEqual({ i: 7 });
      expect(copy.getPoint(5)).toBeNull();
      expect(Array.from(copy.getPoint(299)!.vector)).toEqual(Array.from(vec(299)));
      const near = await copy.search({ vector: vec(1010), k: 1 });
      expect(near.hits[0]!.id).toBe(1010);
      expect(engine.listSnapshots('src').map((s) => [s.name, s.checksum])).toEqual([[snap.name, snap.checksum]]);
      // Unpacked on a worker into a directory of its own, moved into place: nothing is left beside.
      expect(readdirSync(join(dataDir, RESTORING_DIR))).toEqual([]);
      // The bytes moved to the restore's worker: the file is read again.
      const again = readFileSync(join(dataDir, 'snapshots', basename(collectionDir(dataDir, 'src')), snap.name));
      await expect(engine.recoverSnapshot('copy', again, 'test', '0'.repeat(64))).rejects.toMatchObject({ details: { field: 'checksum' } });
      expect(engine.collection('copy').count()).toBe(318);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('leave nothing of a restore a crash interrupted: the data directory removes it when it opens', async () => {
    const dataDir = tmp.path('interrupted');
    const leftover = join(dataDir, RESTORING_DIR, 'feedbeef');
    mkdirSync(leftover, { recursive: true });
    writeFileSync(join(leftover, 'wal.log'), 'half of a log');
    const engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir });
    try {
      expect(existsSync(join(dataDir, RESTORING_DIR))).toBe(false);
      expect(engine.collections()).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  it('refuse a base whose saved live state fails its checksum, naming the file', async () => {
    const { engine, c } = await compacted('damaged', 50);
    try {
      const state = join(c.base!.dir, 'live-state.msgpack');
      writeFileSync(state, Buffer.concat([readFileSync(state), Buffer.of(0)]));
      await expect(engine.createSnapshot('src')).rejects.toMatchObject({
        code: 'STRATA_INDEX_CORRUPT',
        message: expect.stringContaining('live-state.msgpack'),
      });
      expect(engine.listSnapshots('src')).toEqual([]);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
