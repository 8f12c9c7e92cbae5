// What a base's payload indexes will take in DRAM, measured by building them once over its payloads
// before placement, so the budget planner can set those bytes aside (they are hot: every filter reads
// them before any graph step) rather than let a plan overspend by them. The same pass counts the
// points of each indexed value, which sizes the value runs (index/tiered/value-runs.ts).
import { FieldIndexes, type Payload } from './field-indexes.js';
import { type IndexSpec, indexOptions } from './params.js';

export interface PayloadIndexSizing {
  /** Bytes of the indexes, as `GET /collections/{c}` will report them. */
  bytes: number;
  /** Points per value of every keyword index (the filters value runs serve: a tenant, a category, a tag). */
  valueCounts: number[];
}

/** The indexes `specs` over `payloads`: their bytes and their values' counts. */
export function payloadIndexSizing(payloads: Iterable<readonly [unknown, Payload]>, specs: readonly IndexSpec[]): PayloadIndexSizing {
  if (specs.length === 0) return { bytes: 0, valueCounts: [] };
  const indexes = new FieldIndexes();
  for (const s of specs) indexes.createIndex(s.field, s.params.type, indexOptions(s.params));
  // Rows as the live store numbers them: dense from 0, whatever the points' labels are.
  let row = 0;
  for (const [, payload] of payloads) indexes.add(row++, payload);
  let bytes = 0;
  for (const b of indexes.bytes().values()) bytes += b;
  return { bytes, valueCounts: keywordValueCounts(indexes) };
}

/** Points per value of every keyword index (what value runs are sized by). */
export function keywordValueCounts(indexes: FieldIndexes): number[] {
  const counts: number[] = [];
  for (const [, index] of indexes.entries()) if (index.schema === 'keyword') for (const [, n] of index.facet?.(null) ?? []) counts.push(n);
  return counts;
}
