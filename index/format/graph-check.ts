// The graph invariants a search relies on, checked in one O(n·M) pass over the links. Checksums
// only prove that files are what the writer wrote; a writer (or a tool) that wrote bad links gets
// valid checksums over them, and then an out-of-range link fails every search and a corrupt link
// count makes one loop for ever. So every load runs this pass, and `strata verify` adds self loops
// and reachability on top (verify-index.ts).
import { stepsInOneTurn } from '../../common/turns.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { upperIndexOf } from '../tiered/upper-layers.js';

export interface LinkCheckOptions {
  /** Stop collecting after this many errors (default 20). */
  maxErrors?: number;
  /** Also report links from a node to itself (harmless to a search; `verify` reports them). */
  selfLoops?: boolean;
  /** When given (count × (1 + maxM0) words), receives each node's valid level-0 links, for a BFS. */
  level0?: Uint32Array;
}

/** Nodes checked between two yields of linkErrorSteps. */
const CHECK_STEP_NODES = 1 << 15;

export function linkErrors(index: TieredIndex, o: LinkCheckOptions = {}): string[] {
  return stepsInOneTurn(linkErrorSteps(index, o));
}

/** linkErrors, yielding every CHECK_STEP_NODES level-0 lists (a load over turns runs it so). */
export function* linkErrorSteps(index: TieredIndex, o: LinkCheckOptions = {}): Generator<void, string[], void> {
  const m = index.meta;
  const maxErrors = o.maxErrors ?? 20;
  const errors: string[] = [];
  const err = (s: string): void => {
    if (errors.length < maxErrors) errors.push(s);
  };
  if (m.count > 0 && (m.entry < 0 || m.entry >= m.count)) {
    err(`entry point ${m.entry} out of range 0..${m.count - 1}`);
    return errors;
  }
  const u = index.upper;
  const entryAt = m.count > 0 ? upperIndexOf(u, m.entry) : -1;
  const entryLevel = entryAt < 0 ? 0 : u.levels[entryAt]!;
  if (m.count > 0 && entryLevel !== m.maxLevel) err(`entry point ${m.entry} is on level ${entryLevel}, expected the top level ${m.maxLevel}`);
  const words = index.adjacency.shape.stride >>> 2;
  for (const seg of index.adjacency.segments) {
    const u32 = seg.u32;
    for (let i = 0; i < seg.count && errors.length < maxErrors; i++) {
      const v = seg.start + i;
      const at = seg.recordBase + i * words;
      // Run on an index just read: the access counters in the count words' high half (list-pool.ts)
      // are 0 until searches run, so a high half set is corruption.
      const n = u32[at]!;
      if (n > m.maxM0) {
        err(`node ${v}: ${n} level-0 links, more than ${m.maxM0}`);
        continue;
      }
      let valid = 0;
      for (let j = 1; j <= n; j++) {
        const w = u32[at + j]!;
        if (w >= m.count) err(`node ${v}: level-0 link to ${w}, out of range`);
        else if (w === v && o.selfLoops) err(`node ${v}: level-0 self loop`);
        else if (o.level0 && w !== v) o.level0[v * words + 1 + valid++] = w;
      }
      if (o.level0) o.level0[v * words] = valid;
      if ((v + 1) % CHECK_STEP_NODES === 0) yield;
    }
  }
  yield;
  // Upper layers: ids ascending and in range, levels within the top, blocks inside the links.
  const block = 1 + m.maxM;
  for (let k = 0; k < u.ids.length && errors.length < maxErrors; k++) {
    const v = u.ids[k]!;
    if (v < 0 || v >= m.count || (k > 0 && v <= u.ids[k - 1]!)) {
      err(`upper layers: node ${v} out of range or out of order`);
      continue;
    }
    const lv = u.levels[k]!;
    if (lv === 0 || lv > m.maxLevel) {
      err(`node ${v}: level ${lv} outside 1..${m.maxLevel}`);
      continue;
    }
    const first = u.offsets[k]!;
    if (first < 0 || first + lv * block > u.links.length) {
      err(`node ${v}: level ${lv} without upper links (offset ${first} of ${u.links.length} words)`);
      continue;
    }
    for (let l = 1; l <= lv; l++) {
      const b = first + (l - 1) * block;
      const c = u.links[b]!;
      if (c > m.maxM) {
        err(`node ${v}: ${c} links on level ${l}, more than ${m.maxM}`);
        continue;
      }
      for (let j = 1; j <= c; j++) {
        const w = u.links[b + j]!;
        const wi = w < m.count ? upperIndexOf(u, w) : -1;
        if (wi < 0 || u.levels[wi]! < l) err(`node ${v}: level-${l} link to ${w}, which is not on level ${l}`);
        else if (w === v && o.selfLoops) err(`node ${v}: self loop on level ${l}`);
      }
    }
  }
  return errors;
}
