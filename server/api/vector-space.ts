// A collection's vectors as requests name them. Qdrant collections have an unnamed vector ("") or
// named ones, and named sparse vectors; a Strata collection has one dense vector, unnamed or named
// at create, and any sparse vectors its sparse_vectors named. Every form a request may spell them
// in is read here: a search's {name, vector}, a write's {name: vector}, `using`, and with_vector's
// list of names. A name the collection does not have is refused, naming the field.
import { invalidArgument, quoted } from '../../common/errors.js';
import { type SparseVector, sparseVectorAt } from '../../engine/public.js';
import { describe, type Fields, isAbsent, isPlainObject, numbersAt, optionalBool, optionalString, vectorAt } from './fields.js';

/** Longest vector name a collection is created with. */
export const MAX_VECTOR_NAME = 256;

/** What parsing needs of a collection's vector: its length and its name ('' when unnamed). */
export interface VectorSpace {
  readonly dim: number;
  readonly name: string;
  /** The names of its sparse vectors. */
  readonly sparse: readonly string[];
}

export function spaceOf(c: { dim: number; vectorName: string; sparseVectors: Readonly<Record<string, unknown>> }): VectorSpace {
  return { dim: c.dim, name: c.vectorName, sparse: Object.keys(c.sparseVectors) };
}

/** Strata's own dialect (strata.v1) has no vector names: it means the collection's one dense vector. */
export function unnamedSpace(c: { dim: number }): VectorSpace {
  return { dim: c.dim, name: '', sparse: [] };
}

/** A search by a named sparse vector. */
export interface SparseQuery {
  readonly name: string;
  readonly vector: SparseVector;
}

function unknownName(space: VectorSpace, got: string, field: string): never {
  const kind = space.sparse.length === 0 ? 'vector' : 'dense vector';
  const dense = space.name === '' ? `one unnamed ${kind} ("")` : `one ${kind}, named ${quoted(space.name, 40)}`;
  const sparse = space.sparse.length === 0 ? '' : ` and sparse vectors ${space.sparse.map((n) => quoted(n, 40)).join(', ')}`;
  throw invalidArgument(field, `no vector named ${quoted(got, 40)}: this collection has ${dense}${sparse}`);
}

/** Whether the collection has a sparse vector of this name. */
export function isSparseName(name: string, space: VectorSpace): boolean {
  return space.sparse.includes(name);
}

/** A vector name the request gives (absent: the unnamed vector); must be the collection's dense vector. */
export function checkVectorName(name: string, space: VectorSpace, field: string): void {
  if (name === space.name) return;
  if (isSparseName(name, space))
    throw invalidArgument(field, `${quoted(name, 40)} is a sparse vector: it is searched by nearest {indices, values} only, and not here`);
  unknownName(space, name, field);
}

/** A name that must be one of the collection's vectors, dense or sparse. */
function checkAnyName(name: string, space: VectorSpace, field: string): void {
  if (name !== space.name && !isSparseName(name, space)) unknownName(space, name, field);
}

/** `using` of recommend, discover, groups and the matrix: the collection's dense vector. */
export function usingAt(v: unknown, field: string, space: VectorSpace): void {
  checkVectorName(optionalString(v, field) ?? '', space, field);
}

/** The query API's `using`: the sparse vector it names, or undefined for the dense vector. */
export function queryUsingAt(v: unknown, field: string, space: VectorSpace): string | undefined {
  const name = optionalString(v, field) ?? '';
  checkAnyName(name, space, field);
  return isSparseName(name, space) ? name : undefined;
}

/** A search's `vector`: a list of numbers, or Qdrant's {name, vector}, where a sparse name takes {indices, values}. */
export function searchVectorAt(v: unknown, field: string, space: VectorSpace): Float32Array | SparseQuery {
  if (isPlainObject(v)) {
    const o = v as Fields;
    const extra = Object.keys(o).find((k) => k !== 'name' && k !== 'vector');
    if (extra !== undefined) throw invalidArgument(`${field}.${extra}`, 'a named vector is {"name", "vector"}');
    const name = optionalString(o['name'], `${field}.name`) ?? '';
    checkAnyName(name, space, `${field}.name`);
    if (isSparseName(name, space)) return { name, vector: sparseVectorAt(o['vector'], `${field}.vector`) };
    return numbersAt(o['vector'], `${field}.vector`, space.dim);
  }
  if (space.name !== '' && !isAbsent(v)) unknownName(space, '', field);
  return numbersAt(v, field, space.dim);
}

/** A point's vectors as a write gives them: the dense one (absent only where `needDense` is false) and sparse ones by name. */
export interface PointVectors {
  vector: Float32Array | undefined;
  sparse: Record<string, SparseVector> | undefined;
}

/**
 * A point's vectors to store: a list of numbers (the unnamed vector), or Qdrant's {name: vector},
 * the dense vector as a list and each sparse one as {indices, values}. An upsert needs the dense
 * vector (a point no graph search could find is refused); a vector update may give sparse ones only.
 */
export function pointVectorsAt(v: unknown, field: string, space: VectorSpace, needDense: boolean): PointVectors {
  if (!isPlainObject(v)) {
    if (space.name !== '') unknownName(space, '', field);
    return { vector: vectorAt(v, field, space.dim), sparse: undefined };
  }
  const o = v as Fields;
  let vector: Float32Array | undefined;
  const given: Record<string, SparseVector> = {};
  for (const name of Object.keys(o)) {
    checkAnyName(name, space, `${field}.${name}`);
    if (name === space.name) vector = vectorAt(o[name], `${field}.${name}`, space.dim);
    else given[name] = sparseVectorAt(o[name], `${field}.${name}`);
  }
  const sparse = Object.keys(given).length > 0 ? given : undefined;
  if (vector === undefined && (needDense || sparse === undefined))
    throw invalidArgument(
      space.name === '' ? `${field}[""]` : `${field}.${space.name}`,
      needDense ? "required: a point holds the collection's dense vector" : "required: give at least one of the collection's vectors",
    );
  return { vector, sparse };
}

/** `with_vector`: a bool, or a list of vector names (those the collection has); whether the dense vector is asked for. */
export function withVectorAt(v: unknown, field: string, space: VectorSpace, dflt: boolean): boolean {
  if (Array.isArray(v)) {
    v.forEach((n, i) => {
      if (typeof n !== 'string') throw invalidArgument(`${field}[${i}]`, `must be a vector name, got ${describe(n)}`);
      checkAnyName(n, space, `${field}[${i}]`);
    });
    return v.includes(space.name);
  }
  return optionalBool(v, field) ?? dflt;
}

/** The sparse vectors `with_vector` asks for (withVectorAt checked it): all for true, the listed ones for a list. */
export function withSparseAt(v: unknown, space: VectorSpace, dflt: boolean): readonly string[] {
  if (Array.isArray(v)) return space.sparse.filter((n) => v.includes(n));
  return (typeof v === 'boolean' ? v : dflt) ? space.sparse : [];
}

/** A sparse vector in an answer: Qdrant's {indices, values}. */
export interface SparseJson {
  indices: number[];
  values: number[];
}

export function sparseOut(v: SparseVector): SparseJson {
  return { indices: Array.from(v.indices), values: Array.from(v.values) };
}

/** A vector (or its params) as Qdrant shows it: the value itself when unnamed, else {name: value}. */
export function namedOut<V>(vector: V, name: string): V | Record<string, V> {
  return name === '' ? vector : { [name]: vector };
}

/**
 * A point's vectors in an answer, as Qdrant returns them: the dense list itself when it is unnamed
 * and alone, else {name: vector} with each sparse vector as {indices, values}.
 */
export function pointVectorsOut<V>(
  vector: V | null,
  name: string,
  sparse: Readonly<Record<string, SparseVector>> | undefined,
): V | Record<string, V | SparseJson> | undefined {
  if (sparse === undefined) return vector === null ? undefined : namedOut(vector, name);
  const out: Record<string, V | SparseJson> = {};
  if (vector !== null) out[name] = vector;
  for (const [n, v] of Object.entries(sparse)) out[n] = sparseOut(v);
  return out;
}
