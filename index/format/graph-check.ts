// The graph invariants a search relies on, checked in one O(n·M) pass over the links. Checksums
// only prove that files are what the writer wrote; a writer (or a tool) that wrote bad links gets
// valid checksums over them, and then an out-of-range link fails every search and a corrupt link
// count makes one loop for ever. So every load runs this pass, and `strata verify` adds self loops
// and reachability on top (verify-index.ts).
import type { TieredIndex } from '../tiered/tiered-index.js';

export interface LinkCheckOptions {
  /** Stop collecting after this many errors (default 20). */
  maxErrors?: number;
  /** Also report links from a node to itself (harmless to a search; `verify` reports them). */
  selfLoops?: boolean;
  /** When given (count × (1 + maxM0) words), receives each node's valid level-0 links, for a BFS. */
  level0?: Uint32Array;
}

export function linkErrors(index: TieredIndex, o: LinkCheckOptions = {}): string[] {
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
  if (m.count > 0 && index.levels[m.entry] !== m.maxLevel)
    err(`entry point ${m.entry} is on level ${index.levels[m.entry]}, expected the top level ${m.maxLevel}`);
  const stride = index.shape.adjStride;
  const { levels, upperOffset, upperLinks } = index;
  const upperBlock = 1 + m.maxM;
  for (const seg of index.segments) {
    const u32 = seg.u32;
    for (let i = 0; i < seg.count && errors.length < maxErrors; i++) {
      const v = seg.start + i;
      const at = seg.adjBase + i * stride;
      const n = u32[at]!;
      if (n > m.maxM0) err(`node ${v}: ${n} level-0 links, more than ${m.maxM0}`);
      else {
        let valid = 0;
        for (let j = 1; j <= n; j++) {
          const u = u32[at + j]!;
          if (u >= m.count) err(`node ${v}: level-0 link to ${u}, out of range`);
          else if (u === v && o.selfLoops) err(`node ${v}: level-0 self loop`);
          else if (o.level0 && u !== v) o.level0[v * stride + 1 + valid++] = u;
        }
        if (o.level0) o.level0[v * stride] = valid;
      }
      const lv = levels[v]!;
      if (lv === 0) continue;
      if (lv > m.maxLevel) {
        err(`node ${v}: level ${lv} above max level ${m.maxLevel}`);
        continue;
      }
      const first = upperOffset[v]!;
      if (first < 0 || first + lv * upperBlock > upperLinks.length) {
        err(`node ${v}: level ${lv} without upper links (offset ${first} of ${upperLinks.length} words)`);
        continue;
      }
      for (let l = 1; l <= lv; l++) {
        const b = first + (l - 1) * upperBlock;
        const c = upperLinks[b]!;
        if (c > m.maxM) {
          err(`node ${v}: ${c} links on level ${l}, more than ${m.maxM}`);
          continue;
        }
        for (let j = 1; j <= c; j++) {
          const u = upperLinks[b + j]!;
          if (u >= m.count || levels[u]! < l) err(`node ${v}: level-${l} link to ${u}, which is not on level ${l}`);
          else if (u === v && o.selfLoops) err(`node ${v}: self loop on level ${l}`);
        }
      }
    }
  }
  return errors;
}
