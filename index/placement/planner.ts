// The DRAM budget planner. Given a budget it (1) keeps the upper layers, which every search starts
// in, (2) picks the most precise code whose rows for every node fit what is left (with the wider
// padding of codeDims when those rows fit too), (3) keeps whole value runs of the keyword values worth
// them (index/tiered/value-runs.ts), and (4) spends the
// rest on the neighbour lists of the most visited nodes, then, only once every list is in DRAM, on
// full vectors. A share of the list budget (poolShare) is a promotion pool instead of a fixed
// prefix: slots that live re-tiering (list-pool.ts) refills with whichever CXL lists the real load
// visits most, plus the pool's lookup table. (Access counts live in the lists' own records, in CXL.) Neighbour lists are placed apart from vectors, so about 5× more hot nodes fit than
// with whole records. Without a code (--codes none) the unit is the whole record (list + vector),
// as CXL-ANNS places it: the full-precision baseline.
import { StrataError } from '../../common/errors.js';
import { type CodeKind, codeCentroids, codeDims, codeHeadBytes, codeRowBytes, MIN_CENTROIDS } from '../codes/index.js';
import { RUN_BUDGET_SHARE, reservedRunBytes } from '../tiered/value-runs.js';

/** Codes from the most precise to the smallest: auto takes the first that fits. */
export const CODE_PREFERENCE: readonly CodeKind[] = ['sq8', 'rq4', 'rq3', 'rq2'];

export interface PlannerInput {
  count: number;
  dim: number;
  metric: 'l2' | 'ip';
  maxM0: number;
  /** Bytes of the upper layers (links and their index): always in DRAM. */
  upperBytes: number;
  budgetBytes: number;
  codes: CodeKind | 'none' | 'auto';
  /**
   * What a code asked for that does not fit the budget gets: refused (the default: `strata build
   * --codes`), another picked as 'auto' would (a compaction keeping its base's code), or kept over
   * the budget (a compaction keeping the code its collection's quantization_config asked for). The
   * reason says which.
   */
  whenCodeMisses?: CodeMiss;
  /** Share of the neighbour-list budget given to the promotion pool (0: every DRAM list is in the fixed prefix). */
  poolShare?: number;
  /** Bytes of the payload indexes the base is built with: hot (every filter reads them), so always in DRAM. */
  payloadIndexBytes?: number;
  /** Points of each keyword value worth a run (index/tiered/value-runs.ts runValues): its codes side by side, for the scan. */
  runValues?: readonly number[];
  /** Most of the budget value runs take (default RUN_BUDGET_SHARE). */
  runShare?: number;
}

export type CodeMiss = 'refuse' | 'pick' | 'overspend';

/** The list budget's share that moves with the live load unless a build says otherwise. */
export const DEFAULT_POOL_SHARE = 0.2;
/** Pool bytes per slot beyond its list: two lookup-table entries of 8 bytes (the table stays at most half full) and its tenant's id. */
export const POOL_SLOT_OVERHEAD = 20;

export interface BudgetPlan {
  budgetBytes: number;
  code: CodeKind | null;
  codeRowBytes: number;
  /** Coded dimensions (codeDims): the wider padding when its rows fit too; 0 without a code. */
  codeDims: number;
  /** Centroids an rq code trains (fewer than its default when those would not fit the budget); 0 otherwise. */
  codeCentroids: number;
  /** Neighbour lists and full vectors of the first nodes (in placement order) held in DRAM. */
  adjacencyInDram: number;
  vectorsInDram: number;
  /** Promotion pool slots (list-pool.ts): DRAM copies of CXL lists that follow the live load. */
  poolLists: number;
  dram: { upper: number; payloadIndexes: number; codes: number; runs: number; adjacency: number; pool: number; vectors: number; total: number };
  cxl: { adjacency: number; vectors: number; labels: number; total: number };
  /** What a full-precision index of this graph takes (the base a percentage budget refers to). */
  fullPrecisionBytes: number;
  reason: string;
  /**
   * The planner picked no code though one was wanted (codes auto, the index over the budget at full
   * precision), because what is set aside first left too little: the budget that holds the
   * smallest code beside it. Null otherwise.
   */
  codeBudgetBytes: number | null;
}

export const LABEL_BYTES = 8;

export function adjacencyRowBytes(maxM0: number): number {
  return 4 * (1 + maxM0);
}

/** Bytes of the index at full precision: vectors, neighbour lists, labels and upper layers. */
export function fullPrecisionBytes(i: Pick<PlannerInput, 'count' | 'dim' | 'maxM0' | 'upperBytes'>): number {
  return i.count * (4 * i.dim + adjacencyRowBytes(i.maxM0) + LABEL_BYTES) + i.upperBytes;
}

export function planBudget(i: PlannerInput): BudgetPlan {
  const n = i.count;
  const adj = adjacencyRowBytes(i.maxM0);
  const vec = 4 * i.dim;
  const full = fullPrecisionBytes(i);
  // Every search starts in the upper layers, so they are never placed in CXL: a budget below them
  // cannot be honoured, and saying so beats a plan that silently overspends.
  if (i.budgetBytes < i.upperBytes) {
    throw new StrataError(
      'STRATA_DRAM_BUDGET',
      `the DRAM budget of ${i.budgetBytes} bytes is below the ${i.upperBytes} bytes of the upper layers, which always stay in DRAM: raise --dram-budget`,
      { budget: String(i.budgetBytes), needed: i.upperBytes },
    );
  }
  // The payload indexes stay in DRAM too (a filter reads them before any graph step), but a small
  // collection's fixed-size index parts can outweigh a percentage budget: they are set aside, and
  // the plan says by how much they overspend it rather than refuse the build.
  const payloadIndexes = i.payloadIndexBytes ?? 0;
  const reserved = i.upperBytes + payloadIndexes;
  const free = Math.max(0, i.budgetBytes - reserved);
  /**
   * Centroids an rq code trains: the default count, halved while they do not fit beside its rows
   * (a small set's 256 centroids can be a fifth of a 10% budget: 13 of 66 bytes per vector on SIFT
   * 10k), down to MIN_CENTROIDS, where the code either fits or does not; 0 for sq8.
   */
  const centroidsFor = (k: CodeKind, wide: boolean): number => {
    const rows = n * codeRowBytes(k, i.dim, i.metric, wide);
    const floor = Math.min(MIN_CENTROIDS, codeCentroids(k, n));
    let c = codeCentroids(k, n);
    while (c > floor && rows + codeHeadBytes(k, n, i.dim, c) > free) c = Math.max(floor, c >> 1);
    return c;
  };
  /** A code's DRAM: a row per vector and its head (the centroids the kernel reads). */
  const codeBytes = (k: CodeKind, wide: boolean): number => n * codeRowBytes(k, i.dim, i.metric, wide) + codeHeadBytes(k, n, i.dim, centroidsFor(k, wide));
  let code: CodeKind | null = null;
  let codeBudgetBytes: number | null = null;
  let reason: string;
  if (i.codes === 'none') {
    reason = 'no code: whole records (neighbour list + vector) of the most visited nodes in DRAM';
  } else if (i.codes === 'auto' && i.budgetBytes >= full + payloadIndexes) {
    reason = 'no code: the whole index fits the budget at full precision';
  } else if (i.codes === 'auto' || (i.whenCodeMisses === 'pick' && reserved + codeBytes(i.codes, false) > i.budgetBytes)) {
    code = CODE_PREFERENCE.find((k) => codeBytes(k, false) <= free) ?? null;
    const smallest = CODE_PREFERENCE[CODE_PREFERENCE.length - 1]!;
    if (code === null) codeBudgetBytes = reserved + codeBytes(smallest, false);
    reason =
      code !== null
        ? `${code}: the most precise code whose rows for all ${n} vectors (and its parameters) fit the budget after the upper layers`
        : `no code: even ${smallest} (${codeBytes(smallest, false)} bytes) does not fit the ${free} bytes left after the upper layers; whole records of the most visited nodes in DRAM`;
    if (i.codes !== 'auto') reason += ` (${i.codes}, the code asked for, no longer fits)`;
  } else {
    code = i.codes;
    const need = reserved + codeBytes(code, false);
    if (need > i.budgetBytes && i.whenCodeMisses !== 'overspend') {
      throw new StrataError(
        'STRATA_DRAM_BUDGET',
        `--codes ${code} needs ${need} bytes of DRAM for ${n} vectors and the upper layers; the budget is ${i.budgetBytes}: raise --dram-budget or pick a smaller code`,
        { budget: String(i.budgetBytes), needed: need },
      );
    }
    reason = need > i.budgetBytes ? `${code}: as asked, ${need - i.budgetBytes} bytes over the budget` : `${code}: as asked`;
  }
  // A code that fits may widen its padding when the wider rows fit too (codeDims: more precision at
  // the same kernel cost; the neighbour lists get what is left either way).
  // Widening never costs centroids: only with the default count's parameters fitting too.
  const wide = code !== null && n * codeRowBytes(code, i.dim, i.metric, true) + codeHeadBytes(code, n, i.dim) <= free;
  const rowBytes = code ? codeRowBytes(code, i.dim, i.metric, wide) : 0;
  const dims = code ? codeDims(code, i.dim, wide) : 0;
  const codesDram = code ? codeBytes(code, wide) : 0;
  const centroids = code ? centroidsFor(code, wide) : 0;
  // (Below zero only for a code kept over the budget: nothing else then goes to DRAM.)
  let left = Math.max(0, free - codesDram);
  // Value runs come before the hot lists, whole ones up to RUN_BUDGET_SHARE of the budget: a filter
  // scan reads a run's codes in one stream, at about half the time of the same codes scattered.
  const runs = code !== null ? reservedRunBytes(i.runValues ?? [], rowBytes, Math.min(Math.floor((i.runShare ?? RUN_BUDGET_SHARE) * i.budgetBytes), left)) : 0;
  left -= runs;
  let hot: number;
  let vectorsInDram: number;
  if (code === null) {
    hot = Math.min(n, Math.floor(left / (adj + vec)));
    vectorsInDram = hot;
    left -= hot * (adj + vec);
  } else {
    hot = Math.min(n, Math.floor(left / adj));
    left -= hot * adj;
    vectorsInDram = hot === n ? Math.min(n, Math.floor(left / vec)) : 0;
    left -= vectorsInDram * vec;
  }
  // The pool: only when some lists stay in CXL (else there is nothing to promote). A slot costs its
  // list and POOL_SLOT_OVERHEAD; the prefix keeps the rest.
  let poolLists = 0;
  let poolBytes = 0;
  const share = Math.min(0.9, Math.max(0, i.poolShare ?? 0));
  if (code !== null && hot < n && share > 0) {
    const lists = hot * adj + left;
    const slotBytes = adj + POOL_SLOT_OVERHEAD;
    const p = Math.floor((share * lists) / slotBytes);
    const h = Math.floor((lists - p * slotBytes) / adj);
    if (p > 0 && h + p < n) {
      poolLists = p;
      hot = h;
      poolBytes = p * slotBytes;
    }
  }
  if (runs > 0) reason += `; ${runs} bytes of value runs for filtered scans`;
  if (payloadIndexes > 0)
    reason += `; ${payloadIndexes} bytes of payload indexes set aside first${reserved > i.budgetBytes ? `, ${reserved - i.budgetBytes} over the budget` : ''}`;
  const dram = { upper: i.upperBytes, payloadIndexes, codes: codesDram, runs, adjacency: hot * adj, pool: poolBytes, vectors: vectorsInDram * vec, total: 0 };
  dram.total = dram.upper + dram.payloadIndexes + dram.codes + dram.runs + dram.adjacency + dram.pool + dram.vectors;
  const cxl = { adjacency: (n - hot) * adj, vectors: (n - vectorsInDram) * vec, labels: n * LABEL_BYTES, total: 0 };
  cxl.total = cxl.adjacency + cxl.vectors + cxl.labels;
  return {
    budgetBytes: i.budgetBytes,
    code,
    codeRowBytes: rowBytes,
    codeDims: dims,
    codeCentroids: centroids,
    adjacencyInDram: hot,
    vectorsInDram,
    poolLists,
    dram,
    cxl,
    fullPrecisionBytes: full,
    reason,
    codeBudgetBytes,
  };
}

/** Upper-layer bytes of a graph whose nodes have these levels (see upper-layers.ts). */
export function upperLayersBytesFor(levels: Uint8Array, maxM: number): number {
  let nodes = 0;
  let words = 0;
  for (let v = 0; v < levels.length; v++) {
    const l = levels[v]!;
    if (l === 0) continue;
    nodes++;
    words += l * (1 + maxM);
  }
  return nodes * 9 + 4 * words;
}
