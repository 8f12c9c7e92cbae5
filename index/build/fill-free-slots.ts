// hnswlib's neighbour selection (the HNSW heuristic, DiskANN's RobustPrune at α = 1) leaves about a
// third of the level-0 slots empty on hard data (GloVe: 21.5 of 32 used). The layout gives every
// list its full stride anyway, so those slots cost no memory: filling them with two-hop neighbours
// that pass the same test relaxed by α (kept unless an already listed neighbour is α times nearer
// to it, in Euclidean distance, than the node is) adds the longer links DiskANN's α > 1 keeps, and a search then reaches a
// given recall at a smaller ef (docs/benchmarks.md, "Filling the free slots").
import { availableParallelism } from 'node:os';
import { distWorker, runWorker } from '../../common/run-worker.js';
import type { GraphImage } from '../graph/graph-image.js';
import type { Metric } from '../kernels/kernels.js';
import { RowScorer, type SharedRows, shareRows } from '../kernels/row-scorer.js';

/** The default α: the best of 1.1 / 1.2 / 1.3 at equal recall on GloVe (docs/benchmarks.md). */
export const DEFAULT_FILL_ALPHA = 1.1;

export interface FillResult {
  alpha: number;
  linksAdded: number;
  /** Mean level-0 degree before and after. */
  degreeBefore: number;
  degreeAfter: number;
}

/** Nodes a thread takes at a time: blocks go round the threads, so that every thread meets every region of the graph. */
const FILL_BLOCK = 1024;

/** One thread's share of a fill: what it reads, where it writes and its place in the rota. */
export interface FillPart {
  /** The lists as built (count × (1 + maxM0)), read by every thread. */
  readonly built: Uint32Array;
  /** Where the filled lists go: each thread writes its own nodes' lists only. */
  readonly level0: Uint32Array;
  readonly count: number;
  readonly maxM0: number;
  readonly kind: 'l2' | 'ip';
  readonly alpha: number;
  readonly thread: number;
  readonly threads: number;
}

/** Candidates a node may meet at once: its two-hop neighbours. */
export const fillPick = (maxM0: number): number => Math.max(maxM0 * maxM0, maxM0);

/**
 * Fills the free slots of this part's nodes (blocks thread, thread + threads, …), scoring with
 * `scorer` over the graph's vectors; the links added and the degree sum before.
 */
export function fillPart(p: FillPart, scorer: RowScorer): { added: number; before: number } {
  const { built, level0, count, maxM0, kind } = p;
  const stride = 1 + maxM0;
  // α is DiskANN's, on Euclidean distance; both scores here are squared Euclidean (1 - cos is half
  // of it for unit vectors), so the test compares with α².
  const a2 = p.alpha * p.alpha;
  // A node meets at most maxM0² two-hop candidates; only the nearest 2·maxM0 are tried.
  const tries = 2 * maxM0;
  const stamp = new Int32Array(count).fill(-1);
  const cand = new Uint32Array(maxM0 * maxM0);
  const order = new Uint32Array(maxM0 * maxM0);
  const candD = new Float32Array(maxM0 * maxM0);
  const cutD = new Float32Array(maxM0 * maxM0);
  const sel = new Uint32Array(maxM0);
  let added = 0;
  let before = 0;
  for (let from = p.thread * FILL_BLOCK; from < count; from += p.threads * FILL_BLOCK) {
    for (let u = from; u < Math.min(count, from + FILL_BLOCK); u++) {
      const deg = built[u * stride]!;
      before += deg;
      if (deg >= maxM0 || deg === 0) continue;
      stamp[u] = u;
      for (let j = 1; j <= deg; j++) {
        sel[j - 1] = built[u * stride + j]!;
        stamp[sel[j - 1]!] = u;
      }
      let n = 0;
      for (let j = 0; j < deg; j++) {
        const v = sel[j]!;
        for (let i = 1; i <= built[v * stride]!; i++) {
          const w = built[v * stride + i]!;
          if (stamp[w] === u) continue;
          stamp[w] = u;
          cand[n++] = w;
        }
      }
      if (n === 0) continue;
      candD.set(scorer.scoreRows(u, cand, n, kind));
      // Only the nearest `tries` are wanted in order: the cut found by a native sort of the distances
      // alone, then those within it sorted (distance, then id). A comparator sort of all n cost the
      // fill a fifth of its time.
      const take = Math.min(n, tries);
      const cut = cutD.subarray(0, n);
      cut.set(candD.subarray(0, n));
      const last = cut.sort()[take - 1]!;
      let within = 0;
      for (let i = 0; i < n; i++) if (candD[i]! <= last) order[within++] = i;
      const byDistance = order.subarray(0, within).sort((a, b) => candD[a]! - candD[b]! || cand[a]! - cand[b]!);
      let m = deg;
      for (let t = 0; t < take && m < maxM0; t++) {
        const w = cand[byDistance[t]!]!;
        const dw = candD[byDistance[t]!]!;
        const toListed = scorer.scoreRows(w, sel, m, kind);
        let keep = true;
        for (let j = 0; j < m; j++) {
          if (a2 * toListed[j]! <= dw) {
            keep = false;
            break;
          }
        }
        if (!keep) continue;
        sel[m++] = w;
        level0[u * stride + m] = w;
      }
      level0[u * stride] = m;
      added += m - deg;
    }
  }
  return { added, before };
}

/**
 * Fills the free level-0 slots of every node, in place, with its two-hop neighbours that pass the
 * α-relaxed test, nearest first. Every node decides from the lists as built, so the result does not
 * depend on the order nodes are visited in, nor on how many threads share them (`threads`, default
 * every core: this thread and threads - 1 workers over one shared copy of the vectors).
 */
export async function fillFreeSlots(g: GraphImage, metric: Metric, alpha: number, threads = availableParallelism()): Promise<FillResult> {
  const kind = metric === 'l2' ? 'l2' : 'ip';
  const t = Math.max(1, Math.min(threads, Math.ceil(g.count / FILL_BLOCK)));
  const pick = fillPick(g.maxM0);
  const part = (thread: number, built: Uint32Array, level0: Uint32Array): FillPart => ({
    built,
    level0,
    count: g.count,
    maxM0: g.maxM0,
    kind,
    alpha,
    thread,
    threads: t,
  });
  let sum: { added: number; before: number };
  if (t === 1) {
    sum = fillPart(part(0, g.level0.slice(), g.level0), new RowScorer(g.vectors, g.dim, pick));
  } else {
    const shared = shareRows(g.vectors, g.dim, pick, t);
    const built = new Uint32Array(new SharedArrayBuffer(g.level0.byteLength));
    built.set(g.level0);
    const out = new Uint32Array(new SharedArrayBuffer(g.level0.byteLength));
    out.set(g.level0);
    const workers = Array.from({ length: t - 1 }, (_, i) => runFillWorker({ shared, part: part(i + 1, built, out) }));
    const own = fillPart(part(0, built, out), new RowScorer({ shared, thread: 0 }, g.dim, pick));
    const parts = [own, ...(await Promise.all(workers))];
    sum = { added: parts.reduce((a, p) => a + p.added, 0), before: parts.reduce((a, p) => a + p.before, 0) };
    g.level0.set(out);
  }
  const n = Math.max(1, g.count);
  return { alpha, linksAdded: sum.added, degreeBefore: sum.before / n, degreeAfter: (sum.before + sum.added) / n };
}

/** What a fill worker receives (fill-worker.ts). */
export interface FillWorkerInput {
  shared: SharedRows;
  part: FillPart;
}

const runFillWorker = (input: FillWorkerInput): Promise<{ added: number; before: number }> =>
  runWorker(distWorker('index', 'build', 'fill-worker.js'), input, 'fill worker');
