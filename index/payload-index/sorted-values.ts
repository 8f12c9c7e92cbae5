// (value, id) pairs sorted by value in two typed arrays, so a range is two binary searches and a
// slice of ids. The per-point values stay with the owning index (point-values.ts), which reports each
// change; the next query brings the arrays up to date: a few points changed are merged in (their old
// pairs dropped, their new ones sorted and merged, linear in the pairs), many are sorted afresh. Add
// and remove stay O(1), and a query after a write does not sort every pair again.
import type { Bounds } from '../filter/ast.js';
import { type Bitmap, bitmapOf } from './bitmap.js';
import { bitmapOfBits } from './dense-bits.js';
import { sortPairSteps, sortPairs } from './pair-sort.js';

/** A range's place in a sorted index (SortedValues.pairsWithin). */
export interface RangePairs {
  readonly ids: Uint32Array;
  readonly from: number;
  readonly to: number;
  readonly single: boolean;
}

/** The (value, id) pairs within some bounds, in value order: positions [from, to) of both arrays (views). */
export interface OrderedPairs {
  readonly keys: Float64Array;
  readonly ids: Uint32Array;
  readonly from: number;
  readonly to: number;
}

/** What SortedValues reads of its owner: each point's values. */
export interface PointValueSource {
  readonly size: number;
  get(id: number): readonly number[] | undefined;
  /** Each point holding values, in id order. */
  forEach(fn: (values: readonly number[], id: number) => void): void;
  /** Every (value, id) pair in id order, a point's values in its order; idEnd: one past the last id. */
  numberPairs(): { keys: Float64Array<ArrayBuffer>; ids: Uint32Array<ArrayBuffer>; idEnd: number };
}

/** Slices at least this long become a dense bitset before roaring reads them (see range). */
const WIDE_RANGE = 4096;

/** Past every id a pair may hold (ids are u32): pairAt(x, ID_PAST) is past every pair of value x. */
const ID_PAST = 2 ** 32;

/** Points changed since the last query past which the pairs are sorted afresh rather than merged. */
const MERGE_MAX_POINTS = 65_536;

/** ...and past this share of the pairs (a merge reads every pair once; a sort, log n times). */
const MERGE_MAX_SHARE = 1 / 8;

export class SortedValues {
  /** The pairs: views of the first pairs of keyRoom and idRoom, which have room for more. */
  private keys = new Float64Array(0);
  private ids = new Uint32Array(0);
  private keyRoom = new Float64Array(0);
  private idRoom = new Uint32Array(0);
  /** Points changed since the arrays were brought up to date, with the values the arrays hold of each. */
  private readonly pending = new Map<number, readonly number[]>();
  /** Too many changed to merge: sort afresh. */
  private whole = false;
  /** Points holding each number of values (index: the number), for `widest`. */
  private readonly widths: number[] = [];
  private widest = 0;
  /** At least one past the highest id holding a value (the size of a dense bitset of them). */
  private idEnd = 0;

  /** @param points each point's values, kept by the owner, who calls changed() after each write */
  constructor(private readonly points: PointValueSource) {}

  /** A point's values changed: it held `before` (the owner's values then) and holds `after` values now. */
  changed(id: number, before: readonly number[], after: number): void {
    if (before.length > 0) this.widths[before.length]!--;
    if (after > 0) this.widths[after] = (this.widths[after] ?? 0) + 1;
    if (this.whole) return;
    // The first change since the arrays were made says what they hold of the point.
    if (!this.pending.has(id)) this.pending.set(id, before);
    if (this.pending.size > Math.min(MERGE_MAX_POINTS, MERGE_MAX_SHARE * this.keys.length)) {
      this.whole = true;
      this.pending.clear();
    }
  }

  /** Whether the arrays hold every change: a query now neither sorts nor merges. */
  get current(): boolean {
    return this.stepping === null && !this.whole && this.pending.size === 0;
  }

  /** The sort of every pair over steps (sortSteps) that freshSteps callers drive, until it installs its arrays. */
  private stepping: Generator<void, void, void> | null = null;

  private fresh(): void {
    // A sort over turns has not installed its pairs, which the changes pending since refer to: sort now.
    if (this.stepping !== null) {
      this.stepping = null;
      this.whole = true;
      this.pending.clear();
    }
    if (!this.whole && this.pending.size === 0) return;
    if (this.whole) this.sortAll();
    else this.merge();
    this.whole = false;
    this.pending.clear();
    this.widest = this.widestNow();
  }

  /** The most values one point holds now. */
  private widestNow(): number {
    let w = this.widths.length - 1;
    while (w > 0 && (this.widths[w] ?? 0) === 0) w--;
    return Math.max(0, w);
  }

  /**
   * What a query does first (the arrays brought up to date), with a sort of every pair over steps, a
   * radix pass a step, for work that yields between them: the points' values are read in the first
   * step, and changes after it are pending against the sorted pairs, merged at the next query. A
   * query before the last step sorts at once, and the steps end without installing their pairs.
   * The sort is one for all: a second caller while it runs drives the same steps rather than sort at
   * once, and a caller that gives up leaves them to the next.
   */
  *freshSteps(): Generator<void, void, void> {
    for (;;) {
      let sort = this.stepping;
      if (sort === null) {
        if (!this.whole) {
          this.fresh();
          return;
        }
        sort = this.stepping = this.sortSteps();
      }
      if (sort.next().done === true) return;
      yield;
    }
  }

  /** The shared sort of freshSteps: ends at once where a query sorted meanwhile (fresh). */
  private *sortSteps(): Generator<void, void, void> {
    const me = this.stepping;
    // (Whole, nothing is pending: the changes from here on are pending against these pairs.)
    this.whole = false;
    const { keys, ids, idEnd } = this.collect();
    yield;
    if (this.stepping !== me) return;
    for (const _ of sortPairSteps(keys, ids)) {
      yield;
      if (this.stepping !== me) return;
    }
    this.stepping = null;
    this.idEnd = Math.max(this.idEnd, idEnd);
    this.keyRoom = this.keys = keys;
    this.idRoom = this.ids = ids;
    this.widest = this.widestNow();
  }

  /** Every pair, in id order (ties stay so in a stable sort, as a merge keeps them). */
  private collect(): { keys: Float64Array<ArrayBuffer>; ids: Uint32Array<ArrayBuffer>; idEnd: number } {
    return this.points.numberPairs();
  }

  private sortAll(): void {
    const { keys, ids, idEnd } = this.collect();
    this.idEnd = idEnd;
    sortPairs(keys, ids);
    this.keyRoom = this.keys = keys;
    this.idRoom = this.ids = ids;
  }

  /**
   * The pending points' old pairs dropped and their values now put in, in place: each found by binary
   * search (by value, then id), the pairs between moved along (no new memory, whose first touch costs
   * more than the move), so a few changes cost a move of the pairs after the first.
   */
  private merge(): void {
    const drop: number[] = [];
    const addKeys: number[] = [];
    const addIds: number[] = [];
    for (const [id, before] of this.pending) {
      for (const v of before) drop.push(this.pairAt(v, id));
      for (const v of this.points.get(id) ?? []) {
        addKeys.push(v + 0);
        addIds.push(id);
        this.idEnd = Math.max(this.idEnd, id + 1);
      }
    }
    // A point holding a value twice has two equal pairs: the second is the next position.
    drop.sort((a, b) => a - b);
    for (let k = 1; k < drop.length; k++) if (drop[k]! <= drop[k - 1]!) drop[k] = drop[k - 1]! + 1;
    let n = this.keys.length;
    let keys = this.keyRoom;
    let ids = this.idRoom;
    // Dropped, left to right: each run between two dropped pairs moves down.
    for (let d = 0, to = drop[0] ?? n; d < drop.length; d++) {
      const from = drop[d]! + 1;
      const end = d + 1 < drop.length ? drop[d + 1]! : n;
      keys.copyWithin(to, from, end);
      ids.copyWithin(to, from, end);
      to += end - from;
    }
    n -= drop.length;
    const order = Uint32Array.from(addKeys, (_, j) => j).sort((a, b) => addKeys[a]! - addKeys[b]! || addIds[a]! - addIds[b]!);
    const m = order.length;
    if (n + m > keys.length) {
      const room = n + m + ((n + m) >>> 3) + 64;
      keys = new Float64Array(room);
      ids = new Uint32Array(room);
      keys.set(this.keyRoom.subarray(0, n));
      ids.set(this.idRoom.subarray(0, n));
      this.keyRoom = keys;
      this.idRoom = ids;
    }
    this.keys = keys.subarray(0, n);
    this.ids = ids.subarray(0, n);
    const at = Uint32Array.from(order, (a) => this.pairAt(addKeys[a]!, addIds[a]!));
    // Added, right to left: the j-th goes before the pair at its place, which moves up by j + 1.
    for (let j = m - 1, end = n; j >= 0; j--) {
      const q = at[j]!;
      keys.copyWithin(q + j + 1, q, end);
      ids.copyWithin(q + j + 1, q, end);
      keys[q + j] = addKeys[order[j]!]!;
      ids[q + j] = addIds[order[j]!]!;
      end = q;
    }
    // New views: their identity names the state (pairsWithin).
    this.keys = keys.subarray(0, n + m);
    this.ids = ids.subarray(0, n + m);
  }

  /** The first position of the arrays whose pair is not before (v, id), by value then id. */
  private pairAt(v: number, id: number): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const k = this.keys[mid]!;
      if (k < v || (!(k > v) && this.ids[mid]! < id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose key is >= x (`strict`: > x): the place of (x, the least id), or past every id of x. */
  private lowerBound(x: number, strict: boolean): number {
    return this.pairAt(x, strict ? ID_PAST : 0);
  }

  /** The slice [from, to) of pairs within the bounds. */
  private span(b: Bounds<number>): [number, number] {
    this.fresh();
    let from = 0;
    let to = this.keys.length;
    if (b.gte !== undefined) from = Math.max(from, this.lowerBound(b.gte, false));
    if (b.gt !== undefined) from = Math.max(from, this.lowerBound(b.gt, true));
    if (b.lte !== undefined) to = Math.min(to, this.lowerBound(b.lte, true));
    if (b.lt !== undefined) to = Math.min(to, this.lowerBound(b.lt, false));
    return [from, Math.max(from, to)];
  }

  /**
   * Points with a value within the bounds. A wide slice becomes a dense bitset first, which roaring
   * reads in one call: building it from the slice's ids, in value order, costs several times more,
   * and a wide range is what a filtered search resolves per query.
   */
  range(b: Bounds<number>): Bitmap {
    const ids = this.within(b);
    if (ids.length < WIDE_RANGE) return bitmapOf(ids);
    const dense = new Uint32Array((this.idEnd + 31) >>> 5);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      dense[id >>> 5]! |= 1 << (id & 31);
    }
    return bitmapOfBits(dense);
  }

  /**
   * The ids of the pairs within the bounds, in value order: a point holding several such values is
   * there as often (a view, valid until the next change).
   */
  within(b: Bounds<number>): Uint32Array {
    const [from, to] = this.span(b);
    return this.ids.subarray(from, to);
  }

  /**
   * The whole ids array in value order (a new array after every change: its identity names this
   * state) and the positions [from, to) within the bounds; `single` when no point holds two values.
   */
  pairsWithin(b: Bounds<number>): RangePairs {
    const [from, to] = this.span(b);
    return { ids: this.ids, from, to, single: this.widest <= 1 };
  }

  /** The pairs within the bounds, values beside ids, in value order (OrderedPairs; valid until the next change). */
  ordered(b: Bounds<number>): OrderedPairs {
    const [from, to] = this.span(b);
    return { keys: this.keys, ids: this.ids, from, to };
  }

  /** Each integral value held, with how many points (of `within`, when given) hold it, in value order. */
  integerCounts(within: Bitmap | null): Array<[number, number]> {
    this.fresh();
    const out: Array<[number, number]> = [];
    const keys = this.keys;
    for (let i = 0; i < keys.length; ) {
      const k = keys[i]!;
      const points = new Set<number>();
      for (; i < keys.length && keys[i] === k; i++) if (within === null || within.has(this.ids[i]!)) points.add(this.ids[i]!);
      if (Number.isInteger(k) && points.size > 0) out.push([k, points.size]);
    }
    return out;
  }

  /** Points with a value equal to x. */
  equal(x: number): Bitmap {
    return this.range({ gte: x, lte: x });
  }

  /**
   * Points holding any of `xs`: every value's slice gathered into one bitmap, built once (a bitmap
   * per value and their union cost a native round trip each, and `match any` lists run to thousands).
   */
  equalAny(xs: readonly number[]): Bitmap {
    this.fresh();
    const spans = new Uint32Array(2 * xs.length);
    let pairs = 0;
    xs.forEach((x, j) => {
      spans[2 * j] = this.lowerBound(x, false);
      spans[2 * j + 1] = this.lowerBound(x, true);
      pairs += spans[2 * j + 1]! - spans[2 * j]!;
    });
    if (pairs < WIDE_RANGE) {
      const ids = new Uint32Array(pairs);
      for (let j = 0, at = 0; j < xs.length; j++) for (let i = spans[2 * j]!; i < spans[2 * j + 1]!; i++) ids[at++] = this.ids[i]!;
      return bitmapOf(ids);
    }
    // As range does for a wide slice: a dense bitset, read by roaring in one call.
    const dense = new Uint32Array((this.idEnd + 31) >>> 5);
    for (let j = 0; j < xs.length; j++)
      for (let i = spans[2 * j]!; i < spans[2 * j + 1]!; i++) {
        const id = this.ids[i]!;
        dense[id >>> 5]! |= 1 << (id & 31);
      }
    return bitmapOfBits(dense);
  }

  /** Bounds on the points with a value within `b`, from the pair count alone (a point may hold several values). */
  rangeCount(b: Bounds<number>): { pairs: number; widest: number; points: number } {
    const [from, to] = this.span(b);
    return { pairs: to - from, widest: this.widest, points: this.points.size };
  }

  /** Points holding a value that `keep` accepts (a scan of the pairs). */
  where(keep: (v: number) => boolean): Bitmap {
    this.fresh();
    const hits: number[] = [];
    for (let i = 0; i < this.keys.length; i++) if (keep(this.keys[i]!)) hits.push(this.ids[i]!);
    return bitmapOf(hits);
  }

  bytes(): number {
    return this.keyRoom.byteLength + this.idRoom.byteLength;
  }
}
