// Validators for request fields, whatever decoded them (JSON, MessagePack, protobuf). Each takes the
// raw value and the field's path ("searches[2].params.hnsw_ef") and either returns a typed value or
// throws STRATA_INVALID_ARGUMENT naming that path and what was expected. Absent means undefined or
// null, as in Qdrant's JSON where `"offset": null` is the same as leaving it out.
import { invalidArgument, memberField, quoted } from '../../common/errors.js';
import { MAX_SELECTOR_KEYS } from '../options.js';
import { checkQueryVector, type Filter, type PayloadSelector, parseFilter, type PointKey, selectorPaths } from '../../engine/public.js';

export type Fields = Readonly<Record<string, unknown>>;

/** A short, safe description of a value for error messages (never echoes a large input). */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : String(v);
  if (typeof v === 'string') return v.length > 24 ? `a string ("${v.slice(0, 24)}…")` : `"${v}"`;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'bigint') return 'an integer beyond 2^53';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  return `a ${typeof v === 'object' ? 'JSON object' : typeof v}`;
}

export function isAbsent(v: unknown): v is null | undefined {
  return v === undefined || v === null;
}

export function isPlainObject(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer);
}

export function objectAt(v: unknown, field: string): Fields {
  if (!isPlainObject(v)) throw invalidArgument(field, `must be an object, got ${describe(v)}`);
  return v;
}

/** The request body: a missing body is an empty object (e.g. a bare POST …/points/count). */
export function bodyObject(v: unknown): Fields {
  if (isAbsent(v) || v === '') return {};
  return objectAt(v, 'body');
}

export function intAt(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw invalidArgument(field, `must be an integer in ${min}..${max}, got ${describe(v)}`);
  return v;
}

export function optionalInt(v: unknown, field: string, min: number, max: number): number | undefined {
  return isAbsent(v) ? undefined : intAt(v, field, min, max);
}

/**
 * A number of any value: the shape check for fields whose range is a search rule, checked after by
 * index/search/bounds.ts (the one home of those ranges).
 */
export function numberAt(v: unknown, field: string): number {
  if (typeof v !== 'number') throw invalidArgument(field, `must be a number, got ${describe(v)}`);
  return v;
}

export function optionalBool(v: unknown, field: string): boolean | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== 'boolean') throw invalidArgument(field, `must be true or false, got ${describe(v)}`);
  return v;
}

export function optionalNumber(v: unknown, field: string): number | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidArgument(field, `must be a finite number, got ${describe(v)}`);
  return v;
}

export function optionalString(v: unknown, field: string): string | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== 'string') throw invalidArgument(field, `must be a string, got ${describe(v)}`);
  return v;
}

/** An array (possibly empty) of at most `max` items. */
export function arrayAt(v: unknown, field: string, max: number): readonly unknown[] {
  if (!Array.isArray(v)) throw invalidArgument(field, `must be an array, got ${describe(v)}`);
  if (v.length > max) throw invalidArgument(field, `at most ${max} items, got ${v.length}`);
  return v;
}

/**
 * A vector's shape: an array of numbers. JSON sends an array of numbers; MessagePack may send that or
 * a Float32Array (msgpackr typed-array extension), taken as is without a copy. Its length and values
 * are the engine's to check (index/search/bounds.ts): a search names this field to it.
 */
export function numbersAt(v: unknown, field: string, dim: number): Float32Array {
  let vec: Float32Array;
  if (v instanceof Float32Array) vec = v;
  else if (v instanceof Float64Array) vec = Float32Array.from(v);
  else if (Array.isArray(v)) {
    vec = new Float32Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x !== 'number') throw invalidArgument(field, `element ${i} must be a number, got ${describe(x)}`);
      vec[i] = x;
    }
  } else if (isPlainObject(v)) {
    throw invalidArgument(field, `must be an array of ${dim} numbers (a vector's name goes in using)`);
  } else {
    throw invalidArgument(field, `must be an array of ${dim} numbers, got ${describe(v)}`);
  }
  return vec;
}

/** A vector to store: its shape, then its length and values (a write's vector reaches no search check). */
export function vectorAt(v: unknown, field: string, dim: number): Float32Array {
  const vec = numbersAt(v, field, dim);
  checkQueryVector(vec, dim, field);
  return vec;
}

export const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const U64_MAX = 18446744073709551615n;

/**
 * A point id as Qdrant spells them, as an integer: an unsigned 64-bit integer or a UUID string. A
 * well-formed UUID or an integer past 2^53 is valid but has no integer form: it comes back as null
 * (the router's "no such point"); the server reads ids with pointKeyAt, which keeps UUIDs.
 */
export function pointIdAt(v: unknown, field: string): number | null {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return Number.isSafeInteger(v) ? v : null;
  if (typeof v === 'string') {
    if (/^\d{1,20}$/.test(v) && BigInt(v) <= U64_MAX) {
      const n = Number(v);
      return Number.isSafeInteger(n) ? n : null;
    }
    if (UUID.test(v)) return null;
  }
  throw invalidArgument(field, `must be an unsigned integer or a UUID, got ${describe(v)}`);
}

/** Canonical form of a UUID: lowercase, 8-4-4-4-12. */
export function canonicalUuid(v: string): string {
  const h = v.toLowerCase().replace(/-/g, '');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * A point id as Qdrant spells them, kept: an unsigned integer (null past 2^53: it never matches) or
 * a UUID, canonical. Live collections store UUID points (engine/collection.ts resolves them).
 */
export function pointKeyAt(v: unknown, field: string): PointKey | null {
  if (typeof v === 'string' && UUID.test(v)) return canonicalUuid(v);
  return pointIdAt(v, field);
}

/** Qdrant's filter, parsed (absent or null: no filter); every error names its full path under `field`. */
export function filterAt(v: unknown, field: string): Filter | undefined {
  return isAbsent(v) ? undefined : parseFilter(v, field);
}

/**
 * Qdrant's with_payload: true / false, a list of key paths, `{include}` or `{exclude}`. The paths are
 * checked here, by the payload selector's own rule, so a path it cannot honour is a 400 before
 * anything runs.
 */
export function withPayloadAt(v: unknown, field: string, dflt: boolean): PayloadSelector {
  if (isAbsent(v)) return dflt;
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v)) return selectorList(v, field);
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    const kind = keys[0];
    if (keys.length !== 1 || (kind !== 'include' && kind !== 'exclude'))
      throw invalidArgument(field, `a selector is {"include": [keys]} or {"exclude": [keys]}, got keys ${keys.map((k) => quoted(k, 32)).join(', ') || 'none'}`);
    const list = selectorList(v[kind], `${field}.${kind}`);
    return kind === 'include' ? { include: list } : { exclude: list };
  }
  throw invalidArgument(field, `must be true, false, a list of keys or an include/exclude selector, got ${describe(v)}`);
}

function selectorList(v: unknown, field: string): string[] {
  const list = arrayAt(v, field, MAX_SELECTOR_KEYS);
  const keys = list.map((k, i) => {
    if (typeof k !== 'string') throw invalidArgument(`${field}[${i}]`, `must be a key path, got ${describe(k)}`);
    return k;
  });
  selectorPaths(keys, field);
  return keys;
}

/** Whether a selector asks for any payload at all. */
export function wantsPayload(s: PayloadSelector): boolean {
  return s !== false;
}

/** Strata collections have one shard each (the router shards by id): a shard key would be ignored, so it is refused. */
export function noShardKey(body: Fields, at: string): void {
  if (!isAbsent(body['shard_key'])) throw invalidArgument(`${at}shard_key`, 'custom sharding is not supported: leave shard_key out');
}

/**
 * Refuses the members of `o` other than `allowed` (absent and null ones pass), naming the first: a
 * setting Strata does not honour must not be taken as if it were. `field` '' is the body itself;
 * `where` says what takes them ("for this index", "when a collection is created").
 */
export function onlyMembers(o: Fields, allowed: readonly string[], field: string, where: string): void {
  for (const k of Object.keys(o)) {
    if (allowed.includes(k) || isAbsent(o[k])) continue;
    throw invalidArgument(field === '' ? k : memberField(field, k), `is not supported ${where} (Strata takes ${allowed.map((a) => quoted(a)).join(', ')})`);
  }
}
