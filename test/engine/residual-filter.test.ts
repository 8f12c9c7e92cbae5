// A filter no payload index answers is checked point by point: over turns of the event loop
// (Collection.settle, PointPayloads.matchSteps), so that a count or a page over many points leaves
// the loop free between steps; the count after it is exact even when writes land during the steps.
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { parseFilter } from '../../index/filter/parse.js';
import { seededVector } from '../helpers/seeded-vectors.js';
import { makeTempDir } from '../helpers/temp.js';
import { turnsWhile } from '../helpers/turns.js';

const DIM = 4;
const POINTS = 30_000;
const tmp = makeTempDir('strata-residual-');
afterAll(() => tmp.cleanup());

describe('a filter no index answers', () => {
  it('is checked over turns, by a count and by a search, and the count after it is exact with writes landing meanwhile', async () => {
    const engine = await Engine.open([], { searchThreads: 0, dataDir: tmp.dir, compactAt: 0, memory: { mode: 'emulate' } });
    try {
      const c = await engine.createCollection({ name: 'r', dim: DIM, metric: 'l2', m: 4, efConstruction: 8 });
      const n = new Map<number, number>();
      for (let at = 0; at < POINTS; at += 5000) {
        const batch = Array.from({ length: 5000 }, (_, j) => at + j);
        for (const id of batch) n.set(id, id % 10);
        await c.upsert(batch.map((id) => ({ key: id, vector: seededVector(id, DIM), payload: { n: id % 10 } })));
      }
      const filter = parseFilter({ must: [{ key: 'n', range: { gte: 7 } }] });
      // A payload write to a hundred points, landing while the check runs.
      const write = c.setPayload(
        Array.from({ length: 100 }, (_, i) => i * 7),
        { n: 9 },
        false,
      );
      const { turns } = await turnsWhile(() => c.settle(filter));
      expect(turns).toBeGreaterThan(1);
      const count = c.countMatching(filter);
      await write;
      for (let i = 0; i < 100; i++) n.set(i * 7, 9);
      // Counted as the payloads stood when the check ended: before the write's record applied, or after.
      const before = [...n.keys()].filter((id) => id % 10 >= 7).length;
      const after = [...n.values()].filter((v) => v >= 7).length;
      expect([before, after]).toContain(count);
      expect(c.countMatching(filter)).toBe(after);
      // A search with it checks it over turns too (its answer then cached until a write).
      await c.setPayload([1], { n: 8 }, false);
      n.set(1, 8);
      const search = await turnsWhile(() => c.search({ vector: seededVector(5, DIM), k: 10, ef: 32, filter }));
      expect(search.turns).toBeGreaterThan(1);
      expect(search.value.hits).toHaveLength(10);
      expect(search.value.hits.every((h) => n.get(h.id)! >= 7)).toBe(true);
    } finally {
      await engine.close();
    }
  });
});
