// UUID points in the live store: their ids assigned in the order they first come, the same both ways
// after the log is replayed on reopen and after the saved state is restored; a UUID never seen
// before then takes the next id, past every one restored.
import { afterAll, describe, expect, it } from 'vitest';
import { collectionDir, writeConfig } from '../../storage/collection-dir.js';
import { decodeLiveState, encodeLiveState, LiveStore } from '../../storage/live-store.js';
import { UUID_ID_BASE } from '../../storage/point-ids.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-live-uuids-');
afterAll(() => tmp.cleanup());

const open = async (dir: string, state: Parameters<typeof LiveStore.open>[5] = null): Promise<LiveStore> =>
  (await LiveStore.open(dir, 2, 'l2', null, undefined, state, null)).store;
const uuid = (i: number): string => `5e1d0c3a-77aa-4b2c-9d3e-${i.toString(16).padStart(12, '0')}`;

/** Each UUID's id and each id's UUID, as the store answers. */
function pairs(store: LiveStore, n: number): Array<[number | null, string | null]> {
  return Array.from({ length: n }, (_, i) => {
    const id = store.idOfUuid(uuid(i), false);
    return [id, id === null ? null : store.uuidOf(id)];
  });
}

describe('UUID points in the live store', () => {
  it('keep their ids both ways through a replay of the log and a restore of the saved state', async () => {
    const dir = collectionDir(tmp.path('data'), 'u');
    const store = await open(dir);
    writeConfig(dir, { name: 'u', dim: 2, metric: 'l2', m: 8, efConstruction: 32 });
    const points = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) => {
        const i = from + k;
        return { id: store.idOfUuid(uuid(i), true)!, uuid: uuid(i), vector: Float32Array.of(i, 1), payload: { i } };
      });
    await store.upsert(points(0, 300));
    await store.upsert([...points(300, 500), { id: 7, vector: Float32Array.of(0, 0), payload: null }]);
    const want = Array.from({ length: 500 }, (_, i): [number, string] => [UUID_ID_BASE + i, uuid(i)]);
    expect(pairs(store, 500)).toEqual(want);
    expect(store.uuidOf(7)).toBeNull();
    const state = decodeLiveState(encodeLiveState(store.liveState()));
    await store.close();

    const replayed = await open(dir);
    expect(pairs(replayed, 500)).toEqual(want);
    await replayed.close();
    const restored = await open(collectionDir(tmp.path('data'), 'restored'), { cutLsn: 0n, state });
    expect(pairs(restored, 500)).toEqual(want);
    expect(restored.idOfUuid(uuid(999), true)).toBe(UUID_ID_BASE + 500);
    await restored.close();
  });
});
