// `strata build --index-field key:type`: the payload indexes an index directory asks for, recorded in
// its payload file (index/format/payload-file.ts) and built when a collection is opened from it.
import { invalidArgument, quoted } from '../../common/errors.js';
import { parseKeyPath } from '../filter/key-path.js';
import { type BaseIndexField, checkIndexFields } from '../format/payload-file.js';
import { defaultIndexParams, FIELD_SCHEMAS, isFieldSchema } from '../payload-index/params.js';

const FLAG = '--index-field';

/**
 * Parses one `key:type`: split at the last `:` (a quoted key may hold one), the key a Qdrant key
 * path (key-path.ts), the type a field schema; `text` is tokenised by words. Errors name the flag.
 */
export function parseIndexField(text: string): BaseIndexField {
  const at = text.lastIndexOf(':');
  if (at < 0) throw invalidArgument(FLAG, `expected key:type (type one of ${FIELD_SCHEMAS.join(', ')}), got ${quoted(text)}`);
  const key = text.slice(0, at);
  const type = text.slice(at + 1);
  if (!isFieldSchema(type)) throw invalidArgument(FLAG, `unknown type ${quoted(type)} in ${quoted(text)}; expected one of ${FIELD_SCHEMAS.join(', ')}`);
  return { field: parseKeyPath(key, FLAG).text, params: defaultIndexParams(type) };
}

/** Every `--index-field` given; a key given twice is an error naming the flag (checkIndexFields). */
export function parseIndexFields(texts: readonly string[]): BaseIndexField[] {
  return checkIndexFields(texts.map(parseIndexField), FLAG);
}
