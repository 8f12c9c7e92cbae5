// `--index-field key:type` (index/build/index-fields.ts): every schema, key paths as Qdrant spells
// them (a quoted key may hold ":"), text's default tokeniser, and each mistake an error naming the flag.
import { describe, expect, it } from 'vitest';
import { parseIndexField, parseIndexFields } from '../../../index/build/index-fields.js';
import { FIELD_SCHEMAS } from '../../../index/payload-index/params.js';
import { expectStrataError } from '../../helpers/temp.js';

describe('parseIndexField', () => {
  it('takes every field schema, text with the word tokeniser', () => {
    for (const type of FIELD_SCHEMAS) expect(parseIndexField(`k:${type}`).params.type).toBe(type);
    expect(parseIndexField('body:text').params).toEqual({ type: 'text', tokenizer: 'word', lowercase: true });
  });

  it('reads the key as a key path, split at the last colon, and keeps its canonical spelling', () => {
    expect(parseIndexField('country.cities[].name:keyword').field).toBe('country.cities[].name');
    expect(parseIndexField('"a:b":integer').field).toBe('"a:b"');
    expect(parseIndexField('"plain":bool').field).toBe('plain');
  });

  it('refuses a missing type, an unknown type, a bad key path and a key given twice, naming --index-field', () => {
    const cases: Array<[string[], string]> = [
      [['color'], 'expected key:type'],
      [['color:string'], 'unknown type "string"'],
      [['color:'], 'unknown type ""'],
      [[':keyword'], 'key path'],
      [['a..b:keyword'], 'key path "a..b"'],
      [['a[x]:keyword'], 'key path'],
      [['a:keyword', '"a":integer'], '"a" is indexed twice'],
    ];
    for (const [flags, why] of cases) {
      const e = expectStrataError(() => parseIndexFields(flags), 'STRATA_INVALID_ARGUMENT');
      expect(e.message).toContain('--index-field');
      expect(e.message).toContain(why);
    }
  });
});
