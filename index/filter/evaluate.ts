// The reference evaluator: whether a point (its id, payload and vectors) matches a filter, with
// Qdrant's semantics. It is the brute-force model that payload indexes and the planner are tested
// against, and what a filtered scan runs per point, so a filter is compiled once into a tree of
// closures (compile): evaluating a point parses nothing, and reads a path without `[]` without
// building a list. The rules (from Qdrant's condition checker; README.md has the table):
// - a field condition reads every value at its key path; it matches if one value matches, an array
//   value matching if one of its elements does; with no value at the path it does not match, except
//   `values_count`, which then counts 0;
// - types are never coerced: 1 matches no "1", and an integer test (match value/any/except) takes
//   only integral numbers;
// - `should` needs one of its conditions (so an empty `should` matches nothing, as in Qdrant),
//   `min_should` needs min_count of its conditions, `must` all, `must_not` none.
import type { Bounds, Condition, Filter, PointId, ValueList } from './ast.js';
import { parseDatetime } from './datetime.js';
import { haversineMetres, inBoundingBox, inPolygon } from './geo.js';
import { arrayPath, compileReader, compileSingleReader, type KeyPath } from './key-path.js';
import { hasAllTokens, hasAnyToken, hasPhrase, type Tokenizer } from './tokenize.js';

/** What a filter sees of a point. */
export interface FilterPoint {
  /** An unsigned integer, or a UUID in canonical form (lowercase, 8-4-4-4-12). */
  readonly id: PointId;
  /** The point's payload; null or absent: no fields. */
  readonly payload?: Readonly<Record<string, unknown>> | null;
  /** Whether the point has a vector of that name ("" is the unnamed one); absent: it has none. */
  readonly hasVector?: (name: string) => boolean;
}

export interface CompileOptions {
  /**
   * The tokeniser of a field's full-text index, or undefined when the field has none. A field with
   * a tokeniser matches `text`, `text_any` and `phrase` token-wise; one without matches them as
   * substrings (Qdrant's rule for unindexed fields). Without this option no field has an index.
   */
  readonly textIndex?: (key: KeyPath) => Tokenizer | undefined;
}

export type PointPredicate = (point: FilterPoint) => boolean;

/** A compiled condition: `payload` is the point's, or one array element's inside `nested`. */
type Test = (payload: unknown, point: FilterPoint) => boolean;

const ALWAYS: Test = () => true;

export function compile(filter: Filter, options: CompileOptions = {}): PointPredicate {
  const test = compileFilter(filter, options);
  return (point) => test(point.payload, point);
}

const compiled = new WeakMap<Filter, PointPredicate>();

/** One point against a filter (the compiled form is cached per filter object; options bypass the cache). */
export function matches(filter: Filter, point: FilterPoint, options?: CompileOptions): boolean {
  if (options !== undefined) return compile(filter, options)(point);
  let p = compiled.get(filter);
  if (p === undefined) {
    p = compile(filter);
    compiled.set(filter, p);
  }
  return p(point);
}

function compileFilter(f: Filter, options: CompileOptions): Test {
  const parts: Test[] = [];
  const each = (cs: readonly Condition[]): Test[] => cs.map((c) => compileCondition(c, options));
  if (f.must !== undefined) {
    const cs = each(f.must);
    parts.push((p, pt) => {
      for (const c of cs) if (!c(p, pt)) return false;
      return true;
    });
  }
  if (f.must_not !== undefined) {
    const cs = each(f.must_not);
    parts.push((p, pt) => {
      for (const c of cs) if (c(p, pt)) return false;
      return true;
    });
  }
  if (f.should !== undefined) {
    const cs = each(f.should);
    parts.push((p, pt) => {
      for (const c of cs) if (c(p, pt)) return true;
      return false;
    });
  }
  if (f.min_should !== undefined) {
    const cs = each(f.min_should.conditions);
    const need = f.min_should.min_count;
    parts.push((p, pt) => {
      let n = 0;
      for (const c of cs) if (n >= need || (c(p, pt) && ++n >= need)) return true;
      return n >= need;
    });
  }
  if (parts.length === 0) return ALWAYS;
  if (parts.length === 1) return parts[0]!;
  return (p, pt) => {
    for (const t of parts) if (!t(p, pt)) return false;
    return true;
  };
}

/** A field test: one value (an array's element, never the array itself, unless arrays nest). */
type ValueTest = (v: unknown) => boolean;

/** Matches when one value at the path (or one element of an array value) passes `test`. */
function anyValue(key: KeyPath, test: ValueTest): Test {
  const one = (v: unknown): boolean => {
    if (!Array.isArray(v)) return test(v);
    for (const e of v) if (test(e)) return true;
    return false;
  };
  // Most paths reach one value at most: read it without building a list.
  const single = compileSingleReader(key);
  if (single !== undefined) {
    return (payload) => {
      const v = single(payload);
      return v !== undefined && one(v);
    };
  }
  const read = compileReader(key);
  return (payload) => {
    for (const v of read(payload)) if (one(v)) return true;
    return false;
  };
}

function inBounds<T extends number>(b: Bounds<T>): (x: T) => boolean {
  const { gt, gte, lt, lte } = b;
  return (x) => (gt === undefined || x > gt) && (gte === undefined || x >= gte) && (lt === undefined || x < lt) && (lte === undefined || x <= lte);
}

function asGeoPoint(v: unknown): { lon: number; lat: number } | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Readonly<Record<string, unknown>>;
  const lon = Object.hasOwn(o, 'lon') ? o.lon : undefined;
  const lat = Object.hasOwn(o, 'lat') ? o.lat : undefined;
  return typeof lon === 'number' && typeof lat === 'number' ? { lon, lat } : undefined;
}

/** Membership in a keyword list, as `match.any` reads it: only a string in a string list, an integer in an integer list. */
function inList(list: ValueList): ValueTest {
  if (list.type === 'strings') {
    const set = new Set(list.values);
    return (v) => typeof v === 'string' && set.has(v);
  }
  const set = new Set(list.values);
  return (v) => typeof v === 'number' && Number.isInteger(v) && set.has(v);
}

/**
 * Qdrant's `match.except` on one value: a string or an integer of the list's type passes when it is
 * not in the list; null never passes; anything else (a bool, an object, a float, a nested array, a
 * value of the other type) passes, being no value of the list.
 */
function notInList(list: ValueList): ValueTest {
  const has = inList(list);
  return (v) => v !== null && !has(v);
}

function textTest(key: KeyPath, query: string, how: 'all' | 'any' | 'phrase', options: CompileOptions): Test {
  const tokenizer = options.textIndex?.(key);
  if (tokenizer !== undefined) {
    const q = tokenizer(query);
    const test = how === 'all' ? hasAllTokens : how === 'any' ? hasAnyToken : hasPhrase;
    return anyValue(key, (v) => typeof v === 'string' && test(tokenizer(v), q));
  }
  if (how === 'any') {
    const words = query.split(/\s+/u).filter((w) => w !== '');
    return anyValue(key, (v) => typeof v === 'string' && words.some((w) => v.includes(w)));
  }
  return anyValue(key, (v) => typeof v === 'string' && v.includes(query));
}

function compileCondition(c: Condition, options: CompileOptions): Test {
  switch (c.kind) {
    case 'match_value': {
      const want = c.value;
      return anyValue(c.key, (v) => v === want);
    }
    case 'match_any':
      return anyValue(c.key, inList(c.any));
    case 'match_except':
      return anyValue(c.key, notInList(c.except));
    case 'match_text':
      return textTest(c.key, c.text, 'all', options);
    case 'match_text_any':
      return textTest(c.key, c.text_any, 'any', options);
    case 'match_phrase':
      return textTest(c.key, c.phrase, 'phrase', options);
    case 'range': {
      const ok = inBounds(c.range);
      return anyValue(c.key, (v) => typeof v === 'number' && ok(v));
    }
    case 'datetime_range': {
      const micros = (s: string | undefined): number | undefined => (s === undefined ? undefined : parseDatetime(s));
      const ok = inBounds({ gt: micros(c.range.gt), gte: micros(c.range.gte), lt: micros(c.range.lt), lte: micros(c.range.lte) });
      return anyValue(c.key, (v) => {
        if (typeof v !== 'string') return false;
        const t = parseDatetime(v);
        return t !== undefined && ok(t);
      });
    }
    case 'geo_radius': {
      const { center, radius } = c;
      return anyValue(c.key, (v) => {
        const p = asGeoPoint(v);
        return p !== undefined && haversineMetres(center, p) < radius;
      });
    }
    case 'geo_bounding_box': {
      const { top_left, bottom_right } = c;
      return anyValue(c.key, (v) => {
        const p = asGeoPoint(v);
        return p !== undefined && inBoundingBox(p, top_left, bottom_right);
      });
    }
    case 'geo_polygon': {
      const { exterior } = c;
      const interiors = c.interiors ?? [];
      return anyValue(c.key, (v) => {
        const p = asGeoPoint(v);
        return p !== undefined && inPolygon(p, exterior, interiors);
      });
    }
    case 'values_count': {
      const read = compileReader(c.key);
      const ok = inBounds(c.count);
      return (payload) => {
        const values = read(payload);
        if (values.length === 0) return ok(0);
        for (const v of values) if (ok(v === null ? 0 : Array.isArray(v) ? v.length : 1)) return true;
        return false;
      };
    }
    case 'is_empty': {
      const read = compileReader(c.key);
      return (payload) => {
        for (const v of read(payload)) if (v !== null && !(Array.isArray(v) && v.length === 0)) return false;
        return true;
      };
    }
    case 'is_null': {
      const read = compileReader(c.key);
      return (payload) => read(payload).includes(null);
    }
    case 'has_id': {
      const ids = new Set<PointId>(c.ids);
      return (_, point) => ids.has(typeof point.id === 'string' ? point.id.toLowerCase() : point.id);
    }
    case 'has_vector': {
      const name = c.vector;
      return (_, point) => point.hasVector?.(name) ?? false;
    }
    case 'nested': {
      const read = compileReader(arrayPath(c.key));
      const inner = compileFilter(c.filter, options);
      return (payload, point) => {
        for (const v of read(payload)) if (typeof v === 'object' && v !== null && !Array.isArray(v) && inner(v, point)) return true;
        return false;
      };
    }
    case 'filter':
      return compileFilter(c.filter, options);
  }
}
