// Live re-tiering (issue 11): the share of neighbour-list reads served from DRAM when the query
// load moves to another part of the data, with the placement made at build time (static) and after
// the engine re-tiers the collection by itself (a compaction profiled with the recorded live
// queries), in process through the engine, one search thread, emulated CXL with injection.
// Data: a clustered set split in two halves by a random hyperplane; load A queries the first half,
// load B the second (data points plus a little noise). Run with nothing else on the machine.
// Run: npm run bench:retier -- [--count 50000] [--budget 10%] [--json docs/bench/retier.json]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { gaussian, mulberry32 } from '../common/random.js';
import { generateClustered, writeFvecs } from '../datasets/index.js';
import type { Collection } from '../engine/collection.js';
import { Engine, listDramShare, RETIER_WINDOW } from '../engine/engine.js';
import { buildIndex } from '../index/build/build-index.js';

const o = new Command()
  .option('--count <n>', 'points', Number, 50_000)
  .option('--dim <n>', 'dimensions', Number, 64)
  .option('--budget <b>', 'DRAM budget of the build', '10%')
  .option('--json <file>', 'also write the figures as JSON')
  .parse(process.argv)
  .opts<{ count: number; dim: number; budget: string; json?: string }>();

const { count, dim } = o;
const set = generateClustered({ count, dim, clusters: 50, seed: 9 }, 1);
const rnd = mulberry32(4);
const g = gaussian(rnd);
const u = Float32Array.from({ length: dim }, () => g());
const side = (i: number): boolean => set.base.subarray(i * dim, (i + 1) * dim).reduce((s, x, j) => s + x * u[j]!, 0) > 0;
const halves: [number[], number[]] = [[], []];
for (let i = 0; i < count; i++) halves[side(i) ? 0 : 1].push(i);

/** A load: RETIER_WINDOW queries near points of one half. */
function load(half: number[]): Float32Array {
  const q = new Float32Array(RETIER_WINDOW * dim);
  for (let k = 0; k < RETIER_WINDOW; k++) {
    const i = half[Math.floor(rnd() * half.length)]!;
    for (let j = 0; j < dim; j++) q[k * dim + j] = set.base[i * dim + j]! + 0.05 * g();
  }
  return q;
}

/** Runs one window of searches (8 in flight); its neighbour-list DRAM share and QPS. */
async function window(c: Collection, queries: Float32Array): Promise<{ share: number; qps: number }> {
  const before = c.totals.slice();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < RETIER_WINDOW) {
        const k = next++;
        await c.search({ vector: queries.subarray(k * dim, (k + 1) * dim), k: 10, ef: 64 });
      }
    }),
  );
  const qps = RETIER_WINDOW / ((performance.now() - t0) / 1000);
  return { share: listDramShare(c.totals.map((v, i) => v - before[i]!)), qps };
}

const tmp = mkdtempSync(join(tmpdir(), 'strata-retier-'));
try {
  const input = join(tmp, 'base.fvecs');
  await writeFvecs(input, set.base, dim);
  await buildIndex({ input, out: join(tmp, 'index'), metric: 'l2', dramBudget: o.budget });
  const engine = await Engine.open([{ dir: join(tmp, 'index'), name: 'c' }], {
    searchThreads: 1,
    memory: { mode: 'emulate' },
    inject: true,
    dataDir: join(tmp, 'data'),
    compactAt: 0,
  });
  try {
    const c = engine.collection('c');
    const A = load(halves[0]);
    const B = load(halves[1]);
    const rows: Array<{ phase: string; share: number; qps: number }> = [];
    // Warm-up (JIT, caches): one window of each load, not reported.
    await window(c, A);
    await window(c, B);
    // The build profiles with a sample of the data, which covers both halves alike.
    rows.push({ phase: 'load A, placement from the build (a data sample)', ...(await window(c, A)) });
    rows.push({ phase: 'load B, placement from the build (a data sample)', ...(await window(c, B)) });
    // The load is A for a while, and the collection is laid out for it (a compaction profiled with
    // the recorded queries, as re-tiering does): the static placement of a service tuned to its load.
    await window(c, A);
    await engine.compact('c');
    // The timer's checks, made by hand at each window's end so the run does not depend on timing.
    engine.retierCheck();
    await window(c, A); // warm-up; its end opens the first window after the layout
    engine.retierCheck();
    rows.push({ phase: 'load A, placement profiled with load A', ...(await window(c, A)) });
    engine.retierCheck(); // baseline: load A's share
    rows.push({ phase: 'load B, placement profiled with load A (static)', ...(await window(c, B)) });
    engine.retierCheck(); // B's share is below the baseline: re-tiering starts
    const started = c.compacting !== null;
    const t0 = performance.now();
    await c.compacting;
    const seconds = (performance.now() - t0) / 1000;
    await window(c, B);
    rows.push({ phase: 'load B, after live re-tiering (profiled with load B)', ...(await window(c, B)) });
    rows.push({ phase: 'load A again, placement profiled with load B', ...(await window(c, A)) });
    const lines = [
      `## Live re-tiering: ${count} × ${dim} clustered (l2), DRAM budget ${o.budget}, ${RETIER_WINDOW} searches per window, ef 64, injection +190 ns`,
      '',
      '| load and placement | neighbour-list reads from DRAM | QPS |',
      '|---|---|---|',
      ...rows.map((r) => `| ${r.phase} | ${r.share.toFixed(3)} | ${Math.round(r.qps)} |`),
      '',
      `Re-tiering ${started ? `started by itself when the share fell ≥ 0.05 below the baseline, and took ${seconds.toFixed(1)} s (a compaction profiled with the last 1,000 recorded queries)` : 'did not start'}.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (o.json)
      writeFileSync(
        o.json,
        `${JSON.stringify({ node: process.version, date: new Date().toISOString(), count, dim, budget: o.budget, rows, started, seconds }, null, 2)}\n`,
      );
  } finally {
    await engine.close();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
