// `strata verify`: checksums (by loading), then the graph invariants a search relies on.
import { bfsFromEntry } from '../placement/bfs.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { loadIndex } from './load-index.js';

export interface VerifyReport {
  ok: boolean;
  nodes: number;
  errors: string[];
  /** Nodes no level-0 path from the entry reaches: searchable only via exact search. */
  unreachable: number;
  checksums: 'ok';
}

export function checkGraph(index: TieredIndex, maxErrors = 20): { errors: string[]; unreachable: number } {
  const m = index.meta;
  const errors: string[] = [];
  const err = (s: string): void => {
    if (errors.length < maxErrors) errors.push(s);
  };
  if (m.count > 0 && (m.entry < 0 || m.entry >= m.count)) err(`entry point ${m.entry} out of range 0..${m.count - 1}`);
  if (m.count > 0 && index.levels[m.entry] !== m.maxLevel)
    err(`entry point ${m.entry} is on level ${index.levels[m.entry]}, expected the top level ${m.maxLevel}`);
  const stride = index.shape.adjStride;
  const level0 = new Uint32Array(m.count * stride);
  for (let v = 0; v < m.count; v++) {
    const { seg, at } = index.neighbourBlock(v);
    const n = seg.u32[at]!;
    if (n > m.maxM0) {
      err(`node ${v}: ${n} level-0 links, more than ${m.maxM0}`);
      continue;
    }
    let valid = 0;
    for (let j = 1; j <= n; j++) {
      const u = seg.u32[at + j]!;
      if (u >= m.count) err(`node ${v}: level-0 link to ${u}, out of range`);
      else if (u === v) err(`node ${v}: level-0 self loop`);
      else level0[v * stride + 1 + valid++] = u;
    }
    level0[v * stride] = valid;
    const lv = index.levels[v]!;
    if (lv > m.maxLevel) err(`node ${v}: level ${lv} above max level ${m.maxLevel}`);
    if (lv > 0 && index.upperOffset[v]! < 0) err(`node ${v}: level ${lv} without upper links`);
    for (let l = 1; l <= lv; l++) {
      const b = index.upperOffset[v]! + (l - 1) * (1 + m.maxM);
      const c = index.upperLinks[b]!;
      if (c > m.maxM) err(`node ${v}: ${c} links on level ${l}, more than ${m.maxM}`);
      for (let j = 1; j <= Math.min(c, m.maxM); j++) {
        const u = index.upperLinks[b + j]!;
        if (u >= m.count || index.levels[u]! < l) err(`node ${v}: level-${l} link to ${u}, which is not on level ${l}`);
        else if (u === v) err(`node ${v}: self loop on level ${l}`);
      }
    }
  }
  const bfs = bfsFromEntry({ count: m.count, entry: m.entry, level0, maxM0: m.maxM0 });
  return { errors, unreachable: m.count - bfs.reachable };
}

export function verifyIndex(dir: string): VerifyReport {
  const { index } = loadIndex(dir);
  const { errors, unreachable } = checkGraph(index);
  return { ok: errors.length === 0, nodes: index.meta.count, errors, unreachable, checksums: 'ok' };
}
