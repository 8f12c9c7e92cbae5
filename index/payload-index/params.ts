// A payload index's parameters as Qdrant's create-index API takes them (`field_schema`: a schema
// name, or for `text` its tokeniser settings), and what the registry makes of them. The server
// parses the request into this shape; the WAL and the compaction state keep it as is.
import { invalidArgument } from '../../common/errors.js';
import { makeTokenizer, type Tokenizer } from '../filter/tokenize.js';
import type { FieldSchema } from './field-index.js';
import type { IndexOptions } from './field-indexes.js';

export const FIELD_SCHEMAS: readonly FieldSchema[] = ['keyword', 'integer', 'float', 'bool', 'datetime', 'uuid', 'text', 'geo'];

export interface PayloadIndexParams {
  type: FieldSchema;
  /** `text` only: how text splits into tokens. */
  tokenizer?: 'word' | 'whitespace';
  lowercase?: boolean;
  /** `text` only: tokens shorter or longer than these are not indexed (nor searched). */
  min_token_len?: number;
  max_token_len?: number;
}

/** A payload index on one key: what the log, the compaction state and the collection info carry. */
export interface IndexSpec {
  field: string;
  params: PayloadIndexParams;
}

/** The registry's options for `params` (a text index's tokeniser, with its token length bounds). */
export function indexOptions(params: PayloadIndexParams): IndexOptions {
  if (params.type !== 'text') return {};
  const split = makeTokenizer({ kind: params.tokenizer ?? 'word', lowercase: params.lowercase ?? true });
  const min = params.min_token_len ?? 0;
  const max = params.max_token_len ?? Number.POSITIVE_INFINITY;
  const tokenizer: Tokenizer = min === 0 && max === Number.POSITIVE_INFINITY ? split : (text) => split(text).filter((t) => t.length >= min && t.length <= max);
  return { tokenizer };
}

/** Checks parameters read from a log or a state file, or built by a caller: the field names the request's. */
export function checkIndexParams(p: PayloadIndexParams, field: string): PayloadIndexParams {
  if (!FIELD_SCHEMAS.includes(p.type)) throw invalidArgument(`${field}.type`, `must be one of ${FIELD_SCHEMAS.join(', ')}, got ${String(p.type)}`);
  const textOnly = ['tokenizer', 'lowercase', 'min_token_len', 'max_token_len'] as const;
  for (const k of textOnly) if (p[k] !== undefined && p.type !== 'text') throw invalidArgument(`${field}.${k}`, `applies to text indexes only, not ${p.type}`);
  if (p.tokenizer !== undefined && p.tokenizer !== 'word' && p.tokenizer !== 'whitespace')
    throw invalidArgument(`${field}.tokenizer`, `must be word or whitespace (Strata has no other tokenizer), got ${String(p.tokenizer)}`);
  for (const k of ['min_token_len', 'max_token_len'] as const) {
    const v = p[k];
    if (v !== undefined && !(Number.isInteger(v) && v >= 0 && v <= 1024))
      throw invalidArgument(`${field}.${k}`, `must be an integer in [0, 1024], got ${String(v)}`);
  }
  return p;
}
