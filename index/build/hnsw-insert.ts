// HNSW insertion (Malkov & Yashunin) on every build thread at once, in batches: one thread's part
// of the parallel builder (parallel-graph.ts). A batch's nodes first each search the graph as it
// stood before the batch (a greedy descent through the levels above their own, then per level a beam
// of width ef_construction) and choose their links by the HNSW heuristic; then their lists are
// written, and each reverse link is added to its neighbour, which the heuristic prunes when full.
// Nothing is read while it is written, so no lock is needed, and the graph depends on the seed
// alone, never on the number of threads or how they interleave: the parts of the second step are
// split by the node written to, and each node takes its reverse links in the batch's order.
//
// The nodes of one batch do not see each other; batches grow with the graph (BATCH_SHARE of it, up
// to MAX_BATCH), so that a node misses only a small share of the nodes inserted before it.
import { INSERT } from '../kernels/insert-control.js';
import type { RowScorer, SharedRows } from '../kernels/row-scorer.js';
import { MaxHeap, MinHeap } from '../search/heaps.js';
import { bindLevel0, type Level0Search } from './insert-block.js';

/** Slots of SharedGraph.state: the entry and top level, the next node to choose for, the barrier. */
export const STATE = { entry: 0, maxLevel: 1, next: 2, arrived: 3, generation: 4 } as const;
export const STATE_SLOTS = 5;

/** A batch is this share of the nodes already in the graph, at least one and at most MAX_BATCH. */
export const BATCH_SHARE = 0.01;
export const MAX_BATCH = 1024;

/** Where the batch that starts at position start of the order ends. */
export const batchEnd = (start: number, count: number): number => Math.min(count, start + Math.max(1, Math.min(MAX_BATCH, Math.floor(start * BATCH_SHARE))));

/** The graph under construction, in shared memory (every array over a SharedArrayBuffer). */
export interface SharedGraph {
  readonly count: number;
  readonly dim: number;
  readonly maxM: number;
  readonly maxM0: number;
  readonly efConstruction: number;
  readonly kind: 'l2' | 'ip';
  /** Each node's level, drawn before the build. */
  readonly levels: Uint8Array;
  /** count × (1 + maxM0): [degree, ids…]. */
  readonly level0: Uint32Array;
  /** Where a node's upper-level blocks (levels 1..L, 1 + maxM u32 each) start in upperLinks; -1 on level 0 only. */
  readonly upperOffset: Int32Array;
  readonly upperLinks: Uint32Array;
  readonly state: Int32Array;
  /** Threads taking part (each runs Inserter.run). */
  readonly threads: number;
  /** The highest level drawn. */
  readonly topLevel: number;
  /** The links each node of a batch chose: MAX_BATCH × (topLevel + 1) blocks of [count, ids…] (1 + maxM). */
  readonly picks: Uint32Array;
  /** The insertion order; order[0] is the first entry point, in place before any thread starts. */
  readonly order: Uint32Array;
  /** Where thread t's block (threadBlockBytes) starts in the rows' shared memory: blocksAt + t × blockBytes. */
  readonly blocksAt: number;
  readonly blockBytes: number;
}

/** Waits until every thread has arrived (a generation count, so that it can be passed again at once). */
function barrier(state: Int32Array, threads: number): void {
  const generation = Atomics.load(state, STATE.generation);
  if (Atomics.add(state, STATE.arrived, 1) === threads - 1) {
    Atomics.store(state, STATE.arrived, 0);
    Atomics.add(state, STATE.generation, 1);
    Atomics.notify(state, STATE.generation);
    return;
  }
  while (Atomics.load(state, STATE.generation) === generation) Atomics.wait(state, STATE.generation, generation);
}

export class Inserter {
  private readonly visited: Uint16Array;
  private readonly wasm: Level0Search | null;
  private readonly rowsAt: number;
  private epoch = 0;
  private readonly frontier = new MinHeap();
  private readonly best: MaxHeap;
  /** Ids read from a list or gathered for scoring. */
  private readonly ids: Uint32Array;
  /** The beam's result, nearest first. */
  private readonly found: Uint32Array;
  private readonly foundD: Float32Array;
  /** The heuristic's choice. */
  private readonly chosen: Uint32Array;
  private readonly pruneD: Float32Array;
  private readonly pruneOrder: Uint32Array;
  private readonly pruneIds: Uint32Array;
  private readonly pruneCand: Uint32Array;
  private readonly pruneCandD: Float64Array;
  /** A rewritten list's choice (apart from chosen). */
  private readonly kept: Uint32Array;

  /** Thread `thread` of the build: its scorer over the shared rows, its block, and WASM for level 0 unless `js`. */
  constructor(
    private readonly g: SharedGraph,
    private readonly scorer: RowScorer,
    rows: SharedRows,
    private readonly thread: number,
    js = false,
  ) {
    const bound = bindLevel0(g, rows, thread);
    this.wasm = js ? null : bound.search;
    this.visited = bound.visited;
    this.found = bound.found;
    this.foundD = bound.foundD;
    this.rowsAt = rows.rowsAt;
    const ef = Math.max(g.efConstruction, g.maxM0);
    this.best = new MaxHeap(ef + 1);
    this.ids = new Uint32Array(g.maxM0 + 1);
    this.chosen = new Uint32Array(g.maxM0 + 1);
    this.pruneD = new Float32Array(g.maxM0 + 1);
    this.pruneOrder = new Uint32Array(g.maxM0 + 1);
    this.pruneIds = new Uint32Array(g.maxM0 + 1);
    this.pruneCand = new Uint32Array(g.maxM0 + 1);
    this.pruneCandD = new Float64Array(g.maxM0 + 1);
    this.kept = new Uint32Array(g.maxM0 + 1);
  }

  /** The u32 array and index of node's list at level (its degree word; ids follow). */
  private listArray(level: number): Uint32Array {
    return level === 0 ? this.g.level0 : this.g.upperLinks;
  }
  private listAt(node: number, level: number): number {
    const g = this.g;
    return level === 0 ? node * (1 + g.maxM0) : g.upperOffset[node]! + (level - 1) * (1 + g.maxM);
  }

  /** Takes this thread's part in every batch until the order is done; thread 0 also moves the entry. */
  run(): void {
    const g = this.g;
    const thread = this.thread;
    const { state, order, count, threads } = g;
    for (let start = 1; start < count; ) {
      const end = batchEnd(start, count);
      for (;;) {
        const i = Atomics.add(state, STATE.next, 1);
        if (i >= end) break;
        this.choose(i - start, order[i]!);
      }
      barrier(state, threads);
      for (let i = start + thread; i < end; i += threads) this.writeOwn(i - start, order[i]!);
      for (let i = start; i < end; i++) this.addReverses(i - start, order[i]!, thread);
      if (thread === 0) {
        for (let i = start; i < end; i++) {
          const q = order[i]!;
          if (g.levels[q]! > state[STATE.maxLevel]!) {
            state[STATE.entry] = q;
            state[STATE.maxLevel] = g.levels[q]!;
          }
        }
        Atomics.store(state, STATE.next, end);
      }
      barrier(state, threads);
      start = end;
    }
  }

  /** Where batch slot j's choice at level starts in picks. */
  private pickAt(j: number, level: number): number {
    const g = this.g;
    return (j * (g.topLevel + 1) + level) * (1 + g.maxM);
  }

  /** Chooses q's links on every level it has, from the graph as the batch found it, into batch slot j. */
  private choose(j: number, q: number): void {
    const g = this.g;
    const picks = g.picks;
    const level = g.levels[q]!;
    let ep = g.state[STATE.entry]!;
    const top = g.state[STATE.maxLevel]!;
    let epD = this.scorer.scoreRows(q, [ep], 1, g.kind)[0]!;
    for (let l = top; l > level; l--) {
      const r = this.greedy(q, ep, epD, l);
      ep = r.node;
      epD = r.dist;
    }
    for (let l = level; l > top; l--) picks[this.pickAt(j, l)] = 0;
    for (let l = Math.min(level, top); l >= 0; l--) {
      const n = this.searchLevel(q, ep, epD, l);
      const at = this.pickAt(j, l);
      const m = this.heuristic(this.found, this.foundD, n, g.maxM, this.chosen);
      picks[at] = m;
      for (let k = 0; k < m; k++) picks[at + 1 + k] = this.chosen[k]!;
      ep = this.found[0]!;
      epD = this.foundD[0]!;
    }
  }

  /** Writes q's own lists from batch slot j. */
  private writeOwn(j: number, q: number): void {
    const picks = this.g.picks;
    for (let l = this.g.levels[q]!; l >= 0; l--) {
      const from = this.pickAt(j, l);
      const a = this.listArray(l);
      const at = this.listAt(q, l);
      const m = picks[from]!;
      for (let k = 0; k <= m; k++) a[at + k] = picks[from + k]!;
    }
  }

  /** Adds q (batch slot j) to the lists of the neighbours it chose that are this thread's to write. */
  private addReverses(j: number, q: number, thread: number): void {
    const { picks, threads } = this.g;
    for (let l = this.g.levels[q]!; l >= 0; l--) {
      const from = this.pickAt(j, l);
      const m = picks[from]!;
      for (let k = 1; k <= m; k++) {
        const s = picks[from + k]!;
        if (s % threads === thread) this.addReverse(s, q, l);
      }
    }
  }

  /** Copies node's list at level into this.ids. */
  private readList(node: number, level: number): number {
    const a = this.listArray(level);
    const at = this.listAt(node, level);
    const deg = a[at]!;
    for (let j = 0; j < deg; j++) this.ids[j] = a[at + 1 + j]!;
    return deg;
  }

  private greedy(q: number, node: number, dist: number, level: number): { node: number; dist: number } {
    for (let moved = true; moved; ) {
      moved = false;
      const n = this.readList(node, level);
      if (n === 0) break;
      const d = this.scorer.scoreRows(q, this.ids, n, this.g.kind);
      let next = node;
      for (let j = 0; j < n; j++) {
        if (d[j]! < dist) {
          dist = d[j]!;
          next = this.ids[j]!;
        }
      }
      if (next !== node) {
        node = next;
        moved = true;
      }
    }
    return { node, dist };
  }

  /**
   * The beam of width ef_construction at level from ep: its nodes nearest first in found / foundD;
   * their count. Level 0 runs in WASM where it can (hnsw-search.as.ts, this loop's twin).
   */
  private searchLevel(q: number, ep: number, epD: number, level: number): number {
    const ef = this.g.efConstruction;
    if (++this.epoch === 0x10000) {
      this.visited.fill(0);
      this.epoch = 1;
    }
    const epoch = this.epoch;
    const visited = this.visited;
    visited[q] = epoch;
    const w = this.wasm;
    if (level === 0 && w !== null) {
      const at = w.block >>> 2;
      w.u32[at + (INSERT.query >>> 2)] = this.rowsAt + 4 * this.g.dim * q;
      w.u32[at + (INSERT.epoch >>> 2)] = epoch;
      w.u32[at + (INSERT.entry >>> 2)] = ep;
      w.f32[at + (INSERT.entryD >>> 2)] = epD;
      return w.run(w.block);
    }
    const frontier = this.frontier;
    const best = this.best;
    frontier.size = 0;
    best.size = 0;
    visited[ep] = epoch;
    frontier.push(epD, ep);
    best.push(epD, ep);
    const a = this.listArray(level);
    const ids = this.ids;
    while (frontier.size > 0) {
      const cd = frontier.d[0]!;
      const c = frontier.i[0]!;
      if (best.size >= ef && cd > best.d[0]!) break;
      frontier.pop();
      const at = this.listAt(c, level);
      const deg = a[at]!;
      let m = 0;
      for (let j = 1; j <= deg; j++) {
        const nb = a[at + j]!;
        if (visited[nb] === epoch) continue;
        visited[nb] = epoch;
        ids[m++] = nb;
      }
      if (m === 0) continue;
      const d = this.scorer.scoreRows(q, ids, m, this.g.kind);
      for (let j = 0; j < m; j++) {
        const dj = d[j]!;
        if (best.size < ef || dj < best.d[0]!) {
          frontier.push(dj, ids[j]!);
          best.push(dj, ids[j]!);
          if (best.size > ef) best.pop();
        }
      }
    }
    const n = best.size;
    for (let k = n - 1; k >= 0; k--) {
      this.found[k] = best.i[0]!;
      this.foundD[k] = best.d[0]!;
      best.pop();
    }
    return n;
  }

  /**
   * The HNSW heuristic: candidates (nearest first, distances to the node in dist) kept in order
   * while none already kept is nearer to them than the node is, up to max; the count kept in out.
   */
  private heuristic(cand: ArrayLike<number>, dist: ArrayLike<number>, n: number, max: number, out: Uint32Array): number {
    let m = 0;
    for (let k = 0; k < n && m < max; k++) {
      const c = cand[k]!;
      const dc = dist[k]!;
      let keep = true;
      if (m > 0) {
        const d = this.scorer.scoreRows(c, out, m, this.g.kind);
        for (let j = 0; j < m; j++) {
          if (d[j]! < dc) {
            keep = false;
            break;
          }
        }
      }
      if (keep) out[m++] = c;
    }
    return m;
  }

  /** Adds q to s's list at level, pruning s's list by the heuristic when it is full. */
  private addReverse(s: number, q: number, level: number): void {
    const a = this.listArray(level);
    const at = this.listAt(s, level);
    const cap = level === 0 ? this.g.maxM0 : this.g.maxM;
    const deg = a[at]!;
    if (deg < cap) {
      a[at + 1 + deg] = q;
      a[at] = deg + 1;
      return;
    }
    const ids = this.pruneIds;
    for (let j = 0; j < deg; j++) ids[j] = a[at + 1 + j]!;
    ids[deg] = q;
    this.rewrite(s, level, a, at, ids, deg + 1);
  }

  /** Sets node's list at level to the heuristic's choice among ids (n of them). */
  private rewrite(node: number, level: number, a: Uint32Array, at: number, ids: Uint32Array, n: number): void {
    const cap = level === 0 ? this.g.maxM0 : this.g.maxM;
    const d = this.pruneD;
    d.set(this.scorer.scoreRows(node, ids, n, this.g.kind).subarray(0, n));
    const order = this.pruneOrder;
    for (let j = 0; j < n; j++) order[j] = j;
    const sorted = order.subarray(0, n).sort((x, y) => d[x]! - d[y]! || ids[x]! - ids[y]!);
    const cand = this.pruneCand;
    const candD = this.pruneCandD;
    for (let j = 0; j < n; j++) {
      cand[j] = ids[sorted[j]!]!;
      candD[j] = d[sorted[j]!]!;
    }
    const m = this.heuristic(cand, candD, n, cap, this.kept);
    for (let j = 0; j < m; j++) a[at + 1 + j] = this.kept[j]!;
    a[at] = m;
  }
}
