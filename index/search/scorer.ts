// Distances for a query's request, shared by both drivers. stage() puts the request's ids into the
// scratch slot of each segment that holds them (and the query, prepared for that segment's kind,
// the first time the query meets the segment); computeLocal() runs the kernels of the segments the
// calling thread computes itself; gather() reads the distances back in request order, so a search
// sees the same sequence whatever the number of segments. The near-data runner sends the other
// segments' work to their tier workers between computeLocal and gather.
import type { NodeStore } from '../tiered/node-store.js';
import type { Segment } from '../tiered/segment.js';
import type { TieredIndex } from '../tiered/tiered-index.js';
import type { Accountant } from './accounting.js';
import { type QueryState, SCORER } from './query-state.js';
import { STAT } from './stats.js';

/** Per query: the segments its pending request touches and how many of its ids each holds. */
export class Staged {
  readonly segs: Int32Array;
  readonly counts: Int32Array;
  n = 0;
  constructor(cap: number) {
    this.segs = new Int32Array(cap);
    this.counts = new Int32Array(cap);
  }
}

export class Scorer {
  /** The store each scorer reads: SCORER.TRAVERSE (codes, or vectors without them) and SCORER.FULL. */
  readonly stores: [NodeStore, NodeStore];
  private readonly isCode: [boolean, boolean];
  /** Per store: u32 index of the id list and f32 index of the results, per slot and segment. */
  private readonly cursor: [Int32Array, Int32Array];
  /** Per store, per slot × segment: the query epoch that slot last got the query in. */
  private readonly prepared: [Uint32Array, Uint32Array];
  private readonly slots: number;
  /** Prepared code query per slot (computed once per query, copied into each code segment). */
  private readonly codePrep: Uint8Array[];
  private readonly codePrepEpoch: Uint32Array;
  private epoch = 0;

  constructor(
    readonly index: TieredIndex,
    readonly acct: Accountant,
  ) {
    const trav = index.codes ?? index.vectors;
    this.stores = [trav, index.vectors];
    this.isCode = [index.codes !== null, false];
    this.cursor = [new Int32Array(trav.segments.length), new Int32Array(index.vectors.segments.length)];
    this.slots = index.slotLocks.length;
    this.prepared = [new Uint32Array(this.slots * trav.segments.length), new Uint32Array(this.slots * index.vectors.segments.length)];
    const qb = index.codec?.queryBytes ?? 0;
    this.codePrep = Array.from({ length: this.slots }, () => new Uint8Array(qb));
    this.codePrepEpoch = new Uint32Array(this.slots);
  }

  /** A fresh epoch for a new query (so every segment gets it again). */
  nextEpoch(): number {
    this.epoch = (this.epoch + 1) >>> 0 || 1;
    return this.epoch;
  }

  /**
   * Writes st's request ids into their segments' slots (preparing the query where needed) and lists
   * the touched segments in `staged`. Returns the bytes of query that crossed into CXL segments.
   */
  stage(st: QueryState, epoch: number, staged: Staged): number {
    const which = st.scorer;
    const store = this.stores[which]!;
    const segs = store.segments;
    const cursor = this.cursor[which]!;
    const prepared = this.prepared[which]!;
    const slot = st.slot;
    const ids = st.ids;
    const n = st.n;
    let queryBytesToCxl = 0;
    staged.n = 0;
    if (segs.length === 1) {
      const seg = segs[0]!;
      queryBytesToCxl += this.prepare(st, which, seg, 0, epoch, prepared);
      const u32 = seg.u32;
      const at = seg.slotIds(slot) >>> 2;
      for (let j = 0; j < n; j++) u32[at + j] = ids[j]!;
      staged.segs[0] = 0;
      staged.counts[0] = n;
      staged.n = 1;
      return queryBytesToCxl;
    }
    for (let j = 0; j < n; j++) {
      const id = ids[j]!;
      const s = store.segmentIndex(id);
      const c = cursor[s]!;
      const seg = segs[s]!;
      if (c === 0) {
        staged.segs[staged.n++] = s;
        queryBytesToCxl += this.prepare(st, which, seg, s, epoch, prepared);
      }
      seg.u32[(seg.slotIds(slot) >>> 2) + c] = id - seg.start;
      cursor[s] = c + 1;
    }
    for (let t = 0; t < staged.n; t++) {
      const s = staged.segs[t]!;
      staged.counts[t] = cursor[s]!;
      cursor[s] = 0;
    }
    return queryBytesToCxl;
  }

  /** Prepares st's query in every traversal segment's slot (the fused beam may reach any of them). */
  prepareTraversal(st: QueryState): void {
    const which = SCORER.TRAVERSE;
    const segs = this.stores[which].segments;
    for (let s = 0; s < segs.length; s++) this.prepare(st, which, segs[s]!, s, st.epoch, this.prepared[which]);
  }

  /** Puts the query, in the form seg's kernel reads, into its slot once per query. */
  private prepare(st: QueryState, which: number, seg: Segment, s: number, epoch: number, prepared: Uint32Array): number {
    const key = st.slot * this.stores[which]!.segments.length + s;
    if (prepared[key] === epoch) return 0;
    prepared[key] = epoch;
    const at = seg.slotQuery(st.slot);
    if (this.isCode[which]) {
      const prep = this.codePrep[st.slot]!;
      if (this.codePrepEpoch[st.slot] !== epoch) {
        this.index.codec!.prepare(st.query, prep);
        this.codePrepEpoch[st.slot] = epoch;
      }
      seg.u8.set(prep, at);
      return seg.tier === 1 ? prep.byteLength : 0;
    }
    seg.f32.set(st.query, at >>> 2);
    return seg.tier === 1 ? 4 * st.query.length : 0;
  }

  /** Runs the kernels of the staged segments `local` accepts, charging their reads; returns the CXL extra owed. */
  computeLocal(st: QueryState, staged: Staged, local: (seg: Segment) => boolean): number {
    const which = st.scorer;
    const segs = this.stores[which]!.segments;
    const what = this.isCode[which] ? 'code' : 'vector';
    let owed = 0;
    for (let t = 0; t < staged.n; t++) {
      const seg = segs[staged.segs[t]!]!;
      if (!local(seg)) continue;
      const c = staged.counts[t]!;
      this.run(seg, which, st.slot, c);
      owed += this.acct.reads(st.stats, what, seg.tier, c, seg.shape.stride);
    }
    return owed;
  }

  /** One kernel call: c staged ids of `slot` in seg. */
  run(seg: Segment, which: number, slot: number, c: number): void {
    const k = seg.kernels!;
    const ids = seg.slotIds(slot);
    const out = seg.slotOut(slot);
    if (this.isCode[which]) k.codeBatch(seg.slotQuery(slot), seg.layout.recordOffset, seg.shape.stride, ids, c, out);
    else
      (this.index.meta.metric === 'l2' ? k.l2Batch : k.ipBatch)(
        seg.slotQuery(slot),
        seg.layout.recordOffset,
        seg.shape.stride,
        ids,
        c,
        this.index.meta.dim,
        out,
      );
  }

  /** Reads the distances back into st.dist in request order. */
  gather(st: QueryState): void {
    const which = st.scorer;
    const store = this.stores[which]!;
    const segs = store.segments;
    const slot = st.slot;
    const n = st.n;
    const dist = st.dist;
    if (segs.length === 1) {
      const seg = segs[0]!;
      const at = seg.slotOut(slot) >>> 2;
      const f32 = seg.f32;
      for (let j = 0; j < n; j++) dist[j] = f32[at + j]!;
      return;
    }
    const cursor = this.cursor[which]!;
    const ids = st.ids;
    for (let j = 0; j < n; j++) {
      const s = store.segmentIndex(ids[j]!);
      const c = cursor[s]!;
      const seg = segs[s]!;
      dist[j] = seg.f32[(seg.slotOut(slot) >>> 2) + c]!;
      cursor[s] = c + 1;
    }
    for (let j = 0; j < n; j++) cursor[store.segmentIndex(ids[j]!)] = 0;
  }

  /** Whether a request of this scorer reads full vectors (re-rank, or traversal without codes). */
  readsVectors(which: number): boolean {
    return !this.isCode[which];
  }
}

export const ALL_LOCAL = (): boolean => true;
export { SCORER, STAT };
