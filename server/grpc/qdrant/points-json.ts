// Qdrant's point messages (ids, vectors, payload and vector selectors, point selectors) as the REST
// bodies' JSON, and Strata's answers back as Qdrant's point messages. One dense vector per point,
// unnamed or named, and named sparse vectors are what Strata stores (the REST parsers check the
// names): multi and inference vectors are refused naming the field.
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  Direction,
  type OrderBy,
  type OrderValueSchema,
  type PointsSelector,
  type RetrievedPointSchema,
  type ScoredPointSchema,
  type Vector,
  type Vectors,
  type VectorOutputSchema,
  type WithPayloadSelector,
  type WithVectorsSelector,
} from '@qdrant/js-client-grpc';
import { invalidArgument } from '../../../common/errors.js';
import type { SparseVector } from '../../../engine/public.js';
import type { PointRecord, ScoredHit } from '../../api/points.js';
import type { NamedVectors, SparseJson } from '../../api/vector-space.js';
import { filterJson } from './filter-json.js';
import { idJson, pointIdMessage } from './point-id.js';
import { jsonMap } from './value-json.js';

/**
 * The vectors of a point as REST's: a list, or {name: list or {indices, values}} for named ones
 * (`data` and `indices` are the fields older clients fill, `dense` and `sparse` the newer ones).
 */
export function vectorJson(v: Vectors | undefined, field: string): number[] | Record<string, number[] | SparseJson> | undefined {
  const o = v?.vectorsOptions;
  if (o === undefined || o.case === undefined) return undefined;
  if (o.case === 'vectors') return Object.fromEntries(Object.entries(o.value.vectors).map(([name, vec]) => [name, namedJson(vec, `${field}.vectors.${name}`)]));
  return denseJson(o.value, `${field}.vector`);
}

/** A named vector: sparse as {indices, values}, else dense. */
function namedJson(vec: Vector, field: string): number[] | SparseJson {
  if (vec.vector.case === 'sparse') return { indices: vec.vector.value.indices, values: vec.vector.value.values };
  if (vec.indices !== undefined) return { indices: vec.indices.data, values: vec.data };
  return denseJson(vec, field);
}

/** One Vector message's dense values; sparse, multi and inference vectors are refused, naming them under `field`. */
export function denseJson(vec: Vector, field: string): number[] {
  if (vec.indices !== undefined || vec.vector.case === 'sparse')
    throw invalidArgument(`${field}.sparse`, 'a sparse vector is given by its name (vectors.vectors)');
  if (vec.vectorsCount !== undefined || vec.vector.case === 'multiDense') throw invalidArgument(`${field}.multi_dense`, 'multi vectors are not supported');
  if (vec.vector.case === 'dense') return vec.vector.value.data;
  if (vec.vector.case !== undefined) throw invalidArgument(`${field}.${vec.vector.case}`, 'only dense vectors are supported (no inference)');
  return vec.data;
}

/** with_payload as REST's: true/false, {include}, {exclude}; unset is REST's default for the request. */
export function withPayloadJson(s: WithPayloadSelector | undefined): unknown {
  const o = s?.selectorOptions;
  if (o === undefined || o.case === undefined) return undefined;
  if (o.case === 'enable') return o.value;
  return o.case === 'include' ? { include: o.value.fields } : { exclude: o.value.fields };
}

/** with_vectors as REST's with_vector: true/false, or the names to include (the parser checks them). */
export function withVectorsJson(s: WithVectorsSelector | undefined): boolean | string[] | undefined {
  const o = s?.selectorOptions;
  if (o === undefined || o.case === undefined) return undefined;
  return o.case === 'include' ? o.value.names : o.value;
}

/** A PointsSelector as REST's `points` (ids) or `filter` member. */
export function selectorJson(s: PointsSelector | undefined, field: string): Record<string, unknown> {
  const o = s?.pointsSelectorOneOf;
  if (o === undefined || o.case === undefined) return {};
  if (o.case === 'points') return { points: o.value.ids.map((id, i) => idJson(id, `${field}.points.ids[${i}]`)) };
  return { filter: filterJson(o.value, `${field}.filter`) };
}

/**
 * A stored vector in VectorOutput's `data`, as Qdrant itself sends a dense vector (the `vector`
 * oneof left unset): clients that only know `data` read it, and the newer clients' helpers
 * (toDenseVector and its kin) fall back to it.
 */
function vectorsOut(v: Float32Array | null, name: string, named: Readonly<NamedVectors> | undefined): MessageInitShape<typeof RetrievedPointSchema>['vectors'] {
  if (v === null && named === undefined) return undefined;
  const value = v === null ? null : { data: Array.from(v) };
  if (named === undefined && name === '') return { vectorsOptions: { case: 'vector', value: value! } };
  const vectors: Record<string, MessageInitShape<typeof VectorOutputSchema>> = value === null ? {} : { [name]: value };
  for (const [n, s] of Object.entries(named ?? {})) vectors[n] = s instanceof Float32Array ? { data: Array.from(s) } : sparseOut(s);
  return { vectorsOptions: { case: 'vectors', value: { vectors } } };
}

/** A sparse vector in the `sparse` case, and in `data` and `indices` for clients that read only those. */
function sparseOut(s: SparseVector): MessageInitShape<typeof VectorOutputSchema> {
  const indices = Array.from(s.indices);
  const values = Array.from(s.values);
  return { data: values, indices: { data: indices }, vector: { case: 'sparse', value: { indices, values } } };
}

/** An order_by value as Qdrant's OrderValue: an int64 when integral, else a double. */
function orderValueOut(v: number | undefined): MessageInitShape<typeof OrderValueSchema> | undefined {
  if (v === undefined) return undefined;
  return { variant: Number.isSafeInteger(v) ? { case: 'int', value: BigInt(v) } : { case: 'float', value: v } };
}

/** `vectorName`: the collection's ('' unnamed). */
export function scoredPoint(h: ScoredHit, withPayload: boolean, vectorName: string): MessageInitShape<typeof ScoredPointSchema> {
  return {
    id: pointIdMessage(h.id),
    score: h.score,
    version: 0n,
    payload: withPayload && h.payload ? jsonMap(h.payload) : {},
    vectors: vectorsOut(h.vector, vectorName, h.named),
    orderValue: orderValueOut(h.orderValue),
  };
}

export function retrievedPoint(p: PointRecord, vectorName: string): MessageInitShape<typeof RetrievedPointSchema> {
  return {
    id: pointIdMessage(p.id),
    payload: p.payload ? jsonMap(p.payload) : {},
    vectors: vectorsOut(p.vector, vectorName, p.named),
    orderValue: orderValueOut(p.orderValue),
  };
}

/** Qdrant's OrderBy message as REST's order_by. */
export function orderByJson(o: OrderBy | undefined, field: string): unknown {
  if (o === undefined) return undefined;
  const s = o.startFrom?.value;
  let start: number | string | undefined;
  if (s?.case === 'float' || s?.case === 'datetime') start = s.value;
  else if (s?.case === 'integer') start = Number(s.value);
  else if (s?.case === 'timestamp') throw invalidArgument(`${field}.start_from.timestamp`, 'give the start as an RFC 3339 datetime string');
  return { key: o.key, direction: o.direction === Direction.Desc ? 'desc' : 'asc', start_from: start };
}
