// The `text` (full-text) index: token → bitmap of points holding it, tokens made by a tokenize.ts
// tokeniser. The evaluator matches tokens within one string value, so an AND of token bitmaps is
// exact only for points with one string value: `match.text` with several tokens is left to the check
// when a candidate holds several strings, and so is a phrase of several tokens (no positions are kept).
import { TokensCodec, type ValueCodec } from './point-values.js';
import type { IndexableCondition, IndexContext } from './field-index.js';
import { FieldIndexBase } from './field-index-base.js';
import { and, type Bitmap, bitmapBytes, emptyBitmap } from './bitmap.js';
import { Postings } from './postings.js';
import type { Tokenizer } from '../filter/tokenize.js';

export class TextIndex extends FieldIndexBase<readonly string[]> {
  readonly schema = 'text';
  private readonly postings = new Postings<string>();
  /** Points holding two string values or more. */
  private readonly multi = emptyBitmap();

  constructor(readonly tokenizer: Tokenizer) {
    super();
  }

  protected codec(): ValueCodec<readonly string[]> {
    return new TokensCodec();
  }

  protected read(e: unknown): readonly string[] | undefined {
    // Each distinct token once: a removal needs the set, and the postings hold no repeats.
    return typeof e === 'string' ? [...new Set(this.tokenizer(e))] : undefined;
  }

  protected insert(id: number, values: readonly (readonly string[])[]): void {
    this.postings.add(id, values.flat());
    if (values.length > 1) this.multi.add(id);
  }

  protected delete(id: number, values: readonly (readonly string[])[]): void {
    this.postings.remove(id, values.flat());
    this.multi.remove(id);
  }

  /** Points with a string value holding every token (exact), or null when several strings make it unsure. */
  private allTokens(tokens: readonly string[]): Bitmap | null {
    if (tokens.length === 0) return this.holders();
    let out = this.postings.get(tokens[0]!);
    for (const t of tokens.slice(1)) out = and(out, this.postings.get(t));
    return tokens.length > 1 && out.intersects(this.multi) ? null : out;
  }

  private holders(): Bitmap {
    const out = emptyBitmap();
    this.values.forEach((_, id) => out.add(id));
    return out;
  }

  protected filterField(cond: IndexableCondition, _ctx: IndexContext): Bitmap | null {
    switch (cond.kind) {
      case 'match_text':
        return this.allTokens(this.tokenizer(cond.text));
      case 'match_text_any':
        return this.postings.any(this.tokenizer(cond.text_any));
      case 'match_phrase': {
        const tokens = this.tokenizer(cond.phrase);
        return tokens.length <= 1 ? this.allTokens(tokens) : null;
      }
      default:
        return null;
    }
  }

  protected fieldBytes(): number {
    return this.postings.bytes() + bitmapBytes(this.multi);
  }
}
