// The full-text index against the token rules of the evaluator: tokens must share one string value.
import { describe, expect, it } from 'vitest';
import { parseKeyPath } from '../../../index/filter/key-path.js';
import { makeTokenizer } from '../../../index/filter/tokenize.js';
import { bitmapOf } from '../../../index/payload-index/bitmap.js';
import { TextIndex } from '../../../index/payload-index/text-index.js';

const key = parseKeyPath('t', 'key');

function texts(): { index: TextIndex; all: ReturnType<typeof bitmapOf> } {
  const index = new TextIndex(makeTokenizer({ kind: 'word' }));
  index.add(0, ['Red, green']);
  index.add(1, ['blue']);
  index.add(2, [7]);
  return { index, all: bitmapOf([0, 1, 2]) };
}

describe('TextIndex', () => {
  it('matches every token, any token, and a one-token phrase, case folded', () => {
    const { index, all } = texts();
    expect(index.filter({ kind: 'match_text', key, text: 'GREEN red' }, { all })?.toArray()).toEqual([0]);
    expect(index.filter({ kind: 'match_text_any', key, text_any: 'blue red' }, { all })?.toArray()).toEqual([0, 1]);
    expect(index.filter({ kind: 'match_phrase', key, phrase: 'blue' }, { all })?.toArray()).toEqual([1]);
  });

  it('matches a text without tokens in every point holding a string', () => {
    const { index, all } = texts();
    expect(index.filter({ kind: 'match_text', key, text: '' }, { all })?.toArray()).toEqual([0, 1]);
    expect(index.filter({ kind: 'match_text_any', key, text_any: '' }, { all })?.toArray()).toEqual([]);
  });

  it('leaves several tokens to the check when a candidate holds them in different strings', () => {
    const { index, all } = texts();
    index.add(3, [['red', 'green']]);
    expect(index.filter({ kind: 'match_text', key, text: 'red green' }, { all })).toBeNull();
    expect(index.filter({ kind: 'match_text', key, text: 'red' }, { all })?.toArray()).toEqual([0, 3]);
  });

  it('leaves a phrase of several tokens to the check', () => {
    const { index, all } = texts();
    expect(index.filter({ kind: 'match_phrase', key, phrase: 'red green' }, { all })).toBeNull();
  });
});
