// A whole traversal (entry, upper layers, level-0 beam or filtered walk) as one WASM call (index/kernels/traverse.as.ts
// `traverse`, its control block laid out by index/kernels/control-block.ts) for indexes with a fused traversal region (index/tiered/fused-region.ts). The JS steps
// in traversal.ts are its twin and stay the reference: both request, pop, push and compare in the
// same order, so a query gets the same answer and the same counts either way. What the WASM loop
// saves is the per-hop JS work (a JS step, a JS-to-WASM kernel call and a heap push per neighbour),
// about half of a query on codes. The WASM side only counts memory accesses; they are priced here,
// with the one accountant, as the JS steps would have priced them hop by hop. The re-rank stays in
// JS: it is a few requests per query, and in near-data mode they go to the tier workers. A filtered
// query (FILTER_PLAN.GRAPH) copies its bitset into the lane first; it comes back with the walk's
// matches, and the JS steps end it as their own walk (endFiltered: the pool, or the scan fallback).
// A GRAPH_OR_SCAN walk also copies its covering filter-link blocks in, where the links lie in the
// region: a scarce entry then walks the links in the same call (LINKED) instead of ending `scarce`.
// The SCAN plan has a call of its own on the same lane (scan: index/kernels/scan.as.ts), which
// leaves the best matches in st.matches as the JS scan would.
import { CONTROL, COVER_MAX, WALK_END } from '../kernels/control-block.js';
import { type FusedCalls, instantiateTraverse } from '../kernels/kernels.js';
import type { FusedHandle } from '../tiered/fused-region.js';
import type { Segment } from '../tiered/segment.js';
import { RUNS_PER_SCAN } from '../tiered/value-runs.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import type { Accountant } from './accounting.js';
import { FILTER_PLAN, type QueryState } from './query-state.js';
import type { Scorer } from './scorer.js';
import { STAT } from './stats.js';

/** How run() ended: the answer is in st; the frontier overflowed (walk again in JS); the walk's entry was scarce in matches (scan, or walk the filter links from it: scarceEntry). */
export const FUSED_RUN = WALK_END;

export class FusedTraversal {
  private readonly u8: Uint8Array;
  private readonly u32: Uint32Array;
  private readonly f32: Float32Array;
  private readonly dv: DataView;
  /** Byte offset of this lane's control block; the lane's arrays follow it. */
  private readonly at: number;
  private readonly what: 'code' | 'vector';
  private readonly travStride: number;
  /** The traversal store's DRAM and CXL segments (a fused region holds at most one of each). */
  private readonly travDram: Segment | undefined;
  private readonly travCxl: Segment | undefined;
  private closed = false;
  /** The lane has room for the filtered walk (its bitset and frontier). */
  readonly filtered: boolean;
  /** The lane can scan: it has the bitset's room, and the traversal records are one DRAM segment. */
  readonly scans: boolean;
  /** Whether a scarce entry may walk the filter links in WASM here (fixed once the links are attached). */
  private readonly linksWalkable: boolean;

  private constructor(
    private readonly index: TieredIndex,
    private readonly fused: FusedHandle,
    private readonly scorer: Scorer,
    private readonly acct: Accountant,
    private readonly prefetch: boolean,
    private readonly calls: FusedCalls,
    private readonly lane: number,
  ) {
    const buf = fused.memory.buffer;
    this.u8 = new Uint8Array(buf);
    this.u32 = new Uint32Array(buf);
    this.f32 = new Float32Array(buf);
    this.dv = new DataView(buf);
    this.at = fused.lanes.laneBase + lane * fused.lanes.laneBytes;
    this.what = index.codes !== null ? 'code' : 'vector';
    const trav = index.codes ?? index.vectors;
    this.travStride = trav.shape.stride;
    this.travDram = trav.segments.find((s) => s.tier === 0);
    this.travCxl = trav.segments.find((s) => s.tier === 1);
    this.filtered = fused.lanes.frontierCap > 0;
    this.scans = this.filtered && this.travCxl === undefined && this.travDram !== undefined;
    // The links lie in this region, and the kernel gathers a node's list offsets in a scratch
    // array of maxDegree words.
    const l = index.links;
    this.linksWalkable = l !== null && l.lists.buffer === fused.memory.buffer && l.maxMemberships <= fused.lanes.maxDegree;
    this.writeFixed();
  }

  /** A traversal on a free lane of index's fused region; null when it has none (or no WASM): the JS steps run. */
  static open(index: TieredIndex, scorer: Scorer, acct: Accountant, prefetch: boolean): FusedTraversal | null {
    const fused = index.fused;
    if (fused === null || index.upper.links.buffer !== fused.memory.buffer) return null;
    const calls = instantiateTraverse(fused.memory);
    if (calls === null) return null;
    const lane = index.acquireLane();
    if (lane < 0) return null;
    return new FusedTraversal(index, fused, scorer, acct, prefetch, calls, lane);
  }

  close(): void {
    if (!this.closed) {
      this.closed = true;
      this.index.releaseLane(this.lane);
    }
  }

  /** The control fields that do not change from query to query. */
  private writeFixed(): void {
    const idx = this.index;
    const dv = this.dv;
    const b = this.at;
    const L = this.fused.lanes;
    const trav = idx.codes ?? idx.vectors;
    const put = (off: number, v: number): void => dv.setUint32(b + off, v >>> 0, true);
    put(CONTROL.kind, idx.codes !== null ? 0 : idx.meta.metric === 'l2' ? 1 : 2);
    put(CONTROL.dim, idx.meta.dim);
    put(CONTROL.stride, trav.shape.stride);
    put(CONTROL.split, trav.split);
    put(CONTROL.base0, this.travDram?.layout.recordOffset ?? 0);
    put(CONTROL.base1, this.travCxl?.layout.recordOffset ?? 0);
    const adj = idx.adjacency;
    put(CONTROL.adjSplit, adj.split);
    put(CONTROL.adj0, adj.segments.find((s) => s.tier === 0)?.layout.recordOffset ?? 0);
    put(CONTROL.adj1, adj.segments.find((s) => s.tier === 1)?.layout.recordOffset ?? 0);
    put(CONTROL.adjStride, adj.shape.stride);
    put(CONTROL.prefetch, this.prefetch ? 1 : 0);
    dv.setFloat64(b + CONTROL.mlp, this.acct.costs.mlp, true);
    put(CONTROL.visited, b + L.visitedAt);
    put(CONTROL.beam, b + L.beamAt);
    put(CONTROL.beamCap, L.beamCap);
    put(CONTROL.scratch, b + L.scratchAt);
    put(CONTROL.maxDeg, L.maxDegree);
    put(CONTROL.frontier, b + L.frontierAt);
    put(CONTROL.frontierCap, L.frontierCap);
    put(CONTROL.entry, idx.meta.entry);
    put(CONTROL.maxLevel, idx.meta.maxLevel);
    put(CONTROL.upIds, idx.upper.ids.byteOffset);
    put(CONTROL.upCount, idx.upper.ids.length);
    put(CONTROL.upOffsets, idx.upper.offsets.byteOffset);
    put(CONTROL.upLinks, idx.upper.links.byteOffset);
    put(CONTROL.maxM, idx.meta.maxM);
    put(CONTROL.requestCap, idx.batchMax);
    const pool = this.fused.pool;
    put(CONTROL.poolTable, pool ? pool.tableAt : 0);
    put(CONTROL.poolCap, pool ? pool.capacity : 0);
    put(CONTROL.poolLists, pool ? pool.listsAt : 0);
    put(CONTROL.lcLut, b + L.lutAt);
    put(CONTROL.lcEst, b + L.estAt);
    // The filter links are attached before any searcher opens: their addresses are fixed too.
    const l = idx.links;
    if (!this.linksWalkable || l === null) return;
    const k = l.lookup;
    put(CONTROL.linkLists, l.lists.byteOffset);
    put(CONTROL.linkFrom, k.nodeFrom.byteOffset);
    put(CONTROL.linkNodes, k.nodeFrom.length - 1);
    put(CONTROL.linkBlock, k.memberBlock.byteOffset);
    put(CONTROL.linkList, k.memberList.byteOffset);
    put(CONTROL.linkEntries, k.entries.byteOffset);
    put(CONTROL.cover, b + L.coverAt);
  }

  /**
   * Runs st's traversal, straight after Traversal.begin: on return the pool holds the beam,
   * nearest first (as the JS beam holds it), and the accesses are priced into st. A filtered walk
   * leaves its matches in st.matches instead (sized by the caller), as the JS walk would (`done`).
   * A walk whose frontier overflowed ends `overflow`: nothing is priced or kept, and the JS steps walk
   * again. A GRAPH_OR_SCAN walk whose entry is scarce in matches ends `scarce`, its descent priced and
   * no match kept: the caller scans, or walks the filter links from the descent's node (scarceEntry).
   */
  run(st: QueryState): number {
    const idx = this.index;
    this.scorer.prepareTraversal(st);
    const dv = this.dv;
    const b = this.at;
    const put = (off: number, v: number): void => dv.setUint32(b + off, v >>> 0, true);
    put(CONTROL.q0, this.travDram ? this.travDram.slotQuery(st.slot) : 0);
    put(CONTROL.q1, this.travCxl ? this.travCxl.slotQuery(st.slot) : 0);
    put(CONTROL.ef, st.ef);
    put(CONTROL.countLists, st.countLists ? 1 : 0);
    const filtered = st.plan === FILTER_PLAN.GRAPH;
    put(CONTROL.filter, filtered ? this.copyFilter(st.filter!) : 0);
    put(CONTROL.matched, st.matched);
    put(CONTROL.scanIfScarce, filtered && st.scanIfScarce ? st.scarceDivisor : 0);
    put(CONTROL.nodes, idx.meta.count);
    put(CONTROL.coverN, filtered && st.scanIfScarce ? this.putCover(st.links) : 0);
    // Per query, as the JS steps read index.listCodes per query: a store may be attached again (with
    // another margin) while this lane is open. The table's room is the one allocation kept.
    const lc = st.lcOn ? idx.listCodes : null;
    put(CONTROL.lcBlocks, lc !== null ? lc.blocks.byteOffset : 0);
    if (lc !== null) {
      put(CONTROL.lcStride, lc.stride);
      put(CONTROL.lcSub, lc.subspaces);
      dv.setFloat32(b + CONTROL.lcMargin, lc.margin, true);
      this.u8.set(st.lcLut, b + this.fused.lanes.lutAt);
      dv.setFloat32(b + CONTROL.lcLo, st.lcLo, true);
      dv.setFloat32(b + CONTROL.lcScale, st.lcScale, true);
    }
    // Visited tags carry the query's epoch (1..255); a wrap clears them, once every 255 queries.
    let epoch = this.u8[b + CONTROL.epoch]! + 1;
    if (epoch > 255) epoch = 1;
    if (epoch === 1) this.u8.fill(0, b + this.fused.lanes.visitedAt, b + this.fused.lanes.visitedAt + idx.meta.count);
    this.u8[b + CONTROL.epoch] = epoch;
    // Odd while the traversal runs: the pool refills no slot this traversal may have looked up
    // until it is even again (list-pool.ts).
    const gen = (b + CONTROL.gen) >>> 2;
    Atomics.add(this.u32, gen, 1);
    try {
      this.calls.traverse(b);
    } finally {
      Atomics.add(this.u32, gen, 1);
    }
    const n = dv.getUint32(b + CONTROL.beamN, true);
    const dAt = dv.getUint32(b + CONTROL.beam, true) >>> 2;
    const iAt = dAt + dv.getUint32(b + CONTROL.beamCap, true);
    if (filtered) {
      const end = dv.getUint32(b + CONTROL.overflow, true);
      if (end === FUSED_RUN.overflow) return end;
      // The matches' heap, entry for entry (the WASM side keeps distances negated): the same pops
      // then drain it in the same order.
      const m = st.matches;
      for (let j = 0; j < n; j++) {
        m.d[j] = -this.f32[dAt + j]!;
        m.i[j] = this.u32[iAt + j]!;
      }
      m.size = n;
      st.frontier.size = 0;
      if (dv.getUint32(b + CONTROL.linked, true) !== 0) {
        st.plan = FILTER_PLAN.LINKED;
        st.stats[STAT.linkedWalks]!++;
      }
      st.stats[STAT.seededWalks]! += dv.getUint32(b + CONTROL.seeded, true);
      this.price(st);
      return end;
    }
    // The beam comes back sorted, nearest first, as the JS beam keeps it.
    st.ensurePool(n);
    const poolD = st.poolD;
    const poolIds = st.poolIds;
    for (let j = 0; j < n; j++) {
      poolD[j] = this.f32[dAt + j]!;
      poolIds[j] = this.u32[iAt + j]!;
    }
    // st's own beam and foreseen candidate stay as begin() left them: empty, none.
    st.sortedBeam = n;
    this.price(st);
    return FUSED_RUN.done;
  }

  /** Where a walk that ended `scarce` stood: the descent's node and its distance. */
  scarceEntry(): { node: number; dist: number } {
    const b = this.at;
    const dAt = this.dv.getUint32(b + CONTROL.beam, true) >>> 2;
    const iAt = dAt + this.dv.getUint32(b + CONTROL.beamCap, true);
    return { node: this.u32[iAt]!, dist: this.f32[dAt]! };
  }

  /**
   * Runs st's scan (FILTER_PLAN.SCAN, straight after Traversal.startScan): on return st.matches holds
   * the best `cap` matching nodes, as the JS steps would leave it, and the reads are priced into st
   * as the JS steps price them, one request of up to batchMax nodes at a time. False, with nothing
   * done, when the lane cannot (see `scans`) or its heap is smaller than cap.
   */
  scan(st: QueryState, cap: number): boolean {
    if (!this.scans || cap + 1 > this.fused.lanes.beamCap) return false;
    const idx = this.index;
    const seg = this.travDram!;
    this.scorer.prepareTraversal(st);
    const dv = this.dv;
    const b = this.at;
    const put = (off: number, v: number): void => dv.setUint32(b + off, v >>> 0, true);
    put(CONTROL.q0, seg.slotQuery(st.slot));
    put(CONTROL.filter, this.copyFilter(st.filter!));
    put(CONTROL.nodes, idx.meta.count);
    put(CONTROL.scanCap, cap);
    this.putRuns(st.runs);
    this.calls.scanMatches(b);
    const n = dv.getUint32(b + CONTROL.beamN, true);
    const dAt = dv.getUint32(b + CONTROL.beam, true) >>> 2;
    const iAt = dAt + dv.getUint32(b + CONTROL.beamCap, true);
    const m = st.matches;
    for (let j = 0; j < n; j++) {
      m.d[j] = -this.f32[dAt + j]!;
      m.i[j] = this.u32[iAt + j]!;
    }
    m.size = n;
    const scored = dv.getUint32(b + CONTROL.dist, true);
    st.stats[STAT.scanned]! += scored;
    st.stats[STAT.fromRuns]! += dv.getUint32(b + CONTROL.runScored, true);
    for (let left = scored; left > 0; left -= idx.batchMax)
      st.owedNs += this.acct.reads(st.stats, this.what, seg.tier, Math.min(left, idx.batchMax), this.travStride);
    return true;
  }

  /**
   * Copies the covering blocks into the lane where the links are walkable here: a scarce entry then
   * walks the links in WASM. Returns how many blocks (0: it cannot).
   */
  private putCover(cover: Uint32Array | null): number {
    if (!this.linksWalkable || cover === null || cover.length === 0 || cover.length > COVER_MAX) return 0;
    this.u32.set(cover, (this.at + this.fused.lanes.coverAt) >>> 2);
    return cover.length;
  }

  /** Copies the scan's value runs into the lane (as many as it holds; the bitset scan covers the rest). */
  private putRuns(runs: Uint32Array | null): void {
    const b = this.at;
    const n = runs === null ? 0 : Math.min(runs[0]!, RUNS_PER_SCAN);
    const at = b + this.fused.lanes.runsAt;
    if (n > 0) this.u32.set(runs!.subarray(1, 1 + 3 * n), at >>> 2);
    this.dv.setUint32(b + CONTROL.runs, at, true);
    this.dv.setUint32(b + CONTROL.runCount, n, true);
  }

  /** Copies a query's bitset into the lane (words past its end read as no match); returns its address. */
  private copyFilter(bits: Uint32Array): number {
    const at = this.at + this.fused.lanes.filterAt;
    const words = Math.ceil(this.index.meta.count / 32);
    const w = at >>> 2;
    if (bits.length >= words) this.u32.set(bits.length === words ? bits : bits.subarray(0, words), w);
    else {
      this.u32.set(bits, w);
      this.u32.fill(0, w + bits.length, w + words);
    }
    return at;
  }

  private price(st: QueryState): void {
    const dv = this.dv;
    const b = this.at;
    const get = (off: number): number => dv.getUint32(b + off, true);
    const stats = st.stats;
    const acct = this.acct;
    stats[STAT.hops]! += get(CONTROL.hops);
    stats[STAT.prefetchHits]! += get(CONTROL.hits);
    stats[STAT.prefetchIssued]! += get(CONTROL.issued);
    st.counted += get(CONTROL.counted);
    let owed = 0;
    for (let t = 0; t < 2; t++) {
      owed += acct.adjacencyMany(stats, t, get(CONTROL.miss + 4 * t), get(CONTROL.missBytes + 4 * t), false);
      owed += acct.adjacencyMany(stats, t, get(CONTROL.hidden + 4 * t), get(CONTROL.hiddenBytes + 4 * t), true);
      const waste = get(CONTROL.wasteBytes + 4 * t);
      if (waste > 0) owed += acct.bytesOnly(stats, t, waste);
      owed += acct.readsMany(stats, this.what, t, get(CONTROL.dist + 4 * t), dv.getFloat64(b + CONTROL.groups + 8 * t, true), this.travStride);
    }
    owed += acct.filterLinksMany(stats, get(CONTROL.linkMiss), get(CONTROL.linkMissBytes), false);
    owed += acct.filterLinksMany(stats, get(CONTROL.linkHidden), get(CONTROL.linkHiddenBytes), true);
    const linkWaste = get(CONTROL.linkWasteBytes);
    if (linkWaste > 0) owed += acct.bytesOnly(stats, 1, linkWaste);
    owed += acct.listCodesMany(stats, get(CONTROL.lcMiss), get(CONTROL.lcMissBytes), false);
    owed += acct.listCodesMany(stats, get(CONTROL.lcHidden), get(CONTROL.lcHiddenBytes), true);
    stats[STAT.listCodeSkipped]! += get(CONTROL.lcSkipped);
    st.owedNs += owed;
  }
}
