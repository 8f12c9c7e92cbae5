// The one search step every driver calls. `next` advances a query to its next distance request (or
// to DONE); the driver computes those distances however it likes (here, on another thread, batched
// with other queries) and `apply` consumes them. The local Searcher runs next/apply to completion;
// the near-data runner interleaves many queries. Because both run this code, they take the same
// steps in the same order and return the same answers. Their WASM twin is `traverse`
// (index/kernels/traverse.as.ts), the whole traversal in one call (index/README.md, twins).
//
// A search is: the entry point, greedy descent through the upper layers, a beam search of width ef
// on level 0 — all scored with the traversal scorer (compact codes when the index has them) — then,
// with codes, the best `rerank` candidates re-scored with full vectors. On an index with list codes
// (index/tiered/list-code-store.ts), a full beam estimates each hop's whole list from its block and
// scores only the neighbours whose estimate could enter it.
//
// A filtered query (a bitset of matching nodes, checked in DRAM before anything of a node is read
// from CXL) runs one of two plans the engine chose: SCAN scores every matching node's code and
// re-ranks the best, with no graph walk; GRAPH walks level 0 through every node (non-matching ones
// only steer, their codes in DRAM) and keeps answers from matches alone, until the nearest unexpanded
// node is farther than the ef-th match. A walk that ends with fewer than k matches while more exist
// (the matches sit where the walk did not reach) finishes as a scan: never fewer than k. GRAPH_OR_SCAN
// is the walk, unless its entry is scarce in matches (walk-ef.ts): then the scan, before any walking.
// A GRAPH walk whose entry is scarce in a filter of most points (it leaves out the query's own
// neighbourhood) is seeded instead: a filtered walk on level 1 (the upper layers, in DRAM) finds
// matches beyond the gap, and the level-0 walk starts from them, leaving out non-matches nearer than
// its nearest match.
import { BOUND_SIGMAS, codeMetric, PRUNE_SIGMAS } from '../codes/codec.js';
import { listEstimatesJs, prepareListLut } from '../codes/list-codes.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { upperBlock } from '../tiered/upper-layers.js';
import { FUSED_MAX_EF } from '../tiered/fused-region.js';
import { DEGREE_MASK, LINK_LOOKUP_READS, RESEED_MIN_SHARE, SEED_AFTER, SEED_MIN_SHARE, WALK_SCARCE } from '../kernels/control-block.js';
import { selectSmallest } from '../../common/smallest.js';
import { COUNT_EVERY, COUNT_WRITE_BYTES } from '../tiered/list-pool.js';
import type { Accountant } from './accounting.js';
import { FUSED_RUN, type FusedTraversal } from './fused-traversal.js';
import { MaxHeap } from './heaps.js';
import { FILTER_PLAN, PHASE, type QueryState, SCORER } from './query-state.js';
import { STAT } from './stats.js';
import { entryScarce, LINK_SCARCE, walkEf, walkEfCap, widenedEf } from './walk-ef.js';

/** The share of a code's error bound (BOUND_SIGMAS) the re-rank prunes with (PRUNE_SIGMAS). */
const PRUNE_SHARE = PRUNE_SIGMAS / BOUND_SIGMAS;

export class Traversal {
  private readonly adjWords: number;
  /** Queries begun: every COUNT_EVERY-th counts its list reads. */
  private sampled = 0;
  private readonly batchMax: number;
  /** Room for endMatches' quickselect over a walk's matches. */
  private selectScratch = new Float64Array(0);
  /** Keeps the foreseen neighbour-list words observable, so the reads are not optimised away. */
  touchSink = 0;

  constructor(
    readonly index: TieredIndex,
    readonly acct: Accountant,
    readonly prefetch: boolean,
    /** Profiling: level-0 expansions per node, accumulated across queries (placement input). */
    readonly trace: Float64Array | null = null,
    /** Runs the whole traversal as one WASM call where it can (fused-traversal.ts); the steps here are its twin. */
    readonly fused: FusedTraversal | null = null,
  ) {
    this.adjWords = index.adjacency.shape.stride >>> 2;
    this.batchMax = index.batchMax;
  }

  /** Starts a query; k, ef and rerank are trusted (validated once, at the edge). */
  begin(
    st: QueryState,
    q: Float32Array,
    k: number,
    ef: number,
    rerank: number,
    pruneByBound = true,
    filter: Uint32Array | null = null,
    plan: number = FILTER_PLAN.NONE,
    matched = 0,
    runs: Uint32Array | null = null,
    links: Uint32Array | null = null,
  ): void {
    st.pruneByBound = pruneByBound;
    st.query = q;
    st.k = k;
    st.ef = Math.max(ef, k);
    st.rerank = this.index.codes !== null ? (rerank === 0 ? 0 : Math.max(rerank, k)) : 0;
    st.exactDistances = this.index.codes === null || rerank > 0;
    st.phase = PHASE.START;
    st.stats.fill(0);
    st.owedNs = 0;
    st.foreseen = -1;
    st.sortedBeam = -1;
    // One query in COUNT_EVERY counts its list reads for the promotion pool (both drivers alike).
    st.countLists = this.index.pool !== null && this.sampled++ % COUNT_EVERY === 0;
    st.counted = 0;
    st.fusedPending = this.fused !== null && this.trace === null && st.ef <= FUSED_MAX_EF && this.index.meta.count > 0;
    st.n = 0;
    st.beam.clear();
    st.beam.ensure(st.ef + 1);
    st.filter = filter;
    st.scanIfScarce = filter !== null && plan === FILTER_PLAN.GRAPH_OR_SCAN;
    st.plan = filter === null ? FILTER_PLAN.NONE : st.scanIfScarce ? FILTER_PLAN.GRAPH : plan;
    // A LINKED plan needs the base's links and a cover; without either it walks as GRAPH. With them,
    // a GRAPH_OR_SCAN walk whose entry is scarce in matches takes the links rather than the scan.
    const linkable = filter !== null && this.index.links !== null && links !== null && links.length > 0;
    st.links = linkable && (plan === FILTER_PLAN.LINKED || plan === FILTER_PLAN.GRAPH_OR_SCAN) ? links : null;
    if (st.plan === FILTER_PLAN.LINKED && st.links === null) st.plan = FILTER_PLAN.GRAPH;
    st.scarceDivisor = st.links !== null ? LINK_SCARCE : WALK_SCARCE;
    st.matched = matched;
    st.runs = runs;
    // The fused traversal walks the GRAPH plan too (its lane permitting); the other plans run here.
    if (st.plan !== FILTER_PLAN.NONE && !(st.plan === FILTER_PLAN.GRAPH && this.fused?.filtered === true)) st.fusedPending = false;
    if (st.plan === FILTER_PLAN.SCAN) this.startScan(st);
    st.lcOn = filter === null && this.index.listCodes !== null;
    if (st.lcOn) this.prepareListCodes(st);
  }

  /** The query's list-code table (both drivers and the fused beam read it from st). */
  private prepareListCodes(st: QueryState): void {
    const lc = this.index.listCodes!;
    if (st.lcLut.length !== 16 * lc.subspaces) st.lcLut = new Uint8Array(16 * lc.subspaces);
    if (st.lcEst.length < 32 * Math.ceil(this.index.meta.maxM0 / 32)) st.lcEst = new Uint16Array(32 * Math.ceil(this.index.meta.maxM0 / 32));
    const t = prepareListLut(lc.book, st.query, codeMetric(this.index.meta.metric), st.lcLut);
    st.lcLo = t.lo;
    st.lcScale = t.scale;
  }

  /** Matches a filtered query keeps: ef while walking (its stop rule), the re-rank pool while scanning. */
  private matchCap(st: QueryState): number {
    if (st.phase === PHASE.FILTERED) return walkEfCap(st.ef);
    return this.index.codes !== null && st.rerank > 0 ? Math.max(st.rerank, st.k) : st.k;
  }

  private startScan(st: QueryState): void {
    st.phase = PHASE.SCAN;
    st.scanWord = -1;
    st.scanMask = 0;
    this.resetMatches(st);
  }

  private resetMatches(st: QueryState): void {
    const cap = this.matchCap(st) + 1;
    if (st.matches.d.length < cap) st.matches = new MaxHeap(cap);
    st.matches.size = 0;
  }

  /** Prepares the query's next request (st.n ids from st.scorer); false once the query is done. */
  next(st: QueryState): boolean {
    const idx = this.index;
    const meta = idx.meta;
    for (;;) {
      switch (st.phase) {
        case PHASE.START:
          // The fused traversal ends with the beam in the pool and no candidates left, so the
          // LEVEL0 step only closes it; a filtered one with the matches and an empty frontier, so
          // the FILTERED step ends the walk as its own.
          if (st.fusedPending) {
            st.fusedPending = false;
            if (st.plan === FILTER_PLAN.GRAPH) {
              st.phase = PHASE.FILTERED;
              this.resetMatches(st);
            } else st.phase = PHASE.LEVEL0;
            const ran = this.fused!.run(st);
            if (ran === FUSED_RUN.done) continue;
            if (ran === FUSED_RUN.scarce) {
              if (st.links !== null) {
                // The links' walk runs in the steps here, from the node the WASM descent reached.
                const e = this.fused!.scarceEntry();
                st.cur = e.node;
                st.curDist = e.dist;
                st.plan = FILTER_PLAN.LINKED;
                this.startLevel0(st);
              } else this.scanScarce(st);
              continue;
            }
            // Its frontier overflowed: the steps here walk again from the start, priced as their own
            // walk (a sampled query's lists counted up to the overflow are counted twice).
            st.phase = PHASE.START;
            continue;
          }
          if (meta.count === 0) {
            this.finish(st);
            return false;
          }
          st.cur = meta.entry;
          st.ids[0] = meta.entry;
          st.n = 1;
          st.scorer = SCORER.TRAVERSE;
          st.phase = PHASE.ENTRY;
          return true;
        case PHASE.UPPER: {
          const block = this.readUpper(st, st.cur, st.level);
          const links = idx.upper.links;
          const n = links[block]!;
          if (n === 0) {
            this.descend(st);
            continue;
          }
          for (let j = 0; j < n; j++) st.ids[j] = links[block + 1 + j]!;
          st.n = n;
          st.scorer = SCORER.TRAVERSE;
          return true;
        }
        case PHASE.LEVEL0:
          if (this.expand(st)) return true;
          this.endLevel0(st);
          continue;
        case PHASE.SEED:
          if (this.expandSeed(st)) return true;
          this.endSeed(st);
          continue;
        case PHASE.FILTERED:
          if (this.expandFiltered(st)) return true;
          // reseed() turned the walk seeded: its level-1 part comes next.
          if (st.phase === PHASE.FILTERED) this.endFiltered(st);
          continue;
        case PHASE.SCAN:
          // Whole in one WASM call where the lane can (fused-traversal.ts); else a request at a time.
          if (st.scanWord === -1 && this.fused?.scan(st, this.matchCap(st)) === true) st.scanWord = st.filter!.length;
          else if (this.nextMatches(st)) return true;
          this.closeWalk(st);
          this.endMatches(st);
          continue;
        case PHASE.RERANK: {
          let left = st.poolN - st.poolAt;
          while (left === 0 && st.undecidedAt < st.rerankCap) {
            this.selectByBound(st);
            left = st.poolN - st.poolAt;
          }
          if (left === 0) {
            this.endRerank(st);
            return false;
          }
          const n = Math.min(left, this.batchMax);
          for (let j = 0; j < n; j++) st.ids[j] = st.poolIds[st.poolAt + j]!;
          st.n = n;
          st.scorer = SCORER.FULL;
          return true;
        }
        default:
          return false;
      }
    }
  }

  /** Consumes the distances of the request `next` prepared (st.dist[0..st.n)). */
  apply(st: QueryState): void {
    const n = st.n;
    st.n = 0;
    switch (st.phase) {
      case PHASE.ENTRY:
        st.curDist = st.dist[0]!;
        st.level = this.index.meta.maxLevel;
        if (st.level > 0) st.phase = PHASE.UPPER;
        else this.startLevel0(st);
        return;
      case PHASE.UPPER: {
        let changed = false;
        for (let j = 0; j < n; j++) {
          const d = st.dist[j]!;
          if (d < st.curDist) {
            st.curDist = d;
            st.cur = st.ids[j]!;
            changed = true;
          }
        }
        if (!changed) this.descend(st);
        return;
      }
      case PHASE.LEVEL0: {
        const beam = st.beam;
        const ef = st.ef;
        const dist = st.dist;
        const ids = st.ids;
        let lowerBound = beam.last();
        for (let j = 0; j < n; j++) {
          const d = dist[j]!;
          // A full beam drops its farthest for a nearer one.
          if (beam.size < ef || d < lowerBound) {
            beam.insert(d, ids[j]!, ef);
            lowerBound = beam.last();
          }
        }
        return;
      }
      case PHASE.SEED:
      case PHASE.FILTERED: {
        const ef = st.walkEf;
        const m = st.matches;
        const bits = st.filter!;
        const ids = st.ids;
        for (let j = 0; j < n; j++) {
          const d = st.dist[j]!;
          if (m.size >= ef && d >= m.d[0]!) continue;
          const id = ids[j]!;
          const match = ((bits[id >>> 5]! >>> (id & 31)) & 1) !== 0;
          // A seeded walk steps around the region the filter leaves out, not through it.
          if (!match && st.hole && d < st.nearestMatch) continue;
          st.frontier.push(d, id);
          if (match) {
            m.push(d, id);
            if (m.size > ef) m.pop();
            if (d < st.nearestMatch) st.nearestMatch = d;
          }
        }
        return;
      }
      case PHASE.SCAN: {
        const cap = this.matchCap(st);
        const m = st.matches;
        for (let j = 0; j < n; j++) {
          const d = st.dist[j]!;
          if (m.size < cap) m.push(d, st.ids[j]!);
          else if (d < m.d[0]!) {
            m.pop();
            m.push(d, st.ids[j]!);
          }
        }
        st.stats[STAT.scanned]! += n;
        return;
      }
      case PHASE.RERANK: {
        const k = st.k;
        for (let j = 0; j < n; j++) {
          const d = st.dist[j]!;
          st.poolD[st.poolAt + j] = d;
          st.offerBest(d, k);
        }
        st.poolAt += n;
        st.stats[STAT.reranked]! += n;
        return;
      }
    }
  }

  private descend(st: QueryState): void {
    st.level--;
    if (st.level === 0) this.startLevel0(st);
  }

  private startLevel0(st: QueryState): void {
    st.visited.clear();
    st.visited.add(st.cur);
    st.foreseen = -1;
    if (st.plan === FILTER_PLAN.GRAPH || st.plan === FILTER_PLAN.TWO_HOP || st.plan === FILTER_PLAN.LINKED) {
      st.phase = PHASE.FILTERED;
      st.linkSeeds = st.plan === FILTER_PLAN.LINKED;
      this.startWalk(st);
      const c = st.cur;
      if (st.plan === FILTER_PLAN.GRAPH) {
        const [local, seen] = this.entryMatches(st, c);
        const nodes = this.index.meta.count;
        const scarce = st.scanIfScarce && entryScarce(st.matched, nodes, local, seen, st.scarceDivisor);
        if (scarce && st.links === null) {
          this.scanScarce(st);
          return;
        }
        if (scarce) {
          st.plan = FILTER_PLAN.LINKED;
          st.linkSeeds = true;
        } else if (!st.scanIfScarce && this.index.meta.maxLevel > 0 && st.matched >= SEED_MIN_SHARE * nodes && entryScarce(st.matched, nodes, local, seen)) {
          // The descent's node is on level 1: the walk there finds the matches beyond the gap.
          this.startSeed(st);
        } else {
          st.walkEf = walkEf(st.ef, st.matched, nodes, local, seen);
          st.mayReseed = !st.scanIfScarce && this.index.meta.maxLevel > 0 && st.matched >= RESEED_MIN_SHARE * nodes;
          st.holeHops = 0;
        }
      }
      if (st.plan === FILTER_PLAN.LINKED) st.stats[STAT.linkedWalks]!++;
      return;
    }
    st.phase = PHASE.LEVEL0;
    st.beam.insert(st.curDist, st.cur, st.ef);
  }

  /**
   * The offset of node's list on an upper level in the upper layers' links (readUpper in
   * traverse.as.ts is the twin), its read counted as a hop and priced: the upper layers always live
   * in DRAM.
   */
  private readUpper(st: QueryState, node: number, level: number): number {
    const idx = this.index;
    const block = upperBlock(idx.upper, node, level, idx.meta.maxM);
    st.stats[STAT.hops]!++;
    st.owedNs += this.acct.adjacency(st.stats, 0, 4 * (1 + idx.upper.links[block]!), false);
    return block;
  }

  /**
   * The level-1 walk's next request (expandFiltered's order and stop rule, on the upper layers'
   * lists, always in DRAM, nothing foreseen); false once it is done.
   */
  private expandSeed(st: QueryState): boolean {
    const idx = this.index;
    const frontier = st.frontier;
    const m = st.matches;
    const links = idx.upper.links;
    for (;;) {
      if (frontier.size === 0) return false;
      const c = frontier.i[0]!;
      if (m.size >= st.walkEf && frontier.d[0]! > m.d[0]!) return false;
      frontier.pop();
      const block = this.readUpper(st, c, 1);
      const n = links[block]!;
      let k = 0;
      for (let j = 0; j < n; j++) {
        const nb = links[block + 1 + j]!;
        if (st.visited.add(nb)) st.ids[k++] = nb;
      }
      if (this.send(st, k)) return true;
    }
  }

  /**
   * A plain walk (of a filter holding RESEED_MIN_SHARE or more) that has expanded SEED_AFTER
   * non-matches, each nearer than every match found, stands in a gap its entry did not show (the
   * descent ended just outside it): it starts again as a seeded walk from the descent's node, as
   * startLevel0 would have. The work so far stays counted.
   */
  private reseed(st: QueryState): void {
    st.visited.clear();
    st.visited.add(st.cur);
    this.startWalk(st);
    this.startSeed(st);
  }

  /** A filtered walk's start from the descent's node: the frontier holds it, and the matches if it is one. */
  private startWalk(st: QueryState): void {
    this.resetMatches(st);
    st.frontier.size = 0;
    st.frontier.push(st.curDist, st.cur);
    const c = st.cur;
    if ((st.filter![c >>> 5]! >>> (c & 31)) & 1) st.matches.push(st.curDist, c);
    st.walkEf = st.ef;
    st.hole = false;
    st.mayReseed = false;
    st.nearestMatch = st.matches.size > 0 ? st.curDist : Number.POSITIVE_INFINITY;
  }

  /** The seeded walk next: its level-1 part at the query's ef, then level 0 at the widened ef (endSeed). */
  private startSeed(st: QueryState): void {
    st.phase = PHASE.SEED;
    st.seedEf = widenedEf(st.ef, st.matched, this.index.meta.count);
    st.stats[STAT.seededWalks]!++;
  }

  /**
   * The level-1 walk's matches become the level-0 walk's frontier, at the widened ef; the nodes it
   * visited stay visited (its non-matches mostly lie in the gap the level-0 walk steps around).
   */
  private endSeed(st: QueryState): void {
    const m = st.matches;
    const frontier = st.frontier;
    frontier.size = 0;
    for (let j = 0; j < m.size; j++) frontier.push(m.d[j]!, m.i[j]!);
    st.walkEf = st.seedEf;
    st.hole = true;
    st.phase = PHASE.FILTERED;
  }

  /** The scan's next request: up to batchMax matching nodes, in node order; false once all were sent. */
  private nextMatches(st: QueryState): boolean {
    const bits = st.filter!;
    const words = bits.length;
    const ids = st.ids;
    const cap = this.batchMax;
    let w = st.scanWord;
    let mask = st.scanMask;
    let m = 0;
    while (m < cap) {
      if (mask === 0) {
        if (++w >= words) break;
        mask = bits[w]!;
        continue;
      }
      ids[m++] = (w << 5) | (31 - Math.clz32(mask & -mask));
      mask &= mask - 1;
    }
    st.scanWord = w;
    st.scanMask = mask;
    return this.send(st, m);
  }

  /**
   * The filtered walk's next request: the nearest frontier node's unvisited neighbours; false once
   * the frontier is empty or its nearest is farther than the ef-th match.
   */
  private expandFiltered(st: QueryState): boolean {
    const adj = this.index.adjacency;
    const words = this.adjWords;
    const frontier = st.frontier;
    const m = st.matches;
    if (st.linkSeeds) {
      st.linkSeeds = false;
      if (this.requestSeeds(st)) return true;
    }
    for (;;) {
      // The node taken one step ahead is expanded first (relaxed order, as Traversal.expand), unless
      // it is beyond the ef-th match by now: then no strict order would expand it either.
      let c = st.foreseen;
      let hit = false;
      if (c >= 0) {
        st.foreseen = -1;
        if (m.size < st.walkEf || st.foreseenD <= m.d[0]!) hit = true;
        else this.dropForeseen(st, c);
      }
      let d = st.foreseenD;
      if (!hit) {
        if (frontier.size === 0) return false;
        c = frontier.i[0]!;
        d = frontier.d[0]!;
        if (m.size >= st.walkEf && d > m.d[0]!) return false;
        frontier.pop();
      }
      if (st.mayReseed && d < st.nearestMatch && !((st.filter![c >>> 5]! >>> (c & 31)) & 1) && ++st.holeHops >= SEED_AFTER) {
        if (hit) this.dropForeseen(st, c);
        this.reseed(st);
        return false;
      }
      const seg = adj.segmentOf(c);
      const u32 = seg.u32;
      const at = seg.recordBase + (c - seg.start) * words;
      const n = u32[at]! & DEGREE_MASK;
      st.stats[STAT.hops]!++;
      const tier = this.listServedFrom(st, c, seg.tier);
      if (hit && st.plan === FILTER_PLAN.LINKED) {
        // c's link lists were located when it was foreseen; the next foreseen node takes the other array.
        const t = st.expandLinks;
        st.expandLinks = st.foreseenLinks;
        st.foreseenLinks = t;
        st.expandLinkN = st.foreseenLinkN;
      }
      if (this.prefetch) this.foreseeFrontier(st, tier, n, hit);
      else st.owedNs += this.acct.adjacency(st.stats, tier, 4 * (1 + n), false);
      const more =
        st.plan === FILTER_PLAN.TWO_HOP
          ? this.requestMatching(st, u32, at, n)
          : st.plan === FILTER_PLAN.LINKED
            ? this.requestLinked(st, u32, at, n, c, hit)
            : this.requestUnvisited(st, u32, at, n);
      if (more) return true;
    }
  }

  /**
   * ACORN's expansion: the list's unvisited matching neighbours, and while they are fewer than a
   * full list, the matching neighbours of its non-matching ones (two hops, the bridge's list read
   * but its vector never), so that the walk stays on matches and still crosses the gaps between them.
   */
  private requestMatching(st: QueryState, u32: Uint32Array, at: number, n: number): boolean {
    const visited = st.visited;
    const bits = st.filter!;
    const ids = st.ids;
    const cap = this.batchMax;
    const want = this.index.meta.maxM0;
    const adj = this.index.adjacency;
    const words = this.adjWords;
    let m = this.matchingUnvisited(st, u32, at, n);
    for (let j = 1; j <= n && m < want; j++) {
      const bridge = u32[at + j]!;
      if ((bits[bridge >>> 5]! >>> (bridge & 31)) & 1 || !visited.add(bridge)) continue;
      const seg = adj.segmentOf(bridge);
      const b32 = seg.u32;
      const bAt = seg.recordBase + (bridge - seg.start) * words;
      const bn = b32[bAt]! & DEGREE_MASK;
      st.stats[STAT.bridges]!++;
      st.owedNs += this.acct.adjacency(st.stats, this.listServedFrom(st, bridge, seg.tier), 4 * (1 + bn), false);
      for (let i = 1; i <= bn && m < cap; i++) {
        const nb = b32[bAt + i]!;
        if ((bits[nb >>> 5]! >>> (nb & 31)) & 1 && visited.add(nb)) ids[m++] = nb;
      }
    }
    return this.send(st, m);
  }

  /** The LINKED walk's first request: its blocks' entries, so that it starts among the cover whatever the descent found. */
  private requestSeeds(st: QueryState): boolean {
    const links = this.index.links!;
    const blocks = st.links!;
    const ids = st.ids;
    let m = 0;
    for (let j = 0; j < blocks.length && m < ids.length; j++) {
      const e = links.blocks[blocks[j]!]!.entry;
      if (st.visited.add(e)) ids[m++] = e;
    }
    return this.send(st, m);
  }

  /**
   * The LINKED expansion: the list's unvisited matching neighbours, then c's links in each covering
   * block it belongs to (points of the cover, matching or not: the walk crosses the cover through
   * them). c's lookup and a block's list are cold, read from CXL. Up to a request's worth; the rest
   * stay unvisited.
   */
  private requestLinked(st: QueryState, u32: Uint32Array, at: number, n: number, c: number, hit: boolean): boolean {
    const visited = st.visited;
    const ids = st.ids;
    const cap = ids.length;
    let m = this.matchingUnvisited(st, u32, at, n);
    const links = this.index.links!;
    const lists = links.lists;
    if (!hit) {
      this.linkRoom(st, links.maxMemberships);
      st.expandLinkN = links.listsIn(st.links!, c, st.expandLinks);
    }
    // c's lookup (its bounds, then its memberships) comes from the CXL tier before its lists do.
    const lookup = links.lookupBytes(c);
    if (lookup > 0) st.owedNs += this.acct.filterLinksMany(st.stats, LINK_LOOKUP_READS, lookup, hit);
    for (let b = 0; b < st.expandLinkN && m < cap; b++) {
      const r = st.expandLinks[b]!;
      const deg = lists[r]!;
      st.owedNs += this.acct.filterLinks(st.stats, 4 * (1 + deg), hit);
      for (let j = 1; j <= deg && m < cap; j++) {
        const nb = lists[r + j]!;
        if (visited.add(nb)) ids[m++] = nb;
      }
    }
    return this.send(st, m);
  }

  /** Room for a node's lists in the covering blocks, in both the foreseen and the expanded arrays. */
  private linkRoom(st: QueryState, most: number): void {
    if (st.foreseenLinks.length >= most && st.expandLinks.length >= most) return;
    st.foreseenLinks = new Int32Array(most);
    st.expandLinks = new Int32Array(most);
    st.foreseenLinkN = 0;
    st.expandLinkN = 0;
  }

  /**
   * The tier a list is read from: a CXL-range list is served from the promotion pool when it is a
   * tenant, and counted where it lives in a sampled query (the WASM traversal's twin:
   * index/kernels/traverse.as.ts).
   */
  private listServedFrom(st: QueryState, c: number, tier: number): number {
    const pool = this.index.pool;
    if (tier !== 1 || pool === null) return tier;
    const slot = pool.slotOf(c);
    if (st.countLists && pool.count(c, slot)) st.counted++;
    return slot >= 0 ? 0 : tier;
  }

  /** Appends the list's unvisited matching neighbours to the request (marking them); how many there are now. */
  private matchingUnvisited(st: QueryState, u32: Uint32Array, at: number, n: number): number {
    const visited = st.visited;
    const bits = st.filter!;
    const ids = st.ids;
    let m = 0;
    for (let j = 1; j <= n; j++) {
      const nb = u32[at + j]!;
      if ((bits[nb >>> 5]! >>> (nb & 31)) & 1 && visited.add(nb)) ids[m++] = nb;
    }
    return m;
  }

  /** Makes the m ids gathered the request, on the traversal records; false when there are none. */
  private send(st: QueryState, m: number): boolean {
    if (m === 0) return false;
    st.n = m;
    st.scorer = SCORER.TRAVERSE;
    return true;
  }

  /** The list's unvisited neighbours become the request; false when there are none. */
  private requestUnvisited(st: QueryState, u32: Uint32Array, at: number, n: number): boolean {
    const visited = st.visited;
    const ids = st.ids;
    let m = 0;
    for (let j = 1; j <= n; j++) {
      const nb = u32[at + j]!;
      if (visited.add(nb)) ids[m++] = nb;
    }
    return this.send(st, m);
  }

  /** A GRAPH_OR_SCAN query whose entry is scarce in matches scans instead of walking. */
  private scanScarce(st: QueryState): void {
    st.stats[STAT.scarceScans]!++;
    this.startScan(st);
  }

  /** How many of the entry's nodes match, of how many: c and its level-0 list (walk-ef.ts). */
  private entryMatches(st: QueryState, c: number): [number, number] {
    const seg = this.index.adjacency.segmentOf(c);
    const u32 = seg.u32;
    const at = seg.recordBase + (c - seg.start) * this.adjWords;
    const n = u32[at]! & DEGREE_MASK;
    const bits = st.filter!;
    let local = (bits[c >>> 5]! >>> (c & 31)) & 1;
    for (let j = 1; j <= n; j++) {
      const nb = u32[at + j]!;
      local += (bits[nb >>> 5]! >>> (nb & 31)) & 1;
    }
    return [local, n + 1];
  }

  /** The walk is over: its matches are the pool, unless it found fewer than k of more (then the scan). */
  private endFiltered(st: QueryState): void {
    this.closeWalk(st);
    if (st.matches.size < st.k && st.matched > st.matches.size) {
      st.stats[STAT.scanFallbacks]!++;
      this.startScan(st);
      return;
    }
    this.endMatches(st);
  }

  /** The matches, best first, become the pool: the answer without codes, else re-ranked. */
  private endMatches(st: QueryState): void {
    const m = st.matches;
    const n = m.size;
    st.ensurePool(n);
    // The re-rank reads only the pool's first `rerank` entries by estimate, and endRerank sorts what
    // it takes itself: a widened walk's matches (up to WALK_BOOST × ef) need not all be sorted.
    const sorted = this.index.codes === null || st.rerank === 0 ? n : Math.min(n, st.rerank);
    if (sorted < n) {
      if (this.selectScratch.length < n) this.selectScratch = new Float64Array(m.d.length);
      nearestFirst(m, sorted, st.poolIds, st.poolD, this.selectScratch);
    } else
      for (let j = n - 1; j >= 0; j--) {
        st.poolIds[j] = m.i[0]!;
        st.poolD[j] = m.d[0]!;
        m.pop();
      }
    m.size = 0;
    if (this.index.codes === null) {
      st.poolN = n;
      this.endRerank(st);
      return;
    }
    this.rerankPool(st, n);
  }

  /**
   * Takes candidates until one has unvisited neighbours, which become the request; false when the
   * beam is done. With foreseeing the order is relaxed by one step, as in CXL-ANNS: the candidate
   * taken one step ahead (its list already on its way) is expanded even when the last step brought
   * a nearer one, which then comes next, its own list fetched meanwhile. A foreseen candidate is
   * dropped only where the strict order would never expand it (beyond the beam's bound by now).
   */
  private expand(st: QueryState): boolean {
    const adj = this.index.adjacency;
    const words = this.adjWords;
    const beam = st.beam;
    for (;;) {
      let c = st.foreseen;
      let hit = false;
      if (c >= 0) {
        st.foreseen = -1;
        if (st.foreseenD <= beam.last()) hit = true;
        else this.dropForeseen(st, c);
      }
      if (!hit) {
        const k = beam.take();
        if (k < 0) return false;
        c = beam.i[k]!;
      }
      const seg = adj.segmentOf(c);
      const u32 = seg.u32;
      const at = seg.recordBase + (c - seg.start) * words;
      const n = u32[at]! & DEGREE_MASK;
      st.stats[STAT.hops]!++;
      if (this.trace !== null) this.trace[c]!++;
      const tier = this.listServedFrom(st, c, seg.tier);
      if (this.prefetch) this.foresee(st, tier, n, hit);
      else st.owedNs += this.acct.adjacency(st.stats, tier, 4 * (1 + n), false);
      if (st.lcOn && beam.size >= st.ef ? this.requestLikely(st, u32, at, n, c, hit) : this.requestUnvisited(st, u32, at, n)) return true;
    }
  }

  /**
   * requestUnvisited for a full beam over list codes (traverse.as.ts's requestLikely is the twin):
   * the list's block estimates every neighbour at once, and an unvisited one whose estimate exceeds
   * the beam's bound by more than the store's margin is left unscored and unvisited (another list
   * may bring it back when the bound has moved). The block is read with the list: hidden when the
   * list was foreseen.
   */
  private requestLikely(st: QueryState, u32: Uint32Array, at: number, n: number, c: number, hit: boolean): boolean {
    const lc = this.index.listCodes!;
    const est = st.lcEst;
    listEstimatesJs(st.lcLut, 0, lc.blocks, c * lc.stride, lc.subspaces, Math.ceil(n / 32), est, 0);
    st.owedNs += this.acct.listCodesMany(st.stats, 1, lc.readBytes(n), hit);
    // f32 steps, as the WASM twin computes it, so both leave out the same neighbours.
    const limit = Math.fround(Math.fround(Math.fround(st.beam.last() + lc.margin) - st.lcLo) * st.lcScale);
    const visited = st.visited;
    const ids = st.ids;
    let m = 0;
    let skipped = 0;
    for (let j = 1; j <= n; j++) {
      const nb = u32[at + j]!;
      if (visited.has(nb)) continue;
      if (est[j - 1]! > limit) {
        skipped++;
        continue;
      }
      visited.add(nb);
      ids[m++] = nb;
    }
    st.stats[STAT.listCodeSkipped]! += skipped;
    return this.send(st, m);
  }

  /**
   * CXL-ANNS foreseeing: charges the expanded list's read (latency hidden when it was foreseen),
   * then takes the beam's first entry not yet taken and fetches its list ahead. A foreseen list that
   * is then dropped still pays its bytes.
   */
  private foresee(st: QueryState, tier: number, degree: number, hit: boolean): void {
    this.chargeExpanded(st, tier, degree, hit);
    const beam = st.beam;
    const k = beam.take();
    if (k >= 0) this.takeAhead(st, beam.i[k]!, beam.d[k]!);
  }

  /** The expanded list's read: its latency hidden when it was foreseen. */
  private chargeExpanded(st: QueryState, tier: number, degree: number, hit: boolean): void {
    if (hit) st.stats[STAT.prefetchHits]!++;
    st.owedNs += this.acct.adjacency(st.stats, tier, 4 * (1 + degree), hit);
  }

  /** Takes `next` (at distance d) one step ahead and touches its list, which is fetched meanwhile. */
  private takeAhead(st: QueryState, next: number, d: number): void {
    st.foreseen = next;
    st.foreseenD = d;
    const seg = this.index.adjacency.segmentOf(next);
    const deg = seg.u32[seg.recordBase + (next - seg.start) * this.adjWords]! & DEGREE_MASK;
    this.touchSink ^= deg;
    st.foreseenBytes = 4 * (1 + deg);
    st.stats[STAT.prefetchIssued]!++;
  }

  /**
   * foresee's twin for the filtered walk: charges the expanded list's read, then takes the
   * frontier's nearest and fetches its list ahead (traverse.as.ts's filteredWalk is the twin).
   */
  private foreseeFrontier(st: QueryState, tier: number, degree: number, hit: boolean): void {
    this.chargeExpanded(st, tier, degree, hit);
    const frontier = st.frontier;
    if (frontier.size === 0) return;
    const next = frontier.i[0]!;
    this.takeAhead(st, next, frontier.d[0]!);
    frontier.pop();
    if (st.plan === FILTER_PLAN.LINKED) this.foreseeLinks(st, next);
  }

  /** Locates the foreseen node's lists in the covering blocks (fetched with its neighbour list). */
  private foreseeLinks(st: QueryState, node: number): void {
    const links = this.index.links;
    if (links === null) {
      st.foreseenLinkN = 0;
      return;
    }
    this.linkRoom(st, links.maxMemberships);
    st.foreseenLinkN = links.listsIn(st.links!, node, st.foreseenLinks);
  }

  /** A foreseen node not expanded: its lists (and its link lists in a LINKED walk) still cost their bytes. */
  private dropForeseen(st: QueryState, node: number): void {
    st.owedNs += this.acct.bytesOnly(st.stats, this.index.listTier(node), st.foreseenBytes);
    const links = this.index.links;
    if (st.plan !== FILTER_PLAN.LINKED || links === null) return;
    st.owedNs += this.acct.bytesOnly(st.stats, 1, links.lookupBytes(node));
    for (let b = 0; b < st.foreseenLinkN; b++) st.owedNs += this.acct.bytesOnly(st.stats, 1, 4 * (1 + links.lists[st.foreseenLinks[b]!]!));
  }

  /** Charges what a level-0 walk left owing: a foreseen list never expanded, the counted lines' write-backs. */
  private closeWalk(st: QueryState): void {
    if (st.foreseen >= 0) {
      this.dropForeseen(st, st.foreseen);
      st.foreseen = -1;
    }
    // Each counted read of a list in CXL dirtied a line there: its write-back is CXL traffic, no wait.
    if (st.counted > 0) st.owedNs += this.acct.bytesOnly(st.stats, 1, COUNT_WRITE_BYTES * st.counted);
    st.counted = 0;
  }

  private endLevel0(st: QueryState): void {
    this.closeWalk(st);
    if (this.index.codes === null) {
      this.finish(st);
      return;
    }
    // The beam, best first by approximate distance; the best `rerank` of it are re-scored.
    this.rerankPool(st, this.drainBeam(st));
  }

  /** The pool's first `size` candidates, best first by estimate, go to the staged re-rank. */
  private rerankPool(st: QueryState, size: number): void {
    if (st.rerank === 0) {
      // No re-rank asked for (rescore off): the code's estimates are the answer.
      st.poolN = size;
      this.endRerank(st);
      return;
    }
    // Stage 0 re-scores the best k by estimate; each later stage only those of the rest (up to
    // `rerank`) whose error bound leaves them a chance against the k-th exact distance so far
    // (selectByBound). The k-th tightens with every stage, so later candidates are pruned harder.
    st.rerankCap = Math.min(size, st.rerank);
    st.poolN = Math.min(size, st.k);
    st.poolAt = 0;
    st.undecidedAt = st.poolN;
    st.rerankStage = 0;
    st.resetBest(st.k);
    st.phase = PHASE.RERANK;
  }

  /**
   * The next stage: from the undecided candidates (best estimate first), the first k·2^(stage-1)
   * whose estimate minus PRUNE_SIGMAS standard deviations of its error beats the k-th exact
   * distance found so far; those that do
   * not are dropped for good (the k-th only shrinks). Stages grow so that a query needs few of them:
   * each is one round trip to the vectors' tier.
   */
  private selectByBound(st: QueryState): void {
    const stage = ++st.rerankStage;
    const done = st.poolAt;
    const kth = st.pruneByBound ? st.kthBest(st.k) : Number.POSITIVE_INFINITY;
    const want = st.pruneByBound ? st.k << Math.min(stage - 1, 20) : st.rerankCap;
    const codes = this.index.codes!;
    const codec = this.index.codec!;
    const ids = st.poolIds;
    const ests = st.poolD;
    const cap = st.rerankCap;
    let m = done;
    let j = st.undecidedAt;
    for (; j < cap && m - done < want; j++) {
      const id = ids[j]!;
      const est = ests[j]!;
      // An estimate within the k-th needs no bound (+∞ when not pruning).
      if (est > kth) {
        const seg = codes.segmentOf(id);
        const bound = codec.errorBound(seg.dv, seg.layout.recordOffset + (id - seg.start) * seg.shape.stride, seg.slotQuery(st.slot), est);
        if (est - PRUNE_SHARE * bound > kth) {
          st.stats[STAT.rerankSkipped]!++;
          continue;
        }
      }
      ids[m] = id;
      ests[m] = est;
      m++;
    }
    st.undecidedAt = j;
    st.poolN = m;
  }

  /** The pool's best k, ordered (ties by label), are the answer. */
  private endRerank(st: QueryState): void {
    const k = Math.min(st.k, st.poolN);
    sortByDistanceThenLabel(st.poolIds, st.poolD, st.poolN, this.index.labels, k);
    st.resultIds = st.poolIds.slice(0, k);
    // An element loop: constructing a Float32Array from a Float64Array view takes V8's generic path.
    const d = new Float32Array(k);
    for (let j = 0; j < k; j++) d[j] = st.poolD[j]!;
    st.resultD = d;
    st.phase = PHASE.DONE;
  }

  /** Exact traversal distances (no codes): the beam is the answer. */
  private finish(st: QueryState): void {
    st.poolN = this.drainBeam(st);
    this.endRerank(st);
  }

  /** Empties the beam into the pool, best first; returns its size. */
  private drainBeam(st: QueryState): number {
    if (st.sortedBeam >= 0) {
      const sorted = st.sortedBeam;
      st.sortedBeam = -1;
      return sorted;
    }
    const beam = st.beam;
    const n = beam.size;
    st.ensurePool(n);
    for (let j = 0; j < n; j++) {
      st.poolIds[j] = beam.i[j]!;
      st.poolD[j] = beam.d[j]!;
    }
    return n;
  }
}

/**
 * The heap's r nearest entries (r < its size) into ids and d, ascending, ties in heap-array order.
 * A quickselect (in `room`, at least the heap's size) finds the r-th distance; only those r are
 * sorted, and the rest is not copied.
 */
export function nearestFirst(heap: MaxHeap, r: number, ids: Int32Array, d: Float64Array, room: Float64Array): void {
  const n = heap.size;
  const scratch = room.subarray(0, n);
  scratch.set(heap.d.subarray(0, n));
  selectSmallest(scratch, r);
  let cut = scratch[0]!;
  for (let j = 1; j < r; j++) if (scratch[j]! > cut) cut = scratch[j]!;
  // Those nearer than the r-th first, then those at its distance until r are placed.
  let m = 0;
  for (let j = 0; j < n; j++)
    if (heap.d[j]! < cut) {
      ids[m] = heap.i[j]!;
      d[m++] = heap.d[j]!;
    }
  for (let j = 0; j < n && m < r; j++)
    if (heap.d[j]! === cut) {
      ids[m] = heap.i[j]!;
      d[m++] = cut;
    }
  for (let j = 1; j < r; j++) {
    const id = ids[j]!;
    const dj = d[j]!;
    let p = j;
    while (p > 0 && d[p - 1]! > dj) {
      ids[p] = ids[p - 1]!;
      d[p] = d[p - 1]!;
      p--;
    }
    ids[p] = id;
    d[p] = dj;
  }
}

/**
 * Sorts ids[0..n) by distance, ties by external label, so that equal graphs give equal answers
 * whatever the internal numbering; with k < n only the first k are sorted (the best k, in order),
 * the rest left in some order behind them. Insertion sort: pools are small and usually nearly
 * sorted, and an entry that does not beat the k-th costs one comparison.
 */
export function sortByDistanceThenLabel(ids: Int32Array, d: Float64Array, n: number, labels: Float64Array, k = n): void {
  if (n > 256) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => d[a]! - d[b]! || labels[ids[a]!]! - labels[ids[b]!]!);
    const ids2 = Int32Array.from(order, (i) => ids[i]!);
    const d2 = Float64Array.from(order, (i) => d[i]!);
    ids.set(ids2);
    d.set(d2);
    return;
  }
  const m = Math.min(k, n);
  for (let j = 1; j < n; j++) {
    const id = ids[j]!;
    const dj = d[j]!;
    let p = j;
    if (j >= m) {
      // Past the first m: only an entry that beats the m-th enters, which takes its place at j.
      const last = d[m - 1]!;
      // Labels live with the cold data: read only to break a tie.
      if (dj > last || (dj === last && labels[id]! > labels[ids[m - 1]!]!)) continue;
      ids[j] = ids[m - 1]!;
      d[j] = last;
      p = m - 1;
    }
    while (p > 0 && (d[p - 1]! > dj || (d[p - 1]! === dj && labels[ids[p - 1]!]! > labels[id]!))) {
      ids[p] = ids[p - 1]!;
      d[p] = d[p - 1]!;
      p--;
    }
    ids[p] = id;
    d[p] = dj;
  }
}
