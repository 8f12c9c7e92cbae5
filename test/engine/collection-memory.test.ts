// A collection's memory by part and tier (engine/collection-memory.ts) against the index it serves:
// each store's bytes as the manifest lays it out, the index's parts adding up to each tier's bytes
// (upper layers, code parameters and promotion pool included), the fresh layer's vectors counted as
// points are written, and the payloads where their placement says.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { buildIndexes, DIM, type Indexes, openEngine } from '../server/fixture.js';

let ix: Indexes;
let engine: Engine;

beforeAll(async () => {
  ix = await buildIndexes();
  engine = await openEngine(ix, { dataDir: undefined });
});

afterAll(async () => {
  await engine?.close();
  ix?.tmp.cleanup();
});

interface Manifest {
  count: number;
  tiers: Array<{ kind: 'dram' | 'cxl'; bytes: number }>;
  stores: Array<{ kind: string; tier: number; count: number; stride: number }>;
}

describe('collection memory', () => {
  it("gives each store's bytes in its tier, and the index's parts add up to each tier's bytes", () => {
    const m = JSON.parse(readFileSync(join(ix.l2, 'manifest.json'), 'utf8')) as Manifest;
    const mem = engine.collection('vectors').memory();
    const part = (name: string) => mem.parts.find((p) => p.part === name) ?? { part: name, dram: 0, cxl: 0 };
    const storeBytes = (kind: string, tier: 'dram' | 'cxl') =>
      m.stores.filter((s) => s.kind === kind && m.tiers[s.tier]!.kind === tier).reduce((a, s) => a + s.count * s.stride, 0);
    for (const [kind, name] of [
      ['adjacency', 'neighbour lists'],
      ['vectors', 'vectors'],
      ['codes', 'codes'],
      ['labels', 'labels'],
    ] as const)
      expect([part(name).dram, part(name).cxl], name).toEqual([storeBytes(kind, 'dram'), storeBytes(kind, 'cxl')]);
    expect(part('vectors').dram + part('vectors').cxl).toBe(m.count * DIM * 4);
    expect(part('upper layers').dram).toBeGreaterThan(0);
    // Payload parts aside, the index's parts are the tiers' bytes (files carry a small header each).
    const index = mem.parts.filter((p) => !p.part.startsWith('payload') && p.part !== 'fresh vectors');
    const sum = (t: 'dram' | 'cxl') => index.reduce((a, p) => a + p[t], 0);
    const tier = (t: 'dram' | 'cxl') => m.tiers.find((x) => x.kind === t)!.bytes;
    expect(sum('cxl')).toBe(tier('cxl'));
    expect(Math.abs(sum('dram') - tier('dram'))).toBeLessThan(1024);
    expect(mem.total).toEqual({ dram: mem.parts.reduce((a, p) => a + p.dram, 0), cxl: mem.parts.reduce((a, p) => a + p.cxl, 0) });
  });
});
