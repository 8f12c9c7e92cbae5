// A secondary dense vector's column: its graph search against brute force (recall), a filter's two
// plans (few matches scored one by one, exactly; many found by the walk, all matching), never fewer
// than k while k match, deletes, cosine's normalisation, and a round trip through its entries.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { DenseColumn } from '../../../index/fresh/dense-column.js';
import type { FilterMatches } from '../../../index/fresh/fresh-filtered.js';

const DIM = 8;
const N = 2000;
const rnd = mulberry32(5);
const vectors = Array.from({ length: N }, () => Float32Array.from({ length: DIM }, () => rnd() * 2 - 1));

function filled(): DenseColumn {
  const c = new DenseColumn(DIM, 'l2', { m: 12, efConstruction: 64, seed: 1 });
  vectors.forEach((v, i) => c.set(i * 3, v));
  return c;
}
const column = filled();

/** The exact k nearest ids to q among those accept takes. */
function bruteForce(q: Float32Array, k: number, accept: (id: number) => boolean = () => true): number[] {
  return vectors
    .map((v, i) => ({ id: i * 3, d: v.reduce((s, x, j) => s + (x - q[j]!) ** 2, 0) }))
    .filter((h) => accept(h.id))
    .sort((a, b) => a.d - b.d || a.id - b.id)
    .slice(0, k)
    .map((h) => h.id);
}

/** A filter's matches among the column's ids, as a payload index answers them. */
function matchesOf(accept: (id: number) => boolean): FilterMatches {
  const ids = vectors.map((_, i) => i * 3).filter(accept);
  return { accept, count: ids.length, ids: () => ids.slice() };
}

const query = (): Float32Array => Float32Array.from({ length: DIM }, () => rnd() * 2 - 1);

describe('a dense column', () => {
  it('finds the nearest points by its graph at high recall', async () => {
    let hit = 0;
    for (let t = 0; t < 20; t++) {
      const q = query();
      const want = new Set(bruteForce(q, 10));
      const { hits, plan } = await column.search(q, 10, { ef: 64 });
      expect(plan).toBe('graph');
      hit += hits.filter((h) => want.has(h.id)).length;
    }
    expect(hit / 200).toBeGreaterThanOrEqual(0.95);
  });

  it('scores few matches one by one (exactly), and walks the graph for many, answering only matches', async () => {
    const q = query();
    const rare = (id: number) => id % 97 === 0;
    const scan = await column.search(q, 5, { ef: 64, filter: matchesOf(rare) });
    expect(scan.plan).toBe('scan');
    expect(scan.hits.map((h) => h.id)).toEqual(bruteForce(q, 5, rare));
    const even = (id: number) => id % 2 === 0;
    const walk = await column.search(q, 10, { ef: 64, filter: matchesOf(even) });
    expect(walk.plan).toBe('graph');
    expect(walk.hits).toHaveLength(10);
    expect(walk.hits.every((h) => even(h.id))).toBe(true);
  });

  it('never answers fewer than k while k points match', async () => {
    // A sparse graph (m 2) leaves points its walk cannot reach; a third of the points match, and k
    // asks for all of them: however the walk fares, every one comes back.
    const thin = new DenseColumn(DIM, 'l2', { m: 2, efConstruction: 4, seed: 3 });
    vectors.forEach((v, i) => thin.set(i * 3, v));
    const third = (id: number) => id % 9 === 0;
    const matches = bruteForce(query(), N, third);
    const { hits } = await thin.search(query(), matches.length, { ef: 16, filter: matchesOf(third) });
    expect(hits.map((h) => h.id).sort((a, b) => a - b)).toEqual([...matches].sort((a, b) => a - b));
  });

  it('forgets a deleted point, and answers exactly when asked', async () => {
    const c = filled();
    const q = vectors[7]!;
    expect((await c.search(q, 1, { ef: 32, exact: true })).hits[0]!.id).toBe(21);
    c.delete(21);
    expect(c.get(21)).toBeNull();
    expect(c.size).toBe(N - 1);
    expect((await c.search(q, 5, { ef: 32 })).hits.some((h) => h.id === 21)).toBe(false);
    expect((await c.search(q, 5, { ef: 32, filter: matchesOf(() => true), exact: true })).hits.map((h) => h.id)).toEqual(
      bruteForce(q, 6)
        .filter((id) => id !== 21)
        .slice(0, 5),
    );
  });

  it('scans in turns of the event loop, answering as one pass would, and stops when aborted', async () => {
    // Vectors long enough that a scan of every point takes several turns.
    const long = new DenseColumn(4096, 'l2');
    const rows = Array.from({ length: 1500 }, () => Float32Array.from({ length: 4096 }, () => rnd()));
    rows.forEach((v, id) => long.set(id, v));
    const q = rows[3]!.map((x) => x + 0.01);
    const oracle = rows
      .map((v, id) => ({ id, d: v.reduce((s, x, j) => s + (x - q[j]!) ** 2, 0) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 5)
      .map((h) => h.id);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const r = await long.search(q, 5, { ef: 16, exact: true });
    clearInterval(ticking);
    expect(r.hits.map((h) => h.id)).toEqual(oracle);
    // Other work ran while it scanned.
    expect(turns).toBeGreaterThan(0);
    const stop = new AbortController();
    const aborted = long.search(q, 5, { ef: 16, exact: true, signal: stop.signal });
    stop.abort(new Error('stopped'));
    await expect(aborted).rejects.toThrow('stopped');
  });

  it('keeps cosine vectors unit-normalised and scores 1 - dot', async () => {
    const c = new DenseColumn(2, 'cosine');
    c.set(1, Float32Array.of(3, 4));
    expect(Array.from(c.get(1)!)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    const [hit] = (await c.search(Float32Array.of(0, 10), 1, { ef: 8, exact: true })).hits;
    expect(hit!.id).toBe(1);
    expect(hit!.distance).toBeCloseTo(0.2, 6);
  });

  it('comes back from its entries answering as before, filled a slice per event-loop turn', async () => {
    const copy = new DenseColumn(DIM, 'l2');
    const filling = copy.fill(column.entries());
    // One turn later, part of the points are in and the rest wait for later turns.
    await new Promise((resolve) => setImmediate(resolve));
    expect(copy.size).toBeGreaterThan(0);
    expect(copy.size).toBeLessThan(N);
    await filling;
    const q = query();
    expect((await copy.search(q, 10, { ef: 64, exact: true })).hits).toEqual((await column.search(q, 10, { ef: 64, exact: true })).hits);
    expect(copy.size).toBe(N);
  });
});
