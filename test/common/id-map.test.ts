import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdMap } from '../../common/id-map.js';

describe('IdMap', () => {
  it('agrees with a Map under random sets, deletes and re-sets of ids up to 2^53 (growth and reuse of deleted slots included)', () => {
    const idArb = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 2 ** 53 - 1 }), fc.integer({ min: 2 ** 52, max: 2 ** 52 + 300 }));
    const opArb = fc.tuple(fc.constantFrom('set', 'delete'), idArb, fc.integer({ min: 0, max: 2 ** 31 - 1 }));
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 600 }), (ops) => {
        const m = new IdMap(4);
        const model = new Map<number, number>();
        for (const [kind, id, v] of ops) {
          if (kind === 'set') {
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
  });
});
