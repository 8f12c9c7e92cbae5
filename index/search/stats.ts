// Per-query search statistics. A flat Float64Array keeps accounting off the allocator; the named
// view is built only when a caller asks for it.

export const STAT = {
  hops: 0,
  distances: 1,
  adjReadsDram: 2,
  adjReadsCxl: 3,
  adjBytesDram: 4,
  adjBytesCxl: 5,
  vecReadsDram: 6,
  vecReadsCxl: 7,
  vecBytesDram: 8,
  vecBytesCxl: 9,
  modelledNs: 10,
  /** Modelled time had every access been to DRAM: the CXL extra is modelledNs - this. */
  modelledDramOnlyNs: 11,
  injectedNs: 12,
  /** Near-data mode: this query's share of link messages, and the id + distance bytes it moved. */
  linkMessages: 13,
  linkBytes: 14,
  /** Foreseeing: neighbour lists prefetched one step ahead, and how many were then expanded. */
  prefetchIssued: 15,
  prefetchHits: 16,
} as const;
export const STAT_FIELDS = 17;

export interface SearchStats {
  hops: number;
  distances: number;
  accesses: { dram: number; cxl: number };
  bytes: { dram: number; cxl: number };
  neighbourListReads: { dram: number; cxl: number };
  vectorReads: { dram: number; cxl: number };
  /** Share of accesses served by the DRAM tier. */
  dramShare: number;
  modelledMemoryNs: number;
  modelledCxlExtraNs: number;
  injectedNs: number;
  linkMessages: number;
  linkBytes: number;
  prefetchIssued: number;
  prefetchHits: number;
}

export function statsView(s: Float64Array, queries = 1): SearchStats {
  const q = queries > 0 ? queries : 1;
  const accD = s[STAT.adjReadsDram]! + s[STAT.vecReadsDram]!;
  const accC = s[STAT.adjReadsCxl]! + s[STAT.vecReadsCxl]!;
  return {
    hops: s[STAT.hops]! / q,
    distances: s[STAT.distances]! / q,
    accesses: { dram: accD / q, cxl: accC / q },
    bytes: { dram: (s[STAT.adjBytesDram]! + s[STAT.vecBytesDram]!) / q, cxl: (s[STAT.adjBytesCxl]! + s[STAT.vecBytesCxl]!) / q },
    neighbourListReads: { dram: s[STAT.adjReadsDram]! / q, cxl: s[STAT.adjReadsCxl]! / q },
    vectorReads: { dram: s[STAT.vecReadsDram]! / q, cxl: s[STAT.vecReadsCxl]! / q },
    dramShare: accD + accC > 0 ? accD / (accD + accC) : 1,
    modelledMemoryNs: s[STAT.modelledNs]! / q,
    modelledCxlExtraNs: (s[STAT.modelledNs]! - s[STAT.modelledDramOnlyNs]!) / q,
    injectedNs: s[STAT.injectedNs]! / q,
    linkMessages: s[STAT.linkMessages]! / q,
    linkBytes: s[STAT.linkBytes]! / q,
    prefetchIssued: s[STAT.prefetchIssued]! / q,
    prefetchHits: s[STAT.prefetchHits]! / q,
  };
}

export function addStats(into: Float64Array, from: Float64Array): void {
  for (let i = 0; i < STAT_FIELDS; i++) into[i]! += from[i]!;
}

/** Mean of per-query stats (DRAM share recomputed from the summed accesses, not averaged). */
export function meanStats(list: readonly SearchStats[]): SearchStats {
  const n = Math.max(1, list.length);
  const sum = (f: (s: SearchStats) => number): number => list.reduce((a, s) => a + f(s), 0) / n;
  const pair = (f: (s: SearchStats) => { dram: number; cxl: number }): { dram: number; cxl: number } => ({
    dram: sum((s) => f(s).dram),
    cxl: sum((s) => f(s).cxl),
  });
  const accesses = pair((s) => s.accesses);
  return {
    hops: sum((s) => s.hops),
    distances: sum((s) => s.distances),
    accesses,
    bytes: pair((s) => s.bytes),
    neighbourListReads: pair((s) => s.neighbourListReads),
    vectorReads: pair((s) => s.vectorReads),
    dramShare: accesses.dram + accesses.cxl > 0 ? accesses.dram / (accesses.dram + accesses.cxl) : 1,
    modelledMemoryNs: sum((s) => s.modelledMemoryNs),
    modelledCxlExtraNs: sum((s) => s.modelledCxlExtraNs),
    injectedNs: sum((s) => s.injectedNs),
    linkMessages: sum((s) => s.linkMessages),
    linkBytes: sum((s) => s.linkBytes),
    prefetchIssued: sum((s) => s.prefetchIssued),
    prefetchHits: sum((s) => s.prefetchHits),
  };
}
