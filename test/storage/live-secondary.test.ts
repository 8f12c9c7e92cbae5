// Secondary dense vectors in the live store: every kind of write (upsert, vector update with and
// without the primary vector, vector delete, point delete) applied, replayed from the log after a
// reopen, and restored from a state saved before compactions built tiered bases of them (which
// carried their vectors), each time equal to a plain model (a graph of many points too); a state
// saved now carries none; `strata verify` passes the log and fails a record whose bytes are not a
// whole number of vectors. (Their tiered bases: test/index/named/, and test/server/secondary-vectors.)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pack, unpack } from 'msgpackr';
import { afterAll, describe, expect, it } from 'vitest';
import { collectionDir, writeConfig } from '../../storage/collection-dir.js';
import type { DenseState } from '../../storage/dense-records.js';
import { decodeLiveState, encodeLiveState, LiveStore, type LiveState, REC, WAL_FILE } from '../../storage/live-store.js';
import { verifyCollectionDir } from '../../storage/verify-live.js';
import { checkLog, WriteAheadLog } from '../../storage/wal.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-live-secondary-');
afterAll(() => tmp.cleanup());

const SECONDARY = { image: { dim: 3, metric: 'l2' as const }, title: { dim: 2, metric: 'cosine' as const } };
const CONFIG = { dim: 2, metric: 'l2' as const, m: 8, efConstruction: 32, secondary: SECONDARY };

/** Each point's secondary vectors as the store holds them, by name. */
function holdings(store: LiveStore): Record<string, Record<number, number[] | null>> {
  const out: Record<string, Record<number, number[] | null>> = {};
  for (const [name, col] of store.secondary)
    out[name] = Object.fromEntries([1, 2, 3, 4].map((id) => [id, col.get(id) === null ? null : Array.from(col.get(id)!, (x) => Number(x.toFixed(4)))]));
  return out;
}

/** The state a compaction saved before secondary vectors had bases of their own: their vectors in it. */
function savedBefore(store: LiveStore): LiveState {
  const state = store.liveState();
  expect(state.secondary).toBeUndefined();
  const secondary: DenseState = {};
  for (const [name, col] of store.secondary) {
    const e = col.entries();
    secondary[name] = { ids: e.ids, vectors: new Uint8Array(e.vectors.buffer, e.vectors.byteOffset, e.vectors.byteLength) };
  }
  return decodeLiveState(encodeLiveState({ ...state, secondary }));
}

async function open(dir: string, state: { cutLsn: bigint; state: ReturnType<LiveStore['liveState']> } | null = null): Promise<LiveStore> {
  return (await LiveStore.open(dir, 2, 'l2', null, undefined, state, null, undefined, { secondary: SECONDARY })).store;
}

describe('secondary dense vectors in the live store', () => {
  it('apply every write, and come back the same from the log and from the saved state', async () => {
    const dir = collectionDir(tmp.path('data'), 's');
    const store = await open(dir);
    writeConfig(dir, { name: 's', ...CONFIG });
    await store.upsert([
      { id: 1, vector: Float32Array.of(0, 1), payload: null, secondary: { image: Float32Array.of(1, 2, 3), title: Float32Array.of(3, 4) } },
      { id: 2, vector: Float32Array.of(1, 0), payload: null, secondary: { image: Float32Array.of(4, 5, 6) } },
      { id: 3, vector: Float32Array.of(1, 1), payload: null },
      { id: 4, vector: Float32Array.of(2, 1), payload: null, secondary: { title: Float32Array.of(0, 2) } },
    ]);
    // Secondary only (the primary kept), and primary with secondary.
    await store.updateVectors([
      { id: 3, secondary: { image: Float32Array.of(7, 7, 7) } },
      { id: 2, vector: Float32Array.of(5, 5), secondary: { title: Float32Array.of(1, 0) } },
    ]);
    await store.deleteVectors([1], ['title']);
    await store.delete([4]);
    // An upsert replaces the point whole: its image goes.
    await store.upsert([{ id: 1, vector: Float32Array.of(0, 2), payload: null, secondary: { title: Float32Array.of(0, 5) } }]);
    // Cosine vectors are kept unit-normalised.
    const want = {
      image: { 1: null, 2: [4, 5, 6], 3: [7, 7, 7], 4: null },
      title: { 1: [0, 1], 2: [1, 0], 3: null, 4: null },
    };
    expect(holdings(store)).toEqual(want);
    expect(Array.from(store.fresh.vector(2)!)).toEqual([5, 5]);
    const state = savedBefore(store);
    await store.close();

    const replayed = await open(dir);
    expect(holdings(replayed)).toEqual(want);
    await replayed.close();
    const restored = await open(collectionDir(tmp.path('data'), 'restored'), { cutLsn: 0n, state });
    expect(holdings(restored)).toEqual(want);
    // The restored column searches as the original did.
    expect((await restored.secondary.get('image')!.search(Float32Array.of(7, 7, 6), 1, { ef: 16 })).hits).toEqual([{ id: 3, distance: 1 }]);
    await restored.close();

    expect(verifyCollectionDir(dir)).toMatchObject({ ok: true, error: null, records: 5, points: 3 });
  });

  it('restores a graph of many points answering as the original', async () => {
    const dir = collectionDir(tmp.path('data'), 'many');
    const store = await open(dir);
    const points = Array.from({ length: 3000 }, (_, id) => ({
      id,
      vector: Float32Array.of(id, 1),
      payload: null,
      secondary: { image: Float32Array.of(id % 17, id % 31, id / 100) },
    }));
    await store.upsert(points);
    const state = savedBefore(store);
    const q = Float32Array.of(3, 5, 12);
    const want = (await store.secondary.get('image')!.search(q, 5, { ef: 64, exact: true })).hits;
    await store.close();
    const restored = await open(collectionDir(tmp.path('data'), 'many-restored'), { cutLsn: 0n, state });
    expect(restored.secondary.get('image')!.size).toBe(3000);
    expect((await restored.secondary.get('image')!.search(q, 5, { ef: 64, exact: true })).hits).toEqual(want);
    await restored.close();
  });

  it('fails verification of a record whose bytes are not a whole number of vectors', async () => {
    const dir = collectionDir(tmp.path('data'), 'bad');
    const store = await open(dir);
    writeConfig(dir, { name: 'bad', ...CONFIG });
    await store.upsert([{ id: 1, vector: Float32Array.of(0, 1), payload: null, secondary: { image: Float32Array.of(1, 2, 3) } }]);
    await store.close();
    const [rec] = checkLog(join(dir, WAL_FILE)).records;
    const body = unpack(rec!.payload) as { secondary: Record<string, { at: number[] }> };
    // Two positions for one vector's bytes.
    body.secondary['image']!.at = [0, 0];
    const other = collectionDir(tmp.path('data'), 'rewritten');
    mkdirSync(other, { recursive: true });
    const { wal } = await WriteAheadLog.open(join(other, WAL_FILE));
    await wal.append(REC.upsert, pack(body));
    await wal.close();
    writeConfig(other, { name: 'rewritten', ...CONFIG });
    expect(verifyCollectionDir(other)).toMatchObject({ ok: false, error: expect.stringMatching(/vector image: 12 bytes for 2 vectors/) });
    expect(verifyCollectionDir(dir)).toMatchObject({ ok: true });
  });
});
