// Value runs end to end: a base built with a keyword index reserves them, the first filter on a
// value places its run, and scans that read runs answer as scans that do not, before and after
// payload writes move points between values (a run is a copy, and the scan checks each node).
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClustered, writeFvecs } from '../../datasets/index.js';
import { collectionMemory } from '../../engine/collection-memory.js';
import type { Collection } from '../../engine/collection.js';
import { Engine } from '../../engine/engine.js';
import { buildIndex } from '../../index/build/build-index.js';
import { parseFilter } from '../../index/filter/parse.js';
import { makeTempDir } from '../helpers/temp.js';

const N = 10_000;
const DIM = 16;
const tmp = makeTempDir('strata-value-runs-');
const set = generateClustered({ count: N, dim: DIM, clusters: 8, seed: 5 }, 12);
/** Values a (20%) and b (15%) have runs; the seven c values are too small for one. */
const tagOf = (i: number): string => (i % 20 < 4 ? 'a' : i % 20 < 7 ? 'b' : `c${i % 7}`);
let built = '';

beforeAll(async () => {
  const input = tmp.path('base.fvecs');
  await writeFvecs(input, set.base, DIM);
  const payloads = tmp.path('payloads.jsonl');
  writeFileSync(payloads, `${Array.from({ length: N }, (_, i) => JSON.stringify({ tag: tagOf(i), n: i % 100 })).join('\n')}\n`);
  built = tmp.path('index');
  await buildIndex({ input, out: built, metric: 'l2', m: 8, efConstruction: 40, dramBudget: '60%', codes: 'sq8', payloads, indexFields: ['tag:keyword'] });
}, 60_000);
afterAll(() => tmp.cleanup());

const FILTERS = [
  { must: [{ key: 'tag', match: { value: 'a' } }] },
  {
    should: [
      { key: 'tag', match: { value: 'a' } },
      { key: 'tag', match: { value: 'c3' } },
    ],
  },
  {
    must: [
      { key: 'tag', match: { any: ['a', 'b'] } },
      { key: 'n', range: { lt: 30 } },
    ],
  },
].map((f) => parseFilter(f));

/** Every query's scan answer under each filter (ids, then distances), and the matches scored from runs. */
async function scans(c: Collection): Promise<{ answers: string[]; fromRuns: number }> {
  const answers: string[] = [];
  let fromRuns = 0;
  for (const filter of FILTERS)
    for (let q = 0; q < 12; q++) {
      const r = await c.search({ vector: set.queries.subarray(q * DIM, (q + 1) * DIM), k: 10, ef: 64, filter, filterPlan: 'scan' });
      answers.push(JSON.stringify(r.hits.map((h) => [h.id, h.distance])));
      fromRuns += r.stats.fromRuns;
    }
  return { answers, fromRuns };
}

describe('value runs in a collection', () => {
  it('are planned for the keyword values, placed by the first filters on them, and leave every scan answer as it was', async () => {
    const withRuns = await Engine.open([{ dir: built, name: 'r' }], { searchThreads: 1, memory: { mode: 'emulate' } });
    const without = await Engine.open([{ dir: built, name: 'r' }], { searchThreads: 1, memory: { mode: 'emulate' }, valueRuns: false });
    try {
      const c = withRuns.collection('r');
      const plain = without.collection('r');
      expect(c.index!.plan.runBytes).toBeGreaterThan(0);
      expect(collectionMemory(c).parts.find((p) => p.part === 'value runs')?.dram).toBe(c.index!.plan.runBytes);
      const [runs, none] = [await scans(c), await scans(plain)];
      expect(runs.answers).toEqual(none.answers);
      expect(runs.fromRuns).toBeGreaterThan(0);
      expect(none.fromRuns).toBe(0);
      // a and b got runs; no c value has enough points.
      expect(c.index!.valueRuns!.count).toBe(2);
      expect(plain.index!.valueRuns!.count).toBe(0);
    } finally {
      await withRuns.close();
      await without.close();
    }
  }, 60_000);

  it('answer from the payloads as written since, not as copied, and come back after a compaction', async () => {
    const engine = await Engine.open([{ dir: built, name: 'r' }], { searchThreads: 1, memory: { mode: 'emulate' }, dataDir: tmp.path('data') });
    try {
      const c = engine.collection('r');
      await scans(c);
      // Move a third of a to c3 and some c values to a: a's run now holds points that left it, and
      // misses points that joined.
      const moved = Array.from({ length: N }, (_, i) => i).filter((i) => tagOf(i) === 'a' && i % 3 === 0);
      const joined = Array.from({ length: N }, (_, i) => i).filter((i) => tagOf(i).startsWith('c') && i % 2 === 0);
      await c.setPayload(moved, { tag: 'c3' }, false);
      await c.setPayload(joined, { tag: 'a' }, false);
      const tag = (id: number): string => (moved.includes(id) ? 'c3' : joined.includes(id) ? 'a' : tagOf(id));
      const check = async (): Promise<number> => {
        let fromRuns = 0;
        for (const filter of FILTERS.slice(0, 2))
          for (let q = 0; q < 12; q++) {
            const vector = set.queries.subarray(q * DIM, (q + 1) * DIM);
            const got = await c.search({ vector, k: 10, ef: 64, filter, filterPlan: 'scan', rerank: 400 });
            const exact = await c.search({ vector, k: 10, exact: true, filter });
            expect(got.hits.map((h) => h.id)).toEqual(exact.hits.map((h) => h.id));
            for (const h of got.hits) expect(['a', 'c3']).toContain(tag(h.id));
            fromRuns += got.stats.fromRuns;
          }
        return fromRuns;
      };
      expect(await check()).toBeGreaterThan(0);
      // The compaction's base reserves runs from the collection's keyword values, and places them anew.
      await engine.compact('r');
      expect(c.index!.plan.runBytes).toBeGreaterThan(0);
      expect(c.index!.valueRuns!.count).toBe(0);
      expect(await check()).toBeGreaterThan(0);
      expect(c.index!.valueRuns!.count).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
