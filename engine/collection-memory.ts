// A collection's memory, part by part and tier by tier (GET /collections/{c}/memory): the base
// index's stores as its manifest lays them out (codes, neighbour lists, full vectors, labels), the
// upper layers, the code's parameters and the promotion pool's slots in DRAM, the fresh layer's
// vectors, each sparse vector's column (DRAM), each secondary vector's (its tiered base by tier, the
// rest in DRAM), and the payloads (values in the CXL
// tier where the memory plan has one; rows and indexes in DRAM). What the dashboard draws.
import { indexMemoryParts } from '../index/format/memory-parts.js';
import type { ReportedCollection } from './collection-info.js';

export interface MemoryPart {
  /** codes, neighbour lists, vectors, labels, upper layers, code parameters, promotion pool, value runs, filter links, fresh vectors, sparse vector <name>, vector <name> (a secondary one), payload values, payload rows, payload index <key>. */
  part: string;
  dram: number;
  cxl: number;
}

export interface CollectionMemory {
  parts: MemoryPart[];
  total: { dram: number; cxl: number };
}

export function collectionMemory(c: ReportedCollection): CollectionMemory {
  const parts = new Map<string, MemoryPart>();
  const add = (part: string, tier: 'dram' | 'cxl', bytes: number): void => {
    if (bytes <= 0) return;
    const p = parts.get(part) ?? { part, dram: 0, cxl: 0 };
    p[tier] += bytes;
    parts.set(part, p);
  };
  const m = c.base?.manifest;
  if (m) for (const x of indexMemoryParts(m)) add(x.part, x.tier, x.bytes);
  const live = c.live;
  if (live) {
    add('fresh vectors', 'dram', live.fresh.size * c.dim * 4);
    for (const [name, col] of live.sparse) add(`sparse vector ${name}`, 'dram', col.bytes());
    for (const [name, col] of live.secondary) {
      const t = col.tierBytes();
      add(`vector ${name}`, 'dram', t.dram);
      add(`vector ${name}`, 'cxl', t.cxl);
    }
  }
  const p = c.payloadBytes();
  add('payload values', p.valuesPlacement.tier, p.values);
  add('payload rows', 'dram', p.rows);
  for (const [key, bytes] of Object.entries(p.indexes)) add(`payload index ${key}`, 'dram', bytes);
  const list = [...parts.values()];
  return { parts: list, total: { dram: list.reduce((a, x) => a + x.dram, 0), cxl: list.reduce((a, x) => a + x.cxl, 0) } };
}
