// The columnar store keeps any JSON payload exactly, with Qdrant's set_payload (merge),
// delete_payload and clear_payload semantics, and reads the values at a key path as key-path.ts reads
// them from the payload object.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { valuesAt } from '../../../index/filter/key-path.js';
import { PAYLOAD_LIMITS } from '../../../index/payload/limits.js';
import { PayloadStore } from '../../../index/payload/store.js';
import { KEYS, keyPath, payload } from './arbitraries.js';

type Payload = Record<string, unknown>;

const op = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), id: fc.nat(7), payload }),
  fc.record({ kind: fc.constant('merge' as const), id: fc.nat(7), payload }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.nat(7), keys: fc.subarray([...KEYS]) }),
  fc.record({ kind: fc.constant('clear' as const), id: fc.nat(7) }),
);

/** Runs the operations on the store and on a Map of objects (the model), and returns both. */
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

function replay(ops: readonly Op[]) {
  const store = new PayloadStore();
  const model = new Map<number, Payload>();
  for (const o of ops) {
    const old = model.get(o.id) ?? {};
    if (o.kind === 'set') {
      store.set(o.id, o.payload);
      model.set(o.id, structuredClone(o.payload));
    } else if (o.kind === 'merge') {
      store.merge(o.id, o.payload);
      model.set(o.id, { ...old, ...structuredClone(o.payload) });
    } else if (o.kind === 'delete') {
      store.deleteKeys(o.id, o.keys);
      const next = { ...old };
      for (const k of o.keys) delete next[k];
      model.set(o.id, next);
    } else {
      store.clear(o.id);
      model.set(o.id, {});
    }
  }
  return { store, model };
}

describe('PayloadStore', () => {
  it('gives back every random JSON payload it was set, with nested objects, arrays, nulls, unicode and extreme numbers', () => {
    fc.assert(
      fc.property(fc.array(payload, { minLength: 1, maxLength: 20 }), (payloads) => {
        const store = new PayloadStore();
        payloads.forEach((p, id) => store.set(id, p));
        payloads.forEach((p, id) => expect(store.get(id)).toEqual(p));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a __proto__ member as data, never as the prototype', () => {
    const store = new PayloadStore();
    store.set(0, JSON.parse('{"__proto__": {"x": 1}, "y": 2}'));
    const got = store.get(0);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.keys(got).sort()).toEqual(['__proto__', 'y']);
    expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).toEqual({ x: 1 });
  });

  it('follows set / merge (top-level keys overwritten) / delete keys / clear like a Map of objects', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const { store, model } = replay(ops);
        for (const [id, p] of model) expect(store.get(id)).toEqual(p);
      }),
      { numRuns: 300 },
    );
  });

  it('stores what JSON.stringify would: undefined members are absent', () => {
    const store = new PayloadStore();
    store.set(0, { a: undefined, b: { c: undefined }, d: [undefined] });
    expect(store.get(0)).toEqual(JSON.parse(JSON.stringify({ a: undefined, b: { c: undefined }, d: [undefined] })));
  });

  it('refuses an id that is no u32 with STRATA_INVALID_ARGUMENT', () => {
    const store = new PayloadStore();
    for (const id of [-1, 1.5, 2 ** 32, Number.NaN])
      expect(() => store.set(id, { a: 1 })).toThrow(expect.objectContaining({ code: 'STRATA_INVALID_ARGUMENT' }));
  });

  it('merge replaces a nested object whole instead of merging into it', () => {
    const store = new PayloadStore();
    store.set(1, { a: { x: 1, y: 2 }, b: 'keep' });
    store.merge(1, { a: { z: 3 } });
    expect(store.get(1)).toEqual({ a: { z: 3 }, b: 'keep' });
  });

  it('deletePath removes a nested key and leaves the emptied object', () => {
    const store = new PayloadStore();
    store.set(0, { a: { b: 1 }, c: { d: 1, e: [1, 2] } });
    store.deletePath(0, ['a', 'b']);
    store.deletePath(0, ['c', 'e']);
    store.deletePath(0, ['c', 'missing', 'x']);
    expect(store.get(0)).toEqual({ a: {}, c: { d: 1 } });
  });

  it('reads the values at a key path as key-path.ts reads them from the payload object', () => {
    fc.assert(
      fc.property(fc.array(payload, { minLength: 1, maxLength: 8 }), fc.array(keyPath, { minLength: 1, maxLength: 8 }), (payloads, paths) => {
        const store = new PayloadStore();
        payloads.forEach((p, id) => store.set(id, p));
        for (const path of paths) {
          const read = store.compileValues(path);
          payloads.forEach((p, id) => expect(read(id)).toEqual(valuesAt(p, path)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the keys past the column cap in the overflow column, still exact and readable', () => {
    const store = new PayloadStore();
    const wide: Payload = {};
    for (let i = 0; i < PAYLOAD_LIMITS.maxColumns + 10; i++) wide[`k${i}`] = null;
    wide.last = { x: [1, 2] };
    store.set(0, wide);
    store.set(1, { other: 'new key after the cap' });
    expect(store.get(0)).toEqual(wide);
    expect(store.get(1)).toEqual({ other: 'new key after the cap' });
    expect(
      store.values(0, {
        text: 'last.x',
        steps: [
          { kind: 'key', name: 'last' },
          { kind: 'key', name: 'x' },
        ],
      }),
    ).toEqual([[1, 2]]);
    store.deleteKeys(0, ['last']);
    expect(Object.hasOwn(store.get(0), 'last')).toBe(false);
  });

  it('types a column per kind: numbers in f64 slots, keywords through the dictionary, counted in bytes()', () => {
    const store = new PayloadStore();
    for (let id = 0; id < 3000; id++) store.set(id, { color: ['red', 'green', 'blue'][id % 3], n: id, tags: ['x', 'y'] });
    expect(store.strings.size).toBe(5);
    const cols = store.bytes().columns.map((c) => `${c.path}:${c.kind}`);
    expect(cols).toEqual(expect.arrayContaining(['color:string', 'n:number', 'tags:string']));
    expect(store.get(2999)).toEqual({ color: 'blue', n: 2999, tags: ['x', 'y'] });
  });
});
