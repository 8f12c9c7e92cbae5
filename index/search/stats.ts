// Per-query search statistics. A flat Float64Array keeps accounting off the allocator; the named
// view is built only when a caller asks for it.

export const STAT = {
  hops: 0,
  /** Distance computations of every kind (codes and full vectors). */
  distances: 1,
  adjReadsDram: 2,
  adjReadsCxl: 3,
  adjBytesDram: 4,
  adjBytesCxl: 5,
  /** Full-precision vector reads (traversal without codes, or re-rank). */
  vecReadsDram: 6,
  vecReadsCxl: 7,
  vecBytesDram: 8,
  vecBytesCxl: 9,
  /** Compact-code reads (traversal with codes). */
  codeReadsDram: 10,
  codeReadsCxl: 11,
  codeBytesDram: 12,
  codeBytesCxl: 13,
  /** Candidates re-scored with full vectors, and candidates the error bound spared a re-score. */
  reranked: 14,
  rerankSkipped: 23,
  modelledNs: 15,
  /** Modelled time had every access been to DRAM: the CXL extra is modelledNs - this. */
  modelledDramOnlyNs: 16,
  /** Stall the model asked for (injection), and the stall measured on the clock while paying it. */
  injectedNs: 17,
  stalledNs: 18,
  /** Near-data mode: messages this query waited on, and the id + distance bytes it moved. */
  linkMessages: 19,
  linkBytes: 20,
  /** Foreseeing: neighbour lists prefetched one step ahead, and how many were then expanded. */
  prefetchIssued: 21,
  prefetchHits: 22,
  /** Filtered queries: matching nodes whose codes the scan scored, and walks that ended in a scan (too few matches reached). */
  scanned: 24,
  scanFallbacks: 25,
  /** Two-hop walks: non-matching nodes whose lists were read to reach matches beyond them. */
  bridges: 26,
  /** GRAPH_OR_SCAN queries that scanned: their walk's entry showed the matches scarce near the query. */
  scarceScans: 27,
  /** Of `scanned`, the matches scored from value runs (index/tiered/value-runs.ts), not where they lie. */
  fromRuns: 28,
  /** Filtered walks on the filter links (FILTER_PLAN.LINKED, chosen or taken where the entry was scarce in matches). */
  linkedWalks: 29,
  /**
   * Reads of the filter links the linked walk made (each hop's lookup, then its lists), and their
   * bytes (always the CXL tier): apart from the neighbour lists, whose DRAM share re-tiering watches
   * (a placement cannot move these).
   */
  filterLinkReads: 30,
  filterLinkBytes: 31,
  /** GRAPH walks whose entry was scarce in matches, seeded by a filtered walk on level 1 (traversal.ts, PHASE.SEED). */
  seededWalks: 32,
  /**
   * List codes (index/tiered/list-code-store.ts): blocks read with their lists (always the CXL
   * tier) and their bytes, and unvisited neighbours left unscored because their estimate could not
   * enter the beam.
   */
  listCodeReads: 33,
  listCodeBytes: 34,
  listCodeSkipped: 35,
} as const;
export const STAT_FIELDS = 36;

export interface TierPair {
  dram: number;
  cxl: number;
}

export interface SearchStats {
  hops: number;
  distances: number;
  /** Every record read (neighbour lists, vectors, codes), per tier. */
  accesses: TierPair;
  bytes: TierPair;
  neighbourListReads: TierPair;
  vectorReads: TierPair;
  codeReads: TierPair;
  reranked: number;
  rerankSkipped: number;
  /** Share of all record reads served by the DRAM tier. */
  dramShare: number;
  /** Share of distance computations (codes and vectors) whose records were in DRAM. */
  distanceDramShare: number;
  modelledMemoryNs: number;
  modelledCxlExtraNs: number;
  injectedNs: number;
  stalledNs: number;
  linkMessages: number;
  linkBytes: number;
  prefetchIssued: number;
  prefetchHits: number;
  scanned: number;
  scanFallbacks: number;
  scarceScans: number;
  bridges: number;
  fromRuns: number;
  linkedWalks: number;
  filterLinkReads: number;
  filterLinkBytes: number;
  seededWalks: number;
  listCodeReads: number;
  listCodeBytes: number;
  listCodeSkipped: number;
}

export function statsView(s: Float64Array, queries = 1): SearchStats {
  const q = queries > 0 ? queries : 1;
  const pair = (d: number, c: number): TierPair => ({ dram: s[d]! / q, cxl: s[c]! / q });
  const accD = s[STAT.adjReadsDram]! + s[STAT.vecReadsDram]! + s[STAT.codeReadsDram]!;
  const accC = s[STAT.adjReadsCxl]! + s[STAT.vecReadsCxl]! + s[STAT.codeReadsCxl]! + s[STAT.filterLinkReads]! + s[STAT.listCodeReads]!;
  const distD = s[STAT.vecReadsDram]! + s[STAT.codeReadsDram]!;
  const distC = s[STAT.vecReadsCxl]! + s[STAT.codeReadsCxl]!;
  return {
    hops: s[STAT.hops]! / q,
    distances: s[STAT.distances]! / q,
    accesses: { dram: accD / q, cxl: accC / q },
    bytes: {
      dram: (s[STAT.adjBytesDram]! + s[STAT.vecBytesDram]! + s[STAT.codeBytesDram]!) / q,
      cxl: (s[STAT.adjBytesCxl]! + s[STAT.vecBytesCxl]! + s[STAT.codeBytesCxl]! + s[STAT.filterLinkBytes]! + s[STAT.listCodeBytes]!) / q,
    },
    neighbourListReads: pair(STAT.adjReadsDram, STAT.adjReadsCxl),
    vectorReads: pair(STAT.vecReadsDram, STAT.vecReadsCxl),
    codeReads: pair(STAT.codeReadsDram, STAT.codeReadsCxl),
    reranked: s[STAT.reranked]! / q,
    rerankSkipped: s[STAT.rerankSkipped]! / q,
    dramShare: accD + accC > 0 ? accD / (accD + accC) : 1,
    distanceDramShare: distD + distC > 0 ? distD / (distD + distC) : 1,
    modelledMemoryNs: s[STAT.modelledNs]! / q,
    modelledCxlExtraNs: (s[STAT.modelledNs]! - s[STAT.modelledDramOnlyNs]!) / q,
    injectedNs: s[STAT.injectedNs]! / q,
    stalledNs: s[STAT.stalledNs]! / q,
    linkMessages: s[STAT.linkMessages]! / q,
    linkBytes: s[STAT.linkBytes]! / q,
    prefetchIssued: s[STAT.prefetchIssued]! / q,
    prefetchHits: s[STAT.prefetchHits]! / q,
    scanned: s[STAT.scanned]! / q,
    scanFallbacks: s[STAT.scanFallbacks]! / q,
    scarceScans: s[STAT.scarceScans]! / q,
    bridges: s[STAT.bridges]! / q,
    fromRuns: s[STAT.fromRuns]! / q,
    linkedWalks: s[STAT.linkedWalks]! / q,
    filterLinkReads: s[STAT.filterLinkReads]! / q,
    filterLinkBytes: s[STAT.filterLinkBytes]! / q,
    seededWalks: s[STAT.seededWalks]! / q,
    listCodeReads: s[STAT.listCodeReads]! / q,
    listCodeBytes: s[STAT.listCodeBytes]! / q,
    listCodeSkipped: s[STAT.listCodeSkipped]! / q,
  };
}

export function addStats(into: Float64Array, from: Float64Array): void {
  for (let i = 0; i < STAT_FIELDS; i++) into[i]! += from[i]!;
}

/** Mean of per-query stats (the shares recomputed from the summed counts, not averaged). */
export function meanStats(list: readonly SearchStats[]): SearchStats {
  const n = Math.max(1, list.length);
  const sum = (f: (s: SearchStats) => number): number => list.reduce((a, s) => a + f(s), 0) / n;
  const pair = (f: (s: SearchStats) => TierPair): TierPair => ({ dram: sum((s) => f(s).dram), cxl: sum((s) => f(s).cxl) });
  const accesses = pair((s) => s.accesses);
  const vectorReads = pair((s) => s.vectorReads);
  const codeReads = pair((s) => s.codeReads);
  const distD = vectorReads.dram + codeReads.dram;
  const distC = vectorReads.cxl + codeReads.cxl;
  return {
    hops: sum((s) => s.hops),
    distances: sum((s) => s.distances),
    accesses,
    bytes: pair((s) => s.bytes),
    neighbourListReads: pair((s) => s.neighbourListReads),
    vectorReads,
    codeReads,
    reranked: sum((s) => s.reranked),
    rerankSkipped: sum((s) => s.rerankSkipped),
    dramShare: accesses.dram + accesses.cxl > 0 ? accesses.dram / (accesses.dram + accesses.cxl) : 1,
    distanceDramShare: distD + distC > 0 ? distD / (distD + distC) : 1,
    modelledMemoryNs: sum((s) => s.modelledMemoryNs),
    modelledCxlExtraNs: sum((s) => s.modelledCxlExtraNs),
    injectedNs: sum((s) => s.injectedNs),
    stalledNs: sum((s) => s.stalledNs),
    linkMessages: sum((s) => s.linkMessages),
    linkBytes: sum((s) => s.linkBytes),
    prefetchIssued: sum((s) => s.prefetchIssued),
    prefetchHits: sum((s) => s.prefetchHits),
    scanned: sum((s) => s.scanned),
    scanFallbacks: sum((s) => s.scanFallbacks),
    scarceScans: sum((s) => s.scarceScans),
    bridges: sum((s) => s.bridges),
    fromRuns: sum((s) => s.fromRuns),
    linkedWalks: sum((s) => s.linkedWalks),
    filterLinkReads: sum((s) => s.filterLinkReads),
    filterLinkBytes: sum((s) => s.filterLinkBytes),
    seededWalks: sum((s) => s.seededWalks),
    listCodeReads: sum((s) => s.listCodeReads),
    listCodeBytes: sum((s) => s.listCodeBytes),
    listCodeSkipped: sum((s) => s.listCodeSkipped),
  };
}
