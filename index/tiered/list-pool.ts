// The promotion pool: DRAM slots holding copies of CXL-tier neighbour lists, chosen by the live load
// and changed while searches run (live re-tiering between compactions; a compaction re-lays the
// fixed DRAM prefix out instead). A sample of the traversals (one in COUNT_EVERY) counts its
// CXL-range list reads in the lists' own records: the upper half of a list's count word (its degree
// fits the lower half) is an access counter, kept where the list lives — in CXL for lists outside the
// pool, which costs DRAM nothing (a DRAM counter per list would take a third of the lists' DRAM at a
// 10% budget), and in the slot's copy for tenants. The increment dirties a line the traversal just
// read, so it adds a write-back, not a wait (priced as CXL bytes). A round (rebalance) swaps the
// pool's coldest tenants for the hottest lists outside it, then halves every counter, so they
// measure the recent load.
//
// Why it is safe without locks: every list keeps its home copy in the CXL segment, never written,
// so a lookup that misses (a node being moved, a table entry shifting) just reads the home copy. A
// hit must never see a slot rewritten under it, so a slot is refilled in two steps: the old tenant's
// table entry goes first, then — once every traversal that was running at that moment has ended
// (each lane's generation, bumped before and after its traversal, has moved on) — the new list is
// copied in and only then published. Table entries are 64-bit (node + 1, slot), written whole.
import { CONTROL, COUNT_SHIFT, DEGREE_MASK } from '../kernels/control-block.js';
import type { LaneLayout, PoolLayout } from './fused-region.js';
import type { NodeStore } from './node-store.js';

/** One traversal in this many counts its list reads (the rest pay no write-back). */
export const COUNT_EVERY = 8;
/** Bytes a counted read writes back to the CXL tier: the dirtied line. */
export const COUNT_WRITE_BYTES = 64;

export interface RebalanceResult {
  /** Lists copied into slots and published this round (their old tenants left in an earlier one). */
  promoted: number;
  /** Tenants unpublished this round, their slots refilled once running traversals end. */
  demoted: number;
  /** True while a round's refills wait for traversals that saw the old tenants. */
  waiting: boolean;
}

/** CXL records a round reads at most (~a millisecond or two of the caller's thread). */
export const ROUND_SCAN = 1 << 17;

/** Multiplies the access counter in the count word at u32[at] by `by`, keeping the degree. */
function scale(u32: Uint32Array, at: number, by: number): void {
  const w = u32[at]!;
  if (w > DEGREE_MASK) u32[at] = ((w & DEGREE_MASK) | (Math.floor((w >>> COUNT_SHIFT) * by) << COUNT_SHIFT)) >>> 0;
}

export interface RebalanceOptions {
  /** A list moves in only when its count beats the tenant it replaces by this factor (hysteresis). */
  margin?: number;
  /** Counts below this never move a list in (noise). */
  minCount?: number;
  /** Most lists swapped in one round (bounds the round's work on the caller's thread). */
  maxMoves?: number;
  /** Most CXL records a round reads (default ROUND_SCAN). */
  maxScan?: number;
}

const HASH = 0x9e3779b1;

export class ListPool {
  readonly layout: PoolLayout;
  private readonly u32: Uint32Array;
  private readonly i32: Int32Array;
  private readonly table: BigUint64Array;
  private readonly owners: Int32Array;
  /** Refills decided by the last round: slot, node; applied once the lanes in `seen` moved on. */
  private pending: Array<[number, number]> = [];
  private seen: Array<[number, number]> = [];
  /** Lists swapped in since the pool was filled. */
  moves = 0;
  /** Where the next round's scan of the CXL records starts. */
  private scanFrom = 0;

  constructor(
    memory: WebAssembly.Memory,
    layout: PoolLayout,
    private readonly adjacency: NodeStore,
    private readonly lanes: LaneLayout,
  ) {
    const buf = memory.buffer;
    this.layout = layout;
    this.u32 = new Uint32Array(buf);
    this.i32 = new Int32Array(buf);
    this.table = new BigUint64Array(buf, layout.tableAt, layout.capacity);
    this.owners = new Int32Array(buf, layout.ownersAt, layout.slots);
  }

  /** Home position of node in the table (poolSlot in index/kernels/traverse.as.ts is the twin). */
  private home(node: number): number {
    return Math.floor(((Math.imul(node, HASH) >>> 0) * this.layout.capacity) / 4294967296);
  }

  /** Table position of node's entry, or -1. */
  private position(node: number): number {
    const cap = this.layout.capacity;
    const words = this.layout.tableAt >>> 2;
    let j = this.home(node);
    for (let probes = 0; probes < cap; probes++) {
      const key = Atomics.load(this.u32, words + 2 * j);
      if (key === 0) return -1;
      if (key === node + 1) return j;
      j = j + 1 === cap ? 0 : j + 1;
    }
    return -1;
  }

  /** True when node's list is served from a pool slot (the JS steps' tier; traversal.ts). */
  has(node: number): boolean {
    return this.position(node) >= 0;
  }

  /** The slot holding node's list, or -1. */
  slotOf(node: number): number {
    const j = this.position(node);
    return j < 0 ? -1 : Number(Atomics.load(this.table, j) >> 32n);
  }

  /** Index in u32 of slot s's count word. */
  private slotAt(s: number): number {
    return (this.layout.listsAt >>> 2) + s * this.layout.words;
  }

  /** Slot s's list (count, then ids), as the traversal reads it. */
  slotList(s: number): Uint32Array {
    return this.u32.subarray(this.slotAt(s), this.slotAt(s) + this.layout.words);
  }

  /** The nodes whose lists are in the pool now. */
  tenants(): number[] {
    return Array.from(this.owners).filter((v) => v >= 0 && this.has(v));
  }

  /** node's home count word: its array and index (its record in the CXL segment). */
  private homeWord(node: number): [Uint32Array, number] {
    const seg = this.adjacency.segmentOf(node);
    return [seg.u32, seg.recordBase + (node - seg.start) * this.layout.words];
  }

  /** node's access count now: its slot copy's if a tenant, else its home record's. */
  countOf(node: number): number {
    const s = this.slotOf(node);
    if (s >= 0) return this.u32[this.slotAt(s)]! >>> COUNT_SHIFT;
    const [u32, at] = this.homeWord(node);
    return u32[at]! >>> COUNT_SHIFT;
  }

  /**
   * One counted read of node's list (the JS steps' twin of index/kernels/traverse.as.ts): the tenant's slot copy
   * counts in DRAM; otherwise the home record counts, and true says a CXL line was dirtied. `slot`:
   * node's slot when the caller already looked it up (slotOf).
   */
  count(node: number, slot = this.slotOf(node)): boolean {
    const s = slot;
    let u32 = this.u32;
    let at = this.slotAt(s);
    if (s < 0) [u32, at] = this.homeWord(node);
    const w = u32[at]!;
    if (w >>> COUNT_SHIFT < DEGREE_MASK) u32[at] = w + (1 << COUNT_SHIFT);
    return s < 0;
  }

  /** Sets every counter to zero (tests compare the two traversals' counts from zero). */
  clearCounts(): void {
    this.eachHome(this.layout.split, this.adjacency.count, (u32, at) => scale(u32, at, 0));
    for (let s = 0; s < this.layout.slots; s++) scale(this.u32, this.slotAt(s), 0);
  }

  /** Calls f with each home count word of nodes [from, to), segment by segment (no per-node lookup). */
  private eachHome(from: number, to: number, f: (u32: Uint32Array, at: number, node: number) => void): void {
    const words = this.layout.words;
    for (const seg of this.adjacency.segments) {
      const a = Math.max(from, seg.start);
      const b = Math.min(to, seg.start + seg.count);
      for (let v = a; v < b; v++) f(seg.u32, seg.recordBase + (v - seg.start) * words, v);
    }
  }

  /** Fills every slot with the lists of nodes [split, split + slots), which the placement put there. */
  fillInitial(): void {
    this.table.fill(0n);
    this.owners.fill(-1);
    this.pending = [];
    const { slots, split } = this.layout;
    for (let s = 0; s < slots && split + s < this.adjacency.count; s++) {
      this.copyIn(s, split + s);
      this.publish(s, split + s);
    }
  }

  private copyIn(slot: number, node: number): void {
    const w = this.layout.words;
    const seg = this.adjacency.segmentOf(node);
    const from = seg.recordBase + (node - seg.start) * w;
    this.u32.set(seg.u32.subarray(from, from + w), this.slotAt(slot));
    this.owners[slot] = node;
  }

  private publish(slot: number, node: number): void {
    const cap = this.layout.capacity;
    let j = this.home(node);
    while (Atomics.load(this.table, j) !== 0n) j = j + 1 === cap ? 0 : j + 1;
    Atomics.store(this.table, j, (BigInt(slot) << 32n) | BigInt(node + 1));
  }

  /**
   * Removes node's entry, shifting later entries of its probe run back (no tombstones). A reader
   * racing the shift may miss an entry: it then reads the home copy, which is always correct.
   */
  private unpublish(node: number): void {
    const cap = this.layout.capacity;
    let i = this.position(node);
    if (i < 0) return;
    let j = i;
    for (;;) {
      j = j + 1 === cap ? 0 : j + 1;
      const e = Atomics.load(this.table, j);
      if (e === 0n) break;
      const h = this.home(Number(e & 0xffffffffn) - 1);
      // The entry at j may fill the hole at i only if its home is not in (i, j] (cyclically).
      const stays = i <= j ? i < h && h <= j : i < h || h <= j;
      if (stays) continue;
      Atomics.store(this.table, i, e);
      i = j;
    }
    Atomics.store(this.table, i, 0n);
  }

  /** Each lane's generation now; odd while a traversal runs on it (fused-traversal.ts bumps it). */
  private lanesRunning(): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    for (let l = 0; l < this.lanes.lanes; l++) {
      const at = (this.lanes.laneBase + l * this.lanes.laneBytes + CONTROL.gen) >>> 2;
      const g = Atomics.load(this.i32, at);
      if (g & 1) out.push([at, g]);
    }
    return out;
  }

  /** True once every traversal that was running when the last tenants left has ended. */
  private quiet(): boolean {
    return this.seen.every(([at, g]) => Atomics.load(this.i32, at) !== g);
  }

  /** True while the last round's refills wait for traversals that could see the old tenants. */
  get waiting(): boolean {
    return this.pending.length > 0;
  }

  /** Copies in and publishes the last round's picks once it is safe: their number, or -1 if not yet. */
  refill(): number {
    if (this.pending.length === 0) return 0;
    if (!this.quiet()) return -1;
    for (const [slot, node] of this.pending) {
      this.copyIn(slot, node);
      this.publish(slot, node);
    }
    const n = this.pending.length;
    this.moves += n;
    this.pending = [];
    return n;
  }

  /**
   * One round: refills the slots freed last round if the traversals that could see their old
   * tenants are over, then picks the next swaps from the counters (the hottest lists outside the
   * pool for its coldest tenants), unpublishes those tenants, and halves every counter.
   */
  rebalance(o: RebalanceOptions = {}): RebalanceResult {
    const promoted = this.refill();
    if (promoted < 0) return { promoted: 0, demoted: 0, waiting: true };
    const margin = o.margin ?? 1.25;
    const minCount = o.minCount ?? 2;
    const maxMoves = Math.min(o.maxMoves ?? 4096, this.layout.slots);
    // The CXL records this round reads: all of them, or the next maxScan of them (a round's work on
    // the caller's thread stays bounded however large the index; the rest wait for later rounds).
    const { split } = this.layout;
    const count = this.adjacency.count;
    const span = Math.min(count - split, o.maxScan ?? ROUND_SCAN);
    if (this.scanFrom < split || this.scanFrom >= count) this.scanFrom = split;
    const ranges: Array<[number, number]> =
      this.scanFrom + span <= count
        ? [[this.scanFrom, this.scanFrom + span]]
        : [
            [this.scanFrom, count],
            [split, split + span - (count - this.scanFrom)],
          ];
    this.scanFrom = ranges[ranges.length - 1]![1];
    const slotCount = (s: number): number => (this.owners[s]! >= 0 ? this.u32[this.slotAt(s)]! >>> COUNT_SHIFT : -1);
    const inPool = new Set<number>();
    for (const v of this.owners) if (v >= 0) inPool.add(v);
    // The candidates: lists outside the pool at least as hot as the maxMoves-th hottest (one pass
    // over the records with a histogram of counts, instead of a sort of every list).
    const CAP = 1024;
    const hist = new Uint32Array(CAP);
    for (const [a, b] of ranges)
      this.eachHome(a, b, (u32, at, v) => {
        const c = u32[at]! >>> COUNT_SHIFT;
        if (c >= minCount && !inPool.has(v)) hist[Math.min(CAP - 1, c)]!++;
      });
    let threshold = CAP - 1;
    for (let seen = 0; threshold > minCount; threshold--) {
      seen += hist[threshold]!;
      if (seen >= maxMoves) break;
    }
    const cand: Array<[number, number]> = [];
    for (const [a, b] of ranges)
      this.eachHome(a, b, (u32, at, v) => {
        const c = u32[at]! >>> COUNT_SHIFT;
        if (c >= threshold && !inPool.has(v)) cand.push([v, c]);
      });
    cand.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    // The slots by their tenant's count, coldest first (an empty slot counts -1).
    const slots = Array.from({ length: this.layout.slots }, (_, s) => s).sort((a, b) => slotCount(a) - slotCount(b) || a - b);
    let demoted = 0;
    for (let k = 0; k < cand.length && k < maxMoves; k++) {
      const s = slots[k]!;
      const [node, c] = cand[k]!;
      if (c < slotCount(s) * margin + 1) break;
      const old = this.owners[s]!;
      if (old >= 0) {
        this.unpublish(old);
        demoted++;
      }
      this.owners[s] = -1;
      this.pending.push([s, node]);
    }
    // Traversals running now may hold the old tenants' slots: the refills wait for them to end.
    if (this.pending.length > 0) this.seen = this.lanesRunning();
    // Halved, so that the counts weigh recent reads most: each home when a round reads it, the slot
    // copies once the scan has gone round the whole range (so tenants and candidates age alike).
    for (const [a, b] of ranges) this.eachHome(a, b, (u32, at) => scale(u32, at, 0.5));
    if (ranges[0]![1] === count) for (let s = 0; s < this.layout.slots; s++) scale(this.u32, this.slotAt(s), 0.5);
    return { promoted, demoted, waiting: this.pending.length > 0 };
  }
}
