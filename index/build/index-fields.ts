// `strata build --index-field key:type`: the payload indexes an index directory asks for, recorded in
// its payload file (index/format/payload-file.ts) and built when a collection is opened from it.
import { invalidArgument, quoted } from '../../common/errors.js';
import { parseKeyPath } from '../filter/key-path.js';
import { checkIndexFields } from '../format/payload-file.js';
import type { FieldSchema } from '../payload-index/field-index.js';
import { FIELD_SCHEMAS, type IndexSpec } from '../payload-index/params.js';

const FLAG = '--index-field';

/**
 * Parses one `key:type`: split at the last `:` (a quoted key may hold one), the key a Qdrant key
 * path (key-path.ts), the type a field schema; `text` is tokenised by words. Errors name the flag.
 */
export function parseIndexField(text: string): IndexSpec {
  const at = text.lastIndexOf(':');
  if (at < 0) throw invalidArgument(FLAG, `expected key:type (type one of ${FIELD_SCHEMAS.join(', ')}), got ${quoted(text)}`);
  const key = text.slice(0, at);
  const type = text.slice(at + 1);
  if (!FIELD_SCHEMAS.includes(type as FieldSchema))
    throw invalidArgument(FLAG, `unknown type ${quoted(type)} in ${quoted(text)}; expected one of ${FIELD_SCHEMAS.join(', ')}`);
  const schema = type as FieldSchema;
  // Spelled out so that the payload file says how text is tokenised (indexOptions' defaults).
  const params = schema === 'text' ? { type: schema, tokenizer: 'word' as const, lowercase: true } : { type: schema };
  return { field: parseKeyPath(key, FLAG).text, params };
}

/** Every `--index-field` given; a key given twice is an error naming the flag (checkIndexFields). */
export function parseIndexFields(texts: readonly string[]): IndexSpec[] {
  return checkIndexFields(texts.map(parseIndexField), FLAG);
}
