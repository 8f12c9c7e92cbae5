// `strata verify`: checksums (by loading), then the graph invariants a search relies on (the link
// checks every load makes, graph-check.ts) plus self loops and reachability from the entry point,
// then the payload file (its checksum and every line), which loading the graph does not read.
import { bfsFromEntry } from '../placement/bfs.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { linkErrors } from './graph-check.js';
import { loadIndex } from './load-index.js';
import { checkBasePayloads } from './payload-file.js';

export interface VerifyReport {
  ok: boolean;
  nodes: number;
  errors: string[];
  /** Nodes no level-0 path from the entry reaches: searchable only via exact search. */
  unreachable: number;
  checksums: 'ok';
  /** Points with a payload and the payload indexes asked for, or null without a payload file. */
  payloads: { points: number; indexes: number } | null;
}

export function checkGraph(index: TieredIndex, maxErrors = 20): { errors: string[]; unreachable: number } {
  const m = index.meta;
  const level0 = new Uint32Array(m.count * (index.adjacency.shape.stride >>> 2));
  const errors = linkErrors(index, { maxErrors, selfLoops: true, level0 });
  if (m.count > 0 && (m.entry < 0 || m.entry >= m.count)) return { errors, unreachable: m.count };
  const bfs = bfsFromEntry({ count: m.count, entry: m.entry, level0, maxM0: m.maxM0 });
  return { errors, unreachable: m.count - bfs.reachable };
}

export function verifyIndex(dir: string): VerifyReport {
  // The load's own link check would stop at the first bad link; verify reports them all.
  const { index } = loadIndex(dir, { checkLinks: false });
  const { errors, unreachable } = checkGraph(index);
  const p = checkBasePayloads(dir);
  const payloads = p === null ? null : { points: p.points, indexes: p.indexes.length };
  return { ok: errors.length === 0, nodes: index.meta.count, errors, unreachable, checksums: 'ok', payloads };
}
