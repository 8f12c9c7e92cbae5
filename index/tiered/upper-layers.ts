// The upper HNSW layers, always in DRAM: every search starts there. Only nodes of level ≥ 1 (about
// 1/M of them) have upper links, so they are indexed by a sorted id list rather than per-node arrays
// over all nodes: 9 bytes per upper node instead of 5 bytes per node, which matters when a 10%
// DRAM budget is ~60 bytes a vector.
import { sortedIndexOf } from '../../common/lower-bound.js';

export interface UpperLayers {
  /** Nodes of level ≥ 1, ascending. */
  ids: Int32Array;
  /** Level of each listed node. */
  levels: Uint8Array;
  /** u32 index in links of the node's blocks for levels 1..level, each (1 + maxM) words: [count, ids…]. */
  offsets: Int32Array;
  links: Uint32Array;
}

/** Position of node in ids, or -1 (level 0 only); indexIn in index/kernels/traverse.as.ts is the twin. */
export function upperIndexOf(u: UpperLayers, node: number): number {
  const ids = u.ids;
  return sortedIndexOf(ids.length, (i) => ids[i]!, node);
}

export function levelOf(u: UpperLayers, node: number): number {
  const i = upperIndexOf(u, node);
  return i < 0 ? 0 : u.levels[i]!;
}

/** u32 index in links of node's block on `level` (≥ 1); the node must have that level. */
export function upperBlock(u: UpperLayers, node: number, level: number, maxM: number): number {
  return u.offsets[upperIndexOf(u, node)]! + (level - 1) * (1 + maxM);
}

export function upperLayersBytes(u: UpperLayers): number {
  return u.ids.byteLength + u.levels.byteLength + u.offsets.byteLength + u.links.byteLength;
}
