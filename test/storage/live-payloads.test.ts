// Payloads through the live store's log and its saved state keep every member, `__proto__` too
// (an own member, as JSON.parse makes it): msgpackr would rename it, so payloads travel as JSON text.
// A store opens from a saved state and its log over turns of the event loop.
import { afterAll, describe, expect, it } from 'vitest';
import { CAPTURE_ROWS, PointPayloads } from '../../storage/point-payloads.js';
import { pack, unpack } from 'msgpackr';
import { decodeLiveState, emptyLiveState, encodeLiveState, encodeStateParts, LiveStore, PAYLOAD_STEP_POINTS, payloadPart } from '../../storage/live-store.js';
import { parseFilter } from '../../index/filter/parse.js';
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

describe('a saved live state', () => {
  const { payloads: _none, ...rest } = emptyLiveState();
  const pairs = (from: number, n: number): Array<[number, Record<string, unknown>]> => Array.from({ length: n }, (_, i) => [from + i, { n: from + i }]);

  it('keeps payloads written in parts, and parses a part only when iteration reaches it', () => {
    const bytes = encodeStateParts(rest, [payloadPart(pairs(0, 3)), payloadPart(pairs(3, 2)), payloadPart(pairs(5, 4))]);
    expect([...decodeLiveState(bytes).payloads]).toEqual(pairs(0, 9));
    // The second part damaged: decoding and reading the first part still work; reaching it throws.
    const damaged = encodeStateParts(rest, [payloadPart(pairs(0, 3)), Buffer.from('[1,{"n":}]'), payloadPart(pairs(5, 1))]);
    const it = decodeLiveState(damaged).payloads[Symbol.iterator]();
    for (let i = 0; i < 3; i++) expect(it.next().value).toEqual([i, { n: i }]);
    expect(() => it.next()).toThrow(SyntaxError);
    expect([...decodeLiveState(encodeStateParts(rest, [])).payloads]).toEqual([]);
  });

  it('saves a state in parts of CAPTURE_ROWS pairs, so that no part is parsed at length', () => {
    const n = 2 * CAPTURE_ROWS + 3;
    const bytes = encodeLiveState({ ...rest, payloads: pairs(0, n) });
    const parts = (unpack(bytes) as { payloadsParts: Uint8Array[] }).payloadsParts;
    expect(parts.map((b) => (JSON.parse(`[${Buffer.from(b).toString('utf8')}]`) as unknown[]).length)).toEqual([CAPTURE_ROWS, CAPTURE_ROWS, 3]);
    expect([...decodeLiveState(bytes).payloads]).toEqual(pairs(0, n));
  });

  it('reads a state saved whole as one JSON text, and refuses one with neither', () => {
    const whole = pairs(1, 2);
    expect([...decodeLiveState(pack({ ...rest, payloadsJson: JSON.stringify(whole) })).payloads]).toEqual(whole);
    expect([...decodeLiveState(encodeLiveState({ ...rest, payloads: whole })).payloads]).toEqual(whole);
    for (const payloadsParts of [undefined, 'text', [Buffer.from('[1,{}]'), 7]])
      expect(() => decodeLiveState(pack({ ...rest, payloadsParts }))).toThrow(expect.objectContaining({ code: 'STRATA_INDEX_CORRUPT' }));
  });
});

describe('opening a live store', () => {
  it('restores a saved state and replays its log a step at a time, other work running between the steps', async () => {
    const dir = tmp.path('steps');
    const { store } = await LiveStore.open(dir, 2, 'l2', null);
    for (let i = 0; i < 3; i++) await store.upsert([{ id: i, vector: Float32Array.of(i, 1), payload: { n: i } }]);
    await store.close();
    const points = 2 * PAYLOAD_STEP_POINTS + 5;
    const state = {
      ...emptyLiveState(),
      payloads: Array.from({ length: points }, (_, i): [number, Record<string, unknown>] => [100 + i, { n: i % 7 }]),
    };
    // A base of as many points, placed a step at a time too.
    const count = points;
    const base = {
      count,
      has: (id: number) => id >= 1_000_000 && id < 1_000_000 + count,
      node: (id: number) => (id >= 1_000_000 && id < 1_000_000 + count ? id - 1_000_000 : undefined),
      forEach: (fn: (id: number, node: number) => void, from = 0, to = count) => {
        for (let node = from; node < Math.min(to, count); node++) fn(1_000_000 + node, node);
      },
    };
    // Counted as they run: payloads restored and log records applied; each turn notes how far they were.
    const payloadsProto = PointPayloads.prototype;
    const upsertOf = payloadsProto.upsert;
    const storeProto = LiveStore.prototype as unknown as { apply: (...a: unknown[]) => void };
    const applyOf = storeProto.apply;
    let upserts = 0;
    let applied = 0;
    payloadsProto.upsert = function (this: PointPayloads, ...a: Parameters<typeof upsertOf>) {
      upserts++;
      upsertOf.apply(this, a);
    };
    storeProto.apply = function (this: unknown, ...a: unknown[]) {
      applyOf.apply(this, a);
      applied++;
    };
    const seen: Array<[number, number]> = [];
    let ticking = true;
    const tick = (): void => {
      seen.push([upserts, applied]);
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    try {
      const { store: again } = await LiveStore.open(dir, 2, 'l2', base, undefined, { cutLsn: 0n, state });
      ticking = false;
      expect(again.payloads.points).toBe(2 * count + 3);
      expect(again.payload(100 + points - 1)).toEqual({ n: (points - 1) % 7 });
      expect(again.payload(2)).toEqual({ n: 2 });
      await again.close();
    } finally {
      payloadsProto.upsert = upsertOf;
      storeProto.apply = applyOf;
    }
    expect(applied).toBe(3);
    // A turn came while the base was half placed (each point placed is an upsert of no payload),
    // while the payloads were half restored, and between two records of the log.
    expect(seen.some(([u]) => u > 0 && u < count)).toBe(true);
    expect(seen.some(([u]) => u > count && u < count + points)).toBe(true);
    expect(seen.some(([, r]) => r > 0 && r < 3)).toBe(true);
  });

  it('sorts its range indexes before it opens, so that the first range query sorts nothing', async () => {
    const dir = tmp.path('ranges');
    const n = 3000;
    const { store } = await LiveStore.open(dir, 2, 'l2', null);
    // Logged after the saved state: more changed points than a query merges, so they would be sorted afresh.
    await store.upsert(Array.from({ length: n / 4 }, (_, i) => ({ id: i, vector: Float32Array.of(i, 1), payload: { n: n - i } })));
    await store.close();
    const state = {
      ...emptyLiveState(),
      indexes: [{ field: 'n', params: { type: 'integer' as const } }],
      payloads: Array.from({ length: n }, (_, i): [number, Record<string, unknown>] => [i, { n: (i * 37) % 101 }]),
    };
    const { store: again } = await LiveStore.open(dir, 2, 'l2', null, undefined, { cutLsn: 0n, state });
    // Up to date: bringing the pairs up to date takes no step.
    expect(again.payloads.orderSteps().next().done).toBe(true);
    expect(again.payloads.matchingIds(parseFilter({ must: [{ key: 'n', range: { gte: n - 2 } }] }))).toEqual([0, 1, 2]);
    await again.close();
  });

  it('builds an index with its pairs sorted, over turns, before it answers', async () => {
    const p = new PointPayloads(
      (x) => (typeof x === 'number' ? x : null),
      (id) => id,
    );
    for (let i = 0; i < 3000; i++) p.upsert(i, { n: (i * 37) % 101 });
    const spec = { field: 'n', params: { type: 'integer' as const } };
    await p.prepareIndex(spec);
    p.createIndex(spec);
    expect(p.orderSteps().next().done).toBe(true);
  });
});
