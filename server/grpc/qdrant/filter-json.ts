// Qdrant's gRPC Filter message as Qdrant's REST JSON filter, which the one filter parser
// (index/filter/parse.ts) then checks and plans: gRPC adds no filter semantics of its own. Every
// condition kind is carried over as REST spells it, including those the parser refuses (the field
// level is_empty/is_null flags), so that the refusal and its field path are the parser's.
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Condition, FieldCondition, Filter, GeoPoint, Match, PointId } from '@qdrant/js-client-grpc';
import { invalidArgument } from '../../../common/errors.js';
import { idJson } from './point-id.js';

type Json = Record<string, unknown>;

function int(v: bigint, field: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw invalidArgument(field, `integer ${v} is beyond ±2^53`);
  return n;
}

function geoPoint(p: GeoPoint | undefined): Json | undefined {
  return p === undefined ? undefined : { lon: p.lon, lat: p.lat };
}

function matchJson(m: Match, at: string): Json {
  const v = m.matchValue;
  switch (v.case) {
    case 'keyword':
    case 'boolean':
      return { value: v.value };
    case 'integer':
      return { value: int(v.value, `${at}.integer`) };
    case 'text':
      return { text: v.value };
    case 'phrase':
      return { phrase: v.value };
    case 'textAny':
      return { text_any: v.value };
    case 'keywords':
      return { any: v.value.strings };
    case 'integers':
      return { any: v.value.integers.map((x, i) => int(x, `${at}.integers[${i}]`)) };
    case 'exceptKeywords':
      return { except: v.value.strings };
    case 'exceptIntegers':
      return { except: v.value.integers.map((x, i) => int(x, `${at}.except_integers[${i}]`)) };
    case undefined:
      throw invalidArgument(at, 'is empty: set one of its match values');
  }
}

/** Only the bounds that are set, as REST leaves the others out. */
function bounds<T, U>(r: { lt?: T; gt?: T; gte?: T; lte?: T }, f: (x: T) => U): Json {
  const out: Json = {};
  for (const k of ['lt', 'gt', 'gte', 'lte'] as const) if (r[k] !== undefined) out[k] = f(r[k] as T);
  return out;
}

function rfc3339(t: Timestamp): string {
  return timestampDate(t).toISOString();
}

function fieldJson(c: FieldCondition, at: string): Json {
  const out: Json = { key: c.key };
  if (c.match) out['match'] = matchJson(c.match, `${at}.match`);
  if (c.range) out['range'] = bounds(c.range, (x) => x);
  // REST has one `range`: a datetime range is a range of RFC 3339 strings.
  if (c.datetimeRange) out['range'] = bounds(c.datetimeRange, rfc3339);
  if (c.geoBoundingBox) out['geo_bounding_box'] = { top_left: geoPoint(c.geoBoundingBox.topLeft), bottom_right: geoPoint(c.geoBoundingBox.bottomRight) };
  if (c.geoRadius) out['geo_radius'] = { center: geoPoint(c.geoRadius.center), radius: c.geoRadius.radius };
  if (c.geoPolygon) {
    const ring = (l: { points: GeoPoint[] } | undefined): Json | undefined => (l === undefined ? undefined : { points: l.points.map(geoPoint) });
    out['geo_polygon'] = { exterior: ring(c.geoPolygon.exterior), interiors: c.geoPolygon.interiors.map(ring) };
  }
  if (c.valuesCount) out['values_count'] = bounds(c.valuesCount, (x) => int(x, `${at}.values_count`));
  if (c.isEmpty !== undefined) out['is_empty'] = c.isEmpty;
  if (c.isNull !== undefined) out['is_null'] = c.isNull;
  return out;
}

function conditionJson(c: Condition, at: string): Json {
  const v = c.conditionOneOf;
  switch (v.case) {
    case 'field':
      return fieldJson(v.value, at);
    case 'isEmpty':
      return { is_empty: { key: v.value.key } };
    case 'isNull':
      return { is_null: { key: v.value.key } };
    case 'hasId':
      return { has_id: v.value.hasId.map((id: PointId, i) => idJson(id, `${at}.has_id[${i}]`)) };
    case 'hasVector':
      return { has_vector: v.value.hasVector };
    case 'nested':
      return { nested: { key: v.value.key, filter: v.value.filter ? filterJson(v.value.filter, `${at}.nested.filter`) : undefined } };
    case 'filter':
      return filterJson(v.value, `${at}.filter`);
    case undefined:
      throw invalidArgument(at, 'is empty: set one of its conditions');
  }
}

/** A Filter message as REST's filter object; `at` is the request field, for errors. */
export function filterJson(f: Filter, at = 'filter'): Json {
  const out: Json = {};
  const list = (cs: Condition[], name: string): unknown[] => cs.map((c, i) => conditionJson(c, `${at}.${name}[${i}]`));
  if (f.must.length > 0) out['must'] = list(f.must, 'must');
  if (f.should.length > 0) out['should'] = list(f.should, 'should');
  if (f.mustNot.length > 0) out['must_not'] = list(f.mustNot, 'must_not');
  if (f.minShould) {
    out['min_should'] = {
      conditions: f.minShould.conditions.map((c, i) => conditionJson(c, `${at}.min_should.conditions[${i}]`)),
      min_count: int(f.minShould.minCount, `${at}.min_should.min_count`),
    };
  }
  return out;
}
