// The per-query cost a search answer carries in its `strata` field (REST) or `strata` message
// (gRPC): the same snake_case shape on both, so the proto message is filled from this object as is.
import type { ExecutionMode, SearchStats } from '../../engine/public.js';

export interface TierCounts {
  dram: number;
  cxl: number;
}

export interface StrataSearchStats {
  /** local: the search thread read every tier; ndp: CXL-tier distances were computed near the data. */
  mode: ExecutionMode;
  hops: number;
  distance_computations: number;
  /** Neighbour-list and vector reads, per tier. */
  accesses: TierCounts;
  bytes: TierCounts;
  /** Share of accesses served by the DRAM tier. */
  dram_share: number;
  /** Memory time of the query under the cost model (docs/cxl-emulation.md). */
  modelled_memory_ns: number;
  /** Of which the CXL tier's extra latency and bandwidth cost. */
  modelled_cxl_extra_ns: number;
  /** Stall actually injected (emulated CXL end to end), 0 unless the engine runs with inject. */
  injected_ns: number;
  link_messages: number;
  link_bytes: number;
  /** Candidates re-scored with full vectors after a traversal on codes. */
  reranked: number;
  /** Share of distance computations (codes and vectors) whose records were in DRAM. */
  distance_dram_share: number;
  /** Stall measured on the clock while paying injected_ns. */
  stalled_ns: number;
}

export function strataStats(s: SearchStats, mode: ExecutionMode): StrataSearchStats {
  return {
    mode,
    hops: s.hops,
    distance_computations: s.distances,
    accesses: { dram: s.accesses.dram, cxl: s.accesses.cxl },
    bytes: { dram: s.bytes.dram, cxl: s.bytes.cxl },
    dram_share: s.dramShare,
    modelled_memory_ns: s.modelledMemoryNs,
    modelled_cxl_extra_ns: s.modelledCxlExtraNs,
    injected_ns: s.injectedNs,
    link_messages: s.linkMessages,
    link_bytes: s.linkBytes,
    reranked: s.reranked,
    distance_dram_share: s.distanceDramShare,
    stalled_ns: s.stalledNs,
  };
}
