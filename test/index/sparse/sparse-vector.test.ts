// Qdrant's sparse vector JSON checked once: every bad input names its exact member, the output is
// sorted by index with the values moved alongside, and the dot product agrees with a dense one.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { MAX_SPARSE_NONZEROS, type SparseVector, sparseDot, sparseVectorAt } from '../../../index/sparse/sparse-vector.js';
import { expectStrataError } from '../../helpers/temp.js';

/** The field the error thrown by checking `v` at `vec` names. */
function refusedAt(v: unknown): string {
  return String(expectStrataError(() => sparseVectorAt(v, 'vec'), 'STRATA_INVALID_ARGUMENT').details['field']);
}

describe('sparseVectorAt', () => {
  it('returns indices and values as typed arrays, unchanged when already sorted', () => {
    const v = sparseVectorAt({ indices: [1, 5, 9], values: [0.5, -2, 3] }, 'vec');
    expect(v.indices).toBeInstanceOf(Uint32Array);
    expect(v.values).toBeInstanceOf(Float32Array);
    expect([...v.indices]).toEqual([1, 5, 9]);
    expect([...v.values]).toEqual([0.5, -2, 3]);
  });

  it('sorts by index and moves each value with its index', () => {
    const v = sparseVectorAt({ indices: [30, 2, 4294967295, 0, 17], values: [3, 0.25, -1, 7, 1.5] }, 'vec');
    expect([...v.indices]).toEqual([0, 2, 17, 30, 4294967295]);
    expect([...v.values]).toEqual([7, 0.25, 1.5, 3, -1]);
  });

  it('sorts a large shuffled vector the same as a comparator sort of the pairs', () => {
    const rnd = mulberry32(5);
    const pairs = new Map<number, number>();
    while (pairs.size < 5000) pairs.set(Math.floor(rnd() * 2 ** 32), Math.round(rnd() * 1000) - 500);
    const given = [...pairs];
    const v = sparseVectorAt({ indices: given.map((p) => p[0]), values: given.map((p) => p[1]) }, 'vec');
    const want = given.sort((a, b) => a[0] - b[0]);
    expect([...v.indices]).toEqual(want.map((p) => p[0]));
    expect([...v.values]).toEqual(want.map((p) => p[1]));
  });

  it('takes an empty vector', () => {
    const v = sparseVectorAt({ indices: [], values: [] }, 'vec');
    expect(v.indices.length).toBe(0);
    expect(v.values.length).toBe(0);
  });

  it('takes exactly MAX_SPARSE_NONZEROS entries and refuses one more, naming the array', () => {
    const n = MAX_SPARSE_NONZEROS;
    const full = { indices: Array.from({ length: n }, (_, i) => n - i), values: new Array<number>(n).fill(1) };
    expect(sparseVectorAt(full, 'vec').indices.length).toBe(n);
    expect(refusedAt({ indices: [...full.indices, 0], values: [...full.values, 1] })).toBe('vec.indices');
    expect(refusedAt({ indices: full.indices, values: [...full.values, 1] })).toBe('vec.values');
  });

  it('refuses anything but a plain object', () => {
    for (const v of [null, undefined, 3, 'x', [1, 2], [[1], [2]], new Map(), new Date(0)]) expect(refusedAt(v)).toBe('vec');
  });

  it('refuses a member other than indices and values, naming it', () => {
    expect(refusedAt({ indices: [1], values: [1], weights: [1] })).toBe('vec.weights');
    expect(refusedAt(JSON.parse('{"indices": [1], "values": [1], "__proto__": 1}'))).toBe('vec.__proto__');
    expect(refusedAt(Object.assign(Object.create({ extra: 1 }), { indices: [1], values: [1] }))).toBe('vec');
  });

  it('refuses a missing or non-array indices or values', () => {
    expect(refusedAt({ values: [1] })).toBe('vec.indices');
    expect(refusedAt({ indices: [1] })).toBe('vec.values');
    expect(refusedAt({ indices: { 0: 1 }, values: [1] })).toBe('vec.indices');
    expect(refusedAt({ indices: [1], values: new Float32Array([1]) })).toBe('vec.values');
  });

  it('refuses arrays of different lengths at values, saying so', () => {
    const e = expectStrataError(() => sparseVectorAt({ indices: [1, 2, 3], values: [1, 2] }, 'vec'), 'STRATA_INVALID_ARGUMENT');
    expect(e.details['field']).toBe('vec.values');
    expect(e.message).toMatch(/lengths differ/);
    expect(refusedAt({ indices: [], values: [1] })).toBe('vec.values');
  });

  it('refuses an index that is not an integer in [0, 2^32 - 1], naming its position', () => {
    for (const bad of [-1, 1.5, 2 ** 32, Number.NaN, Number.POSITIVE_INFINITY, '3', null, true]) {
      expect(refusedAt({ indices: [0, 7, 9, bad], values: [1, 1, 1, 1] })).toBe('vec.indices[3]');
    }
  });

  it('refuses a value that is not a finite number, naming its position', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '1', null, [1]]) {
      expect(refusedAt({ indices: [0, 1, 2], values: [1, bad, 1] })).toBe('vec.values[1]');
    }
  });

  it('refuses a repeated index, naming the repeat and the index', () => {
    const e = expectStrataError(() => sparseVectorAt({ indices: [9, 4, 7, 4, 9], values: [1, 2, 3, 4, 5] }, 'v'), 'STRATA_INVALID_ARGUMENT');
    expect(e.details['field']).toBe('v.indices[3]');
    expect(e.message).toContain('index 4');
    expect(refusedAt({ indices: [3, 3], values: [1, 2] })).toBe('vec.indices[1]');
  });
});

/** A random sparse vector over dimensions [0, dims), as sparseVectorAt returns it. */
function randomSparse(rnd: () => number, dims: number, density: number): SparseVector {
  const indices: number[] = [];
  const values: number[] = [];
  for (let d = 0; d < dims; d++) {
    if (rnd() >= density) continue;
    indices.push(d);
    values.push(rnd() * 2 - 1);
  }
  return sparseVectorAt({ indices, values }, 'v');
}

function dense(v: SparseVector, dims: number): Float64Array {
  const out = new Float64Array(dims);
  v.indices.forEach((d, i) => {
    out[d] = v.values[i]!;
  });
  return out;
}

describe('sparseDot', () => {
  it('equals the dense dot product on random vectors', () => {
    const rnd = mulberry32(11);
    const dims = 300;
    for (let t = 0; t < 200; t++) {
      const a = randomSparse(rnd, dims, rnd() * 0.3);
      const b = randomSparse(rnd, dims, rnd() * 0.3);
      const da = dense(a, dims);
      const db = dense(b, dims);
      let want = 0;
      for (let d = 0; d < dims; d++) want += da[d]! * db[d]!;
      expect(sparseDot(a, b)).toBeCloseTo(want, 12);
      expect(sparseDot(b, a)).toBeCloseTo(want, 12);
    }
  });

  it('is zero without a shared dimension, and for an empty vector', () => {
    const a = sparseVectorAt({ indices: [1, 3], values: [2, 2] }, 'a');
    const b = sparseVectorAt({ indices: [0, 2, 4], values: [5, 5, 5] }, 'b');
    expect(sparseDot(a, b)).toBe(0);
    expect(sparseDot(a, sparseVectorAt({ indices: [], values: [] }, 'e'))).toBe(0);
    expect(sparseDot(a, sparseVectorAt({ indices: [3, 1], values: [4, -1] }, 'c'))).toBe(6);
  });
});
