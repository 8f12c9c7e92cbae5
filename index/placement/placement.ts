// Which nodes' records deserve DRAM first (a placement policy's ranking), and the renumbering that
// makes those nodes a prefix of the ids. How many of them DRAM takes is the planner's call
// (planner.ts), from the budget.
import { invalidArgument, StrataError } from '../../common/errors.js';
import type { GraphImage } from '../graph/graph-image.js';
import { parseByteSize } from '../../common/byte-size.js';
import { mulberry32 } from '../../common/random.js';
import { bfsFromEntry } from './bfs.js';

export type PlacementPolicy = 'hops' | 'profile' | 'id' | 'random';
export const PLACEMENT_POLICIES: readonly PlacementPolicy[] = ['hops', 'profile', 'id', 'random'];

/** Parses a byte size (common/byte-size.ts: "123456", "64MiB", "1.5GB") or "10%" of the index's total bytes. */
export function parseBudget(text: string, totalBytes: number): number {
  const t = text.trim();
  const pct = /^(\d+(?:\.\d+)?)\s*%$/.exec(t);
  if (pct) {
    const p = Number(pct[1]);
    if (p > 100) throw new StrataError('STRATA_DRAM_BUDGET', `DRAM budget ${t} exceeds 100%`, { budget: t });
    return Math.floor((totalBytes * p) / 100);
  }
  const bytes = parseByteSize(t);
  if (bytes === undefined)
    throw new StrataError('STRATA_DRAM_BUDGET', `DRAM budget "${text}" is not a byte count (e.g. 512MiB, 2GB, 1048576) or a percentage (e.g. 10%)`, {
      budget: text,
    });
  return bytes;
}

/**
 * Nodes in the order they deserve DRAM, most first. hops follows HM-ANN / CXL-ANNS: upper-layer
 * nodes first (highest level first), then level-0 nodes by BFS hop count from the entry; profile
 * takes the nodes the profiling queries expanded most (untouched ones fall back to hop order);
 * id and random are the baselines.
 */
export function rankNodes(g: GraphImage, policy: PlacementPolicy, profile?: Float64Array, seed = 1): Uint32Array {
  const n = g.count;
  const bfs = bfsFromEntry(g);
  const bfsPos = new Uint32Array(n);
  for (let i = 0; i < n; i++) bfsPos[bfs.order[i]!] = i;
  const rank = new Float64Array(n);
  switch (policy) {
    case 'hops':
      for (let v = 0; v < n; v++) rank[v] = bfsPos[v]! - n * g.levels[v]!;
      break;
    case 'profile': {
      if (!profile || profile.length !== n)
        throw invalidArgument('placement', "'profile' needs access counts for every node (run the profiling queries first)");
      for (let v = 0; v < n; v++) rank[v] = profile[v]! > 0 ? -profile[v]! : n + bfsPos[v]!;
      break;
    }
    case 'id':
      for (let v = 0; v < n; v++) rank[v] = v;
      break;
    case 'random': {
      const rnd = mulberry32(seed);
      for (let v = 0; v < n; v++) rank[v] = rnd();
      break;
    }
    default:
      throw invalidArgument('placement', `unknown policy "${String(policy)}", expected one of ${PLACEMENT_POLICIES.join(', ')}`);
  }
  return Uint32Array.from({ length: n }, (_, v) => v).sort((a, b) => rank[a]! - rank[b]! || a - b);
}

export interface NodeOrder {
  /** New id -> old id: the `hot` best-ranked nodes first, each group in BFS order. */
  order: Uint32Array;
  unreachable: number;
}

/**
 * Renumbers nodes so that the `hot` best of `prio` take ids [0, hot): every store's DRAM part is
 * then a prefix of the ids. The `pool` next best take [hot, hot + pool): the promotion pool starts
 * with their lists. Inside each group nodes follow BFS order from the entry, so a node's
 * neighbours tend to sit near it in memory whatever the policy.
 */
export function orderNodes(g: GraphImage, prio: Uint32Array, hot: number, within: 'bfs' | 'keep' = 'bfs', pool = 0): NodeOrder {
  const n = g.count;
  const bfs = bfsFromEntry(g);
  // BFS order puts a node's neighbours near it in memory; 'keep' leaves the graph's own numbering
  // inside each group, so that benchmarks can measure what the renumbering is worth.
  const seq = within === 'bfs' ? bfs.order : Uint32Array.from({ length: n }, (_, v) => v);
  // Group of each node: 0 the prefix, 1 the pool's first tenants, 2 the rest.
  const group = new Uint8Array(n).fill(2);
  for (let i = 0; i < Math.min(n, hot + pool); i++) group[prio[i]!] = i < hot ? 0 : 1;
  const order = new Uint32Array(n);
  const next = [0, hot, Math.min(n, hot + pool)];
  for (let i = 0; i < n; i++) {
    const v = seq[i]!;
    order[next[group[v]!]!++] = v;
  }
  return { order, unreachable: n - bfs.reachable };
}
