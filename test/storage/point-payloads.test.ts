// Payload writes re-index only the indexed fields under the top-level keys they touch (a merge's
// keys, a `key` write's first key, the paths deleted): after any sequence of writes, every index
// must answer as the payloads it holds say, checked against each filter evaluated point by point.
// A capture (what a compaction saves) reads the payloads as they stood at its start, writes or not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../../index/filter/evaluate.js';
import { parseFilter } from '../../index/filter/parse.js';
import { type Payload, payloadPart } from '../../storage/live-store.js';
import { PointPayloads, type RowMatch } from '../../storage/point-payloads.js';

const IDS = 12;
const small = fc.integer({ min: 0, max: 3 });
const payload: fc.Arbitrary<Payload> = fc.record(
  {
    a: fc.constantFrom('x', 'y', 'z'),
    b: fc.oneof(fc.record({ c: small, d: small }, { requiredKeys: [] }), fc.constant('flat')),
    n: small,
    m: small,
  },
  { requiredKeys: [] },
);

type Op =
  | { kind: 'upsert'; id: number; payload: Payload }
  | { kind: 'write'; ids: number[]; payload: Payload; overwrite: boolean; key?: string }
  | { kind: 'deleteKeys'; ids: number[]; keys: string[] }
  | { kind: 'clear'; id: number }
  | { kind: 'remove'; id: number };

const id = fc.integer({ min: 0, max: IDS - 1 });
const ids = fc.array(id, { minLength: 1, maxLength: 5 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('upsert' as const), id, payload }),
  fc.record({ kind: fc.constant('write' as const), ids, payload, overwrite: fc.boolean() }),
  fc.record({
    kind: fc.constant('write' as const),
    ids,
    payload: fc.record({ c: small, d: small }, { requiredKeys: [] }),
    overwrite: fc.boolean(),
    key: fc.constantFrom('b', 'm'),
  }),
  fc.record({ kind: fc.constant('deleteKeys' as const), ids, keys: fc.subarray(['a', 'b', 'b.c', 'b.d', 'n', 'm'], { minLength: 1 }) }),
  fc.record({ kind: fc.constant('clear' as const), id }),
  fc.record({ kind: fc.constant('remove' as const), id }),
);

/** Filters each answered by one index: a keyword, a nested integer, and a top-level integer. */
const FILTERS = [
  ...['x', 'y', 'z'].map((v) => ({ must: [{ key: 'a', match: { value: v } }] })),
  ...[0, 1, 2, 3].map((v) => ({ must: [{ key: 'b.c', match: { value: v } }] })),
  { must: [{ key: 'n', range: { gte: 2 } }] },
  { must: [{ is_empty: { key: 'b.c' } }] },
  { must_not: [{ is_empty: { key: 'a' } }] },
];

function apply(p: PointPayloads, o: Op): void {
  if (o.kind === 'upsert') p.upsert(o.id, o.payload);
  else if (o.kind === 'write') p.write(o.ids, o.payload, o.overwrite, o.key);
  else if (o.kind === 'deleteKeys') p.deleteKeys(o.ids, o.keys);
  else if (o.kind === 'clear') p.clear(o.id);
  else p.remove(o.id);
}

const byId = (pairs: Array<[number, Payload]>): Array<[number, Payload]> => [...pairs].sort((x, y) => x[0] - y[0]);

/** Writes before some work in steps, writes during it (each maybe followed by a step), and rows per step. */
const stepsAmidWrites = [fc.array(op, { maxLength: 30 }), fc.array(fc.tuple(op, fc.boolean()), { maxLength: 30 }), fc.integer({ min: 1, max: 4 })] as const;

describe('a capture of the payloads (a compaction cut)', () => {
  it('reads every payload as it stood when it began, whatever writes land between its steps', () => {
    fc.assert(
      fc.property(...stepsAmidWrites, (before, during, rowsPerStep) => {
        const p = new PointPayloads(
          (pid) => (typeof pid === 'number' ? pid : null),
          (n) => n,
        );
        p.createIndex({ field: 'n', params: { type: 'integer' } });
        for (const o of before) apply(p, o);
        const want = byId(p.entries());
        p.beginCapture();
        const steps = p.captureSteps(payloadPart, rowsPerStep);
        let r = steps.next();
        for (const [o, step] of during) {
          apply(p, o);
          if (step && r.done !== true) r = steps.next();
        }
        while (r.done !== true) r = steps.next();
        expect(byId(pairsOf(r.value))).toEqual(want);
        // Ended: the next capture may begin, and reads the payloads now.
        p.beginCapture();
        expect(byId(pairsOf(stepsOf(p.captureSteps(payloadPart, rowsPerStep))))).toEqual(byId(p.entries()));
      }),
      { numRuns: 300 },
    );
  });
});

/** The pairs of a capture's parts (each the pairs of a JSON array without its brackets, UTF-8). */
const pairsOf = (parts: Uint8Array[]): Array<[number, Payload]> =>
  JSON.parse(`[${parts.map((b) => Buffer.from(b).toString('utf8')).join(',')}]`) as Array<[number, Payload]>;

/** How many times `g` yields before it ends. */
function stepsCounted(g: Generator<void, unknown, void>): number {
  let n = 0;
  while (g.next().done !== true) n++;
  return n;
}

function stepsOf<T>(g: Generator<void, T, void>): T {
  for (;;) {
    const r = g.next();
    if (r.done === true) return r.value;
  }
}

describe('payload writes and the indexes', () => {
  it('re-index the fields a write touches, so that every index answers as the payloads say', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const p = new PointPayloads(
          (pid) => (typeof pid === 'number' ? pid : null),
          (n) => n,
        );
        p.createIndex({ field: 'a', params: { type: 'keyword' } });
        p.createIndex({ field: 'b.c', params: { type: 'integer' } });
        p.createIndex({ field: 'n', params: { type: 'integer' } });
        for (const o of ops) apply(p, o);
        for (const json of FILTERS) {
          const test = compile(parseFilter(json));
          const want: number[] = [];
          for (let i = 0; i < IDS; i++) {
            const held = p.get(i);
            if (held !== null && test({ id: i, payload: held })) want.push(i);
          }
          expect(
            p.matchingIds(parseFilter(json)).sort((a, b) => a - b),
            JSON.stringify(json),
          ).toEqual(want);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('rows placed ahead of a base swap', () => {
  it('place every row as a lookup at the swap would, whatever writes land between the steps', () => {
    // A base holding most ids at scattered nodes; ids ≡ 0 (mod 5) are not in it.
    const nodeOf = (n: number): number | undefined => (n % 5 === 0 ? undefined : (n * 7 + 3) % 50);
    fc.assert(
      fc.property(...stepsAmidWrites, (before, during, rowsPerStep) => {
        const make = (): PointPayloads =>
          new PointPayloads(
            (pid) => (typeof pid === 'number' ? pid : null),
            (n) => n,
          );
        const [p, q] = [make(), make()];
        for (const o of before) for (const s of [p, q]) apply(s, o);
        // What a compaction's cut notes: every point upserted or deleted after it.
        const moved = new Set<number>();
        const steps = p.placeSteps(nodeOf, rowsPerStep);
        let r = steps.next();
        for (const [o, step] of during) {
          for (const s of [p, q]) apply(s, o);
          if (o.kind === 'upsert' || o.kind === 'remove') moved.add(o.id);
          if (step && r.done !== true) r = steps.next();
        }
        while (r.done !== true) r = steps.next();
        p.placeAhead(r.value, moved);
        q.placeAll((n) => (moved.has(n) ? -1 : (nodeOf(n) ?? -1)));
        expect(p.rowCount).toBe(q.rowCount);
        expect([...p.nodeOfRow.subarray(0, p.rowCount)]).toEqual([...q.nodeOfRow.subarray(0, q.rowCount)]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a residual filter checked over steps', () => {
  /** Filters with a part no index answers (`m`, `b.d`), alone or beside an indexed one. */
  const RESIDUAL = [
    { must: [{ key: 'm', range: { gte: 2 } }] },
    {
      must: [
        { key: 'a', match: { value: 'x' } },
        { key: 'b.d', match: { value: 1 } },
      ],
    },
    {
      should: [
        { key: 'n', match: { value: 3 } },
        { key: 'm', match: { value: 0 } },
      ],
      must_not: [{ key: 'a', match: { value: 'z' } }],
    },
  ];
  const indexed = (p: PointPayloads): void => {
    p.createIndex({ field: 'a', params: { type: 'keyword' } });
    p.createIndex({ field: 'n', params: { type: 'integer' } });
  };

  it('answers as the payloads say at its end, whatever writes and index changes land between its steps', () => {
    fc.assert(
      fc.property(
        ...stepsAmidWrites,
        fc.constantFrom(...RESIDUAL),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
        fc.boolean(),
        (before, during, rowsPerStep, json, indexAt, drop) => {
          const p = new PointPayloads(
            (pid) => (typeof pid === 'number' ? pid : null),
            (n) => n,
          );
          indexed(p);
          for (const o of before) apply(p, o);
          const filter = parseFilter(json);
          const test = compile(filter);
          // What the payloads say now, as ids: the answer must be this as of the step it ends in.
          const now = (): number[] => {
            const ids: number[] = [];
            for (let i = 0; i < IDS; i++) {
              const held = p.get(i);
              if (held !== null && test({ id: i, payload: held })) ids.push(i);
            }
            return ids;
          };
          // At the step the check ends in: the points it answers, and those the payloads say.
          let ended: { got: number[]; want: number[] } | null = null;
          const end = (m: RowMatch): void => {
            ended = { got: Array.from(m.rows.toArray(), (row) => p.idOfRow(row)).sort((x, y) => x - y), want: now() };
          };
          const steps = p.matchSteps(filter, rowsPerStep);
          let r = steps.next();
          if (r.done === true) end(r.value);
          for (const [i, [o, step]] of during.entries()) {
            apply(p, o);
            // An index made or dropped meanwhile moves part of the filter between the residual and the indexes.
            if (i === indexAt) {
              if (drop) p.dropIndex('a');
              else p.createIndex({ field: 'm', params: { type: 'integer' } });
            }
            if (step && r.done !== true) {
              r = steps.next();
              if (r.done === true) end(r.value);
            }
          }
          while (r.done !== true) r = steps.next();
          if (ended === null) end(r.value);
          const { got, want } = ended!;
          expect(got, JSON.stringify(json)).toEqual(want);
          // Kept for the synchronous read right after it; recomputed once anything changes.
          const settled = stepsOf(p.matchSteps(filter, rowsPerStep));
          if (!settled.residual) return;
          expect(p.match(filter)).toBe(settled);
          p.upsert(0, { m: 5 });
          expect(p.match(filter)).not.toBe(settled);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('checks the filter whole again when an index it used is dropped between its steps', () => {
    const p = new PointPayloads(
      (pid) => (typeof pid === 'number' ? pid : null),
      (n) => n,
    );
    indexed(p);
    for (let i = 0; i < 10; i++) p.upsert(i, { a: 'x', b: { d: i === 3 ? 1 : 0 } });
    const filter = parseFilter(RESIDUAL[1]);
    const steps = p.matchSteps(filter, 1);
    steps.next();
    // The residual was b.d alone: a point written now with another a must not pass on b.d.
    p.dropIndex('a');
    p.upsert(20, { a: 'y', b: { d: 1 } });
    let r = steps.next();
    while (r.done !== true) r = steps.next();
    expect(Array.from(r.value.rows.toArray(), (row) => p.idOfRow(row))).toEqual([3]);
  });
});

describe('a filter over a range index that many writes left unsorted', () => {
  it('has the pairs it reads sorted over steps before the query, those of no other field', () => {
    const p = new PointPayloads(
      (pid) => (typeof pid === 'number' ? pid : null),
      (n) => n,
    );
    p.createIndex({ field: 'price', params: { type: 'float' } });
    p.createIndex({ field: 'rank', params: { type: 'integer' } });
    p.createIndex({ field: 'label', params: { type: 'keyword' } });
    // Past the radix sort's threshold, each write a new point: the pairs are to sort afresh.
    for (let i = 0; i < 6000; i++) p.upsert(i, { price: (i * 7919) % 1000, rank: i % 50, label: i % 3 === 0 ? 'a' : 'b' });
    const json = {
      must: [
        { key: 'label', match: { value: 'a' } },
        { key: 'price', range: { lt: 100 } },
      ],
    };
    const filter = parseFilter(json);
    const steps = p.matchSteps(filter);
    let yields = 0;
    let r = steps.next();
    for (; r.done !== true; r = steps.next()) yields++;
    // collect, the digits, the radix passes that move pairs, the install: no residual to check.
    expect(yields).toBeGreaterThan(2);
    const want = Array.from({ length: 6000 }, (_, i) => i).filter((i) => i % 3 === 0 && (i * 7919) % 1000 < 100);
    expect(Array.from(r.value.rows.toArray(), (row) => p.idOfRow(row)).sort((a, b) => a - b)).toEqual(want);
    // price is sorted now (nothing left to step), rank untouched (its sort still ahead of it).
    expect(p.orderStepsFor(filter).next().done).toBe(true);
    expect(p.orderStepsFor(parseFilter({ must: [{ key: 'rank', range: { gte: 3 } }] })).next().done).toBe(false);
    // order_by's key is sorted the same way; a key without an index has nothing to sort.
    expect(stepsCounted(p.orderStepsOfKey('rank'))).toBeGreaterThan(2);
    expect(p.orderStepsOfKey('rank').next().done).toBe(true);
    expect(p.orderStepsOfKey('note').next().done).toBe(true);
  });
});

describe("a filter's matches", () => {
  it('are named by the filter as written and the payloads version: equal filters share a key until a write', () => {
    const p = new PointPayloads(
      (pid) => (typeof pid === 'number' ? pid : null),
      (n) => n,
    );
    for (let i = 0; i < 6; i++) p.upsert(i, { a: i % 2 === 0 ? 'x' : 'y' });
    const json = { must: [{ key: 'a', match: { value: 'x' } }] };
    const first = p.matches(parseFilter(json)).key;
    expect(p.matches(parseFilter(json)).key).toBe(first);
    expect(p.matches(parseFilter({ must: [{ key: 'a', match: { value: 'y' } }] })).key).not.toBe(first);
    p.upsert(1, { a: 'x' });
    expect(p.matches(parseFilter(json)).key).not.toBe(first);
  });
});
