// Which nodes live in DRAM. Every policy fills the DRAM budget greedily from a priority list:
// hops pins the upper-layer nodes first (highest level first), then takes level-0 nodes by BFS hop
// count from the entry; profile takes the nodes the profiling queries accessed most; id and random
// are the baselines. Within each tier nodes are then laid out in BFS order from the entry, so a
// node's neighbours tend to sit near it in memory whatever the policy.
import { invalidArgument, StrataError } from '../../common/errors.js';
import type { GraphImage } from '../graph/graph-image.js';
import { mulberry32 } from '../../common/random.js';
import { bfsFromEntry } from './bfs.js';

export type PlacementPolicy = 'hops' | 'profile' | 'id' | 'random';
export const PLACEMENT_POLICIES: readonly PlacementPolicy[] = ['hops', 'profile', 'id', 'random'];

export interface PlacementInput {
  policy: PlacementPolicy;
  /** DRAM bytes for node records (neighbour list + vector + upper links). */
  budgetBytes: number;
  /** Access bytes per node from profiling queries; required by 'profile'. */
  profile?: Float64Array;
  seed?: number;
}

export interface Placement {
  policy: PlacementPolicy;
  /** New id -> old id: DRAM nodes first, each tier in BFS order. */
  order: Uint32Array;
  dramCount: number;
  dramBytes: number;
  totalBytes: number;
  /** Nodes of level >= 1 that did not fit the budget (they then live in CXL). */
  upperInCxl: number;
  unreachable: number;
}

export function nodeRecordBytes(g: Pick<GraphImage, 'maxM0' | 'dim' | 'maxM'>, level: number): number {
  return 4 * (1 + g.maxM0) + 4 * g.dim + 4 * level * (1 + g.maxM);
}

/** Parses "123456", "64MiB", "1.5GB" or "10%" against the index's total bytes. */
export function parseBudget(text: string, totalBytes: number): number {
  const t = text.trim();
  const pct = /^(\d+(?:\.\d+)?)\s*%$/.exec(t);
  if (pct) {
    const p = Number(pct[1]);
    if (p > 100) throw new StrataError('STRATA_DRAM_BUDGET', `DRAM budget ${t} exceeds 100%`, { budget: t });
    return Math.floor((totalBytes * p) / 100);
  }
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]i?b?|b)?$/i.exec(t);
  if (!m)
    throw new StrataError('STRATA_DRAM_BUDGET', `DRAM budget "${text}" is not a byte count (e.g. 512MiB, 2GB, 1048576) or a percentage (e.g. 10%)`, {
      budget: text,
    });
  const unit = (m[2] ?? 'b').toLowerCase();
  const pow = { b: 0, k: 1, m: 2, g: 3, t: 4 }[unit[0] as 'b' | 'k' | 'm' | 'g' | 't'];
  const base = unit.includes('i') || unit.length === 1 ? 1024 : 1000;
  return Math.floor(Number(m[1]) * base ** pow);
}

export function placeNodes(g: GraphImage, input: PlacementInput): Placement {
  const n = g.count;
  if (!Number.isFinite(input.budgetBytes) || input.budgetBytes < 0) {
    throw new StrataError('STRATA_DRAM_BUDGET', `DRAM budget must be a non-negative byte count, got ${input.budgetBytes}`, {});
  }
  const bfs = bfsFromEntry(g);
  const bfsPos = new Uint32Array(n);
  for (let i = 0; i < n; i++) bfsPos[bfs.order[i]!] = i;

  // rank: lower = DRAM first, among nodes of the same level.
  const rank = new Float64Array(n);
  switch (input.policy) {
    case 'hops':
      for (let v = 0; v < n; v++) rank[v] = bfsPos[v]!;
      break;
    case 'profile': {
      const p = input.profile;
      if (!p || p.length !== n) throw invalidArgument('placement', "'profile' needs access counts for every node (run the profiling queries first)");
      // Most accessed first; untouched nodes fall back to hop order.
      for (let v = 0; v < n; v++) rank[v] = p[v]! > 0 ? -p[v]! : n + bfsPos[v]!;
      break;
    }
    case 'id':
      for (let v = 0; v < n; v++) rank[v] = v;
      break;
    case 'random': {
      const rnd = mulberry32(input.seed ?? 1);
      for (let v = 0; v < n; v++) rank[v] = rnd();
      break;
    }
    default:
      throw invalidArgument('placement', `unknown policy "${String(input.policy)}", expected one of ${PLACEMENT_POLICIES.join(', ')}`);
  }
  // hops follows HM-ANN / CXL-ANNS: upper layers always in DRAM, highest level first. The other
  // policies rank every node by their own measure alone (profile counts upper-layer visits too).
  const pinUpper = input.policy === 'hops';
  const prio = Array.from({ length: n }, (_, v) => v).sort((a, b) => (pinUpper ? g.levels[b]! - g.levels[a]! : 0) || rank[a]! - rank[b]! || a - b);

  const inDram = new Uint8Array(n);
  let dramBytes = 0;
  let totalBytes = 0;
  let dramCount = 0;
  let upperInCxl = 0;
  for (let v = 0; v < n; v++) totalBytes += nodeRecordBytes(g, g.levels[v]!);
  for (const v of prio) {
    const b = nodeRecordBytes(g, g.levels[v]!);
    if (dramBytes + b <= input.budgetBytes) {
      inDram[v] = 1;
      dramBytes += b;
      dramCount++;
    } else if (g.levels[v]! > 0) {
      upperInCxl++;
    } else if (pinUpper) {
      // Level-0 records all have one size: once one does not fit, none will.
      break;
    }
  }
  if (!pinUpper) {
    upperInCxl = 0;
    for (let v = 0; v < n; v++) if (g.levels[v]! > 0 && !inDram[v]) upperInCxl++;
  }
  const order = new Uint32Array(n);
  let a = 0;
  let b = dramCount;
  for (let i = 0; i < n; i++) {
    const v = bfs.order[i]!;
    if (inDram[v]) order[a++] = v;
    else order[b++] = v;
  }
  return { policy: input.policy, order, dramCount, dramBytes, totalBytes, upperInCxl, unreachable: n - bfs.reachable };
}
