// Live re-tiering in place: the engine's pool rounds move neighbour lists between the tiers while a
// search thread searches, with no compaction.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFvecs } from '../../datasets/index.js';
import { Engine, listDramShare, POOL_ROUND_SEARCHES } from '../../engine/engine.js';
import { buildIndex } from '../../index/build/build-index.js';
import { clusteredHalves } from '../helpers/halves.js';
import { makeTempDir } from '../helpers/temp.js';

const tmp = makeTempDir('strata-pool-rounds-');
afterAll(() => tmp.cleanup());

describe('engine pool rounds (re-tiering in place)', () => {
  it('follows a shifted load with lists moved in place on a search thread, answers unchanged, no compaction', async () => {
    const { base, dim: d, load } = clusteredHalves();
    const input = tmp.path('halves.fvecs');
    await writeFvecs(input, base, d);
    await buildIndex({
      input,
      out: tmp.path('halves'),
      metric: 'l2',
      m: 8,
      efConstruction: 40,
      dramBudget: '20%',
      codes: 'rq3',
      poolShare: 0.5,
      placement: 'profile',
      profileSamples: 300,
    });
    const Q = 1000;
    // Read-only (no data directory): a built collection re-tiers in place all the same.
    const engine = await Engine.open([{ dir: tmp.path('halves'), name: 'h' }], { searchThreads: 1, memory: { mode: 'emulate' }, poolRoundMs: 0 });
    try {
      const c = engine.collection('h');
      const run = async (q: Float32Array, rounds: boolean): Promise<{ share: number; answers: string[] }> => {
        const before = c.totals.slice();
        const answers: string[] = [];
        // Concurrent searches, so that rounds run while traversals are out on the search thread.
        for (let k = 0; k < Q; k += 50) {
          const batch = await Promise.all(Array.from({ length: 50 }, (_, j) => c.search({ vector: q.subarray((k + j) * d, (k + j + 1) * d), k: 10, ef: 32 })));
          for (const r of batch) answers.push(r.hits.map((h) => `${h.id}:${h.distance}`).join(','));
          if (rounds) engine.poolRound();
        }
        return { share: listDramShare(c.totals.map((v, i) => v - before[i]!)), answers };
      };
      const A = load(0, Q);
      const B = load(1, Q);
      const pool = () => c.info().placement.promotionPool!;
      expect(pool().slots).toBeGreaterThan(0);
      engine.poolRound(); // the first round only starts counting searches
      const staticB = await run(B, false);
      expect(pool().moves).toBe(0);
      for (let r = 0; r < 3; r++) await run(B, true);
      const tunedB = await run(B, false);
      expect(Q).toBeGreaterThanOrEqual(4 * POOL_ROUND_SEARCHES);
      expect(pool().moves).toBeGreaterThan(0);
      expect(tunedB.share).toBeGreaterThan(staticB.share + 0.05);
      expect(tunedB.answers).toEqual(staticB.answers);
      // The load moves back to the other half: the pool follows it.
      const staticA = await run(A, false);
      for (let r = 0; r < 3; r++) await run(A, true);
      const tunedA = await run(A, false);
      expect(tunedA.share).toBeGreaterThan(staticA.share + 0.05);
      expect(tunedA.answers).toEqual(staticA.answers);
      expect(c.compactions).toBe(0);
    } finally {
      await engine.close();
    }
  }, 120_000);
});
