import { describe, expect, it } from 'vitest';
import { FilterLinks, type LinkBlockEntry } from '../../../index/filter-links/filter-links.js';

// Three blocks over nodes 0..9: evens, the first five, and node 9 alone; degree 2 (stride 3).
const members = [0, 2, 4, 6, 8, 0, 1, 2, 3, 4, 9];
const entries: LinkBlockEntry[] = [
  { block: { kind: 'value', field: 'f', value: 'even' }, entry: 0, from: 0, count: 5 },
  { block: { kind: 'range', field: 'n', gte: 0, lte: 4 }, entry: 1, from: 5, count: 5 },
  { block: { kind: 'value', field: 'f', value: 'nine' }, entry: 9, from: 10, count: 1 },
];
const links = new FilterLinks(2, 1, entries, Uint32Array.from(members), new Uint32Array(members.length * 3));

describe('filter links lookup', () => {
  it("finds a node's list in a block from its memberships, or -1 where it is no member", () => {
    expect(links.listOf(0, 4)).toBe(2 * 3);
    expect(links.listOf(1, 4)).toBe(9 * 3);
    expect(links.listOf(1, 6)).toBe(-1);
    expect(links.listOf(2, 9)).toBe(10 * 3);
    expect(links.listOf(0, 10)).toBe(-1);
  });

  it("writes a node's lists in the covering blocks only, in block order", () => {
    const out = new Int32Array(links.maxMemberships);
    expect(links.maxMemberships).toBe(2);
    const n = links.listsIn(Uint32Array.from([0, 1]), 2, out);
    expect([...out.subarray(0, n)]).toEqual([1 * 3, 7 * 3]);
    expect(links.listsIn(Uint32Array.from([1, 2]), 2, out)).toBe(1);
    expect(out[0]).toBe(7 * 3);
    expect(links.listsIn(Uint32Array.from([0, 2]), 5, out)).toBe(0);
    expect(links.listsIn(Uint32Array.from([0]), 99, out)).toBe(0);
  });

  it("prices a node's lookup as its two bounds and its memberships, and none beyond the links' nodes", () => {
    expect(links.lookupBytes(4)).toBe(8 + 2 * 8);
    expect(links.lookupBytes(9)).toBe(8 + 8);
    expect(links.lookupBytes(5)).toBe(8);
    expect(links.lookupBytes(10)).toBe(0);
  });

  it("counts the lists and the lookup as CXL, the blocks' entries as DRAM, and the members while held apart", () => {
    const b = links.bytes();
    const nodes = 10;
    expect(b.cxl).toBe(members.length * 3 * 4 + 4 * (nodes + 1) + 8 * members.length);
    expect(b.dram).toBe(4 * entries.length);
    expect(links.heldBytes).toBe(4 * members.length);
  });

  it('leaves the members behind when placed in a region, and derives the same ones from the lookup', () => {
    const need = links.regionBytes();
    expect(need.dram).toBe(64);
    const coldAt = 4096;
    const region = new ArrayBuffer(coldAt + need.cold);
    const placed = links.placeIn(region, 64, coldAt);
    expect(placed.heldMembers).toBeNull();
    expect([...placed.members]).toEqual(members);
    expect(placed.memberCount).toBe(members.length);
    // The entries in the DRAM part, the lists and the lookup in the cold one.
    expect(placed.lookup.entries.byteOffset).toBe(64);
    expect(placed.lists.byteOffset).toBe(coldAt);
    for (const a of [placed.lists, placed.lookup.nodeFrom, placed.lookup.memberBlock, placed.lookup.memberList]) {
      expect(a.buffer).toBe(region);
      expect(a.byteOffset).toBeGreaterThanOrEqual(coldAt);
      expect(a.byteOffset + a.byteLength).toBeLessThanOrEqual(coldAt + need.cold);
    }
    expect(placed.bytes()).toEqual(links.bytes());
    expect(placed.heldBytes).toBe(0);
    expect(placed.listOf(1, 4)).toBe(links.listOf(1, 4));
  });
});
