// A payload index's parameters, as Qdrant's create-index API takes them, and their one validation:
// the engine's contract (engine/types.ts re-exports the type), `strata build --index-field` and the
// index directory's payload file (index/format/payload-file.ts) all describe an index this way.
import { invalidArgument, quoted } from '../../common/errors.js';
import type { FieldSchema } from './field-index.js';

/** A payload index's parameters: the schema, and for `text` its tokeniser (Qdrant's TextIndexParams). */
export interface PayloadIndexParams {
  type: FieldSchema;
  tokenizer?: 'word' | 'whitespace';
  lowercase?: boolean;
  min_token_len?: number;
  max_token_len?: number;
}

export const FIELD_SCHEMAS = ['keyword', 'integer', 'float', 'bool', 'datetime', 'uuid', 'text', 'geo'] as const satisfies readonly FieldSchema[];

// Fails to compile when FieldSchema gains a kind this list lacks.
const everySchemaListed: Exclude<FieldSchema, (typeof FIELD_SCHEMAS)[number]> extends never ? true : never = true;
void everySchemaListed;

export const TOKENIZERS = ['word', 'whitespace'] as const;

const TEXT_ONLY = ['tokenizer', 'lowercase', 'min_token_len', 'max_token_len'] as const;

export function isFieldSchema(v: unknown): v is FieldSchema {
  return (FIELD_SCHEMAS as readonly unknown[]).includes(v);
}

/** The parameters of a `type` with its defaults: `text` is tokenised by words, lowercased. */
export function defaultIndexParams(type: FieldSchema): PayloadIndexParams {
  return type === 'text' ? { type, tokenizer: 'word', lowercase: true } : { type };
}

/**
 * Checks parameters given as JSON; a wrong or unknown member is STRATA_INVALID_ARGUMENT naming
 * `field` and the member (tokeniser options only for `text`).
 */
export function checkPayloadIndexParams(raw: unknown, field: string): PayloadIndexParams {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidArgument(field, 'must be an object like {"type": "keyword"}');
  const o = raw as Record<string, unknown>;
  const type = o['type'];
  if (!isFieldSchema(type))
    throw invalidArgument(`${field}.type`, `must be one of ${FIELD_SCHEMAS.join(', ')}, got ${type === undefined ? 'nothing' : quoted(String(type))}`);
  const out: PayloadIndexParams = { type };
  for (const key of Object.keys(o)) {
    if (key === 'type') continue;
    if (!(TEXT_ONLY as readonly string[]).includes(key)) throw invalidArgument(`${field}.${key}`, 'is not a payload index parameter');
    if (type !== 'text') throw invalidArgument(`${field}.${key}`, `applies to text indexes only, not ${type}`);
  }
  if (o['tokenizer'] !== undefined) {
    const t = o['tokenizer'];
    if (!(TOKENIZERS as readonly unknown[]).includes(t)) throw invalidArgument(`${field}.tokenizer`, `must be one of ${TOKENIZERS.join(', ')}`);
    out.tokenizer = t as (typeof TOKENIZERS)[number];
  }
  if (o['lowercase'] !== undefined) {
    if (typeof o['lowercase'] !== 'boolean') throw invalidArgument(`${field}.lowercase`, 'must be true or false');
    out.lowercase = o['lowercase'];
  }
  for (const key of ['min_token_len', 'max_token_len'] as const) {
    const v = o[key];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || (v as number) < 1) throw invalidArgument(`${field}.${key}`, 'must be a positive integer');
    out[key] = v as number;
  }
  if (out.min_token_len !== undefined && out.max_token_len !== undefined && out.min_token_len > out.max_token_len)
    throw invalidArgument(`${field}.min_token_len`, 'must not exceed max_token_len');
  return out;
}
