// Qdrant's payload values (qdrant.Value, Struct, ListValue) to and from the JSON the REST bodies
// carry, so that gRPC payloads go through the same parsers and stores. Integers travel as int64:
// one beyond 2^53 cannot be a JSON number without changing, so it is refused, never rounded.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ValueSchema, Value } from '@qdrant/js-client-grpc';
import { invalidArgument } from '../../../common/errors.js';

type ValueInit = MessageInitShape<typeof ValueSchema>;

/** Sets obj[key] as an own member, so that a key named __proto__ stays a key. */
function put<T>(obj: Record<string, T>, key: string, v: T): void {
  Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
}

export function valueJson(v: Value, field: string): unknown {
  const k = v.kind;
  switch (k.case) {
    case 'nullValue':
    case undefined:
      return null;
    case 'doubleValue':
    case 'stringValue':
    case 'boolValue':
      return k.value;
    case 'integerValue': {
      const n = Number(k.value);
      if (!Number.isSafeInteger(n)) throw invalidArgument(field, `integer ${k.value} is beyond ±2^53, which payloads hold exactly`);
      return n;
    }
    case 'structValue':
      return mapJson(k.value.fields, field);
    case 'listValue':
      return k.value.values.map((x, i) => valueJson(x, `${field}[${i}]`));
  }
}

/** A payload map (PointStruct.payload, SetPayloadPoints.payload, Struct.fields) as a JSON object. */
export function mapJson(fields: Readonly<Record<string, Value>>, field: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(fields)) put(out, key, valueJson(v, `${field}.${key}`));
  return out;
}

export function jsonValue(v: unknown): ValueInit {
  if (v === null || v === undefined) return { kind: { case: 'nullValue', value: 0 } };
  if (typeof v === 'boolean') return { kind: { case: 'boolValue', value: v } };
  if (typeof v === 'string') return { kind: { case: 'stringValue', value: v } };
  // Integers go out as integer_value, as Qdrant sends them; other numbers as double_value.
  if (typeof v === 'number')
    return Number.isSafeInteger(v) ? { kind: { case: 'integerValue', value: BigInt(v) } } : { kind: { case: 'doubleValue', value: v } };
  if (Array.isArray(v)) return { kind: { case: 'listValue', value: { values: v.map(jsonValue) } } };
  if (typeof v === 'object') return { kind: { case: 'structValue', value: { fields: jsonMap(v as Record<string, unknown>) } } };
  return { kind: { case: 'stringValue', value: String(v) } };
}

export function jsonMap(o: Readonly<Record<string, unknown>>): Record<string, ValueInit> {
  const out: Record<string, ValueInit> = {};
  for (const [key, v] of Object.entries(o)) put(out, key, jsonValue(v));
  return out;
}
