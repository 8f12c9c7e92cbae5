// The fresh layer's part of a search (engine/filtered-search.ts, Collection.search): a filter of
// many fresh points is answered by the fresh graph's walk, a filter of few and an exact search by
// a scan in turns of the event loop, never by one synchronous pass over every match; the filter's
// stats say which ran; a write landing during its scan asks it again.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { FreshLayer } from '../../index/fresh/fresh-layer.js';
import { parseFilter } from '../../index/filter/parse.js';
import { PointPayloads } from '../../storage/point-payloads.js';
import { seededVector, squaredL2 } from '../helpers/seeded-vectors.js';
import { makeTempDir } from '../helpers/temp.js';

const DIM = 16;
const POINTS = 3000;
const K = 10;

afterEach(() => vi.restoreAllMocks());

/** The k nearest ids to q of those `keep` takes, by brute force. */
function nearest(vectors: Float32Array[], q: Float32Array, keep: (id: number) => boolean): number[] {
  return vectors
    .map((v, id) => ({ id, d: squaredL2(v, q) }))
    .filter((h) => keep(h.id))
    .sort((a, b) => a.d - b.d || a.id - b.id)
    .slice(0, K)
    .map((h) => h.id);
}

describe('the fresh layer in a filtered or exact search', () => {
  it('walks the fresh graph for a filter of many points (testing points by its resolved matches), scans over turns for few or exact, and says which', async () => {
    const tmp = makeTempDir('strata-fresh-filtered-');
    const engine = await Engine.open([], { searchThreads: 0, dataDir: tmp.dir, compactAt: 0, memory: { mode: 'emulate' } });
    try {
      const c = await engine.createCollection({ name: 'fresh', dim: DIM, metric: 'l2', m: 8, efConstruction: 60 });
      const vectors = Array.from({ length: POINTS }, (_, i) => seededVector(1000 + i, DIM));
      for (let at = 0; at < POINTS; at += 500)
        await c.upsert(
          vectors.slice(at, at + 500).map((vector, j) => ({ key: at + j, vector, payload: { half: (at + j) % 2 === 0, rare: (at + j) % 50 === 0 } })),
        );
      const walk = vi.spyOn(FreshLayer.prototype, 'search');
      const scan = vi.spyOn(FreshLayer.prototype, 'exactInTurns');
      const wholePass = vi.spyOn(FreshLayer.prototype, 'exact');
      const rowTests = vi.spyOn(PointPayloads.prototype, 'matcher');
      const resolutions = vi.spyOn(PointPayloads.prototype, 'match');
      let found = 0;
      for (let qi = 0; qi < 20; qi++) {
        const q = seededVector(90_000 + qi, DIM);
        walk.mockClear();
        scan.mockClear();
        // Half the points match: the graph walk, taking only matches.
        const broad = await c.search({ vector: q, k: K, ef: 64, filter: parseFilter({ must: [{ key: 'half', match: { value: true } }] }) });
        expect(broad.hits).toHaveLength(K);
        expect(broad.hits.every((h) => h.id % 2 === 0)).toBe(true);
        expect(walk).toHaveBeenCalledTimes(1);
        expect(typeof walk.mock.calls[0]![3]).toBe('function');
        expect(scan).not.toHaveBeenCalled();
        expect(broad.filter?.freshPlan).toBe('graph');
        const truth = new Set(nearest(vectors, q, (id) => id % 2 === 0));
        found += broad.hits.filter((h) => truth.has(h.id)).length;
        // One point in fifty: its matches scored, over turns, exactly.
        walk.mockClear();
        const narrow = await c.search({ vector: q, k: K, ef: 64, filter: parseFilter({ must: [{ key: 'rare', match: { value: true } }] }) });
        expect(narrow.hits.map((h) => h.id)).toEqual(nearest(vectors, q, (id) => id % 50 === 0));
        expect(walk).not.toHaveBeenCalled();
        expect(scan).toHaveBeenCalledTimes(1);
        expect(narrow.filter?.freshPlan).toBe('scan');
        // Exact, unfiltered: every point over turns.
        scan.mockClear();
        const exact = await c.search({ vector: q, k: K, exact: true });
        expect(exact.hits.map((h) => h.id)).toEqual(nearest(vectors, q, () => true));
        expect(scan).toHaveBeenCalledTimes(1);
        expect(scan.mock.calls[0]![2]).toBeNull();
      }
      expect(found / (20 * K)).toBeGreaterThan(0.9);
      expect(wholePass).not.toHaveBeenCalled();
      // The payload indexes are asked once per filter (its resolution is cached), and the walk tests
      // the points it meets against that resolution without asking them again.
      expect(resolutions).toHaveBeenCalledTimes(2);
      expect(rowTests).not.toHaveBeenCalled();
    } finally {
      await engine.close();
      tmp.cleanup();
    }
  }, 60_000);

  it('asks the fresh part again when a write lands during its scan, and answers whole across a compaction there', async () => {
    const tmp = makeTempDir('strata-fresh-turns-');
    const engine = await Engine.open([], { searchThreads: 0, dataDir: tmp.dir, compactAt: 0, memory: { mode: 'emulate' } });
    try {
      const c = await engine.createCollection({ name: 'turns', dim: DIM, metric: 'l2', m: 8, efConstruction: 60 });
      const n = 600;
      const vectors = Array.from({ length: n }, (_, i) => seededVector(5000 + i, DIM));
      const rare = (id: number): boolean => id % 50 === 0;
      await c.upsert(vectors.map((vector, id) => ({ key: id, vector, payload: { rare: rare(id) } })));
      const narrow = parseFilter({ must: [{ key: 'rare', match: { value: true } }] });
      const scan = FreshLayer.prototype.exactInTurns;
      /**
       * The next fresh scan reads the layer as it was, then `meanwhile` lands before it answers (a
       * write between its turns); with `readAfter`, `meanwhile` lands before it reads.
       */
      const landDuringScan = (meanwhile: () => Promise<unknown>, readAfter = false) =>
        vi.spyOn(FreshLayer.prototype, 'exactInTurns').mockImplementationOnce(async function (this: FreshLayer, ...args) {
          if (readAfter) {
            await meanwhile();
            return scan.apply(this, args);
          }
          const hits = await scan.apply(this, args);
          await meanwhile();
          return hits;
        });

      // An exact search: the point moved onto the query during the scan is its nearest.
      const q = seededVector(70_000, DIM);
      const spy = landDuringScan(() => c.upsert([{ key: 7, vector: q, payload: { rare: false } }]));
      vectors[7] = q;
      const exact = await c.search({ vector: q, k: K, exact: true });
      expect(spy).toHaveBeenCalledTimes(2);
      expect(exact.hits.map((h) => h.id)).toEqual(nearest(vectors, q, () => true));
      expect(exact.hits[0]).toMatchObject({ id: 7, distance: 0 });
      spy.mockRestore();

      // A filtered search of few fresh matches (the scan): a match moved onto the query meanwhile.
      const q2 = seededVector(70_001, DIM);
      const spy2 = landDuringScan(() => c.upsert([{ key: 50, vector: q2, payload: { rare: true } }]));
      vectors[50] = q2;
      const filtered = await c.search({ vector: q2, k: K, ef: 64, filter: narrow });
      expect(spy2).toHaveBeenCalledTimes(2);
      expect(filtered.filter?.freshPlan).toBe('scan');
      expect(filtered.hits.map((h) => h.id)).toEqual(nearest(vectors, q2, rare));
      spy2.mockRestore();

      // A compaction before the scan reads moves every fresh point into a base the search did not
      // ask: the answer still holds them all.
      const q3 = seededVector(70_002, DIM);
      const spy3 = landDuringScan(() => engine.compact('turns'), true);
      const compacted = await c.search({ vector: q3, k: K, ef: 64, filter: narrow });
      expect(spy3).toHaveBeenCalledTimes(1);
      expect(c.base).not.toBeNull();
      expect(compacted.hits.map((h) => h.id)).toEqual(nearest(vectors, q3, rare));
    } finally {
      await engine.close();
      tmp.cleanup();
    }
  }, 60_000);
});
