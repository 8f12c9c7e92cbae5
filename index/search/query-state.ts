// Everything one in-flight query owns: its beam, visited set, the distance request it is waiting
// on, its re-rank pool and its counters. The traversal step (traversal.ts) reads and advances it;
// a driver (the local Searcher, or the near-data runner with many queries in flight) computes the
// distances it asks for. No field here depends on which driver runs it.
import { MaxHeap, MinHeap } from './heaps.js';
import { Beam } from './beam.js';
import { STAT_FIELDS } from './stats.js';
import { DenseVisited, VisitedSet } from './visited.js';

/** Largest index whose searches keep a dense visited tag per node (2 bytes × nodes per in-flight query). */
export const DENSE_VISITED_MAX_NODES = 1 << 22;

/** Where a query is in its search. */
export const PHASE = {
  START: 0,
  /** Waiting for the entry point's distance. */
  ENTRY: 1,
  /** Greedy descent through the upper layers. */
  UPPER: 2,
  /** Beam search of width ef on level 0. */
  LEVEL0: 3,
  /** Re-scoring the best candidates with full vectors. */
  RERANK: 4,
  DONE: 5,
  /** Filtered, few matches: scoring every matching node's code (no graph walk). */
  SCAN: 6,
  /** Filtered, many matches: the level-0 walk through every node, answers only from matches. */
  FILTERED: 7,
  /**
   * A GRAPH walk's level-1 part, where its entry is scarce in matches: the filtered walk on the upper
   * layers' level 1 (in DRAM), whose matches seed the level-0 walk.
   */
  SEED: 8,
} as const;

/** How a filtered query runs (the engine's planner decides; traversal.ts runs it). */
export const FILTER_PLAN = {
  NONE: 0,
  /** The graph walk, each scored node checked against the bitset of matching nodes. */
  GRAPH: 1,
  /** Every matching node's code scored, the best re-ranked. */
  SCAN: 2,
  /** The graph walk on matches only, crossing non-matching nodes by their lists (ACORN's two-hop expansion). */
  TWO_HOP: 3,
  /**
   * The walk on matches only, through the matching part of each list and the filter links of the
   * blocks covering the filter (index/filter-links/), seeded by the blocks' entries as well.
   */
  LINKED: 4,
  /**
   * GRAPH, unless the walk's entry shows the matches scarce near the query (walk-ef.ts): then SCAN,
   * which costs the same wherever the matches lie, where the walk would widen and travel to them.
   */
  GRAPH_OR_SCAN: 5,
} as const;

/** Which records a request's distances come from. */
export const SCORER = {
  /** What the traversal runs on: the compact codes when the index has them, else the full vectors. */
  TRAVERSE: 0,
  /** Full vectors (re-rank). */
  FULL: 1,
} as const;

export class QueryState {
  query: Float32Array = new Float32Array(0);
  k = 10;
  ef = 10;
  /** Most candidates re-scored with full vectors (0: none; the answer then carries estimates). */
  rerank = 0;
  /** Whether the answer's distances are exact (false only for a code index asked not to re-rank). */
  exactDistances = true;
  /** Re-rank: 0 while the best k are re-scored, then one stage per round of bound-selected candidates. */
  rerankStage = 0;
  /** Re-rank: the first pool entry not yet selected or dropped (entries up to rerankCap are candidates). */
  undecidedAt = 0;
  /** Skip re-scoring candidates the code's error bound rules out (off: re-score all up to the cap). */
  pruneByBound = true;
  rerankCap = 0;
  phase: number = PHASE.START;
  cur = 0;
  curDist = 0;
  level = 0;
  /** The level-0 beam (beam.ts), sorted nearest first. */
  readonly beam = new Beam(256);
  /** ≥ 0: the beam is already in the pool, this many (the fused traversal put it there); -1: it is in `beam`. */
  sortedBeam = -1;
  private visitedSet: VisitedSet | DenseVisited | null = null;
  private readonly denseNodes: number;

  /** The pending request: n ids whose distances (from `scorer`) the driver writes into dist. */
  scorer: number = SCORER.TRAVERSE;
  n = 0;
  readonly ids: Int32Array;
  readonly dist: Float32Array;

  /** Re-rank pool, best first: ids, approximate distances, then exact ones; `at` is the next to send. */
  poolIds = new Int32Array(64);
  poolD = new Float64Array(64);
  poolN = 0;
  poolAt = 0;

  /** The answer, nearest first. */
  resultIds = new Int32Array(0);
  resultD = new Float32Array(0);

  /** Per-query counters (see STAT) and the modelled CXL time not yet stalled for. */
  readonly stats = new Float64Array(STAT_FIELDS);
  owedNs = 0;
  /**
   * Foreseeing: the candidate taken from the frontier one step ahead, whose neighbour list is being
   * fetched, with its distance and list bytes (Traversal.expand expands it next).
   */
  foreseen = -1;
  foreseenD = 0;
  foreseenBytes = 0;
  /**
   * A LINKED walk fetches a foreseen node's filter-link lists with its neighbour list: where its
   * lists in the covering blocks start (FilterLinks.listsIn), and those of the node being expanded.
   */
  foreseenLinks = new Int32Array(0);
  foreseenLinkN = 0;
  expandLinks = new Int32Array(0);
  expandLinkN = 0;
  /** Live re-tiering: the query counts its CXL-range list reads (list-pool.ts), and how many dirtied a CXL line. */
  countLists = false;
  counted = 0;
  /** Driver bookkeeping: which slot the query's scratch lives in, and the query's number in its task. */
  slot = -1;
  tag = -1;
  /** The scorer epoch the query's prepared forms carry (Scorer.nextEpoch, set by the driver). */
  epoch = 0;
  /** The query is to run as one fused WASM traversal (fused-traversal.ts) before any JS step. */
  fusedPending = false;
  /**
   * The unfiltered beam scores only the neighbours whose list-code estimate (list-code-store.ts)
   * could enter it: this query's lookup table, its offset and scale, and a hop's estimates.
   */
  lcOn = false;
  lcLut = new Uint8Array(0);
  lcLo = 0;
  lcScale = 1;
  lcEst = new Uint16Array(0);

  /** A filtered query's bitset of matching nodes (bit n of word n >> 5), or null. */
  filter: Uint32Array | null = null;
  plan: number = FILTER_PLAN.NONE;
  /** The scan's value runs (index/tiered/value-runs.ts): their count, then three words a run; null: none. */
  runs: Uint32Array | null = null;
  /** The LINKED walk's blocks (index/filter-links/link-cover.ts), null: none. */
  links: Uint32Array | null = null;
  /** The LINKED walk has yet to request its blocks' entries. */
  linkSeeds = false;
  /** Matching nodes in the bitset: the walk falls back to the scan when it finds fewer than k of them. */
  matched = 0;
  /** The filtered walk's beam width (walk-ef.ts): ef, widened where the filter is scarce at the entry. */
  walkEf = 0;
  /** A seeded walk's level-0 ef (walkEf is the level-1 walk's meanwhile). */
  seedEf = 0;
  /** A seeded level-0 walk: non-matches nearer than its nearest match (`nearestMatch`) are left out. */
  hole = false;
  nearestMatch = Number.POSITIVE_INFINITY;
  /**
   * A plain walk of a filter of most points that may still turn seeded (Traversal.reseed): its entry
   * showed no gap, but the walk may find the query inside one.
   */
  mayReseed = false;
  /** Non-matches the plain walk expanded while each was nearer than every match it had found. */
  holeHops = 0;
  /** A GRAPH_OR_SCAN query (plan holds GRAPH): a scarce entry turns its walk into the scan, or the links' walk. */
  scanIfScarce = false;
  /** How much scarcer than in the index the matches must be at the entry to count as scarce (walk-ef.ts). */
  scarceDivisor = 0;
  /** The scan's word of the bitset, and its bits not yet sent. */
  scanWord = 0;
  scanMask = 0;
  /** The filtered walk's frontier (every node scored, nearest first). */
  readonly frontier = new MinHeap();
  /** The filtered walk's and the scan's best matches so far (the farthest on top). */
  matches = new MaxHeap(64);

  /** nodes > 0 asks for a dense visited set over that many nodes (one query at a time per thread). */
  constructor(batchMax: number, nodes = 0) {
    this.denseNodes = nodes > 0 && nodes <= DENSE_VISITED_MAX_NODES ? nodes : 0;
    this.ids = new Int32Array(batchMax);
    this.dist = new Float32Array(batchMax);
  }

  /**
   * The JS steps' visited set, made on first use: a searcher whose queries all run fused (their
   * visited tags live in its lane) never pays the dense set's 2 bytes per node.
   */
  get visited(): VisitedSet | DenseVisited {
    this.visitedSet ??= this.denseNodes > 0 ? new DenseVisited(this.denseNodes) : new VisitedSet();
    return this.visitedSet;
  }

  /**
   * Re-rank: the k smallest exact distances so far, the k-th on top. Kept as they arrive, so each
   * stage reads the k-th at once instead of re-selecting it from everything re-scored; a heap keeps
   * that O(log k) per distance for any k (a pool of thousands meets a k in the thousands).
   */
  best = new MaxHeap(64);

  /** Empties the k-best heap, sized for k. */
  resetBest(k: number): void {
    if (this.best.d.length < k + 1) this.best = new MaxHeap(Math.max(k + 1, 2 * this.best.d.length));
    this.best.size = 0;
  }

  /** Adds an exact distance to the k-best heap (k as given to resetBest). */
  offerBest(d: number, k: number): void {
    const best = this.best;
    if (best.size < k) best.push(d, 0);
    else if (d < best.d[0]!) {
      best.pop();
      best.push(d, 0);
    }
  }

  /** The k-th smallest exact distance so far, or +∞ with fewer than k. */
  kthBest(k: number): number {
    return this.best.size === k ? this.best.d[0]! : Number.POSITIVE_INFINITY;
  }

  ensurePool(n: number): void {
    if (this.poolIds.length < n) {
      this.poolIds = new Int32Array(n);
      this.poolD = new Float64Array(n);
    }
  }
}
