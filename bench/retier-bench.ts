// Live re-tiering when the query load moves to the other half of a clustered set: the DRAM share of
// neighbour-list reads with the build's placement, one profiled for the old load, the promotion
// pool's rounds (lists moved in place) and a re-tiering compaction, side by side through the engine.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { gaussian, mulberry32 } from '../common/random.js';
import { generateClustered, writeFvecs } from '../datasets/index.js';
import type { Collection } from '../engine/collection.js';
import { Engine, listDramShare, POOL_ROUND_SEARCHES, RETIER_WINDOW } from '../engine/engine.js';
import { buildIndex } from '../index/build/build-index.js';
import { DEFAULT_POOL_SHARE } from '../index/placement/planner.js';

const o = new Command()
  .option('--count <n>', 'points', Number, 50_000)
  .option('--dim <n>', 'dimensions', Number, 64)
  .option('--budget <b>', 'DRAM budget of the build', '10%')
  .option('--pool <share>', 'share of the list budget in the promotion pool (strata build --retier-pool)', Number, DEFAULT_POOL_SHARE)
  .option('--json <file>', 'also write the figures as JSON')
  .parse(process.argv)
  .opts<{ count: number; dim: number; budget: string; pool: number; json?: string }>();

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

/** Pool rounds made by the windows (their main-thread time, ms each) and lists they moved. */
const roundMs: number[] = [];
let moved = 0;

/**
 * Runs one window of searches (8 in flight); its neighbour-list DRAM share and QPS. With `rounds`
 * the engine's pool round runs every POOL_ROUND_SEARCHES searches, as its timer would at ~200
 * searches per period (made by hand so that the run does not depend on timing).
 */
async function window(engine: Engine, c: Collection, queries: Float32Array, rounds = false): Promise<{ share: number; qps: number }> {
  const before = c.totals.slice();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < RETIER_WINDOW) {
        const k = next++;
        await c.search({ vector: queries.subarray(k * dim, (k + 1) * dim), k: 10, ef: 64 });
        if (rounds && k % POOL_ROUND_SEARCHES === POOL_ROUND_SEARCHES - 1) {
          const r0 = performance.now();
          for (const r of engine.poolRound()) moved += r.promoted;
          roundMs.push(performance.now() - r0);
        }
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
  await buildIndex({ input, out: join(tmp, 'index'), metric: 'l2', dramBudget: o.budget, poolShare: o.pool });
  const engine = await Engine.open([{ dir: join(tmp, 'index'), name: 'c' }], {
    searchThreads: 1,
    memory: { mode: 'emulate' },
    inject: true,
    dataDir: join(tmp, 'data'),
    compactAt: 0,
    poolRoundMs: 0,
  });
  try {
    const c = engine.collection('c');
    const A = load(halves[0]);
    const B = load(halves[1]);
    const rows: Array<{ phase: string; share: number; qps: number }> = [];
    // Warm-up (JIT, caches): one window of each load, not reported.
    await window(engine, c, A);
    await window(engine, c, B);
    // The build profiles with a sample of the data, which covers both halves alike.
    rows.push({ phase: 'load A, placement from the build (a data sample)', ...(await window(engine, c, A)) });
    rows.push({ phase: 'load B, placement from the build (a data sample)', ...(await window(engine, c, B)) });
    // The load is A for a while, and the collection is laid out for it (a compaction profiled with
    // the recorded queries, as re-tiering does): the static placement of a service tuned to its load.
    await window(engine, c, A);
    await engine.compact('c');
    // The timer's checks, made by hand at each window's end so the run does not depend on timing.
    engine.retierCheck();
    await window(engine, c, A); // warm-up; its end opens the first window after the layout
    engine.retierCheck();
    rows.push({ phase: 'load A, placement profiled with load A', ...(await window(engine, c, A)) });
    engine.retierCheck(); // baseline: load A's share
    rows.push({ phase: 'load B, placement profiled with load A (static)', ...(await window(engine, c, B)) });
    // In place: the pool's rounds run while load B is served; no compaction.
    engine.poolRound(); // the first round only starts counting
    const inPlace: Array<{ share: number; qps: number }> = [];
    for (let w = 0; w < 3; w++) inPlace.push(await window(engine, c, B, true));
    for (const [w, r] of inPlace.entries()) rows.push({ phase: `load B, lists moved in place: window ${w + 1} with pool rounds`, ...r });
    rows.push({ phase: 'load B, after the rounds (rounds off)', ...(await window(engine, c, B)) });
    const roundsMade = roundMs.length;
    const movedInPlace = moved;
    // Re-tiering by compaction, as the engine starts it when the share stays below its baseline.
    const t0 = performance.now();
    await engine.compact('c');
    const seconds = (performance.now() - t0) / 1000;
    await window(engine, c, B);
    rows.push({ phase: 'load B, after re-tiering by compaction (profiled with load B)', ...(await window(engine, c, B)) });
    rows.push({ phase: 'load A again, placement profiled with load B (static)', ...(await window(engine, c, A)) });
    engine.poolRound();
    for (let w = 0; w < 2; w++) await window(engine, c, A, true);
    rows.push({ phase: 'load A again, after two windows of pool rounds', ...(await window(engine, c, A)) });
    const meanRound = roundMs.slice(0, roundsMade).reduce((a, b) => a + b, 0) / Math.max(1, roundsMade);
    const pool = c.info().placement.promotionPool;
    const lines = [
      `## Live re-tiering: ${count} × ${dim} clustered (l2), DRAM budget ${o.budget}, ${RETIER_WINDOW} searches per window, ef 64, injection +190 ns`,
      '',
      '| load and placement | neighbour-list reads from DRAM | QPS |',
      '|---|---|---|',
      ...rows.map((r) => `| ${r.phase} | ${r.share.toFixed(3)} | ${Math.round(r.qps)} |`),
      '',
      `Pool: ${pool?.slots ?? 0} slots (${o.pool} of the list budget${o.pool === DEFAULT_POOL_SHARE ? ', the default' : ''}). In place: ${roundsMade} rounds over the three windows moved ${movedInPlace} lists, ${meanRound.toFixed(2)} ms of main-thread time a round (mean).`,
      `Re-tiering by compaction (profiled with the last 1,000 recorded queries) took ${seconds.toFixed(1)} s.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (o.json)
      writeFileSync(
        o.json,
        `${JSON.stringify({ node: process.version, date: new Date().toISOString(), count, dim, budget: o.budget, poolShare: o.pool, rows, seconds, roundsMade, movedInPlace, meanRoundMs: meanRound, pool }, null, 2)}\n`,
      );
  } finally {
    await engine.close();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
