// Each point's values, kept in a head column (one value of a kind with a head type) or a pool run
// (several values, or values of several slots), read back exactly as set after any sequence of sets
// and deletes, through every reader: get, forEach, numberPairs and scanNumbers. A field of single
// values costs its head column and a byte of state a point, no pool.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BOOL_CODEC,
  COUNT_CODEC,
  GEO_CODEC,
  NUMBER_CODEC,
  PointValues,
  StringCodec,
  TokensCodec,
  type ValueCodec,
} from '../../../index/payload-index/point-values.js';

type Op<T> = { set: number; values: T[] } | { del: number };

/** Applies `ops` to a PointValues and to a Map model; checks get, forEach and size against the model. */
function check<T>(codec: ValueCodec<T>, ops: Array<Op<T>>): { pv: PointValues<T>; model: Map<number, T[]> } {
  const pv = new PointValues<T>(codec);
  const model = new Map<number, T[]>();
  for (const op of ops) {
    if ('del' in op) {
      expect(pv.delete(op.del)).toBe(model.delete(op.del));
    } else {
      pv.set(op.set, op.values);
      if (op.values.length > 0) model.set(op.set, op.values);
      else model.delete(op.set);
    }
  }
  expect(pv.size).toBe(model.size);
  const ids = [...model.keys()].sort((a, b) => a - b);
  for (const id of ids) expect(pv.get(id)).toEqual(model.get(id));
  const seen: Array<[number, readonly T[]]> = [];
  pv.forEach((values, id) => seen.push([id, values]));
  expect(seen).toEqual(ids.map((id) => [id, model.get(id)]));
  return { pv, model };
}

const id = fc.integer({ min: 0, max: 3000 });
const opsOf = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<Array<Op<T>>> =>
  fc.array(
    fc.oneof(
      { weight: 3, arbitrary: fc.record({ set: id, values: fc.oneof(fc.array(value, { minLength: 1, maxLength: 1 }), fc.array(value, { maxLength: 4 })) }) },
      { weight: 1, arbitrary: fc.record({ del: id }) },
    ),
    { maxLength: 400 },
  );

describe('PointValues', () => {
  it('reads back numbers exactly as set, and pairs and scans them in id order', () => {
    fc.assert(
      fc.property(opsOf(fc.double({ noNaN: true })), (ops) => {
        const { pv, model } = check(NUMBER_CODEC, ops);
        const ids = [...model.keys()].sort((a, b) => a - b);
        const pairs = pv.numberPairs();
        expect(Array.from(pairs.keys)).toEqual(ids.flatMap((i) => model.get(i)!));
        expect(Array.from(pairs.ids)).toEqual(ids.flatMap((i) => model.get(i)!.map(() => i)));
        expect(pairs.idEnd).toBe(ids.length === 0 ? 0 : ids[ids.length - 1]! + 1);
        const { held, passing } = pv.scanNumbers((v) => v > 0);
        expect(Array.from(held)).toEqual(ids);
        expect(Array.from(passing)).toEqual(ids.filter((i) => model.get(i)!.some((v) => v > 0)));
      }),
      { numRuns: 60 },
    );
  });

  it('keeps value counts, bools, strings, locations and token lists exactly', () => {
    fc.assert(
      fc.property(opsOf(fc.nat({ max: 5000 })), (ops) => void check(COUNT_CODEC, ops)),
      { numRuns: 30 },
    );
    fc.assert(
      fc.property(opsOf(fc.boolean()), (ops) => void check(BOOL_CODEC, ops)),
      { numRuns: 30 },
    );
    fc.assert(
      fc.property(opsOf(fc.string({ maxLength: 3 })), (ops) => void check(new StringCodec(), ops)),
      { numRuns: 30 },
    );
    const lonLat = fc.record({ lon: fc.double({ min: -180, max: 180, noNaN: true }), lat: fc.double({ min: -90, max: 90, noNaN: true }) });
    fc.assert(
      fc.property(opsOf(lonLat), (ops) => void check(GEO_CODEC, ops)),
      { numRuns: 30 },
    );
    fc.assert(
      fc.property(opsOf(fc.array(fc.string({ maxLength: 2 }), { maxLength: 3 })), (ops) => void check(new TokensCodec(), ops)),
      { numRuns: 30 },
    );
  });

  it('keeps every run after many rewrites compact the pool', () => {
    // A point rewritten over and over leaves dead runs behind until the pool is copied down.
    const ops: Array<Op<number>> = [];
    for (let round = 0; round < 50; round++) for (let i = 0; i < 200; i++) ops.push({ set: i, values: [round, i, round + i] });
    const { pv } = check(NUMBER_CODEC, ops);
    // 200 live runs of four slots: the pool holds them with at most its doubling's room, not 50 rounds of them.
    expect(pv.bytes()).toBeLessThan(2 * 200 * 4 * 8 + 4096 * 13);
  });

  it('costs a byte of state and the head column per point for a field of single values', () => {
    const n = 100_000;
    const bools = new PointValues(BOOL_CODEC);
    const codes = new PointValues(new StringCodec());
    const numbers = new PointValues(NUMBER_CODEC);
    for (let i = 0; i < n; i++) {
      bools.set(i, [i % 3 === 0]);
      codes.set(i, [`v${i % 50}`]);
      numbers.set(i, [i / 7]);
    }
    // Columns grow by doubling: at most twice the points' room.
    expect(bools.bytes()).toBeLessThanOrEqual(2 * n * 2);
    expect(codes.bytes()).toBeLessThanOrEqual(2 * n * 5);
    expect(numbers.bytes()).toBeLessThanOrEqual(2 * n * 9);
    expect(bools.bytes()).toBeGreaterThanOrEqual(n * 2);
  });

  it('keeps a token list in four-byte slots: its length and each code, after a start and a state byte', () => {
    const n = 10_000;
    const tokens = new PointValues(new TokensCodec());
    for (let i = 0; i < n; i++) tokens.set(i, [Array.from({ length: 50 }, (_, j) => `t${(i + j) % 300}`)]);
    // A run: its header, the length, 50 codes; grown by half at most.
    const perPoint = 1 + 4 + 4 * (1 + 1 + 50);
    expect(tokens.bytes()).toBeLessThanOrEqual(1.5 * n * perPoint + 4096 * 4);
    expect(tokens.get(n - 1)).toEqual([Array.from({ length: 50 }, (_, j) => `t${(n - 1 + j) % 300}`)]);
  });
});
