// What a base's payload indexes will take in DRAM, measured by building them once over its payloads
// before placement, so the budget planner can set those bytes aside (they are hot: every filter reads
// them before any graph step) rather than let a plan overspend by them.
import { FieldIndexes, type Payload } from './field-indexes.js';
import { type IndexSpec, indexOptions } from './params.js';

/** Bytes of the indexes `specs` over `payloads`, as `GET /collections/{c}` will report them. */
export function payloadIndexBytes(payloads: Iterable<readonly [unknown, Payload]>, specs: readonly IndexSpec[]): number {
  if (specs.length === 0) return 0;
  const indexes = new FieldIndexes();
  for (const s of specs) indexes.createIndex(s.field, s.params.type, indexOptions(s.params));
  // Rows as the live store numbers them: dense from 0, whatever the points' labels are.
  let row = 0;
  for (const [, payload] of payloads) indexes.add(row++, payload);
  let total = 0;
  for (const bytes of indexes.bytes().values()) total += bytes;
  return total;
}
