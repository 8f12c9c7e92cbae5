// The filter arena hands out zeroed, disjoint ranges and takes them back merged; the resolver keeps
// answers cached in it and, when it is full, drops its least recently used ones rather than refuse.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FilterArena } from '../../engine/filter-arena.js';
import { FilterResolver } from '../../engine/filter-plan.js';
import { parseFilter } from '../../index/filter/parse.js';
import type { TieredIndex } from '../../index/tiered/tiered-index.js';
import { PointPayloads } from '../../storage/point-payloads.js';

describe('the filter arena', () => {
  it('never hands out overlapping live ranges, zeroes them, and frees them for reuse (random alloc / retain / release)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 40 }), fc.nat()), { maxLength: 200 }), (ops) => {
        const arena = new FilterArena(4 * 256);
        const live: Array<{ at: number; n: number; refs: number }> = [];
        for (const [alloc, n, pick] of ops) {
          if (alloc) {
            let at: number;
            try {
              at = arena.alloc(n);
            } catch {
              // Full (or too fragmented for n): a refusal, never an overlap.
              continue;
            }
            for (let i = at; i < at + n; i++) expect(arena.words[i]).toBe(0);
            for (const r of live) expect(at + n <= r.at || r.at + r.n <= at).toBe(true);
            arena.words.fill(0xffffffff, at, at + n);
            live.push({ at, n, refs: 1 });
          } else if (live.length > 0) {
            const r = live[pick % live.length]!;
            if (pick % 3 === 0) {
              arena.retain(r.at);
              r.refs++;
            } else {
              arena.release(r.at);
              if (--r.refs === 0) live.splice(live.indexOf(r), 1);
            }
          }
          expect(arena.used).toBe(live.reduce((a, r) => a + r.n, 0));
        }
        for (const r of live) for (let k = 0; k < r.refs; k++) arena.release(r.at);
        // All free again, in one range: the whole arena can be taken at once.
        expect(arena.alloc(256)).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('the resolver drops cached answers to make room when the arena is full, and still answers exactly', () => {
    const nodes = 64 * 32;
    const arena = new FilterArena(4 * 64 * 3);
    const resolver = new FilterResolver(arena);
    const p = new PointPayloads(
      (id) => (typeof id === 'number' ? id : null),
      (id) => id,
    );
    for (let i = 0; i < nodes; i++) {
      p.upsert(i, { n: i });
      p.placeNode(i, i);
    }
    const index = { meta: { count: nodes } } as unknown as TieredIndex;
    for (let t = 1; t <= 10; t++) {
      const r = resolver.resolve(parseFilter({ must: [{ key: 'n', range: { lt: t * 100 } }] }), p, index, 0);
      expect(r.baseMatched).toBe(t * 100);
      let bits = 0;
      for (let w = 0; w < 64; w++) for (let x = arena.words[r.at + w]!; x !== 0; x &= x - 1) bits++;
      expect(bits).toBe(t * 100);
      resolver.release(r);
    }
  });
});
