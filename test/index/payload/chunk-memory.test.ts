// The memory a payload store's values live in: every chunk of every column and the string
// dictionary is carved from the store's slabs (none allocated elsewhere), the slabs grow by
// doubling, and a store bound to a NUMA node has every page of every slab bound there before its
// first write (node 0: legal on any host, this one-node host included).
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ChunkMemory } from '../../../index/payload/chunk-memory.js';
import { PAYLOAD_LIMITS } from '../../../index/payload/limits.js';
import { PayloadStore } from '../../../index/payload/store.js';
import { checkBindPolicy, numaSupport } from '../../../tiers/numa.js';

/** A ChunkMemory that records what it hands out. */
class Recording extends ChunkMemory {
  taken: Array<{ bytes: number; byteOffset: number; buffer: ArrayBuffer }> = [];
  override take(bytes: number): { buffer: ArrayBuffer; byteOffset: number } {
    const at = super.take(bytes);
    this.taken.push({ bytes, ...at });
    return at;
  }
}

/** Payloads of every kind the store keeps: numbers, keywords, bools, null, arrays, nested objects, JSON text. */
function payload(i: number): Record<string, unknown> {
  return {
    n: i,
    f: i / 7,
    city: `city-${i % 97}`,
    ok: i % 2 === 0,
    none: null,
    tags: [`t${i % 5}`, `t${i % 11}`],
    nums: [i, i + 1, i + 2],
    nested: { a: { b: i % 13 } },
    mixed: [1, 'two', { three: i }],
    long: 'x'.repeat(i % 300),
  };
}

describe('payload value memory', () => {
  it("carves every chunk of the store's columns and strings from its slabs, and reads the values back", () => {
    const mem = new Recording();
    const store = new PayloadStore(mem);
    const n = 20_000;
    for (let i = 0; i < n; i++) store.set(i, payload(i));
    for (const i of [0, 1, 777, n - 1]) expect(store.get(i)).toEqual(payload(i));
    // Every chunk the store counts was taken from its memory, but for the dictionary's hash table
    // (probed by every write, kept on the heap): nothing allocated beside it.
    const taken = mem.taken.reduce((a, t) => a + t.bytes, 0);
    expect(taken).toBe(store.bytes().total - store.strings.tableBytes());
    expect(mem.bytes()).toBeGreaterThanOrEqual(taken);
    const slabs = new Set(mem.slabs().map((s) => s.buffer));
    for (const t of mem.taken) {
      expect(slabs.has(t.buffer)).toBe(true);
      expect(t.byteOffset % 8).toBe(0);
      expect(t.byteOffset + t.bytes).toBeLessThanOrEqual(t.buffer.byteLength);
    }
  });

  it('hands out disjoint zeroed chunks, growing its slabs by doubling up to the largest', () => {
    const mem = new ChunkMemory();
    const chunks = Array.from({ length: 400 }, (_, i) => {
      const at = mem.take(40_000 + i);
      const view = new Uint8Array(at.buffer, at.byteOffset, 40_000 + i);
      expect(view.every((b) => b === 0)).toBe(true);
      view.fill(i % 251);
      return { view, i };
    });
    for (const { view, i } of chunks) expect(view.every((b) => b === i % 251)).toBe(true);
    const sizes = mem.slabs().map((s) => s.byteLength);
    expect(sizes[0]).toBe(PAYLOAD_LIMITS.firstSlab);
    for (let j = 1; j < sizes.length; j++) expect(sizes[j]).toBe(Math.min(PAYLOAD_LIMITS.largestSlab, 2 * sizes[j - 1]!));
    expect(mem.placement()).toMatchObject({ tier: 'cxl', mode: 'emulated', node: null, slabs: sizes.length, pages: null });
    // A chunk larger than the largest slab gets a slab of its own.
    const big = mem.take(PAYLOAD_LIMITS.largestSlab + 5);
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBeGreaterThanOrEqual(PAYLOAD_LIMITS.largestSlab + 5);
  });
});

const noNuma = !numaSupport().available || !existsSync('/sys/devices/system/node');

describe.skipIf(noNuma)('payload values bound to a NUMA node (node 0)', () => {
  it('binds every slab before its first write: every page carries MPOL_BIND to the node, and is found there', () => {
    const mem = new ChunkMemory(0);
    const store = new PayloadStore(mem);
    for (let i = 0; i < 30_000; i++) store.set(i, payload(i));
    expect(store.get(123)).toEqual(payload(123));
    expect(mem.slabs().length).toBeGreaterThan(2);
    let pages = 0;
    for (const slab of mem.slabs()) {
      const policy = checkBindPolicy(slab, 0);
      expect(policy.mismatched).toBe(0);
      pages += policy.pages;
    }
    mem.verify();
    expect(mem.placement()).toEqual({
      tier: 'cxl',
      mode: 'numa',
      node: 0,
      slabs: mem.slabs().length,
      bytes: mem.bytes(),
      pages,
      pagesOnNode: pages,
      pagesElsewhere: 0,
    });
  });

  it('refuses a node the host does not have, when the store is made', () => {
    const nodes = numaSupport();
    if (!nodes.available) return;
    expect(() => new ChunkMemory(63)).toThrow(expect.objectContaining({ code: 'STRATA_NUMA_BIND' }));
  });
});
