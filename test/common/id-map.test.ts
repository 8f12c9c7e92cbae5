import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdMap } from '../../common/id-map.js';

/** Applies random sets and deletes to `m` and to a Map; they agree on every read after each. */
function agreesWithMap(make: () => IdMap, idArb: fc.Arbitrary<number>): void {
  const opArb = fc.tuple(fc.boolean(), idArb, fc.integer({ min: 0, max: 2 ** 31 - 1 }));
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 600 }), (ops) => {
      const m = make();
      const model = new Map<number, number>();
      for (const [set, id, v] of ops) {
        if (set) {
          m.set(id, v);
          model.set(id, v);
        } else expect(m.delete(id)).toBe(model.delete(id));
        expect(m.size).toBe(model.size);
      }
      for (const [id, v] of model) expect(m.get(id)).toBe(v);
      const seen = new Map<number, number>();
      m.forEach((id, v) => seen.set(id, v));
      expect(seen).toEqual(model);
      expect(m.has(2 ** 53 + 2)).toBe(false);
    }),
    { numRuns: 200 },
  );
}

describe('IdMap', () => {
  it('agrees with a Map under random sets, deletes and re-sets of ids up to 2^53 (growth and reuse of deleted slots included)', () => {
    agreesWithMap(
      () => new IdMap(4),
      fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 2 ** 53 - 1 }), fc.integer({ min: 2 ** 52, max: 2 ** 52 + 300 })),
    );
  });

  it('keeps dense ids in a direct array of four bytes an id, and hashes them once an id far beyond the size comes, keeping every entry', () => {
    const m = new IdMap();
    const n = 100_000;
    for (let id = 0; id < n; id++) m.set(id, n - id);
    // Grown by half each time: at most 1.5 × the ids, plus the floor.
    expect(m.bytes()).toBeLessThanOrEqual(4 * (1.5 * n + 65_536));
    m.delete(7);
    m.set(2 ** 52 + 5, 3);
    expect(m.size).toBe(n);
    expect(m.bytes()).toBeGreaterThan(12 * n);
    for (let id = 0; id < n; id++) expect(m.get(id)).toBe(id === 7 ? undefined : n - id);
    expect(m.get(2 ** 52 + 5)).toBe(3);
  });

  it("keeps ids numbered from each band's base (numeric ids, UUID points) in direct arrays, agreeing with a Map", () => {
    const base = 2 ** 52;
    agreesWithMap(
      () => new IdMap(16, [0, base]),
      fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: base, max: base + 5000 }), fc.integer({ min: 0, max: 2 ** 53 - 1 })),
    );
    // UUID points numbered in order stay direct: four bytes an id, not a hash table's twelve a slot.
    const m = new IdMap(1024, [0, base]);
    for (let i = 0; i < 100_000; i++) m.set(base + i, i);
    expect(m.bytes()).toBeLessThanOrEqual(4 * (1.5 * 100_000 + 2 * 65_536));
    expect(m.get(base + 99_999)).toBe(99_999);
  });

  it('stays direct from the first id when told how many to expect, whatever order the ids come in', () => {
    const n = 100_000;
    const m = new IdMap(n);
    for (let i = n - 1; i >= 0; i--) m.set(i, i);
    expect(m.bytes()).toBeLessThanOrEqual(4 * (1.5 * n + 65_536));
    const unsized = new IdMap();
    for (let i = n - 1; i >= 0; i--) unsized.set(i, i);
    expect(unsized.bytes()).toBeGreaterThan(12 * n);
    expect(m.get(12_345)).toBe(12_345);
  });
});
