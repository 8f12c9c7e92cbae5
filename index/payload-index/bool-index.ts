// The `bool` index: one bitmap of points holding `true`, one of points holding `false`.
import { BOOL_CODEC, type ValueCodec } from './point-values.js';
import type { FacetValue, IndexableCondition, IndexContext } from './field-index.js';
import { FieldIndexBase } from './field-index-base.js';
import { type Bitmap, bitmapBytes, emptyBitmap } from './bitmap.js';

export class BoolIndex extends FieldIndexBase<boolean> {
  readonly schema = 'bool';
  private readonly holding = { true: emptyBitmap(), false: emptyBitmap() };

  protected codec(): ValueCodec<boolean> {
    return BOOL_CODEC;
  }

  protected read(e: unknown): boolean | undefined {
    return typeof e === 'boolean' ? e : undefined;
  }

  protected insert(id: number, values: readonly boolean[]): void {
    for (const v of values) this.holding[`${v}`].add(id);
  }

  protected delete(id: number): void {
    this.holding.true.remove(id);
    this.holding.false.remove(id);
  }

  protected filterField(cond: IndexableCondition, _ctx: IndexContext): Bitmap | null {
    return cond.kind === 'match_value' && typeof cond.value === 'boolean' ? this.holding[`${cond.value}`].clone() : null;
  }

  facet(within: Bitmap | null): Array<[FacetValue, number]> {
    const out: Array<[FacetValue, number]> = [];
    for (const v of [true, false]) {
      const ids = this.holding[`${v}`];
      const n = within === null ? ids.size : ids.andCardinality(within);
      if (n > 0) out.push([v, n]);
    }
    return out;
  }

  protected fieldBytes(): number {
    return bitmapBytes(this.holding.true) + bitmapBytes(this.holding.false);
  }
}
