// The value runs a filter's scan reads first (index/tiered/value-runs.ts): one per value of the
// filter's cover (index/filter/cover.ts) that has enough base nodes to gain and few enough to be
// scanned, placed the first time a filter asks for it.
import type { Filter } from '../index/filter/ast.js';
import { coverOf, type ValueMatch } from '../index/filter/cover.js';
import { filterKey } from '../index/filter/to-json.js';
import { bitsOf, forEachBit } from '../index/payload-index/dense-bits.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import { RUN_MAX_SHARE, RUNS_PER_SCAN, type ValueRun } from '../index/tiered/value-runs.js';
import type { PointPayloads } from '../storage/point-payloads.js';

/** A value's base nodes now, ascending; null when they cannot be told exactly. */
export type ValueNodes = (leaf: ValueMatch) => Uint32Array | null;

/**
 * The runs for `filter` on this base, each value's nodes from `nodesOf` the first time it is asked:
 * none when it has no cover, or its cover is too wide.
 */
export function runsFor(filter: Filter, index: TieredIndex, nodesOf: ValueNodes): ValueRun[] {
  const runs = index.valueRuns;
  if (runs === null) return [];
  const cover = coverOf(filter);
  if (cover === null || cover.length > RUNS_PER_SCAN) return [];
  const most = RUN_MAX_SHARE * index.meta.count;
  const out: ValueRun[] = [];
  for (const leaf of cover) {
    const run = runs.runOf(filterKey({ must: [leaf] }), () => {
      const ids = nodesOf(leaf);
      // Too common a value is walked, not scanned.
      return ids !== null && ids.length <= most ? ids : null;
    });
    // A value without a run leaves its matches to the scan of the bitset.
    if (run !== null) out.push(run);
  }
  return out;
}

/** nodesOf from the payload indexes: null when an index does not answer the value alone. */
export function payloadNodes(payloads: PointPayloads): ValueNodes {
  return (leaf) => {
    const m = payloads.match({ must: [leaf] });
    if (m.residual) return null;
    const nodeOf = payloads.nodeOfRow;
    const nodes = new Uint32Array(m.rows.size);
    let n = 0;
    forEachBit(bitsOf(m.rows, payloads.rowCount), (row) => {
      const node = nodeOf[row]!;
      if (node >= 0) nodes[n++] = node;
    });
    return nodes.subarray(0, n).sort();
  };
}

/** Writes a filter's runs block (engine/filter-arena.ts: their count, then three words a run) at word `at`. */
export function writeRuns(words: Uint32Array, at: number, runs: readonly ValueRun[]): void {
  words[at] = runs.length;
  runs.forEach((r, i) => words.set([r.codesAt, r.idsAt, r.rows], at + 1 + 3 * i));
}
