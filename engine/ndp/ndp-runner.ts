// The near-data search thread. It runs many queries at once, each a small state machine (entry,
// upper-layer greedy steps, level-0 beam search: the same steps, in the same order, as the local
// Searcher, so answers are identical). Every round, each query prepares its next batch of ids; ids of
// DRAM-tier nodes are computed right here, ids of CXL-tier nodes go to the worker of the expander that
// holds them — one message per expander per round, carrying the requests of every query in the
// group. Only ids and distances cross; vectors stay in the tier. With `pipeline` the queries form two
// groups, and one group's deferrable work (applying results, choosing the next batch) overlaps the
// other group's tier work: CXL-ANNS's scheduling split, across queries.
import { batchCostNs, tierCosts, type CostModelParams, type TierCosts } from '../../tiers/cost-model.js';
import { stallNs } from '../../tiers/stall.js';
import { chargeAdjacency, chargeBytes } from '../../index/search/accounting.js';
import { MaxHeap, MinHeap } from '../../index/search/heaps.js';
import { drainTop } from '../../index/search/searcher.js';
import { STAT, STAT_FIELDS } from '../../index/search/stats.js';
import type { TieredIndex } from '../../index/tiered/tiered-index.js';
import { ChannelClient } from './channel.js';
import { VisitedSet } from './visited-set.js';
import type { QueryTask, TaskResult } from '../task.js';

export interface NdpOptions {
  inflight: number;
  pipeline: boolean;
  prefetch: boolean;
  inject: boolean;
  cost: CostModelParams;
  /** Polls of a channel before sleeping on it. */
  spin: number;
}

export interface NdpLinks {
  /** Expander of each segment; -1 for segments the search thread computes itself (DRAM tier). */
  expanderOfSegment: Int32Array;
  /** channels[group][expander]. */
  channels: SharedArrayBuffer[][];
  bell: Int32Array;
}

const START = 0;
const ENTRY = 1;
const UPPER = 2;
const LEVEL0 = 3;
const DONE = 4;

class QState {
  qi = -1;
  /** Index into the runner's slots (and their per-segment offsets). */
  si = -1;
  k = 10;
  ef = 10;
  phase = START;
  cur = 0;
  curDist = 0;
  level = 0;
  lowerBound = 0;
  foreseen = -1;
  foreseenBytes = 0;
  owedNs = 0;
  m = 0;
  readonly cand = new MinHeap(256);
  readonly top = new MaxHeap(256);
  readonly visited = new VisitedSet();
  readonly batch: Int32Array;
  readonly dist: Float32Array;
  readonly stats = new Float64Array(STAT_FIELDS);
  /** Segments the current batch touches, and how many ids in each; local ones to compute here. */
  readonly touched: Int32Array;
  readonly touchedCount: Int32Array;
  touchedN = 0;
  constructor(batchMax: number) {
    this.batch = new Int32Array(batchMax);
    this.dist = new Float32Array(batchMax);
    this.touched = new Int32Array(batchMax);
    this.touchedCount = new Int32Array(batchMax);
  }
}

interface Group {
  queries: QState[];
  channels: ChannelClient[];
  /** Per expander: the (query, ids) entries of the message being assembled, for link accounting. */
  entries: Array<Array<[QState, number]>>;
}

export class NdpRunner {
  private readonly costs: TierCosts;
  private readonly groups: Group[];
  private readonly segCursor: Int32Array;
  private readonly idsAt: Int32Array[];
  private readonly outAt: Int32Array[];
  /** Expander messages sent per group this round, and the ids they carried (link accounting). */
  private task: QueryTask | null = null;
  private out: TaskResult | null = null;
  private nextQuery = 0;
  private readonly free: QState[] = [];
  private readonly slots: number[] = [];

  constructor(
    private readonly index: TieredIndex,
    private readonly links: NdpLinks,
    private readonly opts: NdpOptions,
  ) {
    this.costs = tierCosts(opts.cost);
    const groupsN = opts.pipeline ? 2 : 1;
    this.groups = Array.from({ length: groupsN }, (_, g) => ({
      queries: [],
      channels: links.channels[g]!.map((sab, e) => new ChannelClient(sab, links.bell, e)),
      entries: links.channels[g]!.map(() => []),
    }));
    for (let i = 0; i < opts.inflight; i++) {
      this.slots.push(index.acquireSlot());
      this.free.push(new QState(index.shape.batchMax));
    }
    this.segCursor = new Int32Array(index.segments.length);
    // per slot, per segment: where its ids and results live (u32 / f32 indices)
    this.idsAt = this.slots.map((slot) => Int32Array.from(index.segments, (s) => s.slotIds(slot) >>> 2));
    this.outAt = this.slots.map((slot) => Int32Array.from(index.segments, (s) => s.slotOut(slot) >>> 2));
  }

  close(): void {
    for (const s of this.slots) this.index.releaseSlot(s);
    this.slots.length = 0;
  }

  run(task: QueryTask, out: TaskResult): void {
    this.task = task;
    this.out = out;
    this.nextQuery = 0;
    const freeSlots = this.slots.map((_, i) => i);
    const admit = (g: Group): void => {
      while (this.nextQuery < task.k.length && this.free.length > 0 && freeSlots.length > 0) {
        const qi = this.nextQuery++;
        if (task.exact[qi]) continue; // exact queries are run by the caller's local searcher
        const q = this.free.pop()!;
        this.begin(q, qi, freeSlots.pop()!);
        g.queries.push(q);
      }
    };
    for (const g of this.groups) admit(g);
    for (const g of this.groups) this.urgent(g);
    let active = this.groups.reduce((a, g) => a + g.queries.length, 0);
    while (active > 0) {
      for (const g of this.groups) {
        if (g.queries.length === 0) continue;
        for (const ch of g.channels) ch.wait(this.opts.spin);
        this.apply(g);
        // finished queries leave; new ones take their place
        let kept = 0;
        for (const q of g.queries) {
          if (q.phase !== DONE) g.queries[kept++] = q;
          else {
            this.finish(q);
            freeSlots.push(q.si);
            this.free.push(q);
          }
        }
        const finished = g.queries.length - kept;
        g.queries.length = kept;
        if (finished > 0) admit(g);
        this.urgent(g);
      }
      active = this.groups.reduce((a, g) => a + g.queries.length, 0);
    }
    this.task = null;
    this.out = null;
  }

  private begin(q: QState, qi: number, si: number): void {
    const t = this.task!;
    q.qi = qi;
    q.si = si;
    q.k = t.k[qi]!;
    q.ef = Math.max(t.ef[qi]!, q.k);
    q.phase = START;
    q.stats.fill(0);
    q.owedNs = 0;
    q.foreseen = -1;
    q.visited.clear();
    q.cand.clear();
    q.top.clear();
    q.top.ensure(q.ef + 2);
    // The query goes to every segment once: for CXL segments that is a trip over the link.
    const slot = this.slots[si]!;
    const v = t.vectors.subarray(qi * t.dim, (qi + 1) * t.dim);
    this.index.segments.forEach((seg) => {
      seg.f32.set(v, seg.slotQuery(slot) >>> 2);
      if (seg.tier === 1) q.stats[STAT.linkBytes]! += 4 * t.dim;
    });
  }

  /** Urgent part: every query of the group picks its next batch; CXL ids are sent, DRAM ids computed here. */
  private urgent(g: Group): void {
    let owed = 0;
    for (const q of g.queries) {
      this.prepare(q);
      owed += q.owedNs;
      q.stats[STAT.injectedNs]! += this.opts.inject ? q.owedNs : 0;
      q.owedNs = 0;
    }
    // The host read those neighbour lists before it could know the ids: pay that first.
    if (this.opts.inject && owed > 0) stallNs(owed);
    const idx = this.index;
    const segs = idx.segments;
    const segOf = idx.segOf;
    const expOf = this.links.expanderOfSegment;
    const cursor = this.segCursor;
    for (const q of g.queries) {
      q.touchedN = 0;
      if (q.m === 0) continue;
      const slot = this.slots[q.si]!;
      const idsAt = this.idsAt[q.si]!;
      for (let j = 0; j < q.m; j++) {
        const id = q.batch[j]!;
        const s = segOf[id]!;
        const c = cursor[s]!;
        if (c === 0) q.touched[q.touchedN++] = s;
        const seg = segs[s]!;
        seg.u32[idsAt[s]! + c] = id - seg.start;
        cursor[s] = c + 1;
      }
      const st = q.stats;
      for (let t = 0; t < q.touchedN; t++) {
        const s = q.touched[t]!;
        const c = cursor[s]!;
        cursor[s] = 0;
        q.touchedCount[t] = c;
        const seg = segs[s]!;
        const bytes = c * seg.vecBytes;
        // Vector reads happen where the vectors are: priced at local cost, on the tier they belong to.
        const ns = batchCostNs(this.costs, 0, c, bytes);
        st[STAT.modelledNs]! += ns;
        st[STAT.modelledDramOnlyNs]! += ns;
        if (seg.tier === 0) {
          st[STAT.vecReadsDram]! += c;
          st[STAT.vecBytesDram]! += bytes;
        } else {
          st[STAT.vecReadsCxl]! += c;
          st[STAT.vecBytesCxl]! += bytes;
        }
        const e = expOf[s]!;
        if (e >= 0) {
          const ch = g.channels[e]!;
          if (ch.size === ch.maxEntries) this.flush(g, e);
          ch.add(s, slot, c);
          g.entries[e]!.push([q, c]);
        }
      }
    }
    for (let e = 0; e < g.channels.length; e++) this.sendCharged(g, e);
    // Overlapped with the tier workers: the DRAM tier's distances, computed by this thread.
    for (const q of g.queries) {
      const slot = this.slots[q.si]!;
      for (let t = 0; t < q.touchedN; t++) {
        const s = q.touched[t]!;
        if (expOf[s]! >= 0) continue;
        const seg = segs[s]!;
        seg.distBatch(
          seg.slotQuery(slot),
          seg.layout.vecOffset,
          seg.vecBytes,
          this.idsAt[q.si]![s]! << 2,
          q.touchedCount[t]!,
          seg.shape.dim,
          this.outAt[q.si]![s]! << 2,
        );
      }
    }
  }

  private flush(g: Group, e: number): void {
    this.sendCharged(g, e);
    g.channels[e]!.wait(this.opts.spin);
  }

  /**
   * Sends one expander message. Its link time (one CXL access: latency, plus ids out and distances
   * back at link bandwidth) is charged to the queries in it: latency shared per entry, bytes by use.
   * With injection on, the tier worker stalls that time before it answers.
   */
  private sendCharged(g: Group, e: number): void {
    const entries = g.entries[e]!;
    if (entries.length === 0) return;
    g.channels[e]!.send();
    const lat = this.costs.latencyNs[1]! / entries.length;
    for (const [q, c] of entries) {
      const bytes = 8 * c + 12;
      const ns = lat + bytes * this.costs.nsPerByte[1]!;
      const st = q.stats;
      st[STAT.modelledNs]! += ns;
      st[STAT.linkMessages]! += 1 / entries.length;
      st[STAT.linkBytes]! += bytes;
      if (this.opts.inject) st[STAT.injectedNs]! += ns;
    }
    entries.length = 0;
  }

  /** Deferrable part: distances back in batch order, then the step's heap updates. */
  private apply(g: Group): void {
    const idx = this.index;
    const segOf = idx.segOf;
    const cursor = this.segCursor;
    for (const q of g.queries) {
      if (q.m === 0) {
        // an upper-layer node without links on this level: the step changes nothing
        if (q.phase === UPPER) this.consume(q);
        continue;
      }
      const outAt = this.outAt[q.si]!;
      for (let j = 0; j < q.m; j++) {
        const s = segOf[q.batch[j]!]!;
        const c = cursor[s]!;
        q.dist[j] = idx.segments[s]!.f32[outAt[s]! + c]!;
        cursor[s] = c + 1;
      }
      for (let j = 0; j < q.m; j++) cursor[segOf[q.batch[j]!]!] = 0;
      q.stats[STAT.distances]! += q.m;
      this.consume(q);
    }
  }

  /** Applies the distances of q's last batch, as the local Searcher does at the same step. */
  private consume(q: QState): void {
    const m = q.m;
    q.m = 0;
    if (q.phase === ENTRY) {
      q.curDist = q.dist[0]!;
      q.level = this.index.meta.maxLevel;
      q.phase = q.level > 0 ? UPPER : LEVEL0;
      if (q.phase === LEVEL0) this.startLevel0(q);
      return;
    }
    if (q.phase === UPPER) {
      let changed = false;
      for (let j = 0; j < m; j++) {
        const d = q.dist[j]!;
        if (d < q.curDist) {
          q.curDist = d;
          q.cur = q.batch[j]!;
          changed = true;
        }
      }
      if (!changed) {
        q.level--;
        if (q.level === 0) {
          q.phase = LEVEL0;
          this.startLevel0(q);
        }
      }
      return;
    }
    const top = q.top;
    const cand = q.cand;
    for (let j = 0; j < m; j++) {
      const d = q.dist[j]!;
      if (top.size < q.ef || d < q.lowerBound) {
        const id = q.batch[j]!;
        cand.push(d, id);
        top.push(d, id);
        if (top.size > q.ef) top.pop();
        q.lowerBound = top.d[0]!;
      }
    }
  }

  private startLevel0(q: QState): void {
    q.visited.add(q.cur);
    q.cand.push(q.curDist, q.cur);
    q.top.push(q.curDist, q.cur);
    q.lowerBound = q.curDist;
    q.foreseen = -1;
  }

  /** Chooses q's next batch (q.m ids), or marks it DONE. */
  private prepare(q: QState): void {
    const idx = this.index;
    const meta = idx.meta;
    if (q.phase === START) {
      q.cur = meta.entry;
      q.batch[0] = q.cur;
      q.m = 1;
      q.phase = meta.count === 0 ? DONE : ENTRY;
      if (meta.count === 0) q.m = 0;
      return;
    }
    if (q.phase === UPPER) {
      const M1 = 1 + meta.maxM;
      const block = idx.upperOffset[q.cur]! + (q.level - 1) * M1;
      const n = idx.upperLinks[block]!;
      q.stats[STAT.hops]!++;
      this.chargeAdjacency(q, 0, 4 * (1 + n), false);
      for (let j = 0; j < n; j++) q.batch[j] = idx.upperLinks[block + 1 + j]!;
      q.m = n;
      return;
    }
    if (q.phase !== LEVEL0) return;
    const stride = idx.shape.adjStride;
    const dramCount = meta.dramCount;
    const cand = q.cand;
    while (cand.size > 0) {
      if (cand.d[0]! > q.lowerBound) break;
      const c = cand.i[0]!;
      cand.pop();
      const seg = idx.segments[idx.segOf[c]!]!;
      const at = seg.adjBase + (c - seg.start) * stride;
      const n = seg.u32[at]!;
      q.stats[STAT.hops]!++;
      const tier = c < dramCount ? 0 : 1;
      if (this.opts.prefetch) {
        const hit = q.foreseen === c;
        if (hit) q.stats[STAT.prefetchHits]!++;
        else if (q.foreseen >= 0) this.chargeBytes(q, q.foreseen < dramCount ? 0 : 1, q.foreseenBytes);
        this.chargeAdjacency(q, tier, 4 * (1 + n), hit);
        q.foreseen = cand.size > 0 ? cand.i[0]! : -1;
        if (q.foreseen >= 0) {
          const s2 = idx.segments[idx.segOf[q.foreseen]!]!;
          q.foreseenBytes = 4 * (1 + s2.u32[s2.adjBase + (q.foreseen - s2.start) * stride]!);
          q.stats[STAT.prefetchIssued]!++;
        }
      } else {
        this.chargeAdjacency(q, tier, 4 * (1 + n), false);
      }
      let m = 0;
      for (let j = 1; j <= n; j++) {
        const nb = seg.u32[at + j]!;
        if (q.visited.add(nb)) q.batch[m++] = nb;
      }
      if (m > 0) {
        q.m = m;
        return;
      }
    }
    if (this.opts.prefetch && q.foreseen >= 0) this.chargeBytes(q, q.foreseen < dramCount ? 0 : 1, q.foreseenBytes);
    q.phase = DONE;
    q.m = 0;
  }

  private chargeBytes(q: QState, tier: number, bytes: number): void {
    q.owedNs += chargeBytes(q.stats, this.costs, tier, bytes);
  }

  private chargeAdjacency(q: QState, tier: number, bytes: number, latencyHidden: boolean): void {
    q.owedNs += chargeAdjacency(q.stats, this.costs, tier, bytes, latencyHidden);
  }

  private finish(q: QState): void {
    const out = this.out!;
    const { ids, distances } = drainTop(q.top, q.k, this.index.labels);
    const kMax = out.kMax;
    for (let j = 0; j < ids.length; j++) {
      out.labels[q.qi * kMax + j] = this.index.labels[ids[j]!]!;
      out.distances[q.qi * kMax + j] = distances[j]!;
    }
    out.stats.set(q.stats, q.qi * STAT_FIELDS);
  }
}
