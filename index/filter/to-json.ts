// The typed filter (ast.ts) → Qdrant's REST filter JSON, for the layers that forward a filter (the
// gRPC translation, a router fanning a search out to shards) and for logs. parse(toJson(f)) gives f
// back: clauses come out as arrays, key paths in their canonical spelling.
import type { Bounds, Condition, Filter, GeoPoint, GeoRing } from './ast.js';

export type FilterJson = { readonly [key: string]: JsonValue };
type JsonValue = string | number | boolean | null | readonly JsonValue[] | FilterJson;

export function filterToJson(f: Filter): FilterJson {
  const out: Record<string, JsonValue> = {};
  if (f.must !== undefined) out.must = f.must.map(conditionToJson);
  if (f.should !== undefined) out.should = f.should.map(conditionToJson);
  if (f.must_not !== undefined) out.must_not = f.must_not.map(conditionToJson);
  if (f.min_should !== undefined) out.min_should = { conditions: f.min_should.conditions.map(conditionToJson), min_count: f.min_should.min_count };
  return out;
}

function bounds<T extends number | string>(b: Bounds<T>): FilterJson {
  const out: Record<string, T> = {};
  for (const k of ['gt', 'gte', 'lt', 'lte'] as const) if (b[k] !== undefined) out[k] = b[k];
  return out;
}

const point = (p: GeoPoint): FilterJson => ({ lon: p.lon, lat: p.lat });
const ring = (r: GeoRing): FilterJson => ({ points: r.points.map(point) });

export function conditionToJson(c: Condition): FilterJson {
  switch (c.kind) {
    case 'match_value':
      return { key: c.key.text, match: { value: c.value } };
    case 'match_any':
      return { key: c.key.text, match: { any: c.any.values } };
    case 'match_except':
      return { key: c.key.text, match: { except: c.except.values } };
    case 'match_text':
      return { key: c.key.text, match: { text: c.text } };
    case 'match_text_any':
      return { key: c.key.text, match: { text_any: c.text_any } };
    case 'match_phrase':
      return { key: c.key.text, match: { phrase: c.phrase } };
    case 'range':
    case 'datetime_range':
      return { key: c.key.text, range: bounds<number | string>(c.range) };
    case 'geo_radius':
      return { key: c.key.text, geo_radius: { center: point(c.center), radius: c.radius } };
    case 'geo_bounding_box':
      return { key: c.key.text, geo_bounding_box: { top_left: point(c.top_left), bottom_right: point(c.bottom_right) } };
    case 'geo_polygon':
      return {
        key: c.key.text,
        geo_polygon: c.interiors === undefined ? { exterior: ring(c.exterior) } : { exterior: ring(c.exterior), interiors: c.interiors.map(ring) },
      };
    case 'values_count':
      return { key: c.key.text, values_count: bounds(c.count) };
    case 'is_empty':
      return { is_empty: { key: c.key.text } };
    case 'is_null':
      return { is_null: { key: c.key.text } };
    case 'has_id':
      return { has_id: c.ids };
    case 'has_vector':
      return { has_vector: c.vector };
    case 'nested':
      return { nested: { key: c.key.text, filter: filterToJson(c.filter) } };
    case 'filter':
      return filterToJson(c.filter);
  }
}

/** A filter's key wherever filters are cached or named: its canonical JSON. */
export function filterKey(filter: Filter): string {
  return JSON.stringify(filterToJson(filter));
}
