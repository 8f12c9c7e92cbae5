// The per-query cost a search answer carries in its `strata` field (REST) or `strata` message
// (gRPC): the same snake_case shape on both, so the proto message is filled from this object as is.
import type { ExecutionMode, FilterPlan, SearchStats } from '../../engine/public.js';

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
  /** How a filtered search ran (absent without a filter). */
  filter?: FilterPlanView;
}

/**
 * The plan a filtered search ran (scan: only the matching points scored, no graph walk, for few
 * matches or where the walk's entry showed them scarce near the query; graph: the
 * walk, each candidate checked against the matches first; linked: the walk on matches only, through
 * the filter links (hnsw_config.payload_m), where they cover the filter and the walk's entry showed
 * the matches scarce; two_hop: ACORN's walk on matches, only when asked for; none: nothing matched), the indexes'
 * estimate of the matches and the exact count, in the base and the fresh layer; `residual`: part of
 * the filter was checked per point, no payload index answering it.
 */
export interface FilterPlanView {
  plan: FilterPlan['plan'];
  estimated: { min: number; exp: number; max: number };
  matched: number;
  base: number;
  fresh: number;
  residual: boolean;
  /** What searched the fresh layer's matches: its graph's walk, a scan, every one (`exact`), or nothing (none there). */
  fresh_plan: FilterPlan['freshPlan'];
  /** Matching codes the scan scored, and of them those read from a keyword value's run. */
  scanned: number;
  from_runs: number;
  /** Walks whose entry showed the matches scarce and scanned instead, and walks that found fewer than k and scanned after. */
  scarce_scans: number;
  scan_fallbacks: number;
  /** Walks that took the filter links, and the link lists they read (CXL), with their bytes. */
  linked_walks: number;
  filter_link_reads: number;
  filter_link_bytes: number;
  /** Walks whose entry showed the matches scarce, seeded by a walk on the upper layers' level 1. */
  seeded_walks: number;
}

/** The plan a filtered search ran, with its stats' filter counters (per query). */
export function filterPlanView(f: FilterPlan, s: SearchStats): FilterPlanView {
  return {
    plan: f.plan,
    estimated: { min: f.estimated.min, exp: f.estimated.exp, max: f.estimated.max },
    matched: f.matched,
    base: f.base,
    fresh: f.fresh,
    residual: f.residual,
    fresh_plan: f.freshPlan,
    scanned: s.scanned,
    from_runs: s.fromRuns,
    scarce_scans: s.scarceScans,
    scan_fallbacks: s.scanFallbacks,
    linked_walks: s.linkedWalks,
    filter_link_reads: s.filterLinkReads,
    filter_link_bytes: s.filterLinkBytes,
    seeded_walks: s.seededWalks,
  };
}

export function strataStats(s: SearchStats, mode: ExecutionMode, filter?: FilterPlan): StrataSearchStats {
  const view: StrataSearchStats = {
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
  if (filter !== undefined) view.filter = filterPlanView(filter, s);
  return view;
}
