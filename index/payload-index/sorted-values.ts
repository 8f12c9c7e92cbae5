// (value, id) pairs sorted by value in two typed arrays, so a range is two binary searches and a
// slice of ids. The per-point values stay with the owning index (point-values.ts); a write marks the arrays stale
// and the next query rebuilds them, which keeps add and remove O(1) and costs one sort per batch of
// writes between queries.
import type { Bounds } from '../filter/ast.js';
import { type Bitmap, bitmapOf } from './bitmap.js';
import { bitmapOfBits } from './dense-bits.js';

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

/** Slices at least this long become a dense bitset before roaring reads them (see range). */
const WIDE_RANGE = 4096;

export class SortedValues {
  private keys = new Float64Array(0);
  private ids = new Uint32Array(0);
  private stale = false;
  private widest = 0;
  /** One past the highest id holding a value. */
  private idEnd = 0;

  /** @param points each point's values, kept by the owner, who calls changed() after each write */
  constructor(private readonly points: { readonly size: number; forEach(fn: (values: readonly number[], id: number) => void): void }) {}

  changed(): void {
    this.stale = true;
  }

  private fresh(): void {
    if (!this.stale) return;
    let n = 0;
    let widest = 0;
    this.points.forEach((vs) => {
      n += vs.length;
      widest = Math.max(widest, vs.length);
    });
    const keys = new Float64Array(n);
    const ids = new Uint32Array(n);
    let i = 0;
    let idEnd = 0;
    this.points.forEach((vs, id) => {
      idEnd = id + 1;
      for (const v of vs) {
        keys[i] = v;
        ids[i++] = id;
      }
    });
    this.idEnd = idEnd;
    // Sorting a permutation of typed arrays beats sorting an array of pairs (no object per pair).
    const order = new Uint32Array(n);
    for (let j = 0; j < n; j++) order[j] = j;
    order.sort((a, b) => keys[a]! - keys[b]!);
    this.keys = Float64Array.from(order, (j) => keys[j]!);
    this.ids = Uint32Array.from(order, (j) => ids[j]!);
    this.widest = widest;
    this.stale = false;
  }

  /** First index whose key is >= x (`strict`: > x). */
  private lowerBound(x: number, strict: boolean): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const k = this.keys[mid]!;
      if (k < x || (strict && k === x)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
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
    return this.keys.byteLength + this.ids.byteLength;
  }
}
