// The sparse vector value: what Qdrant's `{indices, values}` JSON becomes once checked. Checked here,
// once, so that the column and the dot product can trust it: indices unique and ascending, values
// finite, at most MAX_SPARSE_NONZEROS of them. Every bad input is STRATA_INVALID_ARGUMENT naming the
// exact member ("vector.indices[3]: ...").
import { invalidArgument, memberField } from '../../common/errors.js';

/** A sparse vector: unique dimension indices ascending, each with its value. */
export interface SparseVector {
  readonly indices: Uint32Array;
  readonly values: Float32Array;
}

/** Most non-zero entries one vector may have. */
export const MAX_SPARSE_NONZEROS = 65_536;

const MAX_INDEX = 0xffff_ffff;
/** Positions fit below this, so an (index, position) pair packs exactly into one float64 key. */
const POSITIONS = 2 ** 17;

function isPlainObject(v: unknown): v is Readonly<Record<string, unknown>> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Checks Qdrant's {indices, values} JSON (unknown input) at `field` and returns it sorted by index. */
export function sparseVectorAt(v: unknown, field: string): SparseVector {
  if (!isPlainObject(v)) throw invalidArgument(field, 'a sparse vector must be an object {indices, values}');
  for (const k of Object.keys(v)) {
    if (k !== 'indices' && k !== 'values') throw invalidArgument(memberField(field, k), 'unknown member: a sparse vector has only indices and values');
  }
  const indices = arrayAt(v['indices'], `${field}.indices`);
  const values = arrayAt(v['values'], `${field}.values`);
  if (values.length !== indices.length) {
    throw invalidArgument(`${field}.values`, `the lengths differ: ${indices.length} indices but ${values.length} values`);
  }
  const idx = new Uint32Array(indices.length);
  const val = new Float32Array(values.length);
  for (let i = 0; i < indices.length; i++) {
    idx[i] = indexAt(indices[i], `${field}.indices[${i}]`);
    val[i] = valueAt(values[i], `${field}.values[${i}]`);
  }
  return ascending(idx) ? { indices: idx, values: val } : sorted(idx, val, field);
}

function arrayAt(a: unknown, field: string): readonly unknown[] {
  if (!Array.isArray(a)) throw invalidArgument(field, 'must be an array');
  if (a.length > MAX_SPARSE_NONZEROS) throw invalidArgument(field, `${a.length} entries, more than the ${MAX_SPARSE_NONZEROS} a sparse vector may have`);
  return a;
}

function indexAt(x: unknown, field: string): number {
  if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > MAX_INDEX) {
    throw invalidArgument(field, `an index must be an integer from 0 to ${MAX_INDEX}, not ${typeof x === 'number' ? x : typeof x}`);
  }
  return x;
}

function valueAt(x: unknown, field: string): number {
  if (typeof x !== 'number' || !Number.isFinite(x)) {
    throw invalidArgument(field, `a value must be a finite number, not ${typeof x === 'number' ? x : typeof x}`);
  }
  return x;
}

/** Strictly ascending already: the common case (clients send sorted indices), nothing to sort. */
function ascending(idx: Uint32Array): boolean {
  for (let i = 1; i < idx.length; i++) if (idx[i]! <= idx[i - 1]!) return false;
  return true;
}

/**
 * Sorts by index through one numeric sort of packed (index, position) keys: no comparator, and equal
 * indices end up adjacent in input order, so the first repeat in input order is the one named.
 */
function sorted(idx: Uint32Array, val: Float32Array, field: string): SparseVector {
  const keys = new Float64Array(idx.length);
  for (let i = 0; i < idx.length; i++) keys[i] = idx[i]! * POSITIONS + i;
  keys.sort();
  let repeat = -1;
  for (let j = 1; j < keys.length; j++) {
    const at = keys[j]! % POSITIONS;
    if (Math.floor(keys[j]! / POSITIONS) === Math.floor(keys[j - 1]! / POSITIONS) && (repeat < 0 || at < repeat)) repeat = at;
  }
  if (repeat >= 0) throw invalidArgument(`${field}.indices[${repeat}]`, `index ${idx[repeat]} is repeated: indices must be unique`);
  const indices = new Uint32Array(idx.length);
  const values = new Float32Array(idx.length);
  for (let j = 0; j < keys.length; j++) {
    const at = keys[j]! % POSITIONS;
    indices[j] = idx[at]!;
    values[j] = val[at]!;
  }
  return { indices, values };
}

/** Dot product of two sorted sparse vectors: a merge of their index lists, summed in float64. */
export function sparseDot(a: SparseVector, b: SparseVector): number {
  const ai = a.indices;
  const bi = b.indices;
  let i = 0;
  let j = 0;
  let sum = 0;
  while (i < ai.length && j < bi.length) {
    const x = ai[i]!;
    const y = bi[j]!;
    if (x === y) sum += a.values[i++]! * b.values[j++]!;
    else if (x < y) i++;
    else j++;
  }
  return sum;
}
