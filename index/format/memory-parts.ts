// What an index holds in memory, part by part and tier by tier. Its writer records each tier's parts
// in the manifest as the index counted them (TieredIndex.tierBytes), so that a tier's bytes are the
// sum of its parts; a manifest without them has its parts derived from the stores and files. The one
// reading of it: a collection's memory report (engine/collection-memory.ts) and a secondary vector's
// base (index/named/) both ask here.
import type { TierPartKind } from '../tiered/tiered-index.js';
import type { Manifest, StoreEntry } from './manifest.js';

export interface IndexPart {
  /** codes, neighbour lists, vectors, labels, upper layers, code parameters, promotion pool, value runs, filter links, list codes. */
  part: string;
  tier: 'dram' | 'cxl';
  bytes: number;
}

/** The report's name of each kind tierBytes counts ('codes' is split into the rows and the code's parameters). */
const PART_NAMES: Readonly<Record<TierPartKind, string>> = {
  codes: 'codes',
  adjacency: 'neighbour lists',
  vectors: 'vectors',
  labels: 'labels',
  upper: 'upper layers',
  pool: 'promotion pool',
  runs: 'value runs',
  links: 'filter links',
  listCodes: 'list codes',
};

/** Bytes of code rows the stores put in tier t: the rest of the codes' bytes there is their parameters. */
function codeRows(stores: readonly StoreEntry[], t: number): number {
  return stores.filter((s) => s.kind === 'codes' && s.tier === t).reduce((a, s) => a + s.count * s.stride, 0);
}

/** Each tier's parts by report name, from tierBytes' count by kind: what the writer records in the manifest. */
export function tierParts(byKind: Readonly<Record<TierPartKind, readonly [number, number]>>, stores: readonly StoreEntry[]): Array<Record<string, number>> {
  return [0, 1].map((t) => {
    const parts: Record<string, number> = {};
    for (const [kind, bytes] of Object.entries(byKind) as Array<[TierPartKind, readonly [number, number]]>) {
      const b = bytes[t]!;
      if (kind === 'codes') {
        const rows = codeRows(stores, t);
        parts['codes'] = rows;
        parts['code parameters'] = b - rows;
      } else parts[PART_NAMES[kind]] = b;
    }
    return parts;
  });
}

export function indexMemoryParts(m: Manifest): IndexPart[] {
  if (m.tiers.every((t) => t.parts !== undefined))
    return m.tiers.flatMap((t) => Object.entries(t.parts!).map(([part, bytes]) => ({ part, tier: t.kind, bytes })));
  const out: IndexPart[] = [];
  for (const s of m.stores) out.push({ part: PART_NAMES[s.kind], tier: m.tiers[s.tier]?.kind ?? 'cxl', bytes: s.count * s.stride });
  const adjacency = m.stores.find((s) => s.kind === 'adjacency');
  out.push(
    { part: 'upper layers', tier: 'dram', bytes: m.files['graph.bin']?.bytes ?? 0 },
    { part: 'code parameters', tier: 'dram', bytes: Math.max(0, (m.files['codes.bin']?.bytes ?? 0) - codeRows(m.stores, 0) - codeRows(m.stores, 1)) },
    { part: 'promotion pool', tier: 'dram', bytes: (m.plan.poolLists ?? 0) * (adjacency?.stride ?? 0) },
    { part: 'value runs', tier: 'dram', bytes: m.plan.runBytes ?? 0 },
  );
  return out;
}
