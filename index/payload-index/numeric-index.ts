// What the `integer` and `float` indexes share: every number a point holds, in sorted (value, id)
// arrays. Ranges take any number (as the evaluator's range does), and matching takes the integral
// ones, so both kinds answer range, match value/any and match except with integers exactly.
import type { Bounds } from '../filter/ast.js';
import { NUMBER_CODEC, type ValueCodec } from './point-values.js';
import type { IndexableCondition, IndexContext, Cardinality } from './field-index.js';
import { FieldIndexBase } from './field-index-base.js';
import { type Bitmap, or } from './bitmap.js';
import { type OrderedPairs, type RangePairs, SortedValues } from './sorted-values.js';
import { rangeEstimate } from './range-estimate.js';

export abstract class NumericIndex extends FieldIndexBase<number> {
  private readonly sorted = new SortedValues(this.values);

  protected codec(): ValueCodec<number> {
    return NUMBER_CODEC;
  }

  protected read(e: unknown): number | undefined {
    return typeof e === 'number' ? e : undefined;
  }

  protected insert(id: number, values: readonly number[]): void {
    this.sorted.changed(id, [], values.length);
  }

  protected delete(id: number, values: readonly number[]): void {
    this.sorted.changed(id, values, 0);
  }

  protected filterField(cond: IndexableCondition, _ctx: IndexContext): Bitmap | null {
    switch (cond.kind) {
      case 'range':
        return this.sorted.range(cond.range);
      case 'match_value':
        return typeof cond.value === 'number' ? this.sorted.equal(cond.value) : null;
      case 'match_any':
        return cond.any.type === 'integers' ? this.sorted.equalAny(cond.any.values) : null;
      case 'match_except': {
        if (cond.except.type !== 'integers') return null;
        const listed = new Set(cond.except.values);
        // A float is no integer of the list, so it passes like a value of another type.
        return or(
          this.other,
          this.sorted.where((v) => !(Number.isInteger(v) && listed.has(v))),
        );
      }
      default:
        return null;
    }
  }

  /** Each integral value with its count of points (SortedValues.integerCounts). */
  protected integerCounts(within: Bitmap | null): Array<[number, number]> {
    return this.sorted.integerCounts(within);
  }

  /** The pairs brought up to date over steps (SortedValues.freshSteps), so that the next query finds them sorted. */
  orderSteps(): Generator<void, void, void> {
    return this.sorted.freshSteps();
  }

  /** The pairs within the bounds in value order, values beside rows (order_by). */
  ordered(b: Bounds<number>): OrderedPairs {
    return this.sorted.ordered(b);
  }

  /** Where a range lies in the sorted pairs (SortedValues.pairsWithin). */
  pairsWithin(b: Bounds<number>): RangePairs {
    return this.sorted.pairsWithin(b);
  }

  override cardinality(cond: IndexableCondition, ctx: IndexContext): Cardinality | null {
    return cond.kind === 'range' ? rangeEstimate(this.sorted.rangeCount(cond.range)) : super.cardinality(cond, ctx);
  }

  protected fieldBytes(): number {
    return this.sorted.bytes();
  }
}
