// Payloads through the live store's log and its saved state keep every member, `__proto__` too
// (an own member, as JSON.parse makes it): msgpackr would rename it, so payloads travel as JSON text.
import { afterAll, describe, expect, it } from 'vitest';
import { decodeLiveState, encodeLiveState, LiveStore } from '../../storage/live-store.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-live-payloads-');
afterAll(() => tmp.cleanup());

const odd = (): Record<string, unknown> => JSON.parse('{"__proto__": {"x": 1}, "constructor": "c", "a": [1, "two", null], "é": {"b": true}}');

describe('payloads in the live store', () => {
  it('keep __proto__ and every other member through the log, a replay and the saved state', async () => {
    const dir = tmp.path('c');
    const { store } = await LiveStore.open(dir, 2, 'l2', null);
    await store.upsert([{ id: 1, vector: Float32Array.of(0, 1), payload: odd() }]);
    await store.upsert([{ id: 2, vector: Float32Array.of(1, 0), payload: null }]);
    await store.setPayload([2], odd(), false);
    const want = odd();
    expect(Object.hasOwn(store.payload(1)!, '__proto__')).toBe(true);
    expect(store.payload(1)).toEqual(want);
    expect(store.payload(2)).toEqual(want);
    const state = decodeLiveState(encodeLiveState(store.liveState()));
    expect(new Map(state.payloads).get(1)).toEqual(want);
    expect(Object.hasOwn(new Map(state.payloads).get(2)!, '__proto__')).toBe(true);
    await store.close();
    const { store: again } = await LiveStore.open(dir, 2, 'l2', null);
    expect(again.payload(1)).toEqual(want);
    expect(Object.hasOwn(again.payload(2)!, '__proto__')).toBe(true);
    await again.close();
  });
});
