// What an index holds in memory, part by part and tier by tier, read from its manifest: the stores
// where the plan put them, and the parts that always stay in DRAM (the upper layers, the code's
// parameters, the promotion pool's slots, the value runs). The one reading of it: a collection's
// memory report (engine/collection-memory.ts) and a secondary vector's base (index/named/) both ask here.
import type { Manifest } from './manifest.js';

export interface IndexPart {
  /** codes, neighbour lists, vectors, labels, upper layers, code parameters, promotion pool, value runs. */
  part: string;
  tier: 'dram' | 'cxl';
  bytes: number;
}

const STORE_PARTS: Readonly<Record<string, string>> = { codes: 'codes', adjacency: 'neighbour lists', vectors: 'vectors', labels: 'labels' };

export function indexMemoryParts(m: Manifest): IndexPart[] {
  const out: IndexPart[] = [];
  let codeRows = 0;
  for (const s of m.stores) {
    out.push({ part: STORE_PARTS[s.kind] ?? s.kind, tier: m.tiers[s.tier]?.kind ?? 'cxl', bytes: s.count * s.stride });
    if (s.kind === 'codes') codeRows += s.count * s.stride;
  }
  const adjacency = m.stores.find((s) => s.kind === 'adjacency');
  out.push(
    { part: 'upper layers', tier: 'dram', bytes: m.files['graph.bin']?.bytes ?? 0 },
    { part: 'code parameters', tier: 'dram', bytes: Math.max(0, (m.files['codes.bin']?.bytes ?? 0) - codeRows) },
    { part: 'promotion pool', tier: 'dram', bytes: (m.plan.poolLists ?? 0) * (adjacency?.stride ?? 0) },
    { part: 'value runs', tier: 'dram', bytes: m.plan.runBytes ?? 0 },
  );
  return out;
}
