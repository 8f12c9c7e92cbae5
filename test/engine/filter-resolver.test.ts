// The resolver answers a filter of one range on a numeric index straight from the index's sorted
// rows; every other filter goes through the row bitmap. Both must give the same nodes, counts and
// fresh points, the fresh points ascending for isFreshMatch.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { FilterArena } from '../../engine/filter-arena.js';
import { FilterResolver, isFreshMatch, type ResolvedFilter } from '../../engine/filter-plan.js';
import { parseFilter } from '../../index/filter/parse.js';
import type { TieredIndex } from '../../index/tiered/tiered-index.js';
import { PointPayloads } from '../../storage/point-payloads.js';
import { mulberry32 } from '../../common/random.js';

const value = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.double({ min: -20, max: 20, noNaN: true }),
  fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 4 }),
  fc.constant('text'),
  fc.constant(null),
);
const bound = fc.option(fc.double({ min: -25, max: 25, noNaN: true }), { nil: undefined });

function bitsOf(arena: FilterArena, r: ResolvedFilter, words: number): number[] {
  if (r.at < 0) return [];
  const out: number[] = [];
  for (let w = 0; w < words; w++) for (let b = 0; b < 32; b++) if ((arena.words[r.at + w]! >>> b) & 1) out.push(w * 32 + b);
  return out;
}

/** Payloads of points whose ids are their numbers (no UUIDs). */
const numberedPayloads = (): PointPayloads =>
  new PointPayloads(
    (id) => (typeof id === 'number' ? id : null),
    (id) => id,
  );

describe('the filter resolver', () => {
  it('builds a wide range its prefix bitsets on the second search of one state of the index, and sets the nodes of the first one by one', () => {
    const p = numberedPayloads();
    p.createIndex({ field: 'v', params: { type: 'float' } });
    const n = 6000;
    for (let id = 0; id < n; id++) {
      p.upsert(id, { v: (id * 7919) % 1000 });
      p.placeNode(id, id);
    }
    const index = { meta: { count: n } } as unknown as TieredIndex;
    const arena = new FilterArena(4 * 64 * 1024);
    const resolver = new FilterResolver(arena);
    const words = Math.ceil(n / 32);
    // Each time a different range (as per query), all wide enough for the prefix bitsets.
    const check = (lt: number, built: boolean): void => {
      const direct = resolver.resolve(parseFilter({ must: [{ key: 'v', range: { lt } }] }), p, index, 0);
      const general = resolver.resolve(parseFilter({ must: [{ must: [{ key: 'v', range: { lt } }] }] }), p, index, 0);
      expect(bitsOf(arena, direct, words)).toEqual(bitsOf(arena, general, words));
      expect((resolver.prefixBytes().get('v') ?? 0) > 0).toBe(built);
      resolver.release(direct);
      resolver.release(general);
    };
    check(900, false);
    check(901, true);
    check(902, true);
    // A write makes a new state of the index: its first search again sets the nodes one by one.
    p.upsert(17, { v: 3 });
    check(903, false);
    check(904, true);
  });

  it('sorts the pairs of a range index many writes left unsorted over turns as it settles, not in the resolve', async () => {
    const p = numberedPayloads();
    p.createIndex({ field: 'v', params: { type: 'float' } });
    for (let id = 0; id < 6000; id++) {
      p.upsert(id, { v: (id * 7919) % 1000 });
      p.placeNode(id, id);
    }
    const filter = parseFilter({ must: [{ key: 'v', range: { lt: 100 } }] });
    const resolver = new FilterResolver(new FilterArena(4 * 64 * 1024));
    let turns = 0;
    let settled = false;
    const count = (): void => {
      turns++;
      if (!settled) setImmediate(count);
    };
    setImmediate(count);
    const key = await resolver.settle(filter, p, 0);
    settled = true;
    expect(turns).toBeGreaterThan(2);
    // Nothing left to sort: the resolve reads the pairs as they are.
    expect(p.orderStepsFor(filter).next().done).toBe(true);
    const r = resolver.resolve(filter, p, { meta: { count: 6000 } } as unknown as TieredIndex, 0, key);
    expect(r.baseMatched).toBe(Array.from({ length: 6000 }, (_, id) => id).filter((id) => (id * 7919) % 1000 < 100).length);
    resolver.release(r);
  });

  it('resolves one range on a numeric index into the same nodes, counts and fresh points as the general path', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.option(value, { nil: undefined }), fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 200 }))), { minLength: 1, maxLength: 120 }),
        fc.constantFrom('integer', 'float'),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.record({ gt: bound, gte: bound, lt: bound, lte: bound }),
        (points, type, deletes, range) => {
          const p = numberedPayloads();
          p.createIndex({ field: 'v', params: { type } });
          const used = new Set<number>();
          // Upserted last id first, so that rows run against ids.
          [...points.entries()].reverse().forEach(([id, [v, node]]) => {
            p.upsert(id, v === undefined ? {} : { v });
            // A node once at most; -1 leaves the point to the fresh layer.
            if (node >= 0 && !used.has(node)) {
              used.add(node);
              p.placeNode(id, node);
            }
          });
          for (const d of deletes) p.remove(d % points.length);
          const nodes = 201;
          const index = { meta: { count: nodes } } as unknown as TieredIndex;
          const arena = new FilterArena(4 * 64 * 4);
          const resolver = new FilterResolver(arena);
          const bounds = Object.fromEntries(Object.entries(range).filter(([, b]) => b !== undefined));
          const direct = resolver.resolve(parseFilter({ must: [{ key: 'v', range: bounds }] }), p, index, 0);
          // The same condition nested in a clause: the general path.
          const general = resolver.resolve(parseFilter({ must: [{ must: [{ key: 'v', range: bounds }] }] }), p, index, 0);
          const words = Math.ceil(nodes / 32);
          expect(bitsOf(arena, direct, words)).toEqual(bitsOf(arena, general, words));
          expect(direct.baseMatched).toBe(general.baseMatched);
          expect(direct.freshIds).toEqual(general.freshIds);
          // Ascending, and tested by binary search: the same answer as a look through them all.
          const listed = Array.from(direct.freshIds);
          expect(listed).toEqual([...listed].sort((a, b) => a - b));
          for (let id = -1; id <= points.length; id++) expect(isFreshMatch(direct, id)).toBe(listed.includes(id));
          expect(direct.residual).toBe(false);
          resolver.release(direct);
          resolver.release(general);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers wide ranges of a one-value field from prefix bitsets that follow every write and placement', () => {
    const n = 9000;
    const p = numberedPayloads();
    p.createIndex({ field: 'price', params: { type: 'float' } });
    const rnd = mulberry32(5);
    for (let id = 0; id < n; id++) {
      p.upsert(id, { price: Math.floor(rnd() * 1000) / 10 });
      if (id % 7 !== 0) p.placeNode(id, n - 1 - id);
    }
    const index = { meta: { count: n } } as unknown as TieredIndex;
    const arena = new FilterArena(4 * 1024 * 64);
    const resolver = new FilterResolver(arena);
    const words = Math.ceil(n / 32);
    for (let step = 0; step < 40; step++) {
      const lo = rnd() * 10;
      const bounds = { gte: lo, lt: lo + 50 + rnd() * 40 };
      const direct = resolver.resolve(parseFilter({ must: [{ key: 'price', range: bounds }] }), p, index, 0);
      const general = resolver.resolve(parseFilter({ must: [{ must: [{ key: 'price', range: bounds }] }] }), p, index, 0);
      // Wide enough for the prefix bitsets (PREFIX_FROM pairs).
      expect(direct.baseMatched + direct.freshIds.length).toBeGreaterThan(4096);
      expect(bitsOf(arena, direct, words)).toEqual(bitsOf(arena, general, words));
      expect(direct.baseMatched).toBe(general.baseMatched);
      expect(direct.freshIds).toEqual(general.freshIds);
      resolver.release(direct);
      resolver.release(general);
      // Between queries: a point moved to the fresh layer, one deleted, one written anew, one placed.
      const id = Math.floor(rnd() * n);
      if (step % 4 === 0) p.placeNode(id, -1);
      else if (step % 4 === 1) p.remove(id);
      else if (step % 4 === 2) p.upsert(id, { price: rnd() * 100 });
      else p.placeAll((x) => (x % 5 === 0 ? -1 : (x * 7919) % n));
    }
  });

  it('keeps a family of filters that differ per query cached, within its share of the arena', () => {
    const n = 300;
    const p = numberedPayloads();
    p.createIndex({ field: 'k', params: { type: 'keyword' } });
    for (let id = 0; id < n; id++) p.upsert(id, { k: `v${id % 100}` });
    p.placeAll((id) => id);
    const index = { meta: { count: n }, valueRuns: null } as unknown as TieredIndex;
    const family = Array.from({ length: 200 }, (_, i) => parseFilter({ must: [{ key: 'k', match: { any: [`v${i % 100}`, `v${(i * 7 + 1) % 100}`] } }] }));
    /** Resolutions that went to the payload indexes in a second pass over the family. */
    const misses = (arenaBytes: number): number => {
      const resolver = new FilterResolver(new FilterArena(arenaBytes));
      for (const f of family) resolver.release(resolver.resolve(f, p, index, 0));
      const match = vi.spyOn(p, 'match');
      for (const f of family) resolver.release(resolver.resolve(f, p, index, 0));
      const calls = match.mock.calls.length;
      match.mockRestore();
      return calls;
    };
    // Room for every answer: none resolved again.
    expect(misses(1 << 20)).toBe(0);
    // An arena that holds every answer (eleven words each), but whose eighth holds 90: the family
    // cycles through them, and the rest of the arena stays for the searches in flight.
    expect(misses(4 * 8000)).toBe(family.length);
  });
});
