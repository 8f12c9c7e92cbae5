// Breadth-first order over level 0 from the entry point: CXL-ANNS's hop count, and the within-tier
// layout order that keeps a node's neighbours near it in memory.
import type { GraphImage } from '../graph/graph-image.js';

export interface BfsResult {
  /** Nodes in visiting order; nodes unreachable from the entry follow, in id order. */
  order: Uint32Array;
  /** Hop count from the entry, or -1 if unreachable. */
  hops: Int32Array;
  reachable: number;
}

export function bfsFromEntry(g: Pick<GraphImage, 'count' | 'entry' | 'level0' | 'maxM0'>): BfsResult {
  const n = g.count;
  const hops = new Int32Array(n).fill(-1);
  const order = new Uint32Array(n);
  if (n === 0) return { order, hops, reachable: 0 };
  const stride = 1 + g.maxM0;
  let head = 0;
  let tail = 0;
  order[tail++] = g.entry;
  hops[g.entry] = 0;
  while (head < tail) {
    const u = order[head++]!;
    const at = u * stride;
    const deg = g.level0[at]!;
    for (let j = 1; j <= deg; j++) {
      const v = g.level0[at + j]!;
      if (hops[v] === -1) {
        hops[v] = hops[u]! + 1;
        order[tail++] = v;
      }
    }
  }
  const reachable = tail;
  for (let v = 0; v < n; v++) if (hops[v] === -1) order[tail++] = v;
  return { order, hops, reachable };
}
