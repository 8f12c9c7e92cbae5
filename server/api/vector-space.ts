// A collection's vectors as requests name them. Qdrant collections have an unnamed vector ("") or
// named ones, and named sparse vectors. A Strata collection has one primary dense vector (the tiered
// index's), unnamed or named at create, any secondary dense vectors (the other names of a create's
// `vectors`), and any sparse vectors its sparse_vectors named. Every form a request may spell them
// in is read here: a search's {name, vector}, a write's {name: vector}, `using`, and with_vector's
// list of names. A name the collection does not have is refused, naming the field.
import { invalidArgument, quoted } from '../../common/errors.js';
import { type Metric, type SparseVector, sparseVectorAt } from '../../engine/public.js';
import { describe, type Fields, isAbsent, isPlainObject, numbersAt, optionalBool, optionalString, vectorAt } from './fields.js';

/** Longest vector name a collection is created with. */
export const MAX_VECTOR_NAME = 256;

/** A secondary dense vector's size and distance. */
export interface DenseSpec {
  readonly dim: number;
  readonly metric: Metric;
}

/** What parsing needs of a collection's vectors: the primary's length and name ('' when unnamed), and the others' names. */
export interface VectorSpace {
  readonly dim: number;
  readonly name: string;
  /** The names of its sparse vectors. */
  readonly sparse: readonly string[];
  /** Its secondary dense vectors, by name. */
  readonly secondary: Readonly<Record<string, DenseSpec>>;
}

export function spaceOf(c: {
  dim: number;
  vectorName: string;
  sparseVectors: Readonly<Record<string, unknown>>;
  secondaryVectors: Readonly<Record<string, DenseSpec>>;
}): VectorSpace {
  return { dim: c.dim, name: c.vectorName, sparse: Object.keys(c.sparseVectors), secondary: c.secondaryVectors };
}

/** Strata's own dialect (strata.v1) has no vector names: it means the collection's one dense vector. */
export function unnamedSpace(c: { dim: number }): VectorSpace {
  return { dim: c.dim, name: '', sparse: [], secondary: {} };
}

/** A search by a named sparse vector. */
export interface SparseQuery {
  readonly name: string;
  readonly vector: SparseVector;
}

/** A search by a dense vector: the primary (`secondary` undefined) or a secondary one by name. */
export interface DenseQuery {
  readonly secondary: string | undefined;
  readonly vector: Float32Array;
}

/** Which of a collection's vectors a request uses: a dense one (the primary, or a secondary by name) or a sparse one. */
export type VectorUse = { readonly kind: 'dense'; readonly secondary: string | undefined } | { readonly kind: 'sparse'; readonly name: string };

function unknownName(space: VectorSpace, got: string, field: string): never {
  const denseNames = [space.name, ...Object.keys(space.secondary)];
  const dense =
    denseNames.length === 1
      ? space.name === ''
        ? 'one unnamed dense vector ("")'
        : `one dense vector, named ${quoted(space.name, 40)}`
      : `dense vectors ${denseNames.map((n) => quoted(n, 40)).join(', ')}`;
  const sparse = space.sparse.length === 0 ? '' : ` and sparse vectors ${space.sparse.map((n) => quoted(n, 40)).join(', ')}`;
  throw invalidArgument(field, `no vector named ${quoted(got, 40)}: this collection has ${dense}${sparse}`);
}

/** Whether the collection has a sparse vector of this name. */
export function isSparseName(name: string, space: VectorSpace): boolean {
  return space.sparse.includes(name);
}

/** Whether the collection has a secondary dense vector of this name. */
export function isSecondaryName(name: string, space: VectorSpace): boolean {
  return name !== space.name && Object.hasOwn(space.secondary, name);
}

/** The length of a dense vector: the primary's, or the named secondary's. */
export function denseDim(space: VectorSpace, secondary: string | undefined): number {
  return secondary === undefined ? space.dim : space.secondary[secondary]!.dim;
}

/** A dense vector's name the request gives ('' for the unnamed): the secondary it names, or undefined for the primary. */
export function denseNameAt(name: string, space: VectorSpace, field: string): string | undefined {
  if (name === space.name) return undefined;
  if (isSecondaryName(name, space)) return name;
  if (isSparseName(name, space))
    throw invalidArgument(field, `${quoted(name, 40)} is a sparse vector: it is searched by nearest {indices, values} only, and not here`);
  unknownName(space, name, field);
}

/** A name that must be one of the collection's vectors, dense or sparse. */
function useOf(name: string, space: VectorSpace, field: string): VectorUse {
  if (isSparseName(name, space)) return { kind: 'sparse', name };
  return { kind: 'dense', secondary: denseNameAt(name, space, field) };
}

/** `using` of recommend, discover, groups and the matrix: one of the collection's dense vectors (undefined: the primary). */
export function usingAt(v: unknown, field: string, space: VectorSpace): string | undefined {
  return denseNameAt(optionalString(v, field) ?? '', space, field);
}

/** The query API's `using`: any of the collection's vectors. */
export function queryUsingAt(v: unknown, field: string, space: VectorSpace): VectorUse {
  return useOf(optionalString(v, field) ?? '', space, field);
}

/** A search's `vector`: a list of numbers, or Qdrant's {name, vector}, where a sparse name takes {indices, values}. */
export function searchVectorAt(v: unknown, field: string, space: VectorSpace): DenseQuery | SparseQuery {
  if (isPlainObject(v)) {
    const o = v as Fields;
    const extra = Object.keys(o).find((k) => k !== 'name' && k !== 'vector');
    if (extra !== undefined) throw invalidArgument(`${field}.${extra}`, 'a named vector is {"name", "vector"}');
    const use = useOf(optionalString(o['name'], `${field}.name`) ?? '', space, `${field}.name`);
    if (use.kind === 'sparse') return { name: use.name, vector: sparseVectorAt(o['vector'], `${field}.vector`) };
    return { secondary: use.secondary, vector: numbersAt(o['vector'], `${field}.vector`, denseDim(space, use.secondary)) };
  }
  if (space.name !== '' && !isAbsent(v)) unknownName(space, '', field);
  return { secondary: undefined, vector: numbersAt(v, field, space.dim) };
}

/** A point's vectors as a write gives them: the primary (absent only where `needDense` is false), and the others by name. */
export interface PointVectors {
  vector: Float32Array | undefined;
  sparse: Record<string, SparseVector> | undefined;
  secondary: Record<string, Float32Array> | undefined;
}

/**
 * A point's vectors to store: a list of numbers (the unnamed vector), or Qdrant's {name: vector},
 * each dense vector as a list and each sparse one as {indices, values}. An upsert needs the primary
 * vector (a point no graph search could find is refused); a vector update may give others only.
 */
export function pointVectorsAt(v: unknown, field: string, space: VectorSpace, needDense: boolean): PointVectors {
  if (!isPlainObject(v)) {
    if (space.name !== '') unknownName(space, '', field);
    return { vector: vectorAt(v, field, space.dim), sparse: undefined, secondary: undefined };
  }
  const o = v as Fields;
  let vector: Float32Array | undefined;
  const sparse: Record<string, SparseVector> = {};
  const secondary: Record<string, Float32Array> = {};
  for (const name of Object.keys(o)) {
    const at = `${field}.${name}`;
    const use = useOf(name, space, at);
    if (use.kind === 'sparse') sparse[name] = sparseVectorAt(o[name], at);
    else if (use.secondary === undefined) vector = vectorAt(o[name], at, space.dim);
    else secondary[name] = vectorAt(o[name], at, denseDim(space, use.secondary));
  }
  const some = <T>(r: Record<string, T>): Record<string, T> | undefined => (Object.keys(r).length > 0 ? r : undefined);
  const out = { vector, sparse: some(sparse), secondary: some(secondary) };
  if (vector === undefined && (needDense || (out.sparse === undefined && out.secondary === undefined)))
    throw invalidArgument(
      space.name === '' ? `${field}[""]` : `${field}.${space.name}`,
      needDense ? "required: a point holds the collection's primary dense vector" : "required: give at least one of the collection's vectors",
    );
  return out;
}

/** `with_vector`: a bool, or a list of vector names (those the collection has); whether the primary vector is asked for. */
export function withVectorAt(v: unknown, field: string, space: VectorSpace, dflt: boolean): boolean {
  if (Array.isArray(v)) {
    v.forEach((n, i) => {
      if (typeof n !== 'string') throw invalidArgument(`${field}[${i}]`, `must be a vector name, got ${describe(n)}`);
      useOf(n, space, `${field}[${i}]`);
    });
    return v.includes(space.name);
  }
  return optionalBool(v, field) ?? dflt;
}

/** The sparse and secondary vectors `with_vector` asks for (withVectorAt checked it): all for true, the listed ones for a list. */
export function withNamedAt(v: unknown, space: VectorSpace, dflt: boolean): readonly string[] {
  const all = [...Object.keys(space.secondary), ...space.sparse];
  if (Array.isArray(v)) return all.filter((n) => v.includes(n));
  return (typeof v === 'boolean' ? v : dflt) ? all : [];
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

/** A point's vectors besides the primary, by name: sparse ones and secondary dense ones. */
export type NamedVectors = Record<string, SparseVector | Float32Array>;

/**
 * A point's vectors in an answer, as Qdrant returns them: the dense list itself when it is unnamed
 * and alone, else {name: vector} with each sparse vector as {indices, values} and each secondary
 * dense one as `dense` puts it on the wire.
 */
export function pointVectorsOut<V>(
  vector: V | null,
  name: string,
  named: Readonly<NamedVectors> | undefined,
  dense: (v: Float32Array) => V,
): V | Record<string, V | SparseJson> | undefined {
  if (named === undefined) return vector === null ? undefined : namedOut(vector, name);
  const out: Record<string, V | SparseJson> = {};
  if (vector !== null) out[name] = vector;
  for (const [n, v] of Object.entries(named)) out[n] = v instanceof Float32Array ? dense(v) : sparseOut(v);
  return out;
}
