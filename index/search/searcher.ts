// HNSW search over the tiered layout: greedy descent through the upper layers (DRAM), then a beam
// search of width ef on level 0 that reads each node's neighbour list from the tier it lives in and
// sends the unvisited neighbours, grouped by segment, to that segment's distance kernel in one call.
// Every access is counted per tier and priced by the cost model; with injection on, the thread is
// stalled by the modelled CXL extra so measured QPS reflects the model end to end.
import { invalidArgument } from '../../common/errors.js';
import { batchCostNs, costModel, tierCosts, type CostModelParams, type TierCosts } from '../../tiers/cost-model.js';
import { stallNs } from '../../tiers/stall.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import type { Segment } from '../tiered/segment.js';
import { chargeAdjacency, chargeBytes } from './accounting.js';
import { MaxHeap, MinHeap } from './heaps.js';
import { STAT, STAT_FIELDS } from './stats.js';

export interface SearcherOptions {
  cost?: CostModelParams;
  /** Stall the thread by the modelled CXL extra time (emulated CXL end to end). */
  inject?: boolean;
  /** Per-node access counts (neighbour-list and vector reads), accumulated across searches: placement profiling. */
  trace?: Float64Array;
  /**
   * CXL-ANNS foreseeing: when a node is expanded, the next candidate's neighbour list is fetched one
   * step ahead (touched, so a real CXL line is in flight); if that candidate is expanded next, the
   * model hides its read latency. A wrong guess costs the bytes it fetched.
   */
  prefetch?: boolean;
}

export interface SearchResult {
  /** Internal node ids, nearest first. */
  ids: Int32Array;
  /** hnswlib-convention distances (squared L2, or 1 - dot). */
  distances: Float32Array;
  /** Per-query counters (see STAT). */
  stats: Float64Array;
}

export const MAX_EF = 10_000;
export const MAX_K = 10_000;

export class Searcher {
  readonly index: TieredIndex;
  readonly slot: number;
  private readonly visited: Uint32Array;
  private epoch = 0;
  private readonly cand = new MinHeap(1024);
  private readonly top = new MaxHeap(1024);
  private readonly costs: TierCosts;
  private readonly inject: boolean;
  private readonly trace: Float64Array | null;
  private readonly prefetch: boolean;
  private foreseen = -1;
  private foreseenBytes = 0;
  /** Keeps touched prefetch words observable, so the reads are not optimised away. */
  touchSink = 0;
  private readonly stats = new Float64Array(STAT_FIELDS);
  /** Batch being assembled: global ids and their distances. */
  private readonly batchIds: Int32Array;
  private readonly batchDist: Float32Array;
  /** Per segment: how many of the batch it holds (then: a read cursor). */
  private readonly segCount: Int32Array;
  private readonly touched: Int32Array;
  /** u32 index of this searcher's id list and f32 index of its results, per segment. */
  private readonly idsAt: Int32Array;
  private readonly outAt: Int32Array;
  /** Query epoch each segment last received the query in (copied lazily, once per query). */
  private readonly segQueryEpoch: Uint32Array;
  private queryEpoch = 0;
  private query: Float32Array = new Float32Array(0);
  private owedNs = 0;
  private closed = false;

  constructor(index: TieredIndex, opts: SearcherOptions = {}) {
    this.index = index;
    this.slot = index.acquireSlot();
    this.visited = new Uint32Array(index.meta.count);
    this.costs = tierCosts(opts.cost ?? costModel());
    this.inject = opts.inject ?? false;
    this.trace = opts.trace ?? null;
    this.prefetch = opts.prefetch ?? false;
    const bmax = index.shape.batchMax;
    this.batchIds = new Int32Array(bmax);
    this.batchDist = new Float32Array(bmax);
    const nseg = index.segments.length;
    this.segCount = new Int32Array(nseg);
    this.touched = new Int32Array(nseg);
    this.idsAt = Int32Array.from(index.segments, (seg) => seg.slotIds(this.slot) >>> 2);
    this.outAt = Int32Array.from(index.segments, (seg) => seg.slotOut(this.slot) >>> 2);
    this.segQueryEpoch = new Uint32Array(nseg);
  }

  close(): void {
    if (!this.closed) {
      this.closed = true;
      this.index.releaseSlot(this.slot);
    }
  }

  /**
   * k nearest neighbours of q (already normalised for cosine). Results are sorted by distance, ties
   * by the external label, so that equal graphs give equal answers whatever the node numbering.
   */
  search(q: Float32Array, k: number, ef: number): SearchResult {
    const meta = this.index.meta;
    if (q.length !== meta.dim) throw invalidArgument('vector', `expected ${meta.dim} dimensions, got ${q.length}`);
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw invalidArgument('k', `must be an integer in 1..${MAX_K}, got ${k}`);
    if (!Number.isInteger(ef) || ef < 1 || ef > MAX_EF) throw invalidArgument('ef', `must be an integer in 1..${MAX_EF}, got ${ef}`);
    this.stats.fill(0);
    this.owedNs = 0;
    this.query = q;
    this.queryEpoch = (this.queryEpoch + 1) >>> 0 || 1;
    if (meta.count === 0) return { ids: new Int32Array(0), distances: new Float32Array(0), stats: this.stats.slice() };

    let cur = meta.entry;
    this.batchIds[0] = cur;
    this.distances(1);
    let curDist = this.batchDist[0]!;
    const idx = this.index;
    const M1 = 1 + meta.maxM;
    for (let level = meta.maxLevel; level > 0; level--) {
      let changed = true;
      while (changed) {
        changed = false;
        const block = idx.upperOffset[cur]! + (level - 1) * M1;
        const n = idx.upperLinks[block]!;
        this.stats[STAT.hops]!++;
        this.chargeAdjacency(0, 4 * (1 + n), cur, false);
        for (let j = 0; j < n; j++) this.batchIds[j] = idx.upperLinks[block + 1 + j]!;
        this.distances(n);
        for (let j = 0; j < n; j++) {
          const d = this.batchDist[j]!;
          if (d < curDist) {
            curDist = d;
            cur = this.batchIds[j]!;
            changed = true;
          }
        }
        this.settle();
      }
    }
    this.searchLevel0(cur, curDist, Math.max(ef, k));
    return this.collect(k);
  }

  /** Brute force over every node of every tier: the recall oracle and the `exact` search mode. */
  exact(q: Float32Array, k: number): SearchResult {
    const meta = this.index.meta;
    if (q.length !== meta.dim) throw invalidArgument('vector', `expected ${meta.dim} dimensions, got ${q.length}`);
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw invalidArgument('k', `must be an integer in 1..${MAX_K}, got ${k}`);
    this.stats.fill(0);
    this.owedNs = 0;
    this.query = q;
    this.queryEpoch = (this.queryEpoch + 1) >>> 0 || 1;
    const top = this.top;
    top.clear();
    top.ensure(k + 2);
    const bmax = this.index.shape.batchMax;
    this.index.segments.forEach((seg, s) => {
      const idsAt = this.idsAt[s]!;
      const outAt = this.outAt[s]!;
      for (let from = 0; from < seg.count; from += bmax) {
        const c = Math.min(bmax, seg.count - from);
        for (let j = 0; j < c; j++) seg.u32[idsAt + j] = from + j;
        this.stats[STAT.distances]! += c;
        this.runKernel(seg, s, c);
        for (let j = 0; j < c; j++) {
          const d = seg.f32[outAt + j]!;
          if (top.size < k || d < top.d[0]!) {
            top.push(d, seg.start + from + j);
            if (top.size > k) top.pop();
          }
        }
      }
    });
    return this.collect(k);
  }

  private searchLevel0(ep: number, epDist: number, ef: number): void {
    const idx = this.index;
    const visited = this.visited;
    let tag = ++this.epoch;
    if (tag === 0xffffffff) {
      visited.fill(0);
      this.epoch = tag = 1;
    }
    const cand = this.cand;
    const top = this.top;
    cand.clear();
    top.clear();
    top.ensure(ef + 2);
    this.foreseen = -1;
    visited[ep] = tag;
    cand.push(epDist, ep);
    top.push(epDist, ep);
    let lowerBound = epDist;
    const stride = idx.shape.adjStride;
    const dramCount = idx.meta.dramCount;
    const segments = idx.segments;
    const segOf = idx.segOf;
    const batchIds = this.batchIds;
    const batchDist = this.batchDist;
    while (cand.size > 0) {
      const cd = cand.d[0]!;
      if (cd > lowerBound) break;
      const c = cand.i[0]!;
      cand.pop();
      const seg = segments[segOf[c]!]!;
      const at = seg.adjBase + (c - seg.start) * stride;
      const u32 = seg.u32;
      const n = u32[at]!;
      this.stats[STAT.hops]!++;
      if (this.prefetch) this.foresee(c, cand.size > 0 ? cand.i[0]! : -1, n, dramCount);
      else this.chargeAdjacency(c < dramCount ? 0 : 1, 4 * (1 + n), c, false);
      let m = 0;
      for (let j = 1; j <= n; j++) {
        const nb = u32[at + j]!;
        if (visited[nb] !== tag) {
          visited[nb] = tag;
          batchIds[m++] = nb;
        }
      }
      if (m === 0) {
        this.settle();
        continue;
      }
      this.distances(m);
      for (let j = 0; j < m; j++) {
        const d = batchDist[j]!;
        if (top.size < ef || d < lowerBound) {
          const id = batchIds[j]!;
          cand.push(d, id);
          top.push(d, id);
          if (top.size > ef) top.pop();
          lowerBound = top.d[0]!;
        }
      }
      this.settle();
    }
    if (this.foreseen >= 0) this.chargeBytes(this.foreseen < dramCount ? 0 : 1, this.foreseenBytes);
  }

  /** Distances from the query to batchIds[0..n) into batchDist, one kernel call per segment touched. */
  private distances(n: number): void {
    const ids = this.batchIds;
    const out = this.batchDist;
    this.stats[STAT.distances]! += n;
    const segments = this.index.segments;
    if (segments.length === 1) {
      const seg = segments[0]!;
      const u32 = seg.u32;
      const at = this.idsAt[0]!;
      for (let j = 0; j < n; j++) u32[at + j] = ids[j]!;
      this.runKernel(seg, 0, n);
      const f32 = seg.f32;
      const o = this.outAt[0]!;
      for (let j = 0; j < n; j++) out[j] = f32[o + j]!;
      return;
    }
    // Ids go straight into each segment's slot; results are read back in batch order, so the
    // search sees the same sequence whatever the number of segments.
    const segOf = this.index.segOf;
    const segCount = this.segCount;
    const touched = this.touched;
    let touchedN = 0;
    for (let j = 0; j < n; j++) {
      const id = ids[j]!;
      const s = segOf[id]!;
      const c = segCount[s]!;
      if (c === 0) touched[touchedN++] = s;
      const seg = segments[s]!;
      seg.u32[this.idsAt[s]! + c] = id - seg.start;
      segCount[s] = c + 1;
    }
    for (let t = 0; t < touchedN; t++) {
      const s = touched[t]!;
      this.runKernel(segments[s]!, s, segCount[s]!);
      segCount[s] = 0;
    }
    for (let j = 0; j < n; j++) {
      const s = segOf[ids[j]!]!;
      const c = segCount[s]!;
      out[j] = segments[s]!.f32[this.outAt[s]! + c]!;
      segCount[s] = c + 1;
    }
    for (let t = 0; t < touchedN; t++) segCount[touched[t]!] = 0;
  }

  /** Runs segment s's kernel on the c local ids in its slot, and charges the reads to its tier. */
  private runKernel(seg: Segment, s: number, c: number): void {
    const slot = this.slot;
    const qAt = seg.slotQuery(slot);
    if (this.segQueryEpoch[s] !== this.queryEpoch) {
      seg.f32.set(this.query, qAt >>> 2);
      this.segQueryEpoch[s] = this.queryEpoch;
    }
    seg.distBatch(qAt, seg.layout.vecOffset, seg.vecBytes, this.idsAt[s]! << 2, c, seg.shape.dim, this.outAt[s]! << 2);
    // Reads of one batch are independent of each other, so they overlap (up to mlp in flight).
    const tier = seg.tier;
    const bytes = c * seg.vecBytes;
    const st = this.stats;
    const ns = batchCostNs(this.costs, tier, c, bytes);
    st[STAT.modelledNs]! += ns;
    if (tier === 0) {
      st[STAT.vecReadsDram]! += c;
      st[STAT.vecBytesDram]! += bytes;
      st[STAT.modelledDramOnlyNs]! += ns;
    } else {
      st[STAT.vecReadsCxl]! += c;
      st[STAT.vecBytesCxl]! += bytes;
      const dramNs = batchCostNs(this.costs, 0, c, bytes);
      st[STAT.modelledDramOnlyNs]! += dramNs;
      this.owedNs += ns - dramNs;
    }
    if (this.trace !== null) {
      const tr = this.trace;
      const u32 = seg.u32;
      const base = this.idsAt[s]!;
      for (let j = 0; j < c; j++) tr[u32[base + j]! + seg.start]!++;
    }
  }

  /** Charges c's neighbour-list read (latency hidden if it was foreseen) and foresees `next`. */
  private foresee(c: number, next: number, degree: number, dramCount: number): void {
    const hit = this.foreseen === c;
    if (hit) this.stats[STAT.prefetchHits]!++;
    else if (this.foreseen >= 0) this.chargeBytes(this.foreseen < dramCount ? 0 : 1, this.foreseenBytes); // wasted fetch
    this.chargeAdjacency(c < dramCount ? 0 : 1, 4 * (1 + degree), c, hit);
    this.foreseen = next;
    if (next >= 0) {
      const seg = this.index.segments[this.index.segOf[next]!]!;
      const deg = seg.u32[seg.adjBase + (next - seg.start) * this.index.shape.adjStride]!;
      this.touchSink ^= deg;
      this.foreseenBytes = 4 * (1 + deg);
      this.stats[STAT.prefetchIssued]!++;
    }
  }

  /** Bandwidth-only cost of bytes moved from a tier. */
  private chargeBytes(tier: number, bytes: number): void {
    this.owedNs += chargeBytes(this.stats, this.costs, tier, bytes);
  }

  private chargeAdjacency(tier: number, bytes: number, node: number, latencyHidden: boolean): void {
    this.owedNs += chargeAdjacency(this.stats, this.costs, tier, bytes, latencyHidden);
    if (this.trace !== null) this.trace[node]!++;
  }

  /** Pays the modelled CXL extra owed so far by stalling the thread (injection mode). */
  private settle(): void {
    if (!this.inject || this.owedNs < 500) return;
    stallNs(this.owedNs);
    this.stats[STAT.injectedNs]! += this.owedNs;
    this.owedNs = 0;
  }

  private collect(k: number): SearchResult {
    const top = this.top;
    if (this.inject && this.owedNs > 0) {
      stallNs(this.owedNs);
      this.stats[STAT.injectedNs]! += this.owedNs;
      this.owedNs = 0;
    }
    const { ids: outIds, distances: outD } = drainTop(top, k, this.index.labels);
    return { ids: outIds, distances: outD, stats: this.stats.slice() };
  }
}

/**
 * Empties a result heap into the k best, nearest first. Ties in distance are ordered by external
 * label, so that equal graphs give equal answers whatever the internal numbering.
 */
export function drainTop(top: MaxHeap, k: number, labels: Float64Array): { ids: Int32Array; distances: Float32Array } {
  const n = top.size;
  const ids = new Int32Array(n);
  const ds = new Float32Array(n);
  for (let j = n - 1; j >= 0; j--) {
    ids[j] = top.i[0]!;
    ds[j] = top.d[0]!;
    top.pop();
  }
  // The pops give ascending distances, so only runs of equal distances need reordering.
  for (let j = 1; j < n; j++) {
    const d = ds[j]!;
    if (d !== ds[j - 1]!) continue;
    const id = ids[j]!;
    const lab = labels[id]!;
    let p = j;
    while (p > 0 && ds[p - 1]! === d && labels[ids[p - 1]!]! > lab) {
      ids[p] = ids[p - 1]!;
      p--;
    }
    ids[p] = id;
  }
  const kk = Math.min(k, n);
  const outIds = ids.slice(0, kk);
  const outD = ds.slice(0, kk);
  return { ids: outIds, distances: outD };
}
