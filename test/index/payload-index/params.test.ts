// checkPayloadIndexParams (index/payload-index/params.ts): every field schema accepted, text's
// tokeniser options checked, and each wrong member refused by its full name.
import { describe, expect, it } from 'vitest';
import { checkPayloadIndexParams, defaultIndexParams, FIELD_SCHEMAS } from '../../../index/payload-index/params.js';
import { expectStrataError } from '../../helpers/temp.js';

describe('checkPayloadIndexParams', () => {
  it('accepts every field schema, and text with its tokeniser options', () => {
    for (const type of FIELD_SCHEMAS) expect(checkPayloadIndexParams({ type }, 'p')).toEqual({ type });
    const text = { type: 'text', tokenizer: 'whitespace', lowercase: false, min_token_len: 2, max_token_len: 10 };
    expect(checkPayloadIndexParams(text, 'p')).toEqual(text);
    expect(defaultIndexParams('text')).toEqual({ type: 'text', tokenizer: 'word', lowercase: true });
    expect(defaultIndexParams('geo')).toEqual({ type: 'geo' });
  });

  it('refuses a wrong member naming it under the field', () => {
    const cases: Array<[unknown, string]> = [
      ['keyword', 'p: must be an object'],
      [{}, 'p.type: must be one of'],
      [{ type: 'vector' }, 'p.type: must be one of'],
      [{ type: 'keyword', lowercase: true }, 'p.lowercase: applies to text indexes only'],
      [{ type: 'text', stemmer: 'en' }, 'p.stemmer: is not a payload index parameter'],
      [{ type: 'text', tokenizer: 'prefix' }, 'p.tokenizer: must be one of word, whitespace'],
      [{ type: 'text', lowercase: 'yes' }, 'p.lowercase: must be true or false'],
      [{ type: 'text', min_token_len: 0 }, 'p.min_token_len: must be a positive integer'],
      [{ type: 'text', min_token_len: 5, max_token_len: 2 }, 'p.min_token_len: must not exceed max_token_len'],
    ];
    for (const [raw, why] of cases) expect(expectStrataError(() => checkPayloadIndexParams(raw, 'p'), 'STRATA_INVALID_ARGUMENT').message).toContain(why);
  });
});
