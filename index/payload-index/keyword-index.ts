// The `keyword` index: each string value → the bitmap of points holding it. It answers match
// value/any with strings exactly, and match except with strings (a point passes with a string not
// listed, or any non-null value that is no string); integer lists and text matching it leaves to the check.
import { StringCodec, type ValueCodec } from './point-values.js';
import type { FacetValue, IndexableCondition, IndexContext } from './field-index.js';
import { FieldIndexBase } from './field-index-base.js';
import { type Bitmap, or } from './bitmap.js';
import { Postings } from './postings.js';

export class KeywordIndex extends FieldIndexBase<string> {
  readonly schema: 'keyword' | 'uuid' = 'keyword';
  private readonly postings = new Postings<string>();

  /** Which strings this index holds; the others count as values of another type. */
  protected accepts(_s: string): boolean {
    return true;
  }

  protected codec(): ValueCodec<string> {
    return new StringCodec();
  }

  protected read(e: unknown): string | undefined {
    return typeof e === 'string' && this.accepts(e) ? e : undefined;
  }

  protected insert(id: number, values: readonly string[]): void {
    this.postings.add(id, values);
  }

  facet(within: Bitmap | null): Array<[FacetValue, number]> {
    const out: Array<[FacetValue, number]> = [];
    for (const [value, ids] of this.postings.entries()) {
      const n = within === null ? ids.size : ids.andCardinality(within);
      if (n > 0) out.push([value, n]);
    }
    return out;
  }

  protected delete(id: number, values: readonly string[]): void {
    this.postings.remove(id, values);
  }

  protected filterField(cond: IndexableCondition, _ctx: IndexContext): Bitmap | null {
    switch (cond.kind) {
      case 'match_value':
        return typeof cond.value === 'string' && this.accepts(cond.value) ? this.postings.get(cond.value) : null;
      case 'match_any':
        return cond.any.type === 'strings' && cond.any.values.every((s) => this.accepts(s)) ? this.postings.any(cond.any.values) : null;
      case 'match_except': {
        if (cond.except.type !== 'strings' || !cond.except.values.every((s) => this.accepts(s))) return null;
        const listed = new Set(cond.except.values);
        const kept: string[] = [];
        for (const [k] of this.postings.entries()) if (!listed.has(k)) kept.push(k);
        return or(this.other, this.postings.any(kept));
      }
      default:
        return null;
    }
  }

  protected fieldBytes(): number {
    return this.postings.bytes();
  }
}
