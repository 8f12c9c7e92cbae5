// The value runs a filter's scan reads first (index/tiered/value-runs.ts): one per value of the
// filter's cover (index/filter/cover.ts) that has enough base nodes to gain and few enough to be
// scanned, placed the first time a filter asks for it.
import type { Filter } from '../index/filter/ast.js';
import { coverOf, type ValueMatch } from '../index/filter/cover.js';
import { filterToJson } from '../index/filter/to-json.js';
import { bitsOf } from '../index/payload-index/dense-bits.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import { RUN_MAX_SHARE, RUN_MIN_NODES, RUNS_PER_SCAN, type ValueRun } from '../index/tiered/value-runs.js';
import type { PointPayloads } from '../storage/point-payloads.js';

/** The runs for `filter` on this base: none when it has no cover, or its cover is too wide. */
export function runsFor(filter: Filter, payloads: PointPayloads, index: TieredIndex): ValueRun[] {
  const runs = index.valueRuns;
  if (runs === null) return [];
  const cover = coverOf(filter);
  if (cover === null || cover.length > RUNS_PER_SCAN) return [];
  const out: ValueRun[] = [];
  for (const leaf of cover) {
    const key = JSON.stringify(filterToJson({ must: [leaf] }));
    const run = runs.runOf(key, () => nodesOf(leaf, payloads, index.meta.count));
    // A value without a run leaves its matches to the scan of the bitset.
    if (run !== null) out.push(run);
  }
  return out;
}

/** The base nodes holding the value now, ascending; null when an index does not answer it, or it is too common to be scanned. */
function nodesOf(leaf: ValueMatch, payloads: PointPayloads, count: number): Uint32Array | null {
  const m = payloads.match({ must: [leaf] });
  if (m.residual || m.rows.size < RUN_MIN_NODES || m.rows.size > RUN_MAX_SHARE * count) return null;
  const rows = bitsOf(m.rows, payloads.rowCount);
  const nodeOf = payloads.nodeOfRow;
  const nodes = new Uint32Array(m.rows.size);
  let n = 0;
  for (let w = 0; w < rows.length; w++) {
    let x = rows[w]!;
    while (x !== 0) {
      const low = x & -x;
      x ^= low;
      const node = nodeOf[(w << 5) | (31 - Math.clz32(low))]!;
      if (node >= 0) nodes[n++] = node;
    }
  }
  return nodes.subarray(0, n).sort();
}

/** Writes the runs block of a filter's allocation (engine/filter-arena.ts) at word `at`. */
export function writeRuns(words: Uint32Array, at: number, runs: readonly ValueRun[]): void {
  words[at] = runs.length;
  runs.forEach((r, i) => words.set([r.codesAt, r.idsAt, r.rows], at + 1 + 3 * i));
}
