// hnswlib can leave a few nodes with no path to them on level 0 (their in-links pruned away by
// nearer arrivals): a search never returns such a point, even when queried with its own vector. The
// build links each one in from a node the entry reaches, so that every stored point can be found.
import type { GraphImage } from '../graph/graph-image.js';
import { distanceRef } from '../kernels/reference.js';
import type { Metric } from '../kernels/kernels.js';
import { bfsFromEntry } from '../placement/bfs.js';

export interface ConnectResult {
  /** Nodes the entry did not reach on level 0 before. */
  unreachableBefore: number;
  /** Links added (one per group of nodes that reached one another but nothing led into). */
  linksAdded: number;
  /** Nodes still unreachable: only when no reachable node had a free slot left. */
  unreachableAfter: number;
}

/** Marks every node reachable from `from` on level 0 that was not marked yet; returns how many. */
function markFrom(g: GraphImage, reached: Uint8Array, from: number): number {
  const stride = 1 + g.maxM0;
  const stack = [from];
  reached[from] = 1;
  let marked = 1;
  while (stack.length > 0) {
    const u = stack.pop()!;
    const deg = g.level0[u * stride]!;
    for (let j = 1; j <= deg; j++) {
      const v = g.level0[u * stride + j]!;
      if (reached[v] === 0) {
        reached[v] = 1;
        marked++;
        stack.push(v);
      }
    }
  }
  return marked;
}

/**
 * The reachable node with a free level-0 slot nearest to u: among u's own neighbours first (near it
 * by construction, and cheap), else by a scan of every node.
 */
function linkSource(g: GraphImage, metric: Metric, reached: Uint8Array, u: number): number {
  const stride = 1 + g.maxM0;
  const free = (v: number): boolean => reached[v] === 1 && g.level0[v * stride]! < g.maxM0;
  const dist = (v: number): number => distanceRef(metric, g.vectors, u * g.dim, g.vectors, v * g.dim, g.dim);
  let best = -1;
  let bestD = Infinity;
  const deg = g.level0[u * stride]!;
  for (let j = 1; j <= deg; j++) {
    const v = g.level0[u * stride + j]!;
    if (!free(v)) continue;
    const d = dist(v);
    if (d < bestD) {
      best = v;
      bestD = d;
    }
  }
  if (best >= 0) return best;
  for (let v = 0; v < g.count; v++) {
    if (!free(v)) continue;
    const d = dist(v);
    if (d < bestD) {
      best = v;
      bestD = d;
    }
  }
  return best;
}

/** The graph left as it is: what connectUnreachable would have started from. */
export function unconnected(g: GraphImage): ConnectResult {
  const missing = g.count - bfsFromEntry(g).reachable;
  return { unreachableBefore: missing, linksAdded: 0, unreachableAfter: missing };
}

/** Links every level-0 node the entry cannot reach into the reachable graph, in place. */
export function connectUnreachable(g: GraphImage, metric: Metric): ConnectResult {
  const bfs = bfsFromEntry(g);
  let missing = g.count - bfs.reachable;
  const result: ConnectResult = { unreachableBefore: missing, linksAdded: 0, unreachableAfter: missing };
  if (missing === 0) return result;
  const reached = Uint8Array.from(bfs.hops, (h) => (h >= 0 ? 1 : 0));
  const stride = 1 + g.maxM0;
  // In id order (insertion order), so that a group is entered through its oldest member, which
  // usually leads on to the rest.
  for (let u = 0; u < g.count && missing > 0; u++) {
    if (reached[u] === 1) continue;
    const v = linkSource(g, metric, reached, u);
    if (v < 0) break;
    const deg = g.level0[v * stride]!;
    g.level0[v * stride + 1 + deg] = u;
    g.level0[v * stride] = deg + 1;
    result.linksAdded++;
    missing -= markFrom(g, reached, u);
  }
  result.unreachableAfter = missing;
  return result;
}
