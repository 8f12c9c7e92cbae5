// The one layout of a lane's traversal control block, the contract between the WASM traversal
// (traverse.as.ts) and its JS callers (index/search/fused-traversal.ts writes and reads it,
// index/tiered/list-pool.ts watches the generation). build-wasm.mjs generates the AssemblyScript
// constants from this table (control-block.generated.as.ts, not checked in), so the two sides cannot
// drift. Self-contained on purpose: the build transpiles this file alone, before the TypeScript build.

/** Byte offset of each field in the block. Inputs are u32 unless noted; outputs follow `beamN`. */
export const CONTROL = {
  /** 0 codes, 1 l2, 2 ip. */
  kind: 0,
  dim: 4,
  /** Traversal record bytes. */
  stride: 8,
  /** First node whose traversal record is in the second (CXL) segment. */
  split: 12,
  /** Prepared query of each traversal segment. */
  q0: 16,
  /** Address of the segment's first record. */
  base0: 20,
  q1: 24,
  base1: 28,
  /** First node whose neighbour list is in the CXL segment. */
  adjSplit: 32,
  adj0: 36,
  adj1: 40,
  adjStride: 44,
  ef: 48,
  entry: 52,
  maxLevel: 56,
  prefetch: 60,
  /** f64: memory-level parallelism, for counting request groups. */
  mlp: 64,
  /** u8 tag per node. */
  visited: 72,
  /** u8: the tag of this query's visits. */
  epoch: 76,
  /** The fused scan (scanMatches): how many of the best matches it keeps (at most beamCap). */
  scanCap: 80,
  /**
   * 0, or a divisor d: a filtered walk whose entry is d times scarcer in matches than the index
   * (walk-ef.ts) stops before walking (WALK_END.scarce), and one that is not walks at its ef.
   */
  scanIfScarce: 84,
  /** The beam: beamCap f32 distances, then beamCap u32 ids. */
  beam: 88,
  beamCap: 92,
  /** Six arrays of maxDeg words: the request, ids and results per segment, distances. */
  scratch: 96,
  maxDeg: 100,
  /** Upper layers (index/tiered/upper-layers.ts): sorted ids, their offsets, the links. */
  upIds: 104,
  upCount: 108,
  upOffsets: 112,
  upLinks: 116,
  maxM: 120,
  /** Lane generation, bumped by the caller before and after a traversal (list-pool.ts waits on it). */
  gen: 124,
  /** Output: the beam's size; its arrays hold it sorted, nearest first. */
  beamN: 132,
  hops: 136,
  hits: 140,
  issued: 144,
  /** [2] distances per traversal segment. */
  dist: 148,
  /** [2] f64: sum over requests of ceil(n / mlp). */
  groups: 156,
  /** [2] neighbour-list reads whose latency was paid. */
  miss: 172,
  /** [2] their bytes. */
  missBytes: 180,
  /** [2] reads foreseen (latency hidden). */
  hidden: 188,
  hiddenBytes: 196,
  /** [2] bytes of foreseen lists never used. */
  wasteBytes: 204,
  /** Counted reads whose counter is in a CXL record (a line written back). */
  counted: 212,
  /** The promotion pool (list-pool.ts): a linear-probing table of u64 entries (node + 1, slot); 0: no pool. */
  poolTable: 216,
  poolCap: 220,
  poolLists: 224,
  /** 1: this traversal counts its CXL-range list reads. */
  countLists: 228,
  /**
   * The filtered walk (FILTER_PLAN.GRAPH): the address of the bitset of matching nodes (bit n of word
   * n >> 5); 0: the unfiltered beam. With a bitset the beam's arrays hold the matches' max-heap
   * (beamN of them, in heap order, distances negated) instead of the sorted beam.
   */
  filter: 232,
  /** The filtered walk's frontier min-heap: frontierCap f32 distances, then frontierCap u32 ids. */
  frontier: 236,
  frontierCap: 240,
  /** Output: how the traversal ended (WALK_END); the answer is used only when it is `done`. */
  overflow: 244,
  /** The filtered walk: nodes matching the filter, and nodes in the index (its global share, for walkEf). */
  matched: 248,
  nodes: 252,
  /**
   * The fused scan: the address of its value runs (index/tiered/value-runs.ts), `runCount` triples of
   * u32 (codes address, ids address, rows), scanned in order before the bitset's remaining matches.
   */
  runs: 256,
  runCount: 260,
  /** Output: the nodes the scan scored from its runs. */
  runScored: 264,
  /** Most ids one request holds (the JS steps' batch): a linked expansion stops adding at it. */
  requestCap: 268,
  /**
   * The filter links (index/filter-links/filter-links.ts) in the region: their lists (u32 records:
   * the degree, then base nodes), each node's memberships (linkFrom: linkNodes + 1
   * u32 bounds into linkBlock, the block of each, and linkList, its list's word offset), and each
   * block's entry node (linkEntries).
   */
  linkLists: 272,
  linkFrom: 280,
  linkNodes: 284,
  linkBlock: 288,
  linkList: 292,
  linkEntries: 296,
  /**
   * 0, or a walk whose entry is scarce (scanIfScarce) walks the links instead (FILTER_PLAN.LINKED):
   * the address of the covering blocks' ids (ascending), and their count.
   */
  cover: 300,
  coverN: 304,
  /** Output: 1 where the links' walk ran. */
  linked: 308,
  /**
   * Output: the link-list reads whose latency was paid, and their bytes; those foreseen; bytes of
   * foreseen ones never used. Each count has its bytes in the next word (traverse.as.ts's addReads).
   */
  linkMiss: 312,
  linkMissBytes: 316,
  linkHidden: 320,
  linkHiddenBytes: 324,
  linkWasteBytes: 328,
  /** Output: 1 where a walk whose entry was scarce was seeded by a walk on level 1 (PHASE.SEED of traversal.ts). */
  seeded: 332,
  /**
   * List codes (index/tiered/list-code-store.ts): the address of node 0's block of its neighbours'
   * 4-bit codes (0: none, every unvisited neighbour is scored), bytes a node, subspaces; the lane's
   * lookup table (subspaces × 16 u8) and its estimates' scratch (u16 a neighbour); the table's f32
   * offset and scale, and the margin an estimate may exceed the beam's bound by and still be scored.
   */
  lcBlocks: 336,
  lcStride: 340,
  lcSub: 344,
  lcLut: 348,
  lcEst: 352,
  lcLo: 356,
  lcScale: 360,
  lcMargin: 364,
  /** Output: list-code blocks read whose latency was paid, their bytes (the next word); those foreseen with their list; neighbours left unscored. */
  lcMiss: 368,
  lcMissBytes: 372,
  lcHidden: 376,
  lcHiddenBytes: 380,
  lcSkipped: 384,
} as const;

/**
 * The filtered walk widens its ef up to WALK_BOOST times, scaled by the filter's share of the index,
 * where the filter's matches are WALK_SCARCE times scarcer around the entry than in the whole index
 * (index/search/walk-ef.ts and traverse.as.ts's walkEf, the twins).
 */
export const WALK_BOOST = 8;
export const WALK_SCARCE = 32;
/**
 * Such a walk is seeded from level 1 instead (traversal.ts, PHASE.SEED) where the filter holds at
 * least this share of the index: then the matches around the gap are connected among themselves,
 * and a walk may leave out the non-matches nearer than its nearest match. A sparse filter's matches
 * are not, and its walk needs those non-matches to steer.
 */
export const SEED_MIN_SHARE = 0.5;

/**
 * A plain walk of a filter holding RESEED_MIN_SHARE of the index or more turns seeded
 * (Traversal.reseed, traverse.as.ts's filteredWalk) once it has expanded SEED_AFTER non-matches,
 * each nearer than every match it had found: the descent ended beside the gap, not in it, and the
 * entry's list could not show it. Where nearly every point matches, the gap is a pocket the plain
 * walk must empty before it leaves, and the nearest matches lie around its rim in every direction;
 * where half do, the plain walk crossed the gap for less than the widened seeded walk costs
 * (docs/benchmarks-filter-plans.md).
 */
export const RESEED_MIN_SHARE = 0.9;
export const SEED_AFTER = 32;
/**
 * How a fused traversal ended (CONTROL.overflow): done; a filtered walk whose frontier was full
 * (walked again in JS); a filtered walk whose entry was scarce in matches, stopped before walking
 * as scanIfScarce asked, its entry (the descent's node and distance) left in the beam's first entry
 * (the caller scans instead, or walks the filter links from there).
 */
export const WALK_END = { done: 0, overflow: 1, scarce: 2 } as const;

/** Largest ef the fused beam serves, boosted walks included (fused-region.ts sizes the lane's beam for it). */
export const BEAM_MAX_EF = 1024;

/** The outputs, [beamN, counted], zeroed by the traversal when it starts (overflow is written when it ends). */
export const CONTROL_OUTPUTS = { from: CONTROL.beamN, to: CONTROL.counted + 4 } as const;

/** The links' walk's outputs (and whether the walk was seeded), zeroed by the traversal when it starts too. */
export const CONTROL_LINK_OUTPUTS = { from: CONTROL.linked, to: CONTROL.seeded + 4 } as const;

/** The list codes' outputs, zeroed by the traversal when it starts. */
export const CONTROL_LC_OUTPUTS = { from: CONTROL.lcMiss, to: CONTROL.lcSkipped + 4 } as const;

/** Bytes of a lane's control block; the lane's arrays follow it. */
export const CONTROL_BYTES = 400;

/**
 * Reads of the CXL tier a linked hop's lookup of its node takes: the node's two bounds, then the
 * memberships they point to (dependent, so two latencies where the node was not foreseen).
 */
export const LINK_LOOKUP_READS = 2;

/** Most covering blocks a fused links' walk takes (the lane's room for their ids); more walk in the JS steps. */
export const COVER_MAX = 1024;

/** A neighbour list's count word: the degree in the low half, the access counter in the high half. */
export const DEGREE_MASK = 0xffff;
export const COUNT_SHIFT = 16;
