// What every payload field index is: the common interface the registry (field-indexes.ts) talks to,
// the schemas as Qdrant's API names them, and a cardinality estimate as Qdrant's payload index gives it.
import type { Condition, FieldCondition } from '../filter/ast.js';
import type { Bitmap } from './bitmap.js';

/** Field schemas as Qdrant's create-index API names them. */
export type FieldSchema = 'keyword' | 'integer' | 'float' | 'bool' | 'datetime' | 'uuid' | 'text' | 'geo';

/** How many points a condition matches: a lower bound, an expectation, an upper bound. */
export interface Cardinality {
  readonly min: number;
  readonly exp: number;
  readonly max: number;
}

/** A condition a field index may answer: a field condition, or a shape test of the same key. */
export type IndexableCondition = FieldCondition | Extract<Condition, { readonly kind: 'is_empty' | 'is_null' }>;

/** What an index needs of the collection to answer a condition that holds for points it never saw. */
export interface IndexContext {
  /** Every live internal id (a point without the field still counts for `is_empty` and `values_count`). */
  readonly all: Bitmap;
}

export interface PayloadFieldIndex {
  readonly schema: FieldSchema;
  /**
   * Indexes one point: `values` are every value at the field's key path, as key-path.ts reads them
   * (an array value is indexed element by element, as the evaluator matches it). A point indexed
   * already is replaced.
   */
  add(id: number, values: readonly unknown[]): void;
  /** Forgets a point (nothing when it was never added). */
  remove(id: number): void;
  /** The matching ids exactly, or null when this index cannot answer `cond` exactly. */
  filter(cond: IndexableCondition, ctx: IndexContext): Bitmap | null;
  /** Bounds on `filter(cond).size`, or null when this index cannot answer `cond`. */
  cardinality(cond: IndexableCondition, ctx: IndexContext): Cardinality | null;
  /** DRAM this index holds, in bytes. */
  bytes(): number;
  /** Points with at least one value of the index's type. */
  readonly pointsIndexed: number;
  /**
   * Qdrant's facet: each value the index holds, with how many points (of `within`, when given) hold
   * it; absent where the kind has no countable values (ranges of floats, text, geo).
   */
  facet?(within: Bitmap | null): Array<[FacetValue, number]>;
}

/** A value a facet counts. */
export type FacetValue = string | number | boolean;

export function exactly(n: number): Cardinality {
  return { min: n, exp: n, max: n };
}
