// A base built with payloads (strata build --payloads) serves them: read-only, filters select by
// them and the indexes it was built with are in payload_schema; writable, payload writes and
// compactions start from them and a restart keeps them.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClustered, writeFvecs } from '../../datasets/index.js';
import { Engine } from '../../engine/engine.js';
import { buildIndex } from '../../index/build/build-index.js';
import { parseFilter } from '../../index/filter/parse.js';
import { makeTempDir } from '../helpers/temp.js';

const DIM = 8;
const N = 400;
const tmp = makeTempDir('strata-base-payloads-');
const set = generateClustered({ count: N, dim: DIM, clusters: 4, seed: 3 }, 1);
const payloadOf = (i: number) => ({ group: i % 4 === 0 ? 'a' : 'b', i });
let built = '';

beforeAll(async () => {
  const input = tmp.path('base.fvecs');
  await writeFvecs(input, set.base, DIM);
  built = tmp.path('index');
  await buildIndex({
    input,
    out: built,
    metric: 'l2',
    m: 8,
    efConstruction: 40,
    dramBudget: '30%',
    placement: 'hops',
    basePayloads: {
      entries: Array.from({ length: N }, (_, i): [number, Record<string, unknown>] => [i, payloadOf(i)]),
      indexes: [{ field: 'group', params: { type: 'keyword' } }],
    },
  });
}, 60_000);
afterAll(() => tmp.cleanup());

const groupA = parseFilter({ must: [{ key: 'group', match: { value: 'a' } }] });
const small = parseFilter({ must: [{ key: 'i', range: { lt: 10 } }] });

describe('a base built with payloads', () => {
  it('read-only: filters select by the built payloads, and the built index is in payload_schema', async () => {
    const engine = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 1, memory: { mode: 'emulate' } });
    try {
      const c = engine.collection('b');
      expect(c.payloadSchema()).toEqual({ group: { data_type: 'keyword', points: N } });
      expect(c.countMatching(groupA)).toBe(N / 4);
      const r = await c.search({ vector: set.base.slice(0, DIM), k: 20, filter: groupA });
      expect(r.hits.length).toBe(20);
      for (const h of r.hits) expect(h.id % 4).toBe(0);
      expect(c.payload(7)).toEqual(payloadOf(7));
    } finally {
      await engine.close();
    }
  });

  it('writable: payload writes start from the built payloads, and a compaction, a snapshot and a restart keep them', async () => {
    const dataDir = tmp.path('data');
    const first = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 1, memory: { mode: 'emulate' }, dataDir });
    try {
      const c = first.collection('b');
      await c.setPayload([1, 2, 3], { group: 'a' }, false);
      expect(c.countMatching(groupA)).toBe(N / 4 + 3);
      await first.compact('b');
      expect(c.countMatching(groupA)).toBe(N / 4 + 3);
      // A snapshot restored under another name carries the payloads and the index.
      const snap = await first.createSnapshot('b');
      const copy = await first.recoverSnapshot('copy', readFileSync(first.snapshotFile('b', snap.name)), 'test');
      expect(copy.payloadSchema()).toEqual(c.payloadSchema());
      expect(copy.countMatching(groupA)).toBe(N / 4 + 3);
      expect(copy.payload(2)).toEqual({ group: 'a', i: 2 });
    } finally {
      await first.close();
    }
    const again = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir });
    try {
      const c = again.collection('b');
      expect(c.countMatching(groupA)).toBe(N / 4 + 3);
      expect(c.countMatching(small)).toBe(10);
      expect(c.payload(2)).toEqual({ group: 'a', i: 2 });
      expect(Object.keys(c.payloadSchema())).toEqual(['group']);
    } finally {
      await again.close();
    }
  });
});
