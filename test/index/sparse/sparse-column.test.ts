// A sparse column against a brute-force model (a plain Map of the same vectors, scored point by
// point): the same top k, ids and scores, after random writes, replacements and deletes, for both
// modifiers, with and without a predicate; Qdrant's IDF weight by hand; persistence and compaction
// changing no answer; memory that stays bounded under rewrites.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { type SparseHit, SparseColumn } from '../../../index/sparse/sparse-column.js';
import { type SparseVector, sparseVectorAt } from '../../../index/sparse/sparse-vector.js';
import { expectStrataError } from '../../helpers/temp.js';

type Modifier = 'none' | 'idf';

function sv(pairs: Record<number, number>): SparseVector {
  const keys = Object.keys(pairs).map(Number);
  return sparseVectorAt({ indices: keys, values: keys.map((k) => pairs[k]) }, 'v');
}

/** The model: every point's vector in a Map, each search a scan of all of them. */
class Model {
  readonly points = new Map<number, SparseVector>();
  constructor(readonly modifier: Modifier) {}

  /** Each query dimension's weight, its document frequency counted over all points. */
  private weights(q: SparseVector): number[] {
    return [...q.indices].map((dim) => {
      if (this.modifier === 'none') return 1;
      let n = 0;
      for (const v of this.points.values()) if (v.indices.includes(dim)) n++;
      return Math.log(1 + (this.points.size - n + 0.5) / (n + 0.5));
    });
  }

  /** Σ q·w·v over shared dimensions in ascending order, or null without one. */
  score(v: SparseVector, q: SparseVector, w = this.weights(q)): number | null {
    let shared = false;
    let sum = 0;
    for (let j = 0; j < q.indices.length; j++) {
      const at = v.indices.indexOf(q.indices[j]!);
      if (at < 0) continue;
      shared = true;
      sum += q.values[j]! * w[j]! * v.values[at]!;
    }
    return shared ? sum : null;
  }

  search(q: SparseVector, k: number, accept?: (id: number) => boolean): SparseHit[] {
    const hits: SparseHit[] = [];
    const w = this.weights(q);
    for (const [id, v] of this.points) {
      const score = this.score(v, q, w);
      if (score !== null && (accept === undefined || accept(id))) hits.push({ id, score });
    }
    hits.sort((a, b) => b.score - a.score || a.id - b.id);
    return hits.slice(0, Math.max(0, k));
  }
}

function expectSameHits(got: SparseHit[], want: SparseHit[]): void {
  expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
  got.forEach((h, i) => {
    const w = want[i]!.score;
    expect(Math.abs(h.score - w)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(w)));
  });
}

/** A random vector over [0, dims): integer values in [-3, 3] (exact ties) or floats. */
function randomVector(rnd: () => number, dims: number, integers: boolean): SparseVector {
  const pairs: Record<number, number> = {};
  const n = Math.floor(rnd() * 6);
  for (let i = 0; i < n; i++) pairs[Math.floor(rnd() * dims)] = integers ? Math.floor(rnd() * 7) - 3 : rnd() * 4 - 2;
  return sv(pairs);
}

/** Random sets, replacements and deletes applied to a column and the model alike. */
function randomWrites(rnd: () => number, column: SparseColumn, model: Model, ops: number, integers: boolean): void {
  for (let i = 0; i < ops; i++) {
    // mostly small ids (so replacements and deletes hit), some near 2^53
    const id = rnd() < 0.9 ? Math.floor(rnd() * 80) : Number.MAX_SAFE_INTEGER - Math.floor(rnd() * 5);
    if (rnd() < 0.25) {
      expect(column.delete(id)).toBe(model.points.delete(id));
    } else {
      const v = randomVector(rnd, 30, integers);
      column.set(id, v);
      model.points.set(id, v);
    }
  }
}

const KS = [1, 2, 3, 5, 8, 13, 40, 1000];

function compareAll(rnd: () => number, column: SparseColumn, model: Model, integers: boolean): void {
  const accept = (id: number) => id % 3 !== 1;
  for (let t = 0; t < 20; t++) {
    // dimensions up to 35: some of the query's are in no vector
    const q = randomVector(rnd, 35, integers);
    for (const k of KS) {
      expectSameHits(column.search(q, k), model.search(q, k));
      expectSameHits(column.search(q, k, accept), model.search(q, k, accept));
    }
    for (const id of [0, 1, 2, 40, Number.MAX_SAFE_INTEGER]) {
      const v = model.points.get(id);
      const want = v === undefined ? null : (model.score(v, q) ?? 0);
      const got = column.score(id, q);
      if (want === null) expect(got).toBeNull();
      else expect(Math.abs(got! - want)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want)));
    }
  }
}

describe('SparseColumn search against the brute-force model', () => {
  for (const modifier of ['none', 'idf'] as const) {
    for (const integers of [true, false]) {
      it(`answers as the model after random writes (${modifier}, ${integers ? 'integer values: exact ties by id' : 'float values'})`, () => {
        const rnd = mulberry32(modifier === 'none' ? 1 : 2);
        const column = new SparseColumn(modifier);
        const model = new Model(modifier);
        for (let round = 0; round < 6; round++) {
          randomWrites(rnd, column, model, 150, integers);
          expect(column.size).toBe(model.points.size);
          compareAll(rnd, column, model, integers);
        }
      });
    }
  }

  it('skips the long postings of terms that cannot change the answer, and still answers as the model', () => {
    for (const modifier of ['none', 'idf'] as const) {
      const rnd = mulberry32(5);
      const column = new SparseColumn(modifier);
      const model = new Model(modifier);
      // Every point holds the common dimensions 0 and 1 with small values; a few hold rare ones with large.
      for (let id = 0; id < 3000; id++) {
        const pairs: Record<number, number> = { 0: rnd() * 0.2, 1: rnd() * 0.2 - 0.1 };
        if (id % 97 === 0) pairs[10 + (id % 5)] = 5 + rnd();
        const v = sv(pairs);
        column.set(id, v);
        model.points.set(id, v);
      }
      const q = sv({ 0: 1, 1: 1, 10: 1, 11: 1 });
      for (const k of [1, 3, 10, 60]) {
        const before = column.reads;
        expectSameHits(column.search(q, k), model.search(q, k));
        const read = column.reads - before;
        // Up to the rare points' count the common postings are looked up for the points seen only.
        if (k <= 10) expect(read, `k ${k}`).toBeLessThan(3000);
        else expect(read, `k ${k}`).toBeGreaterThanOrEqual(6000);
        const odd = (id: number) => id % 2 === 1;
        expectSameHits(column.search(q, k, odd), model.search(q, k, odd));
      }
    }
  });

  it('returns tied scores by smaller id first, whatever the write order', () => {
    const column = new SparseColumn('none');
    for (const id of [9, 3, 7, 1, 5]) column.set(id, sv({ 4: 2 }));
    column.set(2, sv({ 4: 3 }));
    expect(column.search(sv({ 4: 1 }), 4)).toEqual([
      { id: 2, score: 3 },
      { id: 1, score: 2 },
      { id: 3, score: 2 },
      { id: 5, score: 2 },
    ]);
  });

  it('calls accept once per live point sharing a dimension, and never for others', () => {
    const rnd = mulberry32(3);
    const column = new SparseColumn('idf');
    const model = new Model('idf');
    randomWrites(rnd, column, model, 400, true);
    const q = sv({ 1: 1, 2: -1, 7: 2 });
    const calls = new Map<number, number>();
    column.search(q, 3, (id) => {
      calls.set(id, (calls.get(id) ?? 0) + 1);
      return true;
    });
    const sharing = [...model.points].filter(([, v]) => model.score(v, q) !== null).map(([id]) => id);
    expect([...calls.keys()].sort((a, b) => a - b)).toEqual(sharing.sort((a, b) => a - b));
    for (const n of calls.values()) expect(n).toBe(1);
  });

  it('answers the next search right after a filter threw in the middle of one', () => {
    const { column, model } = filled('none', 400, 15);
    const q = sv(Object.fromEntries(Array.from({ length: 50 }, (_, d) => [d, 1])));
    let calls = 0;
    expect(() =>
      column.search(q, 10, () => {
        if (++calls === 50) throw new Error('filter failed');
        return true;
      }),
    ).toThrow('filter failed');
    // Every point's score, so that none the failed search touched may hide.
    expectSameHits(column.search(q, 1000), model.search(q, 1000));
  });

  it('returns points sharing a dimension even at a zero or negative score, and never the others', () => {
    const column = new SparseColumn('none');
    column.set(1, sv({ 5: 1 }));
    column.set(2, sv({ 5: -1 }));
    column.set(3, sv({ 6: 1 }));
    column.set(4, sv({ 5: 0, 9: 2 }));
    column.set(6, sv({}));
    expect(column.search(sv({ 5: 1 }), 10)).toEqual([
      { id: 1, score: 1 },
      { id: 4, score: 0 },
      { id: 2, score: -1 },
    ]);
    expect(column.search(sv({ 5: 0 }), 10).map((h) => h.id)).toEqual([1, 2, 4]);
    expect(column.search(sv({ 7: 1 }), 10)).toEqual([]);
    expect(column.search(sv({}), 10)).toEqual([]);
  });

  it('returns nothing for k below 1', () => {
    const column = new SparseColumn('none');
    column.set(1, sv({ 1: 1 }));
    for (const k of [0, -1, 0.5, Number.NaN]) expect(column.search(sv({ 1: 1 }), k)).toEqual([]);
    expect(column.search(sv({ 1: 1 }), 1)).toHaveLength(1);
  });

  it('refuses an unsorted query or vector, and an id that is not a non-negative safe integer', () => {
    const column = new SparseColumn('none');
    const unsorted: SparseVector = { indices: Uint32Array.of(3, 1), values: Float32Array.of(1, 1) };
    expect(expectStrataError(() => column.search(unsorted, 1), 'STRATA_INVALID_ARGUMENT').details['field']).toBe('query.indices[1]');
    expect(expectStrataError(() => column.set(1, unsorted), 'STRATA_INVALID_ARGUMENT').details['field']).toBe('vector.indices[1]');
    for (const id of [-1, 1.5, 2 ** 53, Number.NaN]) {
      expect(expectStrataError(() => column.set(id, sv({ 1: 1 })), 'STRATA_INVALID_ARGUMENT').details['field']).toBe('id');
    }
    expect(column.size).toBe(0);
  });
});

describe('SparseColumn IDF', () => {
  // Three documents: dimension 1 in two of them, 2 in one, 3 in two.
  function threeDocs(): SparseColumn {
    const column = new SparseColumn('idf');
    column.set(1, sv({ 1: 1, 2: 1 }));
    column.set(2, sv({ 1: 1, 3: 1 }));
    column.set(3, sv({ 3: 2 }));
    return column;
  }
  const query = sv({ 1: 1, 2: 2, 3: 0.5 });

  it('weighs each dimension by ln(1 + (N - n + 0.5) / (n + 0.5))', () => {
    // N = 3: n = 2 gives ln(1 + 1.5 / 2.5) = ln 1.6; n = 1 gives ln(1 + 2.5 / 1.5) = ln(8/3)
    const hits = threeDocs().search(query, 3);
    expect(hits.map((h) => h.id)).toEqual([1, 2, 3]);
    expect(hits[0]!.score).toBeCloseTo(Math.log(1.6) + 2 * Math.log(8 / 3), 12);
    expect(hits[1]!.score).toBeCloseTo(1.5 * Math.log(1.6), 12);
    expect(hits[2]!.score).toBeCloseTo(Math.log(1.6), 12);
    expect(threeDocs().score(1, query)).toBeCloseTo(Math.log(1.6) + 2 * Math.log(8 / 3), 12);
  });

  it('counts only live points after a delete and a replacement', () => {
    const column = threeDocs();
    column.delete(1);
    // N = 2: dimension 1 in one (ln 2), 3 in two (ln(1 + 0.5 / 2.5) = ln 1.2)
    let hits = column.search(query, 3);
    expect(hits.map((h) => h.id)).toEqual([2, 3]);
    expect(hits[0]!.score).toBeCloseTo(Math.log(2) + 0.5 * Math.log(1.2), 12);
    expect(hits[1]!.score).toBeCloseTo(Math.log(1.2), 12);
    column.set(3, sv({ 2: 1 }));
    // N = 2, every dimension in one point: ln 2 each
    hits = column.search(query, 3);
    expect(hits.map((h) => h.id)).toEqual([3, 2]);
    expect(hits[0]!.score).toBeCloseTo(2 * Math.log(2), 12);
    expect(hits[1]!.score).toBeCloseTo(1.5 * Math.log(2), 12);
  });

  it('counts a point with an empty vector in N', () => {
    const column = threeDocs();
    column.set(4, sv({}));
    // N = 4, dimension 2 in one point: ln(1 + 3.5 / 1.5)
    expect(column.score(1, sv({ 2: 1 }))).toBeCloseTo(Math.log(1 + 3.5 / 1.5), 12);
  });

  it('weighs nothing without the modifier', () => {
    const column = new SparseColumn('none');
    column.set(1, sv({ 1: 1, 2: 1 }));
    column.set(2, sv({ 1: 1, 3: 1 }));
    column.set(3, sv({ 3: 2 }));
    expect(column.search(query, 3)).toEqual([
      { id: 1, score: 3 },
      { id: 2, score: 1.5 },
      { id: 3, score: 1 },
    ]);
  });
});

describe('SparseColumn points', () => {
  it('tracks size, has, get and delete', () => {
    const column = new SparseColumn('none');
    expect(column.size).toBe(0);
    expect(column.has(7)).toBe(false);
    expect(column.get(7)).toBeNull();
    expect(column.score(7, sv({ 1: 1 }))).toBeNull();
    column.set(7, sv({ 3: 1.5, 1: -2 }));
    column.set(8, sv({}));
    expect(column.size).toBe(2);
    expect(column.has(7) && column.has(8)).toBe(true);
    const got = column.get(7)!;
    expect([...got.indices]).toEqual([1, 3]);
    expect([...got.values]).toEqual([-2, 1.5]);
    expect(column.get(8)!.indices.length).toBe(0);
    column.set(7, sv({ 2: 4 }));
    expect(column.size).toBe(2);
    expect([...column.get(7)!.indices]).toEqual([2]);
    expect(column.delete(7)).toBe(true);
    expect(column.delete(7)).toBe(false);
    expect(column.delete(99)).toBe(false);
    expect(column.has(7)).toBe(false);
    expect(column.get(7)).toBeNull();
    expect(column.size).toBe(1);
    expect(column.search(sv({ 2: 1 }), 5)).toEqual([]);
  });

  it('keeps copies: changing the vector given or the one returned changes nothing stored', () => {
    const column = new SparseColumn('none');
    const v = sv({ 1: 1, 2: 2 });
    column.set(1, v);
    v.values[0] = 100;
    v.indices[1] = 5;
    const got = column.get(1)!;
    got.values[1] = 100;
    expect([...column.get(1)!.indices]).toEqual([1, 2]);
    expect([...column.get(1)!.values]).toEqual([1, 2]);
  });
});

/** A column of `n` random points and the same points in the model. */
function filled(modifier: Modifier, n: number, seed: number): { column: SparseColumn; model: Model; rnd: () => number } {
  const rnd = mulberry32(seed);
  const column = new SparseColumn(modifier);
  const model = new Model(modifier);
  for (let id = 0; id < n; id++) {
    const v = randomVector(rnd, 50, true);
    column.set(id * 3, v);
    model.points.set(id * 3, v);
  }
  return { column, model, rnd };
}

describe('SparseColumn persistence and compaction', () => {
  for (const modifier of ['none', 'idf'] as const) {
    it(`round-trips entries() through fromEntries with the same answers (${modifier})`, () => {
      const { column, model, rnd } = filled(modifier, 300, 7);
      randomWrites(rnd, column, model, 300, false);
      const e = column.entries();
      expect(e.ids).toEqual([...model.points.keys()].sort((a, b) => a - b));
      expect(e.lengths).toEqual(e.ids.map((id) => model.points.get(id)!.indices.length));
      const copy = SparseColumn.fromEntries(modifier, e);
      expect(copy.modifier).toBe(modifier);
      expect(copy.size).toBe(column.size);
      expect(copy.entries()).toEqual(e);
      for (let t = 0; t < 30; t++) {
        const q = randomVector(rnd, 55, false);
        for (const k of [1, 10, 500]) expect(copy.search(q, k)).toEqual(column.search(q, k));
      }
    });
  }

  it('refuses entries whose parts disagree', () => {
    const e = { ids: [1, 2], lengths: [1, 1], indices: Uint32Array.of(1, 2), values: Float32Array.of(1, 1) };
    expect(SparseColumn.fromEntries('none', e).size).toBe(2);
    const field = (x: typeof e) => expectStrataError(() => SparseColumn.fromEntries('none', x), 'STRATA_INVALID_ARGUMENT').details['field'];
    expect(field({ ...e, lengths: [2] })).toBe('entries.lengths');
    expect(field({ ...e, lengths: [1, 2] })).toBe('entries.indices');
    expect(field({ ...e, lengths: [-1, 3] })).toBe('entries.lengths[0]');
    expect(field({ ...e, ids: [2, 1] })).toBe('entries.ids[1]');
    expect(field({ ...e, values: Float32Array.of(1) })).toBe('entries.values');
  });

  it('answers the same after rewriting every point with its own vector (which compacts)', () => {
    for (const modifier of ['none', 'idf'] as const) {
      const { column, model, rnd } = filled(modifier, 500, 9);
      const queries = Array.from({ length: 20 }, () => randomVector(rnd, 50, true));
      const before = queries.map((q) => column.search(q, 25));
      for (const [id, v] of model.points) column.set(id, v);
      const after = queries.map((q) => column.search(q, 25));
      expect(after).toEqual(before);
      queries.forEach((q) => {
        expectSameHits(column.search(q, 25), model.search(q, 25));
      });
    }
  });

  it('answers as the model while deletes compact the column, and gives the memory back', () => {
    const { column, model, rnd } = filled('idf', 4000, 13);
    const full = column.bytes();
    const ids = [...model.points.keys()];
    for (let i = 0; i < ids.length * 0.9; i++) {
      column.delete(ids[i]!);
      model.points.delete(ids[i]!);
      if (i % 900 === 0) compareAll(rnd, column, model, true);
    }
    compareAll(rnd, column, model, true);
    expect(column.bytes()).toBeLessThan(full / 2);
  });

  it('holds bounded memory when one id is rewritten 10,000 times', () => {
    const rnd = mulberry32(17);
    const column = new SparseColumn('idf');
    for (let id = 0; id < 50; id++) column.set(id, randomVector(rnd, 100, false));
    column.set(1000, randomVector(rnd, 100, false));
    const early = column.bytes();
    let last = sv({});
    for (let i = 0; i < 10_000; i++) {
      last = sv({ [i % 200]: 1, [200 + (i % 7)]: i });
      column.set(1000, last);
      if (i % 1000 === 0) column.search(sv({ 1: 1 }), 3);
    }
    expect(column.size).toBe(51);
    expect(column.get(1000)).toEqual(last);
    expect(column.bytes()).toBeLessThanOrEqual(2 * early);
  });
});

describe('SparseColumn search in turns of the event loop', () => {
  it('answers as the model while giving the loop a turn every few postings read, with a search in one turn beside it', async () => {
    const { column, model, rnd } = filled('idf', 400, 11);
    const accept = (id: number) => id % 2 === 0;
    for (let t = 0; t < 20; t++) {
      const q = randomVector(rnd, 50, true);
      const inTurns = column.searchInTurns(q, 8, accept, { turnReads: 4 });
      // Another search between its turns, as a second request's would be: neither may disturb the
      // other's scratch.
      expectSameHits(column.search(q, 5), model.search(q, 5));
      expectSameHits((await inTurns)!, model.search(q, 8, accept));
    }
  });

  it('gives other work turns while it reads, rather than one long step', async () => {
    const { column } = filled('none', 400, 12);
    const q = sv(Object.fromEntries(Array.from({ length: 50 }, (_, d) => [d, 1])));
    let between = 0;
    const count = (): void => {
      between++;
    };
    const search = column.searchInTurns(q, 10, undefined, { turnReads: 16 });
    for (let i = 0; i < 5; i++) setImmediate(count);
    const got = await search;
    expect(between).toBeGreaterThan(0);
    expectSameHits(got!, column.search(q, 10));
  });

  it('gives up, leaving later searches right, when a write lands between its turns', async () => {
    const { column, model } = filled('none', 400, 13);
    const q = sv(Object.fromEntries(Array.from({ length: 50 }, (_, d) => [d, 1])));
    const search = column.searchInTurns(q, 10, undefined, { turnReads: 16 });
    const v = sv({ 1: 50, 2: 50 });
    column.set(3, v);
    model.points.set(3, v);
    expect(await search).toBeNull();
    expectSameHits(column.search(q, 10), model.search(q, 10));
    expectSameHits((await column.searchInTurns(q, 10, undefined, { turnReads: 16 }))!, model.search(q, 10));
  });

  it('ends between turns when its signal is aborted', async () => {
    const { column, model } = filled('none', 400, 14);
    const q = sv(Object.fromEntries(Array.from({ length: 50 }, (_, d) => [d, 1])));
    const stop = new AbortController();
    const search = column.searchInTurns(q, 10, undefined, { turnReads: 16, signal: stop.signal });
    stop.abort();
    await expect(search).rejects.toThrow();
    expectSameHits(column.search(q, 10), model.search(q, 10));
  });
});
