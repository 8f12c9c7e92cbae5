// The typed form of a Qdrant filter: what parse.ts makes from REST JSON, what to-json.ts writes back,
// and what evaluate.ts compiles. Every condition carries a `kind`, so a planner or an index can switch
// on it; the clauses are always arrays (Qdrant also takes one bare condition, parse.ts normalises).
import type { KeyPath } from './key-path.js';

/** A point id as Qdrant spells it: an unsigned integer, or a UUID (lowercase, 8-4-4-4-12). */
export type PointId = number | string;

export interface Filter {
  readonly must?: readonly Condition[];
  readonly should?: readonly Condition[];
  readonly must_not?: readonly Condition[];
  readonly min_should?: MinShould;
}

export interface MinShould {
  readonly conditions: readonly Condition[];
  readonly min_count: number;
}

/** Bounds of a range; each one absent is no bound. */
export interface Bounds<T> {
  readonly gt?: T;
  readonly gte?: T;
  readonly lt?: T;
  readonly lte?: T;
}

export interface GeoPoint {
  readonly lon: number;
  readonly lat: number;
}

/** A closed ring: at least four points, the last equal to the first. */
export interface GeoRing {
  readonly points: readonly GeoPoint[];
}

/** A keyword list (`match.any` / `match.except`): Qdrant's lists hold only strings or only integers. */
export type ValueList = { readonly type: 'strings'; readonly values: readonly string[] } | { readonly type: 'integers'; readonly values: readonly number[] };

export type Condition =
  | { readonly kind: 'match_value'; readonly key: KeyPath; readonly value: string | number | boolean }
  | { readonly kind: 'match_any'; readonly key: KeyPath; readonly any: ValueList }
  | { readonly kind: 'match_except'; readonly key: KeyPath; readonly except: ValueList }
  | { readonly kind: 'match_text'; readonly key: KeyPath; readonly text: string }
  | { readonly kind: 'match_text_any'; readonly key: KeyPath; readonly text_any: string }
  | { readonly kind: 'match_phrase'; readonly key: KeyPath; readonly phrase: string }
  | { readonly kind: 'range'; readonly key: KeyPath; readonly range: Bounds<number> }
  /** Bounds as the request spelled them (RFC 3339 strings), so the filter can be written back. */
  | { readonly kind: 'datetime_range'; readonly key: KeyPath; readonly range: Bounds<string> }
  | { readonly kind: 'geo_radius'; readonly key: KeyPath; readonly center: GeoPoint; readonly radius: number }
  | { readonly kind: 'geo_bounding_box'; readonly key: KeyPath; readonly top_left: GeoPoint; readonly bottom_right: GeoPoint }
  | { readonly kind: 'geo_polygon'; readonly key: KeyPath; readonly exterior: GeoRing; readonly interiors?: readonly GeoRing[] }
  | { readonly kind: 'values_count'; readonly key: KeyPath; readonly count: Bounds<number> }
  | { readonly kind: 'is_empty'; readonly key: KeyPath }
  | { readonly kind: 'is_null'; readonly key: KeyPath }
  | { readonly kind: 'has_id'; readonly ids: readonly PointId[] }
  | { readonly kind: 'has_vector'; readonly vector: string }
  | { readonly kind: 'nested'; readonly key: KeyPath; readonly filter: Filter }
  | { readonly kind: 'filter'; readonly filter: Filter };

export type ConditionKind = Condition['kind'];

/** The conditions that test one payload field (`{ key, match | range | geo_* | values_count }` in Qdrant's JSON). */
export type FieldCondition = Extract<Condition, { readonly key: KeyPath }> & {
  readonly kind: Exclude<ConditionKind, 'is_empty' | 'is_null' | 'nested' | 'has_id' | 'has_vector' | 'filter'>;
};
