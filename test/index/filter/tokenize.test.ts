// Tokenisers and the token tests a full-text index will use.
import { describe, expect, it } from 'vitest';
import { hasAllTokens, hasAnyToken, hasPhrase, makeTokenizer } from '../../../index/filter/tokenize.js';

describe('tokenize', () => {
  it('word splits on anything but letters and digits, lowercasing by default', () => {
    expect(makeTokenizer({ kind: 'word' })('Good, cheap—café 42!')).toEqual(['good', 'cheap', 'café', '42']);
    expect(makeTokenizer({ kind: 'word', lowercase: false })('Good Day')).toEqual(['Good', 'Day']);
  });
  it('whitespace splits on white space only', () => {
    expect(makeTokenizer({ kind: 'whitespace' })(' a-b  C\tD ')).toEqual(['a-b', 'c', 'd']);
  });
  it('tests all tokens, any token, and a phrase in order', () => {
    const s = ['the', 'quick', 'brown', 'fox'];
    expect(hasAllTokens(s, ['fox', 'quick'])).toBe(true);
    expect(hasAllTokens(s, ['fox', 'dog'])).toBe(false);
    expect(hasAnyToken(s, ['dog', 'fox'])).toBe(true);
    expect(hasAnyToken(s, ['dog'])).toBe(false);
    expect(hasPhrase(s, ['quick', 'brown'])).toBe(true);
    expect(hasPhrase(s, ['brown', 'quick'])).toBe(false);
    expect(hasPhrase(s, ['fox', 'jumps'])).toBe(false);
  });
});
