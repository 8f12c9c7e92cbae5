// Tokenisers for full-text matching, as a future full-text payload index will apply them on write and
// on query. Qdrant's `match.text` is a substring test on a field without a full-text index and a
// token test on one with it; evaluate.ts takes a tokeniser per field to choose (CompileOptions.textIndex).
// Qdrant's `word` tokeniser splits on every character that is not a letter or a digit, `whitespace` on
// white space; both lowercase by default.

/** Turns a text into its tokens, in order (the same function serves stored text and query text). */
export type Tokenizer = (text: string) => readonly string[];

export interface TokenizerOptions {
  readonly kind: 'word' | 'whitespace';
  /** Lowercase tokens, so matching ignores case (Qdrant's default). */
  readonly lowercase?: boolean;
}

const WORD_SPLIT = /[^\p{Alphabetic}\p{N}]+/u;
const SPACE_SPLIT = /\s+/u;

export function makeTokenizer(options: TokenizerOptions): Tokenizer {
  const split = options.kind === 'word' ? WORD_SPLIT : SPACE_SPLIT;
  const lower = options.lowercase ?? true;
  return (text) => {
    const tokens: string[] = [];
    for (const t of (lower ? text.toLowerCase() : text).split(split)) if (t !== '') tokens.push(t);
    return tokens;
  };
}

/** Every query token is among the stored text's tokens (`match.text` on an indexed field). */
export function hasAllTokens(stored: readonly string[], query: readonly string[]): boolean {
  const have = new Set(stored);
  return query.every((t) => have.has(t));
}

/** At least one query token is among the stored text's tokens (`match.text_any`). */
export function hasAnyToken(stored: readonly string[], query: readonly string[]): boolean {
  const have = new Set(stored);
  return query.some((t) => have.has(t));
}

/** The query tokens appear in the stored tokens consecutively, in order (`match.phrase`). */
export function hasPhrase(stored: readonly string[], query: readonly string[]): boolean {
  if (query.length === 0) return true;
  outer: for (let i = 0; i + query.length <= stored.length; i++) {
    for (let j = 0; j < query.length; j++) if (stored[i + j] !== query[j]) continue outer;
    return true;
  }
  return false;
}
