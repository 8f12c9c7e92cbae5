// What a filtered graph walk costs on this index: the mean distances a GRAPH-plan walk computes at a
// few selectivities (matching nodes drawn at random), measured when the index is built and kept in
// its manifest. The planner (engine/filter-plan.ts) weighs it against the scan, whose cost is the
// matches themselves. How far a walk must go to find ef matches depends on the graph: at 10% GloVe's
// walk computes six times the distances of its unfiltered search, the clustered set's twice, and
// no formula in ef, degree and points tells one index from the other.
import { mulberry32 } from '../../common/random.js';
import type { FilterWalkEntry } from '../format/manifest.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { FILTER_PLAN } from './query-state.js';
import { Searcher } from './searcher.js';
import { STAT } from './stats.js';

/**
 * How the walks are measured: the beam width, a wider one (how the cost grows with ef), the
 * selectivities (descending), the queries at each.
 */
export const WALK_PROFILE = { ef: 64, wideEf: 192, selectivities: [0.5, 0.2, 0.1, 0.05, 0.02], queries: 32, minNodes: 1000 } as const;

/** The most a walk's distances may grow with ef, as a power of it: a beam revisits what it found, so at most linearly. */
const MAX_GROWTH = 1;

/**
 * The walk's mean distances at each of WALK_PROFILE's selectivities, from the first rows of
 * `queries`; null for an index too small to need one (the scan of every point is cheap there).
 */
export function profileWalks(index: TieredIndex, queries: Float32Array, seed: number): FilterWalkEntry | null {
  const n = index.meta.count;
  const dim = index.meta.dim;
  const nq = Math.min(WALK_PROFILE.queries, Math.floor(queries.length / dim));
  if (n < WALK_PROFILE.minNodes || nq === 0) return null;
  const rnd = mulberry32(seed ^ 0x3a1c);
  const searcher = new Searcher(index);
  try {
    const distances: number[] = [];
    const wide: number[] = [];
    for (const share of WALK_PROFILE.selectivities) {
      const bits = new Uint32Array((n + 31) >>> 5);
      let matched = 0;
      for (let node = 0; node < n; node++) {
        if (rnd() >= share) continue;
        bits[node >>> 5]! |= 1 << (node & 31);
        matched++;
      }
      const mean = (ef: number): number => {
        let sum = 0;
        for (let q = 0; q < nq; q++) {
          const r = searcher.search(queries.subarray(q * dim, (q + 1) * dim), 10, ef, 0, true, { bits, matched, plan: FILTER_PLAN.GRAPH });
          sum += r.stats[STAT.distances]!;
        }
        return sum / nq;
      };
      distances.push(mean(WALK_PROFILE.ef));
      wide.push(mean(WALK_PROFILE.wideEf));
    }
    return { ef: WALK_PROFILE.ef, selectivities: [...WALK_PROFILE.selectivities], distances, wide: { ef: WALK_PROFILE.wideEf, distances: wide } };
  } finally {
    searcher.close();
  }
}

/**
 * The distances a walk at beam width ef computes where `share` of the nodes match: interpolated
 * between the profile's points on log-log axes, extended past its ends along their segments. A wider
 * beam than the profile's grows them as the profile's two beams measured at that share (a sparse
 * filter's walk grows nearly as ef, a broad one's far less; a profile without the wider beam, as
 * √ef); a narrower one shrinks them as √ef only, since a walk pays to reach its first matches
 * whatever its beam.
 */
export function walkDistances(p: FilterWalkEntry, share: number, ef: number): number {
  const at = atShare(p.selectivities, p.distances, share);
  if (ef <= p.ef || p.wide === undefined) return at * Math.sqrt(ef / p.ef);
  const growth = Math.log(atShare(p.selectivities, p.wide.distances, share) / at) / Math.log(p.wide.ef / p.ef);
  return at * (ef / p.ef) ** Math.min(MAX_GROWTH, Math.max(0, growth));
}

/** distances (one per selectivity, descending) at `share`, on log-log axes, the end segments extended. */
function atShare(selectivities: readonly number[], distances: readonly number[], share: number): number {
  const s = selectivities;
  const d = distances;
  const x = Math.log(Math.max(share, 1e-9));
  // The segment holding share, or the end segment past either end (selectivities descend).
  let i = 0;
  while (i < s.length - 2 && share < s[i + 1]!) i++;
  const x0 = Math.log(s[i]!);
  const x1 = Math.log(s[i + 1]!);
  const y0 = Math.log(Math.max(d[i]!, 1));
  const y1 = Math.log(Math.max(d[i + 1]!, 1));
  return Math.exp(y0 + ((y1 - y0) * (x - x0)) / (x1 - x0));
}
