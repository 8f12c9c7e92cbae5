// Payload indexes as Qdrant's API has them: the create body ({field_name, field_schema}) parsed into
// the engine's PayloadIndexParams, and payload_schema written back in Qdrant's shape. A schema is a
// name ("keyword") or an object ({type: "text", tokenizer, ...}); every parameter Strata does not
// honour (is_tenant, on_disk, is_principal, stemmers, ...) is refused naming it, since accepting one
// would promise a behaviour the index does not have.
import { invalidArgument } from '../../common/errors.js';
import { FIELD_SCHEMAS, type FieldSchema, type PayloadIndexParams, type PayloadSchemaEntry } from '../../engine/public.js';
import { describe, type Fields, intAt, isAbsent, objectAt, onlyMembers, optionalBool } from './fields.js';

export const TOKENIZERS = ['word', 'whitespace'] as const;

function schemaName(v: unknown, field: string): FieldSchema {
  if (typeof v === 'string' && (FIELD_SCHEMAS as readonly string[]).includes(v)) return v as FieldSchema;
  throw invalidArgument(field, `must be one of ${FIELD_SCHEMAS.join(', ')}, got ${describe(v)}`);
}

function textParams(o: Fields, field: string): PayloadIndexParams {
  onlyMembers(o, ['type', 'tokenizer', 'lowercase', 'min_token_len', 'max_token_len'], field, 'for this index');
  const p: PayloadIndexParams = { type: 'text' };
  if (!isAbsent(o['tokenizer'])) {
    const t = o['tokenizer'];
    if (typeof t !== 'string' || !(TOKENIZERS as readonly string[]).includes(t))
      throw invalidArgument(`${field}.tokenizer`, `must be ${TOKENIZERS.join(' or ')} (prefix and multilingual are not supported), got ${describe(t)}`);
    p.tokenizer = t as (typeof TOKENIZERS)[number];
  }
  const lowercase = optionalBool(o['lowercase'], `${field}.lowercase`);
  if (lowercase !== undefined) p.lowercase = lowercase;
  // Their bounds are the index's rule (index/payload-index/params.ts, checked when the write is taken).
  if (!isAbsent(o['min_token_len'])) p.min_token_len = intAt(o['min_token_len'], `${field}.min_token_len`, 0, Number.MAX_SAFE_INTEGER);
  if (!isAbsent(o['max_token_len'])) p.max_token_len = intAt(o['max_token_len'], `${field}.max_token_len`, 0, Number.MAX_SAFE_INTEGER);
  return p;
}

/** Qdrant's integer index flags: Strata's integer index always answers both, so only `true` is honest. */
function integerParams(o: Fields, field: string): PayloadIndexParams {
  onlyMembers(o, ['type', 'lookup', 'range'], field, 'for this index');
  for (const flag of ['lookup', 'range'] as const) {
    if (optionalBool(o[flag], `${field}.${flag}`) === false)
      throw invalidArgument(`${field}.${flag}`, 'an integer index always answers both match and range: false is not supported');
  }
  return { type: 'integer' };
}

/** field_schema: a schema name, or Qdrant's object form with `type`. */
export function fieldSchemaAt(v: unknown, field: string): PayloadIndexParams {
  if (isAbsent(v)) throw invalidArgument(field, `required: one of ${FIELD_SCHEMAS.join(', ')}, or an object with type`);
  if (typeof v === 'string') return { type: schemaName(v, field) };
  const o = objectAt(v, field);
  const type = schemaName(o['type'], `${field}.type`);
  if (type === 'text') return textParams(o, field);
  if (type === 'integer') return integerParams(o, field);
  onlyMembers(o, ['type'], field, 'for this index');
  return { type };
}

/** PUT …/index: {field_name, field_schema}. */
export function parseCreateIndex(body: Fields): { field: string; params: PayloadIndexParams } {
  const name = body['field_name'];
  if (typeof name !== 'string' || name === '') throw invalidArgument('field_name', `required: the key path to index, got ${describe(name)}`);
  // The deprecated spelling of field_schema in older Qdrant clients: refused rather than guessed.
  if (!isAbsent(body['field_type'])) throw invalidArgument('field_type', 'use field_schema');
  return { field: name, params: fieldSchemaAt(body['field_schema'], 'field_schema') };
}

export interface PayloadSchemaView {
  data_type: FieldSchema;
  params?: Record<string, unknown>;
  points: number;
}

/** payload_schema in Qdrant's shape: per key, its data type, the object form's params, the points indexed. */
export function payloadSchemaView(schema: Readonly<Record<string, PayloadSchemaEntry>>): Record<string, PayloadSchemaView> {
  const out: Record<string, PayloadSchemaView> = {};
  for (const [key, e] of Object.entries(schema)) {
    const view: PayloadSchemaView = { data_type: e.data_type, points: e.points };
    // Qdrant shows params only for the object forms: a bare schema name has none to show.
    if (e.params !== undefined && Object.keys(e.params).length > 1) view.params = { ...e.params };
    // Defined, not assigned: a key named __proto__ stays a key.
    Object.defineProperty(out, key, { value: view, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** payload_schema as gRPC's PayloadIndexInfo list (`bytes` per key where known), in key order. */
export function payloadIndexInfos(
  schema: Readonly<Record<string, PayloadSchemaView>>,
  bytes: Readonly<Record<string, number>> = {},
): Array<{ key: string; data_type: string; points: number; bytes: number; params_json: string }> {
  return Object.keys(schema)
    .sort()
    .map((key) => {
      const e = schema[key]!;
      return { key, data_type: e.data_type, points: e.points, bytes: bytes[key] ?? 0, params_json: e.params ? JSON.stringify(e.params) : '' };
    });
}
