// A search's garbage must die young. Objects that outlive two scavenges are promoted to V8's old
// space and cost a copy each, longer scavenge pauses and more full GCs: in `strata serve` per-request
// objects kept alive that way (answers built as object literals with a getter, requests held in a
// churned Set) cost ~50 µs of GC threads' CPU a request. This runs the engine in a child under
// --trace-gc-nvp, 16 searches in flight as a server has, and reads V8's own count of promoted bytes
// (test/helpers/young-garbage.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClustered, writeFvecs } from '../../datasets/index.js';
import { buildIndex } from '../../index/build/build-index.js';
import type { Scavenges } from '../helpers/gc-trace.js';
import { distUrl, scavengesOf } from '../helpers/young-garbage.js';

const dim = 48;
let dir: string;
let indexDir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'strata-young-'));
  const set = generateClustered({ count: 4000, dim, clusters: 16, seed: 5 }, 64);
  await writeFvecs(join(dir, 'base.fvecs'), set.base, dim);
  indexDir = join(dir, 'idx');
  await buildIndex({ input: join(dir, 'base.fvecs'), out: indexDir, m: 12, efConstruction: 80, dramBudget: '10%', placement: 'profile', profileSamples: 200 });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bytes allocated and promoted by the main isolate's scavenges while `searches` searches ran. */
function promotion(threads: number, searches: number): Scavenges {
  const child = `
    import { Engine } from ${JSON.stringify(distUrl('engine/engine.js'))};
    const [dir, threads, searches, dim] = process.argv.slice(2).map((v, i) => (i === 0 ? v : Number(v)));
    const e = await Engine.open([{ dir }], { searchThreads: threads, memory: { mode: 'emulate' } });
    const c = e.collections()[0];
    let seed = 1;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const qs = Array.from({ length: 64 }, () => Float32Array.from({ length: dim }, rnd));
    const run = async (n) => { let next = 0; await Promise.all(Array.from({ length: 16 }, async () => { while (next < n) await c.search({ vector: qs[next++ % 64], k: 10, ef: 48 }); })); };
    await run(2000);
    console.log('---- start');
    await run(searches);
    console.log('---- end');
    await e.close();
  `;
  return scavengesOf(dir, 'child.mjs', child, [indexDir, String(threads), String(searches), String(dim)]);
}

describe('search garbage', () => {
  it.each([0, 1])('dies young with %i search threads: scavenges promote almost none of it', (threads) => {
    const s = promotion(threads, 40_000);
    console.log(`threads ${threads}: ${s.scavenges} scavenges, ${(s.allocated / 1e6).toFixed(1)} MB allocated, ${(s.promoted / 1e6).toFixed(2)} MB promoted`);
    expect(s.scavenges).toBeGreaterThan(3);
    // Here ~0.05% is promoted; an answer kept alive by a getter literal promoted 40%, a churned Set 3–5%.
    expect(s.promoted / s.allocated).toBeLessThan(0.01);
  });
});
