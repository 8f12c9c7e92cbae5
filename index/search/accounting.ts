// Per-query pricing of memory accesses, shared by the local searcher and the near-data runner so
// that both modes charge the same access the same way. Each function records the access in the
// query's counters and returns the CXL extra (ns over the same access served from DRAM) that an
// injecting caller still owes.
import { batchCostNs, type TierCosts } from '../../tiers/cost-model.js';
import { STAT } from './stats.js';

/** Bandwidth-only cost of bytes moved from a tier (a read whose latency is hidden). */
export function chargeBytes(st: Float64Array, costs: TierCosts, tier: number, bytes: number): number {
  const ns = bytes * costs.nsPerByte[tier]!;
  const dramNs = bytes * costs.nsPerByte[0]!;
  st[STAT.modelledNs]! += ns;
  st[STAT.modelledDramOnlyNs]! += dramNs;
  return ns - dramNs;
}

/** One neighbour-list read: a dependent access (full latency) unless it was foreseen. */
export function chargeAdjacency(st: Float64Array, costs: TierCosts, tier: number, bytes: number, latencyHidden: boolean): number {
  if (tier === 0) {
    st[STAT.adjReadsDram]!++;
    st[STAT.adjBytesDram]! += bytes;
  } else {
    st[STAT.adjReadsCxl]!++;
    st[STAT.adjBytesCxl]! += bytes;
  }
  if (latencyHidden) return chargeBytes(st, costs, tier, bytes);
  const ns = batchCostNs(costs, tier, 1, bytes);
  const dramNs = batchCostNs(costs, 0, 1, bytes);
  st[STAT.modelledNs]! += ns;
  st[STAT.modelledDramOnlyNs]! += dramNs;
  return ns - dramNs;
}
