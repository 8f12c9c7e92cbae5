// Creating a payload index over many existing points: built a chunk of rows per turn of the event
// loop before its record is logged, and exact once installed, whatever was written meanwhile.
import { afterAll, describe, expect, it } from 'vitest';
import { parseFilter } from '../../index/filter/parse.js';
import { LiveStore } from '../../storage/live-store.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-index-build-');
afterAll(() => tmp.cleanup());

const POINTS = 20_000;
const colour = (i: number): string => ['red', 'green', 'blue'][i % 3]!;

async function filled(name: string): Promise<LiveStore> {
  const { store } = await LiveStore.open(tmp.path(name), 2, 'l2', null);
  for (let from = 0; from < POINTS; from += 2000) {
    const batch = Array.from({ length: 2000 }, (_, j) => ({ id: from + j, vector: Float32Array.of(from + j, 1), payload: { colour: colour(from + j) } }));
    await store.upsert(batch);
  }
  return store;
}

const red = parseFilter({ must: [{ key: 'colour', match: { value: 'red' } }] }, 'filter');

describe('payload index creation over existing points', () => {
  it('lets the event loop turn while it builds the index', async () => {
    const store = await filled('turns');
    let turns = 0;
    let building = true;
    const tick = (): void => {
      if (!building) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    await store.payloadIndex('colour', { type: 'keyword' });
    building = false;
    // One turn at least per chunk of rows; a build in one step lets none between its start and end.
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(store.payloads.schema().colour?.points).toBe(POINTS);
    await store.close();
  });

  it('answers filters exactly once installed, with the writes made during the build', async () => {
    const store = await filled('writes');
    const building = store.payloadIndex('colour', { type: 'keyword' });
    // Writes while the build is running: over rows it has read, rows it has yet to read, rows freed
    // and rows that did not exist when it began.
    await Promise.all([
      store.setPayload([0, 19_999], { colour: 'green' }, false),
      store.setPayload([1, 19_998], { colour: 'red' }, false),
      store.delete([3, 19_995]),
      store.upsert([
        { id: POINTS, vector: Float32Array.of(0, 0), payload: { colour: 'red' } },
        { id: POINTS + 1, vector: Float32Array.of(0, 0), payload: { colour: 'blue' } },
      ]),
      store.deletePayload([6, 19_992], null),
    ]);
    await building;
    const want: number[] = [];
    for (let id = 0; id <= POINTS + 1; id++) if (store.payload(id)?.colour === 'red') want.push(id);
    const got = store.payloads.matchingIds(red).sort((a, b) => a - b);
    expect(got).toEqual(want);
    expect(store.payloads.match(red).residual).toBe(false);
    await store.close();
    // The same index again after a replay, built in one step from the log.
    const { store: again } = await LiveStore.open(tmp.path('writes'), 2, 'l2', null);
    expect(again.payloads.matchingIds(red).sort((a, b) => a - b)).toEqual(want);
    await again.close();
  });
});
