// The `datetime` index: every string a point holds that datetime.ts reads, as microseconds in sorted
// (value, id) arrays, answering datetime ranges exactly. Matching a datetime string is left to the
// check: the evaluator compares strings as spelled, and one instant has many spellings.
import { NUMBER_CODEC, type ValueCodec } from './point-values.js';
import type { Cardinality, IndexableCondition, IndexContext } from './field-index.js';
import { FieldIndexBase } from './field-index-base.js';
import type { Bitmap } from './bitmap.js';
import { parseDatetime } from '../filter/datetime.js';
import type { Bounds } from '../filter/ast.js';
import { type OrderedPairs, SortedValues } from './sorted-values.js';
import { rangeEstimate } from './range-estimate.js';

function micros(b: Bounds<string>): Bounds<number> {
  const at = (s: string | undefined): number | undefined => (s === undefined ? undefined : parseDatetime(s));
  return { gt: at(b.gt), gte: at(b.gte), lt: at(b.lt), lte: at(b.lte) };
}

export class DatetimeIndex extends FieldIndexBase<number> {
  readonly schema = 'datetime';
  private readonly sorted = new SortedValues(this.values);

  protected codec(): ValueCodec<number> {
    return NUMBER_CODEC;
  }

  protected read(e: unknown): number | undefined {
    return typeof e === 'string' ? parseDatetime(e) : undefined;
  }

  protected insert(id: number, values: readonly number[]): void {
    this.sorted.changed(id, [], values.length);
  }

  protected delete(id: number, values: readonly number[]): void {
    this.sorted.changed(id, values, 0);
  }

  protected filterField(cond: IndexableCondition, _ctx: IndexContext): Bitmap | null {
    return cond.kind === 'datetime_range' ? this.sorted.range(micros(cond.range)) : null;
  }

  override cardinality(cond: IndexableCondition, ctx: IndexContext): Cardinality | null {
    return cond.kind === 'datetime_range' ? rangeEstimate(this.sorted.rangeCount(micros(cond.range))) : super.cardinality(cond, ctx);
  }

  /** The pairs brought up to date over steps (SortedValues.freshSteps), so that the next query finds them sorted. */
  orderSteps(): Generator<void, void, void> {
    return this.sorted.freshSteps();
  }

  /** The pairs within the bounds (microseconds) in value order, values beside rows (order_by). */
  ordered(b: Bounds<number>): OrderedPairs {
    return this.sorted.ordered(b);
  }

  protected fieldBytes(): number {
    return this.sorted.bytes();
  }
}
