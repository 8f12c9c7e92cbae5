// hnswlib's neighbour selection (the HNSW heuristic, DiskANN's RobustPrune at α = 1) leaves about a
// third of the level-0 slots empty on hard data (GloVe: 21.5 of 32 used). The layout gives every
// list its full stride anyway, so those slots cost no memory: filling them with two-hop neighbours
// that pass the same test relaxed by α (kept unless an already listed neighbour is α times nearer
// to it, in Euclidean distance, than the node is) adds the longer links DiskANN's α > 1 keeps, and a search then reaches a
// given recall at a smaller ef (docs/benchmarks.md, "Filling the free slots").
import type { GraphImage } from '../graph/graph-image.js';
import type { Metric } from '../kernels/kernels.js';
import { RowScorer } from '../kernels/row-scorer.js';

/** The default α: the best of 1.1 / 1.2 / 1.3 at equal recall on GloVe (docs/benchmarks.md). */
export const DEFAULT_FILL_ALPHA = 1.1;

export interface FillResult {
  alpha: number;
  linksAdded: number;
  /** Mean level-0 degree before and after. */
  degreeBefore: number;
  degreeAfter: number;
}

/**
 * Fills the free level-0 slots of every node, in place, with its two-hop neighbours that pass the
 * α-relaxed test, nearest first. Every node decides from the lists as built, so the result does not
 * depend on the order nodes are visited in, and no existing link is removed.
 */
export function fillFreeSlots(g: GraphImage, metric: Metric, alpha: number): FillResult {
  const stride = 1 + g.maxM0;
  const built = g.level0.slice();
  const kind = metric === 'l2' ? 'l2' : 'ip';
  // α is DiskANN's, on Euclidean distance; both scores here are squared Euclidean (1 - cos is half
  // of it for unit vectors), so the test compares with α².
  const a2 = alpha * alpha;
  // A node meets at most maxM0² two-hop candidates; only the nearest 2·maxM0 are tried.
  const tries = 2 * g.maxM0;
  const scorer = new RowScorer(g.vectors, g.dim, Math.max(g.maxM0 * g.maxM0, g.maxM0));
  const stamp = new Int32Array(g.count).fill(-1);
  const cand = new Uint32Array(g.maxM0 * g.maxM0);
  const order = new Uint32Array(g.maxM0 * g.maxM0);
  const candD = new Float32Array(g.maxM0 * g.maxM0);
  const sel = new Uint32Array(g.maxM0);
  let added = 0;
  let before = 0;
  for (let u = 0; u < g.count; u++) {
    const deg = built[u * stride]!;
    before += deg;
    if (deg >= g.maxM0 || deg === 0) continue;
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
    for (let i = 0; i < n; i++) order[i] = i;
    const byDistance = order.subarray(0, n).sort((a, b) => candD[a]! - candD[b]! || cand[a]! - cand[b]!);
    let m = deg;
    for (let t = 0; t < Math.min(n, tries) && m < g.maxM0; t++) {
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
      g.level0[u * stride + m] = w;
    }
    g.level0[u * stride] = m;
    added += m - deg;
  }
  return { alpha, linksAdded: added, degreeBefore: before / Math.max(1, g.count), degreeAfter: (before + added) / Math.max(1, g.count) };
}
