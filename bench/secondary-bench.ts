// A secondary dense vector (a named vector past the first) in process, over embedding-like vectors
// (angular, anisotropic, uneven norms; datasets/generate/embedding.ts), in its two forms side by side
// in one run: the points written since a compaction, in a fresh graph in DRAM
// (index/fresh/dense-column.ts), and the tiered base a compaction builds of them (index/named/:
// codes in DRAM, full vectors and cold lists in the CXL tier, the emulated CXL time paid):
// - build time and bytes a point in each tier;
// - recall@10 against brute force and time per query at each ef;
// - filtered searches at several shares of matching points, the filter a band of one direction of
//   the data (so it is correlated with where queries land): each form's planner, and the fresh
//   graph's plans forced (`scan`: the matches scored one by one; `graph`: the walk skipping the
//   rest), taking turns query by query, which names what each plan and form gains where.
import { Command } from 'commander';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIndex } from '../index/build/build-index.js';
import { NamedBase } from '../index/named/named-base.js';
import { NamedColumn } from '../index/named/named-column.js';
import { openIndex } from '../index/open-index.js';
import { mulberry32 } from '../common/random.js';
import { generateEmbedding } from '../datasets/generate/embedding.js';
import { DenseColumn, type DensePlan } from '../index/fresh/dense-column.js';
import type { FilteredPlan, FilterMatches } from '../index/fresh/fresh-filtered.js';
import { distanceRef, normalizeRows } from '../index/kernels/reference.js';

const o = new Command()
  .option('--points <n>', 'vectors', Number, 100_000)
  .option('--dim <n>', 'dimensions', Number, 100)
  .option('--queries <n>', 'queries a row', Number, 200)
  .option('--efs <list>', 'ef of each unfiltered row (comma-separated)', '16,32,64,128')
  .option('--shares <list>', 'matching shares of the filtered rows (comma-separated)', '0.01,0.03,0.1,0.3,0.5')
  .option('--filtered-efs <list>', 'ef of the filtered rows, a set of rows each (comma-separated)', '64')
  .option('--dram-budget <share>', "the tiered base's DRAM budget, as a compaction of a new collection gives it", '25%')
  .option('--json <file>', 'also write the results as JSON')
  .parse(process.argv)
  .opts<{ points: number; dim: number; queries: number; efs: string; shares: string; filteredEfs: string; dramBudget: string; json?: string }>();

const K = 10;
/** The filtered plans, each forced beside the planner's choice. */
const PLANS: readonly FilteredPlan[] = ['scan', 'graph'];
/** Queries each contender runs untimed before a row. */
const WARM_UP = 20;
const set = generateEmbedding({ count: o.points, dim: o.dim, seed: 21 }, o.queries);
const { dim } = set;
const rows = (buf: Float32Array, n: number): Float32Array[] => Array.from({ length: n }, (_, i) => buf.subarray(i * dim, (i + 1) * dim));
const base = rows(set.base, o.points);
const queries = rows(set.queries, o.queries);

function rss(): number {
  globalThis.gc?.();
  return process.memoryUsage().rss;
}
const rss0 = rss();
const t0 = performance.now();
const col = new DenseColumn(dim, 'cosine');
base.forEach((v, id) => col.set(id, v));
const buildMs = performance.now() - t0;
const measuredBytes = rss() - rss0;
console.log(
  `${o.points} × ${dim} cosine vectors: fresh graph built in ${(buildMs / 1000).toFixed(1)} s (${((buildMs * 1000) / o.points).toFixed(0)} µs a point); DRAM a point: ${(col.bytes / o.points).toFixed(0)} B as the column estimates it, ${(measuredBytes / o.points).toFixed(0)} B of process memory measured (one float32 copy of the vector: ${4 * dim} B)`,
);

// The tiered base a compaction builds of the same points (the column's vectors as it keeps them).
const out = mkdtempSync(join(tmpdir(), 'strata-secondary-bench-'));
const entries = col.entries();
const t1 = performance.now();
await buildIndex({
  input: 'secondary-bench',
  out: join(out, 'base'),
  name: 'secondary',
  dataset: {
    file: 'secondary-bench',
    format: 'fvecs',
    dim,
    count: entries.ids.length,
    vectors: entries.vectors,
    ids: Float64Array.from(entries.ids),
    metric: null,
  },
  metric: 'cosine',
  m: 16,
  efConstruction: 100,
  dramBudget: o.dramBudget,
  codes: 'auto',
  threads: 1,
});
const tieredBuildMs = performance.now() - t1;
const tiered = new NamedColumn(dim, 'cosine', { m: 16, efConstruction: 100, seed: 100 }, new NamedBase(openIndex(join(out, 'base')), { inject: true }));
rmSync(out, { recursive: true, force: true });
const tieredBytes = tiered.tierBytes();
console.log(
  `tiered base (DRAM budget ${o.dramBudget}, code ${tiered.tiered!.opened.manifest.plan.code?.kind ?? 'none'}): built in ${(tieredBuildMs / 1000).toFixed(1)} s, one thread; a point: ${(tieredBytes.dram / o.points).toFixed(0)} B DRAM, ${(tieredBytes.cxl / o.points).toFixed(0)} B CXL`,
);

// Brute force over unit vectors: the recall oracle.
const unit = base.map((v) => {
  const u = Float32Array.from(v);
  normalizeRows(u, dim);
  return u;
});
function exact(q: Float32Array, accept?: (id: number) => boolean): number[] {
  const u = Float32Array.from(q);
  normalizeRows(u, dim);
  const scored: Array<{ id: number; d: number }> = [];
  for (let id = 0; id < unit.length; id++) if (accept === undefined || accept(id)) scored.push({ id, d: distanceRef('cosine', u, 0, unit[id]!, 0, dim) });
  return scored
    .sort((a, b) => a.d - b.d || a.id - b.id)
    .slice(0, K)
    .map((h) => h.id);
}

interface Row {
  label: string;
  recall: number;
  p50Us: number;
  p99Us: number;
  plans: Partial<Record<DensePlan, number>>;
}

const order = mulberry32(5);
/** 0 … n-1 in a random order (Fisher–Yates). */
function shuffled(n: number): number[] {
  const out = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(order() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

type Search = (q: Float32Array) => Promise<{ hits: Array<{ id: number }>; plan: DensePlan }>;

/**
 * Each contender over every query, the contenders taking turns query by query (so that a noisy
 * spell of the machine falls on all of them alike), in a random order: recall, CPU per query at p50
 * and p99, plans run.
 */
async function run(labels: readonly string[], searches: readonly Search[], truth: number[][]): Promise<Row[]> {
  const times = searches.map((): number[] => []);
  const found = searches.map(() => 0);
  const plans = searches.map((): Partial<Record<DensePlan, number>> => ({}));
  let wanted = 0;
  // Untimed: each contender compiled and warm, and the garbage of the ground truth collected, first.
  for (const search of searches) for (const q of queries.slice(0, WARM_UP)) await search(q);
  globalThis.gc?.();
  for (const [i, q] of queries.entries()) {
    const want = new Set(truth[i]);
    wanted += want.size;
    // A fresh order each query: whoever runs after another reads what it left in cache, and a
    // rotation would keep who follows whom.
    for (const c of shuffled(searches.length)) {
      const search = searches[c]!;
      const t = process.hrtime.bigint();
      const r = await search(q);
      times[c]!.push(Number(process.hrtime.bigint() - t) / 1000);
      plans[c]![r.plan] = (plans[c]![r.plan] ?? 0) + 1;
      found[c]! += r.hits.filter((h) => want.has(h.id)).length;
    }
  }
  return labels.map((label, c) => {
    const sorted = times[c]!.sort((a, b) => a - b);
    const row = {
      label,
      recall: wanted === 0 ? 1 : found[c]! / wanted,
      p50Us: sorted[Math.floor(sorted.length / 2)]!,
      p99Us: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!,
      plans: plans[c]!,
    };
    console.log(
      `${label.padEnd(40)} recall@${K} ${row.recall.toFixed(3)}   p50 ${row.p50Us.toFixed(0).padStart(6)} µs   p99 ${row.p99Us.toFixed(0).padStart(6)} µs   plans ${JSON.stringify(row.plans)}`,
    );
    return row;
  });
}

const results: Row[] = [];
const truth = queries.map((q) => exact(q));
const efs = o.efs.split(',').map(Number);
for (const ef of efs)
  results.push(
    ...(await run(
      [`unfiltered, ef ${ef}, fresh graph`, `unfiltered, ef ${ef}, tiered base`],
      [(q: Float32Array) => col.search(q, K, { ef }), (q: Float32Array) => tiered.search(q, K, { ef })],
      truth,
    )),
  );

// A band of one direction of the data: points whose projection on it falls in a quantile range.
const direction = unit[0]!;
const projection = unit.map((u) => distanceRef('ip', u, 0, direction, 0, dim));
const sorted = [...projection].sort((a, b) => a - b);
for (const share of o.shares.split(',').map(Number)) {
  const lo = sorted[Math.floor(sorted.length * (0.5 - share / 2))]!;
  const hi = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * (0.5 + share / 2)))]!;
  const accept = (id: number): boolean => projection[id]! >= lo && projection[id]! < hi;
  const matching = base.map((_, id) => id).filter(accept);
  // As a payload index answers it: a test by id, the count, and the ids (listed again each search, as the engine does).
  const filter: FilterMatches = { accept, count: matching.length, ids: () => Float64Array.from(matching) };
  const keyed: FilterMatches = { ...filter, key: `band ${share}` };
  const t = queries.map((q) => exact(q, accept));
  const pct = `${(share * 100).toFixed(0)}%`;
  for (const ef of o.filteredEfs.split(',').map(Number)) {
    const at = `filter ${pct}, ef ${ef}`;
    results.push(
      ...(await run(
        [`${at}, tiered base`, `${at}, tiered base, keyed`, `${at}, fresh graph, planner`, ...PLANS.map((plan) => `${at}, fresh graph, ${plan} forced`)],
        [
          (q) => tiered.search(q, K, { ef, filter }),
          // Keyed as the engine keys a filter's matches (FilterMatches.key): the base's bitset is made once.
          (q) => tiered.search(q, K, { ef, filter: keyed }),
          (q) => col.search(q, K, { ef, filter }),
          ...PLANS.map((plan) => (q: Float32Array) => col.search(q, K, { ef, filter, plan })),
        ],
        t,
      )),
    );
  }
}

if (o.json !== undefined) {
  writeFileSync(
    o.json,
    `${JSON.stringify(
      {
        points: o.points,
        dim,
        buildMs,
        bytesPerPoint: col.bytes / o.points,
        measuredBytesPerPoint: measuredBytes / o.points,
        tiered: { dramBudget: o.dramBudget, buildMs: tieredBuildMs, dramPerPoint: tieredBytes.dram / o.points, cxlPerPoint: tieredBytes.cxl / o.points },
        k: K,
        rows: results,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`wrote ${o.json}`);
}
