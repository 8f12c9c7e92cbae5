// Sparse vectors in the live store: every kind of write (upsert, vector update with and without the
// dense vector, sparse delete, point delete) applied, replayed from the log after a reopen, and
// restored from the saved state, each time equal to a plain model; `strata verify` passes the log
// and fails a record whose sparse lengths do not match its bytes.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pack, unpack } from 'msgpackr';
import { afterAll, describe, expect, it } from 'vitest';
import type { SparseVector } from '../../index/sparse/sparse-vector.js';
import { collectionDir, writeConfig } from '../../storage/collection-dir.js';
import { decodeLiveState, encodeLiveState, LiveStore, REC, WAL_FILE } from '../../storage/live-store.js';
import { verifyCollectionDir } from '../../storage/verify-live.js';
import { checkLog, WriteAheadLog } from '../../storage/wal.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-live-sparse-');
afterAll(() => tmp.cleanup());

const SPARSE = { text: { modifier: 'idf' as const }, tags: { modifier: 'none' as const } };
const sv = (pairs: Array<[number, number]>): SparseVector => ({
  indices: Uint32Array.from(pairs.map((p) => p[0])),
  values: Float32Array.from(pairs.map((p) => p[1])),
});
const plain = (v: SparseVector | null): Array<[number, number]> | null => (v === null ? null : Array.from(v.indices, (d, i) => [d, v.values[i]!]));

/** Each point's sparse vectors as the store holds them, by name. */
function holdings(store: LiveStore): Record<string, Record<number, Array<[number, number]> | null>> {
  const out: Record<string, Record<number, Array<[number, number]> | null>> = {};
  for (const [name, col] of store.sparse) out[name] = Object.fromEntries([1, 2, 3, 4].map((id) => [id, plain(col.get(id))]));
  return out;
}

async function open(dir: string): Promise<LiveStore> {
  return (await LiveStore.open(dir, 2, 'l2', null, undefined, null, null, undefined, { sparse: SPARSE })).store;
}

describe('sparse vectors in the live store', () => {
  it('apply every write, and come back the same from the log and from the saved state', async () => {
    const dir = collectionDir(tmp.path('data'), 's');
    const store = await open(dir);
    writeConfig(dir, { name: 's', dim: 2, metric: 'l2', m: 8, efConstruction: 32, sparse: SPARSE });
    await store.upsert([
      {
        id: 1,
        vector: Float32Array.of(0, 1),
        payload: null,
        sparse: {
          text: sv([
            [3, 1],
            [9, 2],
          ]),
          tags: sv([[1, 5]]),
        },
      },
      { id: 2, vector: Float32Array.of(1, 0), payload: null, sparse: { text: sv([[9, 4]]) } },
      { id: 3, vector: Float32Array.of(1, 1), payload: null },
      { id: 4, vector: Float32Array.of(2, 1), payload: null, sparse: { tags: sv([[2, 1]]) } },
    ]);
    // Sparse only (the dense vector kept), and dense with sparse.
    await store.updateVectors([
      { id: 3, sparse: { tags: sv([[7, 7]]) } },
      { id: 2, vector: Float32Array.of(5, 5), sparse: { text: sv([[1, 1]]) } },
    ]);
    await store.deleteVectors([1], ['tags']);
    await store.delete([4]);
    // An upsert replaces the point whole: its text vector goes.
    await store.upsert([{ id: 1, vector: Float32Array.of(0, 2), payload: null, sparse: { tags: sv([[8, 8]]) } }]);
    const want = {
      text: { 1: null, 2: [[1, 1]], 3: null, 4: null },
      tags: { 1: [[8, 8]], 2: null, 3: [[7, 7]], 4: null },
    };
    expect(holdings(store)).toEqual(want);
    expect(Array.from(store.fresh.vector(3)!)).toEqual([1, 1]);
    expect(Array.from(store.fresh.vector(2)!)).toEqual([5, 5]);
    const state = decodeLiveState(encodeLiveState(store.liveState()));
    await store.close();

    const replayed = await open(dir);
    expect(holdings(replayed)).toEqual(want);
    await replayed.close();
    const restoredDir = collectionDir(tmp.path('data'), 'restored');
    const restored = (await LiveStore.open(restoredDir, 2, 'l2', null, undefined, { cutLsn: 0n, state }, null, undefined, { sparse: SPARSE })).store;
    expect(holdings(restored)).toEqual(want);
    // The restored column searches as the original did (IDF over the same document frequencies).
    expect(restored.sparse.get('text')!.search(sv([[1, 1]]), 5)).toEqual([{ id: 2, score: expect.closeTo(Math.log(1 + 0.5 / 1.5), 6) }]);
    await restored.close();

    expect(verifyCollectionDir(dir)).toMatchObject({ ok: true, error: null, records: 5, points: 3 });
  });

  it('fails verification of a record whose sparse lengths do not match its bytes', async () => {
    const dir = collectionDir(tmp.path('data'), 'bad');
    const store = await open(dir);
    writeConfig(dir, { name: 'bad', dim: 2, metric: 'l2', m: 8, efConstruction: 32, sparse: SPARSE });
    await store.upsert([{ id: 1, vector: Float32Array.of(0, 1), payload: null, sparse: { text: sv([[3, 1]]) } }]);
    await store.close();
    // Rewrite the one record with a length that claims two entries (its checksum made good again by a fresh log).
    const [rec] = checkLog(join(dir, WAL_FILE)).records;
    const body = unpack(rec!.payload) as { sparse: Record<string, { lengths: number[] }> };
    body.sparse['text']!.lengths = [2];
    const other = collectionDir(tmp.path('data'), 'rewritten');
    mkdirSync(other, { recursive: true });
    const { wal } = await WriteAheadLog.open(join(other, WAL_FILE));
    await wal.append(REC.upsert, pack(body));
    await wal.close();
    writeConfig(other, { name: 'rewritten', dim: 2, metric: 'l2', m: 8, efConstruction: 32, sparse: SPARSE });
    expect(verifyCollectionDir(other)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/sparse vector text: 4 index bytes and 4 value bytes for 2 entries/),
    });
    // The original, untouched, still passes.
    expect(verifyCollectionDir(dir)).toMatchObject({ ok: true });
  });
});
