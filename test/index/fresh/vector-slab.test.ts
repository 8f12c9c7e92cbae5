// The slab of a fresh layer's vectors: writes, overwrites, deletes whose slots the next point takes,
// growth past its first room with every vector kept, copies that a later write leaves alone.
import { describe, expect, it } from 'vitest';
import { VectorSlab } from '../../../index/fresh/vector-slab.js';

const v = (...xs: number[]): Float32Array => Float32Array.from(xs);

describe('a vector slab', () => {
  it('keeps each id its vector through overwrites, deletes and slot reuse', () => {
    const s = new VectorSlab(2);
    s.set(10, v(1, 2));
    s.set(20, v(3, 4));
    s.set(10, v(5, 6));
    expect([s.size, Array.from(s.copy(10)!), Array.from(s.copy(20)!)]).toEqual([2, [5, 6], [3, 4]]);
    const held = s.copy(20)!;
    expect(s.delete(20)).toBe(true);
    expect(s.delete(20)).toBe(false);
    expect(s.copy(20)).toBeNull();
    // The freed slot goes to the next point; a copy taken before is its own.
    s.set(30, v(7, 8));
    expect(Array.from(held)).toEqual([3, 4]);
    expect(Array.from(s.copy(30)!)).toEqual([7, 8]);
    expect(s.allocated).toBe(2 * 1024);
    const seen: Array<[number, number[]]> = [];
    s.forEachIn(0, s.slots, (id, data, at) => seen.push([id, Array.from(data.subarray(at, at + 2))]));
    expect(seen).toEqual([
      [10, [5, 6]],
      [30, [7, 8]],
    ]);
    expect(s.read(30, (data, at) => data[at + 1])).toBe(8);
    expect(s.read(20, () => 1)).toBeUndefined();
  });

  it('grows past its first room with every vector kept', () => {
    const s = new VectorSlab(3);
    for (let id = 0; id < 5000; id++) s.set(id, v(id, -id, id / 2));
    expect(s.size).toBe(5000);
    expect(s.allocated).toBeGreaterThanOrEqual(3 * 5000);
    for (const id of [0, 1023, 1024, 4999]) expect(Array.from(s.copy(id)!)).toEqual([id, -id, id / 2]);
    expect(s.ids().sort((a, b) => a - b)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });
});
