// A range index whose pairs many writes left to sort afresh (a bulk load) has them sorted over turns
// of the event loop before the read that uses them: an order_by page (Collection.settle with its
// key), and a filtered count (the filter's range indexes), not in that read's one step.
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { parseFilter } from '../../index/filter/parse.js';
import { seededVector } from '../helpers/seeded-vectors.js';
import { makeTempDir } from '../helpers/temp.js';
import { turnsWhile } from '../helpers/turns.js';

const DIM = 4;
const POINTS = 6000;
const tmp = makeTempDir('strata-range-order-');
afterAll(() => tmp.cleanup());

const price = (id: number): number => (id * 7919) % 1000;

describe('a range index left to sort afresh', () => {
  it('is sorted over turns before an order_by page and before a filtered count', async () => {
    const engine = await Engine.open([], { searchThreads: 0, dataDir: tmp.dir, compactAt: 0, memory: { mode: 'emulate' } });
    try {
      const c = await engine.createCollection({ name: 'o', dim: DIM, metric: 'l2', m: 4, efConstruction: 8 });
      await c.createPayloadIndex('price', { type: 'float' });
      await c.createPayloadIndex('rank', { type: 'integer' });
      const write = async (): Promise<void> => {
        const ids = Array.from({ length: POINTS }, (_, id) => id);
        await c.upsert(ids.map((id) => ({ key: id, vector: seededVector(id, DIM), payload: { price: price(id), rank: id % 50 } })));
      };
      await write();
      const orderBy = { key: 'price', descending: false, start: undefined };
      const ordered = await turnsWhile(() => c.settle(undefined, orderBy));
      expect(ordered.turns).toBeGreaterThan(2);
      const page = c.orderBy(orderBy, 20, undefined, 'order_by');
      const want = Array.from({ length: POINTS }, (_, id) => id).sort((a, b) => price(a) - price(b) || a - b);
      expect(page.map((o) => o.id)).toEqual(want.slice(0, 20));
      // Written whole again: the filter's range index (rank) is to sort afresh.
      await write();
      const filter = parseFilter({
        must: [
          { key: 'rank', range: { lt: 5 } },
          { key: 'price', range: { gte: 0 } },
        ],
      });
      const counted = await turnsWhile(() => c.settle(filter));
      expect(counted.turns).toBeGreaterThan(2);
      expect(c.countMatching(filter)).toBe(Array.from({ length: POINTS }, (_, id) => id).filter((id) => id % 50 < 5).length);
    } finally {
      await engine.close();
    }
  });
});
