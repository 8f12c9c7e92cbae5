// The near-data driver, beside the traversal it drives. A search thread runs many queries at once, each advanced by the same step
// the local Searcher runs (index/search/traversal.ts), so answers are identical. A query advances
// on this thread until its next request needs full vectors that live in the CXL tier (with codes:
// the re-rank; without: every level-0 step); those ids go to the tier worker of the expander that
// holds them, one message per expander per round carrying the requests of every query in the
// group. Only ids and distances cross; vectors stay where they live. Parts of a request that are
// local (DRAM segments) are computed while the workers work. With `pipeline` the queries form two
// groups and one group's deferrable work overlaps the other group's tier work. The channels to the
// tier workers are the engine's (engine/ndp/): this module only sees the TierChannel they offer.
import { type CostModelParams, type NearDataModel, type TierCosts, tierCosts } from '../../tiers/cost-model.js';
import { Stall } from '../../tiers/stall.js';
import type { Segment } from '../tiered/segment.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import { Accountant, messageCost } from './accounting.js';
import { FusedTraversal } from './fused-traversal.js';
import { QueryState } from './query-state.js';
import { Scorer, Staged } from './scorer.js';
import { STAT, STAT_FIELDS } from './stats.js';
import { Traversal } from './traversal.js';

export interface NdpOptions {
  inflight: number;
  pipeline: boolean;
  prefetch: boolean;
  inject: boolean;
  cost: CostModelParams;
  /** Who computes near the data, and so how a tier worker's reads and messages are priced. */
  model: NearDataModel;
  /** Polls of a channel before sleeping on it. */
  spin: number;
}

/** The search thread's end of a one-message-at-a-time channel to a tier worker (engine/ndp/channel.ts). */
export interface TierChannel {
  /** Entries in the message being assembled. */
  readonly size: number;
  readonly maxEntries: number;
  /** Ids in the message being assembled. */
  readonly pendingIds: number;
  add(segment: number, slot: number, n: number): void;
  /** Sends the message; the worker stalls stallNs before answering (injection). */
  send(stallNs: number): number;
  /** Waits for the answer, polling spin times before sleeping. */
  wait(spin: number): void;
  /** What the worker measured of its stall for the last answer. */
  stalledNs(): number;
}

/** A batch of queries (the engine's QueryTask has this shape). */
export interface NearDataBatch {
  readonly dim: number;
  /** n × dim query vectors. */
  readonly vectors: Float32Array;
  readonly k: Int32Array;
  readonly ef: Int32Array;
  readonly rerank: Int32Array;
  readonly prune: Uint8Array;
  /** 1: the query is run by the caller's local searcher, not here. */
  readonly exact: Uint8Array;
  /** ≥ 0: a filtered query, also run by the caller's local searcher (its bitset lives in the engine's arena). */
  readonly filterAt: Int32Array;
}

/** Where the answers go (the engine's TaskResult has this shape). */
export interface NearDataAnswers {
  readonly kMax: number;
  /** n × kMax labels. */
  readonly labels: Float64Array;
  readonly distances: Float32Array;
  /** n × STAT_FIELDS per-query counters. */
  readonly stats: Float64Array;
}

class InFlight extends QueryState {
  readonly staged: Staged;
  /** Waiting for a tier worker's answer to its pending request. */
  pending = false;
  done = false;
  /** Index of this query's slot among the runner's slots. */
  si = -1;
  /** What this query owed of the group's last host stall. */
  ownShare = 0;
  constructor(batchMax: number, segments: number) {
    super(batchMax);
    this.staged = new Staged(segments + 1);
  }
}

interface Group {
  queries: InFlight[];
  channels: TierChannel[];
  /** Per expander: the (query, ids) entries of the message being assembled, for link accounting. */
  entries: Array<Array<[InFlight, number]>>;
}

export class NearDataDriver {
  private readonly costs: TierCosts;
  private readonly acct: Accountant;
  private readonly traversal: Traversal;
  private readonly scorer: Scorer;
  private readonly fused: FusedTraversal | null;
  private readonly groups: Group[];
  private readonly free: InFlight[] = [];
  private readonly slots: number[] = [];
  private readonly isLocal: (seg: Segment) => boolean;
  private readonly stall = new Stall();
  private out: NearDataAnswers | null = null;
  private nextQuery = 0;

  constructor(
    private readonly index: TieredIndex,
    /** Expander of each segment of the vector store; -1 for segments this thread computes (DRAM). */
    private readonly expanderOfSegment: Int32Array,
    /** channels[group][expander]: one group, or two with `pipeline`. */
    channels: TierChannel[][],
    private readonly opts: NdpOptions,
  ) {
    this.costs = tierCosts(opts.cost);
    this.acct = new Accountant(this.costs);
    this.scorer = new Scorer(index, this.acct);
    // With codes the whole traversal is local (codes live in DRAM): one fused WASM call per query.
    // Without them the traversal's vectors are partly the expanders' to compute on, so the JS beam runs.
    this.fused = index.codes !== null ? FusedTraversal.open(index, this.scorer, this.acct, opts.prefetch) : null;
    this.traversal = new Traversal(index, this.acct, opts.prefetch, null, this.fused);
    const vecSegs = index.vectors.segments;
    // A segment is computed here unless it is a vector segment an expander owns.
    const owned = new Set(vecSegs.filter((_, i) => expanderOfSegment[i]! >= 0));
    this.isLocal = (seg) => !owned.has(seg);
    this.groups = Array.from({ length: opts.pipeline ? 2 : 1 }, (_, g) => ({
      queries: [],
      channels: channels[g]!,
      entries: channels[g]!.map(() => []),
    }));
    const segments = Math.max(vecSegs.length, index.codes?.segments.length ?? 0);
    for (let i = 0; i < opts.inflight; i++) {
      this.slots.push(index.acquireSlot());
      this.free.push(new InFlight(index.batchMax, segments));
    }
  }

  close(): void {
    this.fused?.close();
    for (const s of this.slots) this.index.releaseSlot(s);
    this.slots.length = 0;
  }

  run(task: NearDataBatch, out: NearDataAnswers): void {
    this.out = out;
    this.nextQuery = 0;
    const freeSlots = this.slots.map((_, i) => i);
    const admit = (g: Group): void => {
      while (this.nextQuery < task.k.length && this.free.length > 0 && freeSlots.length > 0) {
        const qi = this.nextQuery++;
        if (task.exact[qi] || task.filterAt[qi]! >= 0) continue; // run by the caller's local searcher
        const q = this.free.pop()!;
        q.si = freeSlots.pop()!;
        q.slot = this.slots[q.si]!;
        q.tag = qi;
        q.pending = false;
        q.done = false;
        this.traversal.begin(q, task.vectors.subarray(qi * task.dim, (qi + 1) * task.dim), task.k[qi]!, task.ef[qi]!, task.rerank[qi]!, task.prune[qi] === 1);
        q.epoch = this.scorer.nextEpoch();
        g.queries.push(q);
      }
    };
    for (const g of this.groups) admit(g);
    for (const g of this.groups) this.urgent(g);
    let active = this.groups.reduce((a, g) => a + g.queries.length, 0);
    while (active > 0) {
      for (const g of this.groups) {
        if (g.queries.length === 0) continue;
        this.deferred(g);
        let kept = 0;
        for (const q of g.queries) {
          if (!q.done) g.queries[kept++] = q;
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
    this.out = null;
  }

  /**
   * Urgent part: every query of the group advances until its request needs a tier worker (or it is
   * done); those requests go out, one message per expander, then the local parts are computed.
   */
  private urgent(g: Group): void {
    for (const q of g.queries) {
      if (!q.pending && !q.done) this.advance(q, g);
    }
    for (let e = 0; e < g.channels.length; e++) this.send(g, e);
    for (const q of g.queries) {
      if (q.pending) q.owedNs += this.scorer.computeLocal(q, q.staged, this.isLocal);
    }
    // The host's own CXL reads (neighbour lists, anything it computed on CXL) are paid here.
    let owed = 0;
    for (const q of g.queries) {
      owed += q.owedNs;
      q.ownShare = q.owedNs;
      if (this.opts.inject) q.stats[STAT.injectedNs]! += q.owedNs;
      q.owedNs = 0;
    }
    if (this.opts.inject && owed > 0) {
      const measured = this.stall.pay(owed);
      // One stall paid for the group: each query's share of it is its share of what was owed.
      for (const q of g.queries) q.stats[STAT.stalledNs]! += (measured * q.ownShare) / owed;
    }
  }

  /** Runs q's local steps; stops at a request with remote work (queued) or at the end. */
  private advance(q: InFlight, g: Group): void {
    const trav = this.traversal;
    const scorer = this.scorer;
    const exp = this.expanderOfSegment;
    for (;;) {
      if (!trav.next(q)) {
        q.done = true;
        return;
      }
      q.stats[STAT.linkBytes]! += scorer.stage(q, q.epoch, q.staged);
      const st = q.staged;
      let remote = false;
      if (scorer.readsVectors(q.scorer)) {
        for (let t = 0; t < st.n; t++) if (exp[st.segs[t]!]! >= 0) remote = true;
      }
      if (!remote) {
        q.owedNs += scorer.computeLocal(q, st, () => true);
        scorer.gather(q);
        trav.apply(q);
        continue;
      }
      for (let t = 0; t < st.n; t++) {
        const s = st.segs[t]!;
        const e = exp[s]!;
        if (e < 0) continue;
        const c = st.counts[t]!;
        const ch = g.channels[e]!;
        if (ch.size === ch.maxEntries) this.flush(g, e);
        ch.add(s, q.slot, c);
        // One entry per query and message: a request spanning two segments of one expander waits
        // for the message once, so it is charged once.
        const list = g.entries[e]!;
        const last = list[list.length - 1];
        if (last !== undefined && last[0] === q) last[1] += c;
        else list.push([q, c]);
        this.acct.remoteReads(q.stats, 'vector', 1, c, this.index.vectors.shape.stride);
      }
      q.pending = true;
      return;
    }
  }

  private flush(g: Group, e: number): void {
    this.send(g, e);
    this.collect(g, e);
  }

  /** Sends one expander message; every query in it will wait for all of it, so each is charged in full. */
  private send(g: Group, e: number): void {
    const entries = g.entries[e]!;
    if (entries.length === 0) return;
    const ch = g.channels[e]!;
    const ids = ch.pendingIds;
    const linkBytes = 8 * ids + 12 * entries.length;
    const cost = messageCost(this.costs, this.opts.model, ids, this.index.vectors.shape.stride, linkBytes);
    // The worker's reads really happen, at DRAM speed here: what it stalls is what CXL adds to them.
    const extra = cost.ns - cost.dramOnlyNs;
    ch.send(this.opts.inject ? extra : 0);
    for (const [q, c] of entries) {
      this.acct.message(q.stats, cost.ns, cost.dramOnlyNs, 8 * c + 12);
      if (this.opts.inject) q.stats[STAT.injectedNs]! += extra;
    }
  }

  /** Waits for expander e's answer and credits its measured stall to the queries in the message. */
  private collect(g: Group, e: number): void {
    const ch = g.channels[e]!;
    const entries = g.entries[e]!;
    if (entries.length === 0) return;
    ch.wait(this.opts.spin);
    const stalled = ch.stalledNs();
    for (const [q] of entries) q.stats[STAT.stalledNs]! += stalled;
    entries.length = 0;
  }

  /** Deferrable part: answers back, distances gathered in request order, then each query's step applied. */
  private deferred(g: Group): void {
    for (let e = 0; e < g.channels.length; e++) this.collect(g, e);
    for (const q of g.queries) {
      if (!q.pending) continue;
      q.pending = false;
      this.scorer.gather(q);
      this.traversal.apply(q);
    }
  }

  private finish(q: InFlight): void {
    const out = this.out!;
    const kMax = out.kMax;
    const labels = this.index.labels;
    for (let j = 0; j < q.resultIds.length; j++) {
      out.labels[q.tag * kMax + j] = labels[q.resultIds[j]!]!;
      out.distances[q.tag * kMax + j] = q.resultD[j]!;
    }
    out.stats.set(q.stats, q.tag * STAT_FIELDS);
  }
}
