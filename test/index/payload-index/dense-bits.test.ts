// Dense bitsets and roaring's portable format, both ways, checked id by id against roaring itself,
// over every container kind: arrays (sparse), bitsets (dense), runs (after runOptimize).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bitmapOf, idsOf } from '../../../index/payload-index/bitmap.js';
import { bitmapOfBits, bitsOf } from '../../../index/payload-index/dense-bits.js';

function denseIds(dense: Uint32Array): number[] {
  const out: number[] = [];
  for (let id = 0; id < dense.length * 32; id++) if ((dense[id >>> 5]! & (1 << (id & 31))) !== 0) out.push(id);
  return out;
}

/** Ids below `span` at about the given density, and a few runs. */
const idSets = fc
  .record({
    span: fc.integer({ min: 1, max: 300_000 }),
    density: fc.constantFrom(0.0005, 0.01, 0.2, 0.9),
    runs: fc.array(fc.tuple(fc.nat(299_000), fc.integer({ min: 1, max: 70_000 })), { maxLength: 3 }),
    seed: fc.integer(),
  })
  .map(({ span, density, runs, seed }) => {
    let s = seed >>> 0 || 1;
    const ids = new Set<number>();
    for (let id = 0; id < span; id++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      if ((s >>> 0) / 2 ** 32 < density) ids.add(id);
    }
    for (const [start, len] of runs) for (let id = start; id < start + len; id++) ids.add(id);
    return [...ids].sort((a, b) => a - b);
  });

describe('dense bitsets from roaring bitmaps', () => {
  it('hold exactly the bitmap ids, for arrays, bitsets and run containers', () => {
    fc.assert(
      fc.property(idSets, fc.boolean(), (ids, optimize) => {
        const b = bitmapOf(ids);
        if (optimize) b.runOptimize();
        expect(denseIds(bitsOf(b, 0))).toEqual(ids);
      }),
      { numRuns: 15 },
    );
  });

  it('are at least as long as asked, and reuse a given array cleared', () => {
    const out = new Uint32Array(100).fill(0xffffffff);
    const dense = bitsOf(bitmapOf([5, 70]), 3000, out);
    expect(dense).toBe(out);
    expect(denseIds(dense)).toEqual([5, 70]);
    expect(bitsOf(bitmapOf([]), 64).length).toBe(2);
  });
});

describe('roaring bitmaps from dense bitsets', () => {
  it('hold exactly the set bits, with arrays below roaring’s bitset threshold and bitsets above it', () => {
    fc.assert(
      fc.property(idSets, (ids) => {
        const dense = new Uint32Array(((ids.at(-1) ?? 0) >>> 5) + 1 + (ids.length % 3));
        for (const id of ids) dense[id >>> 5]! |= 1 << (id & 31);
        const b = bitmapOfBits(dense);
        expect([...idsOf(b)]).toEqual(ids);
        expect(b.size).toBe(ids.length);
      }),
      { numRuns: 15 },
    );
  });
});
