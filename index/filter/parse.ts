// Qdrant's REST filter JSON → the typed filter (ast.ts). Everything is checked here, once, so that
// evaluate.ts can trust the tree: every bad input is STRATA_INVALID_ARGUMENT naming the full path of
// the offending field ("filter.must[2].range.gte: ..."), and a field Strata does not honour is
// refused, never skipped. As in Qdrant, `null` is the same as leaving an optional field out, and a
// clause (`must`, `should`, `must_not`) is one condition or an array of them.
//
// Where Strata is stricter than Qdrant, on purpose: a field condition takes exactly one test (Qdrant
// ORs several in one object, which nobody means); the field-level `is_empty: bool` / `is_null: bool`
// form is refused (its multi-value semantics differ from the `is_empty` condition's; use that, with
// `must_not` to negate); `has_id` and `has_vector` inside `nested` are refused (Qdrant never matches
// them there); a negative geo radius is refused; and the size limits of limits.ts apply.
import { invalidArgument, memberField, quoted } from '../../common/errors.js';
import type { Bounds, Condition, Filter, GeoPoint, GeoRing, MinShould, PointId, ValueList } from './ast.js';
import { parseDatetime } from './datetime.js';
import { type KeyPath, parseKeyPath } from './key-path.js';
import { FILTER_LIMITS } from './limits.js';

type Json = Readonly<Record<string, unknown>>;

/** Where a parse is: shared by the whole filter (the condition count) and per branch (depth, nested). */
interface Context {
  conditions: number;
}

const CLAUSES = ['must', 'should', 'must_not', 'min_should'] as const;
const FIELD_TESTS = ['match', 'range', 'geo_radius', 'geo_bounding_box', 'geo_polygon', 'values_count'] as const;
const MATCH_KINDS = ['value', 'any', 'except', 'text', 'text_any', 'phrase'] as const;
const BOUNDS = ['gt', 'gte', 'lt', 'lte'] as const;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A short description of a value for an error message (never echoes a large input). */
function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return quoted(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  return `a ${typeof v === 'object' ? 'JSON object' : typeof v}`;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function objectAt(v: unknown, field: string): Json {
  if (!isObject(v)) throw invalidArgument(field, `must be an object, got ${describe(v)}`);
  return v;
}

/** Refuses any member of `o` not in `allowed`, naming it. */
function onlyKeys(o: Json, allowed: readonly string[], field: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) throw invalidArgument(memberField(field, k), `unknown field (expected ${allowed.map((a) => `"${a}"`).join(', ')})`);
  }
}

/** The members of `o` among `names` that are present and not null. */
function present<K extends string>(o: Json, names: readonly K[]): K[] {
  return names.filter((n) => o[n] !== undefined && o[n] !== null);
}

function stringAt(v: unknown, field: string): string {
  if (typeof v !== 'string') throw invalidArgument(field, `must be a string, got ${describe(v)}`);
  if (v.length > FILTER_LIMITS.maxStringLength) throw invalidArgument(field, `must be at most ${FILTER_LIMITS.maxStringLength} characters`);
  return v;
}

function numberAt(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidArgument(field, `must be a number, got ${describe(v)}`);
  return v;
}

function countAt(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw invalidArgument(field, `must be a non-negative integer, got ${describe(v)}`);
  return v;
}

function listAt(v: unknown, field: string): readonly unknown[] {
  if (!Array.isArray(v)) throw invalidArgument(field, `must be an array, got ${describe(v)}`);
  if (v.length > FILTER_LIMITS.maxListLength) throw invalidArgument(field, `holds at most ${FILTER_LIMITS.maxListLength} values, got ${v.length}`);
  return v;
}

function keyAt(v: unknown, field: string): KeyPath {
  return parseKeyPath(stringAt(v, field), field);
}

/** Parses Qdrant's filter JSON (`field` names it in errors: "filter", "searches[3].filter", ...). */
export function parseFilter(json: unknown, field = 'filter'): Filter {
  return filterAt(json, field, { conditions: 0 }, 1, false);
}

function filterAt(v: unknown, field: string, ctx: Context, depth: number, inNested: boolean): Filter {
  if (depth > FILTER_LIMITS.maxDepth) throw invalidArgument(field, `filters nest at most ${FILTER_LIMITS.maxDepth} deep`);
  const o = objectAt(v, field);
  onlyKeys(o, CLAUSES, field);
  const out: { -readonly [K in keyof Filter]: Filter[K] } = {};
  for (const clause of ['must', 'should', 'must_not'] as const) {
    const c = clauseAt(o[clause], `${field}.${clause}`, ctx, depth, inNested);
    if (c !== undefined) out[clause] = c;
  }
  if (o.min_should !== undefined && o.min_should !== null) out.min_should = minShouldAt(o.min_should, `${field}.min_should`, ctx, depth, inNested);
  return out;
}

function clauseAt(v: unknown, field: string, ctx: Context, depth: number, inNested: boolean): Condition[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.map((c, i) => conditionAt(c, `${field}[${i}]`, ctx, depth, inNested));
  if (isObject(v)) return [conditionAt(v, field, ctx, depth, inNested)];
  throw invalidArgument(field, `must be a condition or an array of conditions, got ${describe(v)}`);
}

function minShouldAt(v: unknown, field: string, ctx: Context, depth: number, inNested: boolean): MinShould {
  const o = objectAt(v, field);
  onlyKeys(o, ['conditions', 'min_count'], field);
  const list = o.conditions;
  if (!Array.isArray(list)) throw invalidArgument(`${field}.conditions`, `must be an array of conditions, got ${describe(list)}`);
  const conditions = list.map((c, i) => conditionAt(c, `${field}.conditions[${i}]`, ctx, depth, inNested));
  return { conditions, min_count: countAt(o.min_count, `${field}.min_count`) };
}

function conditionAt(v: unknown, field: string, ctx: Context, depth: number, inNested: boolean): Condition {
  if (++ctx.conditions > FILTER_LIMITS.maxConditions) throw invalidArgument(field, `a filter holds at most ${FILTER_LIMITS.maxConditions} conditions`);
  const o = objectAt(v, field);
  if ('key' in o) return fieldConditionAt(o, field);
  if ('is_empty' in o || 'is_null' in o) {
    const kind = 'is_empty' in o ? 'is_empty' : 'is_null';
    onlyKeys(o, [kind], field);
    const inner = objectAt(o[kind], `${field}.${kind}`);
    onlyKeys(inner, ['key'], `${field}.${kind}`);
    return { kind, key: keyAt(inner.key, `${field}.${kind}.key`) };
  }
  if ('has_id' in o || 'has_vector' in o) {
    const kind = 'has_id' in o ? 'has_id' : 'has_vector';
    onlyKeys(o, [kind], field);
    if (inNested)
      throw invalidArgument(`${field}.${kind}`, `is not supported inside "nested" (Qdrant never matches it there): put it beside the nested condition`);
    if (kind === 'has_vector') return { kind, vector: stringAt(o.has_vector, `${field}.has_vector`) };
    return { kind, ids: listAt(o.has_id, `${field}.has_id`).map((id, i) => pointIdAt(id, `${field}.has_id[${i}]`)) };
  }
  if ('nested' in o) {
    onlyKeys(o, ['nested'], field);
    const n = objectAt(o.nested, `${field}.nested`);
    onlyKeys(n, ['key', 'filter'], `${field}.nested`);
    const key = keyAt(n.key, `${field}.nested.key`);
    return { kind: 'nested', key, filter: filterAt(n.filter, `${field}.nested.filter`, ctx, depth + 1, true) };
  }
  if (Object.keys(o).every((k) => (CLAUSES as readonly string[]).includes(k))) {
    return { kind: 'filter', filter: filterAt(o, field, ctx, depth + 1, inNested) };
  }
  const unknown = Object.keys(o).find((k) => !(CLAUSES as readonly string[]).includes(k))!;
  throw invalidArgument(
    memberField(field, unknown),
    'unknown field: a condition is a field condition ("key" with "match", "range", "geo_radius", "geo_bounding_box", "geo_polygon" or "values_count"), "is_empty", "is_null", "has_id", "has_vector", "nested", or a filter ("must", "should", "must_not", "min_should")',
  );
}

function pointIdAt(v: unknown, field: string): PointId {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && UUID.test(v)) {
    const h = v.toLowerCase().replace(/-/g, '');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  throw invalidArgument(field, `must be an unsigned integer or a UUID, got ${describe(v)}`);
}

function fieldConditionAt(o: Json, field: string): Condition {
  for (const k of ['is_empty', 'is_null']) {
    if (k in o) throw invalidArgument(`${field}.${k}`, `the field-level form is not supported: use {"${k}": {"key": ...}} (under "must_not" to negate it)`);
  }
  onlyKeys(o, ['key', ...FIELD_TESTS], field);
  const key = keyAt(o.key, `${field}.key`);
  const tests = present(o, FIELD_TESTS);
  if (tests.length !== 1) {
    const why = tests.length === 0 ? 'none' : tests.map((t) => `"${t}"`).join(' and ');
    throw invalidArgument(field, `a field condition takes exactly one of ${FIELD_TESTS.map((t) => `"${t}"`).join(', ')}, got ${why}`);
  }
  const test = tests[0]!;
  const at = `${field}.${test}`;
  const v = o[test];
  switch (test) {
    case 'match':
      return matchAt(key, v, at);
    case 'range':
      return rangeAt(key, v, at);
    case 'geo_radius': {
      const g = objectAt(v, at);
      onlyKeys(g, ['center', 'radius'], at);
      const radius = numberAt(g.radius, `${at}.radius`);
      if (radius < 0) throw invalidArgument(`${at}.radius`, `must be a distance in metres (0 or more), got ${radius}`);
      return { kind: 'geo_radius', key, center: geoPointAt(g.center, `${at}.center`), radius };
    }
    case 'geo_bounding_box': {
      const g = objectAt(v, at);
      onlyKeys(g, ['top_left', 'bottom_right'], at);
      return {
        kind: 'geo_bounding_box',
        key,
        top_left: geoPointAt(g.top_left, `${at}.top_left`),
        bottom_right: geoPointAt(g.bottom_right, `${at}.bottom_right`),
      };
    }
    case 'geo_polygon': {
      const g = objectAt(v, at);
      onlyKeys(g, ['exterior', 'interiors'], at);
      const exterior = ringAt(g.exterior, `${at}.exterior`);
      if (g.interiors === undefined || g.interiors === null) return { kind: 'geo_polygon', key, exterior };
      const interiors = listAt(g.interiors, `${at}.interiors`).map((r, i) => ringAt(r, `${at}.interiors[${i}]`));
      return { kind: 'geo_polygon', key, exterior, interiors };
    }
    case 'values_count':
      return { kind: 'values_count', key, count: boundsAt(v, at, countAt) };
  }
}

function matchAt(key: KeyPath, v: unknown, field: string): Condition {
  const m = objectAt(v, field);
  onlyKeys(m, MATCH_KINDS, field);
  const kinds = present(m, MATCH_KINDS);
  if (kinds.length !== 1) {
    throw invalidArgument(
      field,
      `takes exactly one of ${MATCH_KINDS.map((k) => `"${k}"`).join(', ')}, got ${kinds.length === 0 ? 'none' : kinds.map((k) => `"${k}"`).join(' and ')}`,
    );
  }
  const kind = kinds[0]!;
  const at = `${field}.${kind}`;
  const x = m[kind];
  switch (kind) {
    case 'value':
      if (typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isInteger(x))) return { kind: 'match_value', key, value: x };
      throw invalidArgument(at, `must be a string, an integer or a boolean (a float never matches: use "range"), got ${describe(x)}`);
    case 'any':
      return { kind: 'match_any', key, any: valueListAt(x, at) };
    case 'except':
      return { kind: 'match_except', key, except: valueListAt(x, at) };
    case 'text':
      return { kind: 'match_text', key, text: stringAt(x, at) };
    case 'text_any':
      return { kind: 'match_text_any', key, text_any: stringAt(x, at) };
    case 'phrase':
      return { kind: 'match_phrase', key, phrase: stringAt(x, at) };
  }
}

/** A keyword list: all strings or all integers, deduplicated in first-seen order (Qdrant keeps a set). */
function valueListAt(v: unknown, field: string): ValueList {
  const list = listAt(v, field);
  if (list.length === 0 || typeof list[0] === 'string') {
    const seen = new Set<string>();
    list.forEach((x, i) => {
      if (typeof x !== 'string')
        throw invalidArgument(`${field}[${i}]`, `must be a string like the first value (a list is all strings or all integers), got ${describe(x)}`);
      seen.add(x);
    });
    return { type: 'strings', values: [...seen] };
  }
  const seen = new Set<number>();
  list.forEach((x, i) => {
    if (typeof x !== 'number' || !Number.isInteger(x))
      throw invalidArgument(`${field}[${i}]`, `must be an integer like the first value (a list is all strings or all integers), got ${describe(x)}`);
    seen.add(x);
  });
  return { type: 'integers', values: [...seen] };
}

function boundsAt<T>(v: unknown, field: string, read: (x: unknown, field: string) => T): Bounds<T> {
  const o = objectAt(v, field);
  onlyKeys(o, BOUNDS, field);
  const out: { -readonly [K in keyof Bounds<T>]: T } = {};
  for (const b of present(o, BOUNDS)) out[b] = read(o[b], `${field}.${b}`);
  return out;
}

/** A numeric range or a datetime range: Qdrant decides by the bounds' types, so they must agree. */
function rangeAt(key: KeyPath, v: unknown, field: string): Condition {
  const bounds = boundsAt(v, field, (x, at): number | string => {
    if (typeof x === 'number' && Number.isFinite(x)) return x;
    if (typeof x === 'string' && x.length <= FILTER_LIMITS.maxStringLength && parseDatetime(x) !== undefined) return x;
    throw invalidArgument(at, `must be a number or an RFC 3339 datetime, got ${describe(x)}`);
  });
  const values = Object.values(bounds);
  if (values.every((b) => typeof b === 'number')) return { kind: 'range', key, range: bounds as Bounds<number> };
  if (values.every((b) => typeof b === 'string')) return { kind: 'datetime_range', key, range: bounds as Bounds<string> };
  throw invalidArgument(field, 'bounds must be all numbers or all datetimes');
}

function geoPointAt(v: unknown, field: string): GeoPoint {
  const o = objectAt(v, field);
  onlyKeys(o, ['lon', 'lat'], field);
  const lon = numberAt(o.lon, `${field}.lon`);
  const lat = numberAt(o.lat, `${field}.lat`);
  if (lon < -180 || lon > 180) throw invalidArgument(`${field}.lon`, `must be within [-180, 180], got ${lon}`);
  if (lat < -90 || lat > 90) throw invalidArgument(`${field}.lat`, `must be within [-90, 90], got ${lat}`);
  return { lon, lat };
}

function ringAt(v: unknown, field: string): GeoRing {
  const o = objectAt(v, field);
  onlyKeys(o, ['points'], field);
  const points = listAt(o.points, `${field}.points`).map((p, i) => geoPointAt(p, `${field}.points[${i}]`));
  if (points.length < 4) throw invalidArgument(`${field}.points`, `a ring needs at least 4 points (the last one closing it), got ${points.length}`);
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (Math.abs(first.lon - last.lon) > Number.EPSILON || Math.abs(first.lat - last.lat) > Number.EPSILON) {
    throw invalidArgument(`${field}.points`, 'the last point must equal the first, closing the ring');
  }
  return { points };
}
