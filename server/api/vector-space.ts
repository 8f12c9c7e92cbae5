// A collection's one vector as requests name it. Qdrant collections have an unnamed vector ("") or
// named ones; a Strata collection has one, unnamed or named at create. Every form a request may
// spell it in is read here: a search's {name, vector}, a write's {name: vector}, `using`, and
// with_vector's list of names. A name that is not the collection's is refused, naming the field.
import { invalidArgument, quoted } from '../../common/errors.js';
import { describe, type Fields, isAbsent, isPlainObject, numbersAt, optionalBool, optionalString, vectorAt } from './fields.js';

/** Longest vector name a collection is created with. */
export const MAX_VECTOR_NAME = 256;

/** What parsing needs of a collection's vector: its length and its name ('' when unnamed). */
export interface VectorSpace {
  readonly dim: number;
  readonly name: string;
}

export function spaceOf(c: { dim: number; vectorName: string }): VectorSpace {
  return { dim: c.dim, name: c.vectorName };
}

/** Strata's own dialect (strata.v1) has no vector names: it means the collection's one vector. */
export function unnamedSpace(c: { dim: number }): VectorSpace {
  return { dim: c.dim, name: '' };
}

function unknownName(space: VectorSpace, got: string, field: string): never {
  const has = space.name === '' ? 'one unnamed vector ("")' : `one vector, named ${quoted(space.name, 40)}`;
  throw invalidArgument(field, `no vector named ${quoted(got, 40)}: this collection has ${has}`);
}

/** A vector name the request gives (absent: the unnamed vector); must be the collection's. */
export function checkVectorName(name: string, space: VectorSpace, field: string): void {
  if (name !== space.name) unknownName(space, name, field);
}

/** `using` of the query API, recommend, discover, groups and the matrix: the collection's vector. */
export function usingAt(v: unknown, field: string, space: VectorSpace): void {
  checkVectorName(optionalString(v, field) ?? '', space, field);
}

/** A search's `vector`: a list of numbers, or Qdrant's {name, vector}. */
export function searchVectorAt(v: unknown, field: string, space: VectorSpace): Float32Array {
  if (isPlainObject(v)) {
    const o = v as Fields;
    const extra = Object.keys(o).find((k) => k !== 'name' && k !== 'vector');
    if (extra !== undefined)
      throw invalidArgument(`${field}.${extra}`, 'a named vector is {"name", "vector"} (a dense list; sparse vectors are not supported)');
    checkVectorName(optionalString(o['name'], `${field}.name`) ?? '', space, `${field}.name`);
    return numbersAt(o['vector'], `${field}.vector`, space.dim);
  }
  if (space.name !== '' && !isAbsent(v)) unknownName(space, '', field);
  return numbersAt(v, field, space.dim);
}

/** A vector to store: a list of numbers (the unnamed vector), or Qdrant's {name: list}. */
export function storedVectorAt(v: unknown, field: string, space: VectorSpace): Float32Array {
  if (isPlainObject(v)) {
    const names = Object.keys(v as Fields);
    if (names.length !== 1) throw invalidArgument(field, `must hold the collection's one vector, got ${names.length === 0 ? 'none' : `${names.length} names`}`);
    const name = names[0]!;
    checkVectorName(name, space, `${field}.${name}`);
    return vectorAt((v as Fields)[name], `${field}.${name}`, space.dim);
  }
  if (space.name !== '') unknownName(space, '', field);
  return vectorAt(v, field, space.dim);
}

/** `with_vector`: a bool, or a list of vector names (those the collection has). */
export function withVectorAt(v: unknown, field: string, space: VectorSpace, dflt: boolean): boolean {
  if (Array.isArray(v)) {
    v.forEach((n, i) => {
      if (typeof n !== 'string') throw invalidArgument(`${field}[${i}]`, `must be a vector name, got ${describe(n)}`);
      checkVectorName(n, space, `${field}[${i}]`);
    });
    return v.length > 0;
  }
  return optionalBool(v, field) ?? dflt;
}

/** A vector in an answer, as Qdrant returns it: the list itself when unnamed, else {name: list}. */
export function namedOut<V>(vector: V, name: string): V | Record<string, V> {
  return name === '' ? vector : { [name]: vector };
}
