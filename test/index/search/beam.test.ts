// The level-0 beam (index/search/beam.ts): sorted, width-bounded, equal distances in arrival order,
// and its cursor never passes an entry that is not taken.
import { describe, expect, it } from 'vitest';
import { Beam } from '../../../index/search/beam.js';

/** Inserts (distance, id) pairs in order into a beam of width ef. */
function fill(b: Beam, ef: number, pairs: Array<[number, number]>): void {
  for (const [d, id] of pairs) b.insert(d, id, ef);
}

function contents(b: Beam): Array<[number, number]> {
  return Array.from({ length: b.size }, (_, j) => [b.d[j]!, b.i[j]!] as [number, number]);
}

describe('beam', () => {
  it('keeps the best ef entries sorted, an equal distance after those already there', () => {
    const b = new Beam(8);
    const ef = 4;
    fill(b, ef, [
      [5, 1],
      [3, 2],
      [5, 3],
      [1, 4],
    ]);
    expect(contents(b)).toEqual([
      [1, 4],
      [3, 2],
      [5, 1],
      [5, 3],
    ]);
    // Full: a nearer entry drops the farthest (the caller admits only d < last()).
    b.insert(2, 5, ef);
    expect(contents(b)).toEqual([
      [1, 4],
      [2, 5],
      [3, 2],
      [5, 1],
    ]);
    expect(b.last()).toBe(5);
  });

  it('hands out every entry once, nearest first, even when nearer ones arrive behind the cursor', () => {
    const b = new Beam(8);
    const ef = 6;
    fill(b, ef, [
      [4, 1],
      [6, 2],
    ]);
    const taken: number[] = [];
    const take = (): number => {
      const k = b.take();
      if (k < 0) return -1;
      taken.push(b.i[k]!);
      return b.i[k]!;
    };
    expect(take()).toBe(1);
    // A nearer entry lands before the cursor: it moves back to it.
    b.insert(2, 3, ef);
    expect(b.cursor).toBe(0);
    expect(take()).toBe(3);
    b.insert(5, 4, ef);
    expect(take()).toBe(4);
    expect(take()).toBe(2);
    expect(take()).toBe(-1);
    expect(taken).toEqual([1, 3, 4, 2]);
    // Shifting moves the taken marks with their entries.
    expect(Array.from(b.taken.subarray(0, b.size))).toEqual([1, 1, 1, 1]);
  });
});
