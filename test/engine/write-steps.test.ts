// A write of many points is logged and applied in steps, so that no request holds the event loop for
// all of them at once: upserts in steps of WRITE_STEP_POINTS, payload writes and deletes (by ids or
// by filter) in steps of PAYLOAD_STEP_POINTS. Each step is one log record; together they apply
// every point.
import { afterAll, describe, expect, it } from 'vitest';
import { WRITE_STEP_POINTS } from '../../engine/collection.js';
import { PAYLOAD_STEP_POINTS } from '../../storage/live-store.js';
import { Engine } from '../../engine/engine.js';
import { parseFilter } from '../../index/filter/parse.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-write-steps-');
afterAll(() => tmp.cleanup());

describe('writes of many points', () => {
  it('are logged a step at a time, upserts by WRITE_STEP_POINTS and payload writes and deletes by PAYLOAD_STEP_POINTS', async () => {
    const engine = await Engine.open([], { searchThreads: 0, dataDir: tmp.dir, compactAt: 0, memory: { mode: 'emulate' } });
    try {
      const c = await engine.createCollection({ name: 'steps', dim: 2, metric: 'l2', m: 4, efConstruction: 8 });
      const n = 2 * PAYLOAD_STEP_POINTS + 5;
      const keys = Array.from({ length: n }, (_, i) => i);
      const start = await c.upsert([{ key: n, vector: Float32Array.of(0, 0), payload: null }]);
      const upserted = await c.upsert(keys.map((key) => ({ key, vector: Float32Array.of(key % 97, key % 89), payload: { even: key % 2 === 0 } })));
      expect(upserted - start).toBe(BigInt(Math.ceil(n / WRITE_STEP_POINTS)));

      const marked = parseFilter({ must: [{ key: 'mark', match: { value: 1 } }] });
      const set = await c.setPayload({ ids: keys }, { mark: 1 }, false);
      expect(set - upserted).toBe(3n);
      expect(c.payloads.matchingIds(marked)).toHaveLength(n);
      expect(c.payloads.get(n - 1)).toEqual({ even: (n - 1) % 2 === 0, mark: 1 });

      const even = parseFilter({ must: [{ key: 'even', match: { value: true } }] });
      const evens = Math.ceil(n / 2);
      const dropped = await c.deletePayloadKeys({ filter: even }, ['mark']);
      expect(dropped - set).toBe(BigInt(Math.ceil(evens / PAYLOAD_STEP_POINTS)));
      expect(c.payloads.matchingIds(marked)).toHaveLength(n - evens);

      const cleared = await c.clearPayload({ filter: marked });
      expect(cleared - dropped).toBe(BigInt(Math.ceil((n - evens) / PAYLOAD_STEP_POINTS)));
      expect(c.payloads.matchingIds(marked)).toHaveLength(0);

      const deleted = await c.deletePoints({ filter: even });
      expect(deleted - cleared).toBe(BigInt(Math.ceil(evens / PAYLOAD_STEP_POINTS)));
      expect(c.count()).toBe(n + 1 - evens);
    } finally {
      await engine.close();
    }
  }, 120_000);
});
