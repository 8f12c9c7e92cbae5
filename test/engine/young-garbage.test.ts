// A search's garbage must die young. Objects that outlive two scavenges are promoted to V8's old
// space and cost a copy each, longer scavenge pauses and more full GCs: in `strata serve` per-request
// objects kept alive that way (answers built as object literals with a getter, requests held in a
// churned Set) cost ~50 µs of GC threads' CPU a request. This runs the engine in a child under
// --trace-gc-nvp, 16 searches in flight as a server has, and reads V8's own count of promoted bytes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClustered, writeFvecs } from '../../datasets/index.js';
import { buildIndex } from '../../index/build/build-index.js';

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

const engineUrl = pathToFileURL(resolve(import.meta.dirname, '../../dist/engine/engine.js')).href;

/** Bytes allocated and promoted by the main isolate's scavenges while `searches` searches ran. */
function promotion(threads: number, searches: number): { scavenges: number; allocated: number; promoted: number } {
  const child = `
    import { Engine } from ${JSON.stringify(engineUrl)};
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
  // A file, not --eval: search threads inherit the child's flags, and --input-type stops them.
  const script = join(dir, 'child.mjs');
  writeFileSync(script, child);
  const r = spawnSync(process.execPath, ['--trace-gc-nvp', script, indexDir, String(threads), String(searches), String(dim)], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  expect(r.status, r.stderr).toBe(0);
  const lines = r.stdout.split('\n');
  const body = lines.slice(lines.indexOf('---- start'), lines.indexOf('---- end'));
  const byIsolate = new Map<string, { scavenges: number; allocated: number; promoted: number }>();
  for (const line of body) {
    if (!line.includes(' gc=s ')) continue;
    const isolate = line.slice(0, line.indexOf(']'));
    const s = byIsolate.get(isolate) ?? { scavenges: 0, allocated: 0, promoted: 0 };
    s.scavenges++;
    s.allocated += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
    s.promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    byIsolate.set(isolate, s);
  }
  // The main isolate allocates the most (answers, requests); a search thread's isolate little.
  return [...byIsolate.values()].sort((a, b) => b.allocated - a.allocated)[0] ?? { scavenges: 0, allocated: 0, promoted: 0 };
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
