// What all field indexes share: the per-point shape of the field (value counts, nulls, emptiness)
// that answers `values_count`, `is_empty` and `is_null` without payload values, the split of a
// point's values into those of the index's type and the others (which `match.except` passes), and
// the add/remove bookkeeping. A kind supplies how it reads one element and how it stores the values.
import type { Bounds } from '../filter/ast.js';
import { type Bitmap, andNot, bitmapBytes, bitmapOf, emptyBitmap, or } from './bitmap.js';
import { COUNT_CODEC, PointValues, type ValueCodec } from './point-values.js';
import { type Cardinality, exactly, type FieldSchema, type IndexableCondition, type IndexContext, type PayloadFieldIndex } from './field-index.js';

/** A rough cost of one Map entry in V8, for bytes(): an estimate, checked against the heap (README). */
export const MAP_ENTRY_BYTES = 48;

function inBounds(b: Bounds<number>, x: number): boolean {
  return (b.gt === undefined || x > b.gt) && (b.gte === undefined || x >= b.gte) && (b.lt === undefined || x < b.lt) && (b.lte === undefined || x <= b.lte);
}

export abstract class FieldIndexBase<T> implements PayloadFieldIndex {
  abstract readonly schema: FieldSchema;
  /** Each point's values of the index's type (only points with at least one), off the V8 heap. */
  protected readonly values = new PointValues<T>(this.codec());
  /** Points with an element that is neither null nor of the index's type. */
  protected other = emptyBitmap();
  /**
   * Each point's value counts, one per value at the path (array: its length, null: 0, else 1), for
   * points other than the common case of one plain value, which `single` holds without an entry here.
   */
  private readonly counts = new PointValues<number>(COUNT_CODEC);
  private single = emptyBitmap();
  private nulls = emptyBitmap();
  private nonEmpty = emptyBitmap();

  /** How the kind's values are kept in the typed pool (called once, while the base initialises). */
  protected abstract codec(): ValueCodec<T>;
  /** The element as a value of the index's type, or undefined when it is not one. */
  protected abstract read(element: unknown): T | undefined;
  protected abstract insert(id: number, values: readonly T[]): void;
  protected abstract delete(id: number, values: readonly T[]): void;
  /** The kind's own conditions (shape conditions are answered here). */
  protected abstract filterField(cond: IndexableCondition, ctx: IndexContext): Bitmap | null;
  protected abstract fieldBytes(): number;

  get pointsIndexed(): number {
    return this.values.size;
  }

  add(id: number, values: readonly unknown[]): void {
    this.remove(id);
    if (values.length === 0) return;
    const counts = values.map((v) => (v === null ? 0 : Array.isArray(v) ? v.length : 1));
    if (counts.length === 1 && counts[0] === 1 && !Array.isArray(values[0])) this.single.add(id);
    else this.counts.set(id, counts);
    if (values.includes(null)) this.nulls.add(id);
    if (values.some((v) => v !== null && !(Array.isArray(v) && v.length === 0))) this.nonEmpty.add(id);
    const mine: T[] = [];
    let hasOther = false;
    for (const v of values) {
      for (const e of Array.isArray(v) ? v : [v]) {
        if (e === null) continue;
        const t = this.read(e);
        if (t === undefined) hasOther = true;
        else mine.push(t);
      }
    }
    if (hasOther) this.other.add(id);
    if (mine.length > 0) {
      // A copy at its exact length: the array grown by push keeps spare slots, per point.
      this.values.set(id, mine);
      this.insert(id, mine);
    }
  }

  remove(id: number): void {
    if (!this.counts.delete(id) && !this.single.delete(id)) return;
    this.nulls.remove(id);
    this.nonEmpty.remove(id);
    this.other.remove(id);
    const mine = this.values.get(id);
    if (mine !== undefined) {
      this.values.delete(id);
      this.delete(id, mine);
    }
  }

  filter(cond: IndexableCondition, ctx: IndexContext): Bitmap | null {
    switch (cond.kind) {
      case 'is_null':
        return this.nulls.clone();
      case 'is_empty':
        return andNot(ctx.all, this.nonEmpty);
      case 'values_count': {
        const { held: counted, passing: hits } = this.counts.scanNumbers((c) => inBounds(cond.count, c));
        const out = inBounds(cond.count, 1) ? or(bitmapOf(hits), this.single) : bitmapOf(hits);
        // A point without a value at the path counts 0.
        return inBounds(cond.count, 0) ? or(out, andNot(andNot(ctx.all, bitmapOf(counted)), this.single)) : out;
      }
      default:
        return this.filterField(cond, ctx);
    }
  }

  /** Exact by default (the size of the answer); kinds with a cheaper bound override it. */
  cardinality(cond: IndexableCondition, ctx: IndexContext): Cardinality | null {
    const b = this.filter(cond, ctx);
    return b === null ? null : exactly(b.size);
  }

  bytes(): number {
    const n = this.counts.bytes() + this.values.bytes() + bitmapBytes(this.single);
    return n + bitmapBytes(this.nulls) + bitmapBytes(this.nonEmpty) + bitmapBytes(this.other) + this.fieldBytes();
  }
}
