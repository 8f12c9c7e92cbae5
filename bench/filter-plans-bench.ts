// Filtered search in process, plan by plan, on a filtered set (`strata fetch glove-100 --attributes`
// or the filtered bench's clustered set): for every family, each plan run on the same queries and
// filters side by side — the scan of matching codes fused in WASM (reading value runs first, and
// not) and as JS steps, the graph walk
// fused in WASM and as JS steps, ACORN's two-hop walk, the walk that scans where its entry is scarce
// in matches (graph or scan) — and the plan the planner picks, with recall@10 against exact filtered
// search, CPU time per query, distances and CXL bytes per query; and the unfiltered search at the
// same ef. This names the cause of each gain: which plan, and each WASM call over its JS twin.
import { median } from '../common/median.js';
import { writeFilteredClusteredSet } from '../datasets/filtered/write-filtered-set.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { readDataset } from '../datasets/index.js';
import { choosePlan } from '../engine/filter-plan.js';
import { PLAN_NAMES } from '../engine/types.js';
import { buildIndex } from '../index/build/build-index.js';
import { linkCover } from '../index/filter-links/link-cover.js';
import { compile } from '../index/filter/evaluate.js';
import { parseFilter } from '../index/filter/parse.js';
import { normalizeRows } from '../index/kernels/reference.js';
import { openIndex } from '../index/open-index.js';
import { FILTER_PLAN } from '../index/search/query-state.js';
import { type NodeFilter, Searcher } from '../index/search/searcher.js';
import { STAT } from '../index/search/stats.js';
import { runsFor, writeRuns } from '../engine/filter-runs.js';
import { runValues } from '../index/tiered/value-runs.js';
import { atRecall } from './lib/curves.js';

const o = new Command()
  .option('--dir <dir>', 'a filtered set: base.fvecs, query.fvecs, payloads.jsonl, filters.json')
  .option('--clustered <count>', "instead of --dir: the filtered bench's clustered set (128-d, 100 clusters, l2), generated", Number)
  .option('--metric <metric>', 'l2 | cosine', 'cosine')
  .option('--dram-budget <b>', 'the index DRAM budget (CXL bytes are what the rest costs)', '10%')
  .option('--queries <n>', 'queries per family', Number, 200)
  .option('--ef <n>', 'beam width', Number, 64)
  .option('--reps <n>', 'rounds of every plan (the time is their median)', Number, 3)
  .option('--families <list>', 'only these families (comma-separated names)')
  .option('--plans <list>', 'only these plans (comma-separated column names)')
  .option('--payload-m <n>', 'payload_m: build the base with its payload indexes and filter links, and run the linked plan (0: none)', Number, 0)
  .option('--inject', 'stall for the modelled CXL time (the default cost model), as a CXL host would pay it')
  .option(
    '--at-recall <r>',
    "instead of the plans side by side: each family's planner plan and the unfiltered search over the --efs grid, CXL bytes, distances and CPU read off each curve at this recall",
    Number,
  )
  .option(
    '--efs <list>',
    'the ef grid of --at-recall (ascending, from low enough that its first step misses the recall)',
    '10,12,16,20,24,32,48,64,96,128,192,256',
  )
  .option('--json <file>', 'also write the rows as JSON')
  .parse(process.argv)
  .opts<{
    dir?: string;
    clustered?: number;
    metric: 'l2' | 'cosine';
    dramBudget: string;
    queries: number;
    ef: number;
    reps: number;
    families?: string;
    plans?: string;
    payloadM: number;
    inject?: boolean;
    atRecall?: number;
    efs: string;
    json?: string;
  }>();

const K = 10;
const tmp = mkdtempSync(join(tmpdir(), 'strata-filter-plans-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
if (o.clustered !== undefined) {
  o.dir = join(tmp, 'clustered');
  o.metric = 'l2';
  await writeFilteredClusteredSet(o.dir, { count: o.clustered, dim: 128, clusters: 100, seed: 42 }, o.queries, K);
}
if (o.dir === undefined) throw new Error('give --dir or --clustered');
const dir = o.dir;
const out = join(tmp, 'index');
const payloads = readFileSync(join(dir, 'payloads.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as Record<string, unknown>);
const cases = JSON.parse(readFileSync(join(dir, 'filters.json'), 'utf8')) as {
  fields: Record<string, { type: string }>;
  families: Array<{ name: string; filters: Array<unknown | null> }>;
};
// Value runs for the keyword fields, as a base built with their payload indexes reserves them.
const valueCounts = new Map<string, number>();
for (const p of payloads)
  for (const [field, spec] of Object.entries(cases.fields))
    if (spec.type === 'keyword')
      for (const v of [p[field]].flat()) if (typeof v === 'string') valueCounts.set(`${field}\0${v}`, (valueCounts.get(`${field}\0${v}`) ?? 0) + 1);
await buildIndex({
  input: join(dir, 'base.fvecs'),
  out,
  metric: o.metric,
  dramBudget: o.dramBudget,
  runValues: runValues(valueCounts.values(), payloads.length),
  ...(o.payloadM > 0
    ? { payloadM: o.payloadM, payloads: join(dir, 'payloads.jsonl'), indexFields: Object.entries(cases.fields).map(([k, f]) => `${k}:${f.type}`) }
    : {}),
});
const opened = openIndex(out, { mode: 'emulate' }, { slots: 4, fusedLanes: 4 });
const index = opened.index;
/** The walk the build measured: what the planner weighs its plans by. */
const walk = opened.manifest.plan.filterWalk ?? null;
const queries = await readDataset(join(dir, 'query.fvecs'));
if (o.metric === 'cosine') normalizeRows(queries.vectors, queries.dim);
const dim = queries.dim;
const inject = o.inject === true;
const fused = new Searcher(index, { inject });
const js = new Searcher(index, { fused: false, inject });
const n = index.meta.count;
const nq = Math.min(o.queries, queries.count);

/** The bitset over nodes of the rows a filter matches (labels are base rows). */
function nodeFilter(json: unknown): { bits: Uint32Array; matched: number } {
  const test = compile(parseFilter(json));
  const bits = new Uint32Array((n + 31) >>> 5);
  let matched = 0;
  for (let node = 0; node < n; node++) {
    const row = index.labels[node]!;
    if (!test({ id: row, payload: payloads[row]! })) continue;
    bits[node >>> 5]! |= 1 << (node & 31);
    matched++;
  }
  return { bits, matched };
}

const nodeOfRow = new Int32Array(n);
for (let node = 0; node < n; node++) nodeOfRow[index.labels[node]!] = node;

/**
 * The value runs a filter's scan reads first (engine/filter-runs.ts, over the bench's payloads), as
 * the scan reads them (their count, then three words a run), and the rows they hold (what the planner
 * weighs).
 */
function runsOf(json: unknown): { words: Uint32Array; rows: number } {
  const runs = runsFor(parseFilter(json), index, (leaf) => {
    const test = compile({ must: [leaf] });
    const nodes: number[] = [];
    payloads.forEach((payload, row) => {
      if (test({ id: row, payload })) nodes.push(nodeOfRow[row]!);
    });
    return Uint32Array.from(nodes).sort();
  });
  const words = new Uint32Array(1 + 3 * runs.length);
  writeRuns(words, 0, runs);
  return { words, rows: runs.reduce((a, r) => a + r.rows, 0) };
}

interface Run {
  ms: number;
  recall: number;
  distances: number;
  cxlBytes: number;
  short: number;
  /** Queries whose walk's entry was scarce in matches and that scanned instead (GRAPH_OR_SCAN). */
  scarceScans: number;
  /** Matches scored from value runs, per query. */
  fromRuns: number;
  /** The stall paid for the modelled CXL time per query, µs (0 without --inject). */
  injectedUs: number;
}

function run(searcher: Searcher, filters: Array<NodeFilter | null>, truth: number[][] | null, ef = o.ef): { run: Run; answers: number[][] } {
  const answers: number[][] = [];
  let distances = 0;
  let cxl = 0;
  let short = 0;
  let scarce = 0;
  let fromRuns = 0;
  let injected = 0;
  const t0 = process.cpuUsage();
  for (let q = 0; q < nq; q++) {
    const f = filters[q]!;
    const r = searcher.search(queries.vectors.subarray(q * dim, (q + 1) * dim), K, ef, 5 * K, true, f);
    answers.push(Array.from(r.ids));
    distances += r.stats[STAT.distances]!;
    cxl += r.stats[STAT.adjBytesCxl]! + r.stats[STAT.vecBytesCxl]! + r.stats[STAT.codeBytesCxl]! + r.stats[STAT.filterLinkBytes]!;
    if (f !== null && r.ids.length < Math.min(K, f.matched)) short++;
    scarce += r.stats[STAT.scarceScans]!;
    fromRuns += r.stats[STAT.fromRuns]!;
    injected += r.stats[STAT.injectedNs]!;
  }
  const t = process.cpuUsage(t0);
  let hit = 0;
  let want = 0;
  if (truth)
    truth.forEach((t, q) => {
      const got = new Set(answers[q]);
      want += t.length;
      hit += t.filter((id) => got.has(id)).length;
    });
  return {
    run: {
      ms: (t.user + t.system) / 1000 / nq,
      recall: want > 0 ? hit / want : 1,
      distances: distances / nq,
      cxlBytes: cxl / nq,
      short,
      scarceScans: scarce,
      fromRuns: fromRuns / nq,
      injectedUs: injected / nq / 1000,
    },
    answers,
  };
}

/**
 * Each plan run o.reps times, the order rotated each round so that none always follows the same
 * other (a plan run after the scan of half the codes found colder caches); its time is the median of
 * its rounds, its counts those of its first (they do not change).
 */
function sideBySide(
  list: Array<[string, Searcher, number, boolean?]>,
  once: (s: Searcher, plan: number, runs: boolean, name: string) => Run,
): Record<string, Run> {
  const first = new Map<string, Run>();
  const times = new Map<string, number[]>(list.map(([name]) => [name, []]));
  for (let rep = 0; rep < o.reps; rep++)
    for (let j = 0; j < list.length; j++) {
      const [name, s, plan, runs] = list[(j + rep) % list.length]!;
      const r = once(s, plan, runs ?? false, name);
      if (!first.has(name)) first.set(name, r);
      times.get(name)!.push(r.ms);
    }
  return Object.fromEntries(list.map(([name]) => [name, { ...first.get(name)!, ms: median(times.get(name)!) }]));
}

// Once untimed: the first pass pays for the JIT.
run(fused, new Array(nq).fill(null), null);
const unfiltered = sideBySide([['unfiltered', fused, FILTER_PLAN.NONE]], (s) => run(s, new Array(nq).fill(null), null).run)['unfiltered']!;
console.log(
  `unfiltered: ${unfiltered.ms.toFixed(3)} ms/q, ${unfiltered.distances.toFixed(0)} distances, ${unfiltered.cxlBytes.toFixed(0)} CXL B/q (ef ${o.ef})`,
);
/** A plan's column name: graph or scan takes the links where the filter's blocks cover it. */
const planName = (plan: number, covered: boolean): string =>
  plan === FILTER_PLAN.GRAPH_OR_SCAN ? (covered ? 'graph or linked' : 'graph or scan') : PLAN_NAMES[plan]!;

/** One step of an ef curve: the run, and how many queries each plan took. */
interface CurveStep extends Run {
  ef: number;
  plans: Record<string, number>;
}

const efs = o.efs.split(',').map(Number);
/** A run over the ef grid, each step's time the median of o.reps rounds, its counts its first's. */
function curve(filtersAt: (ef: number) => Array<NodeFilter | null>, truth: number[][]): CurveStep[] {
  return efs.map((ef) => {
    const filters = filtersAt(ef);
    const first = run(fused, filters, truth, ef).run;
    const ms = [first.ms];
    for (let rep = 1; rep < o.reps; rep++) ms.push(run(fused, filters, truth, ef).run.ms);
    const plans: Record<string, number> = {};
    for (const f of filters) {
      if (f === null) continue;
      const name = planName(f.plan, (f.links ?? null) !== null);
      plans[name] = (plans[name] ?? 0) + 1;
    }
    return { ...first, ms: median(ms), ef, plans };
  });
}
/** CXL bytes, distances and CPU per query where a curve reaches the target recall. */
function readOff(c: CurveStep[], target: number): { cxlBytes: number; distances: number; ms: number } | null {
  const cxlBytes = atRecall(c, target, (p) => p.cxlBytes);
  if (cxlBytes === null) return null;
  return { cxlBytes, distances: atRecall(c, target, (p) => p.distances)!, ms: atRecall(c, target, (p) => p.ms)! };
}
const unfilteredTruth =
  o.atRecall === undefined ? [] : Array.from({ length: nq }, (_, q) => Array.from(fused.exact(queries.vectors.subarray(q * dim, (q + 1) * dim), K, null).ids));
const unfilteredCurve = o.atRecall === undefined ? [] : curve(() => new Array(nq).fill(null), unfilteredTruth);
const unfilteredAt = o.atRecall === undefined ? null : readOff(unfilteredCurve, o.atRecall);
if (o.atRecall !== undefined) {
  const u = unfilteredAt;
  console.log(
    `at recall ${o.atRecall}: unfiltered ${u ? `${(u.cxlBytes / 1024).toFixed(1)} KB CXL, ${u.distances.toFixed(0)} distances, ${u.ms.toFixed(3)} ms` : 'never reached'} a query`,
  );
}
const atRows: Array<{ family: string; selectivity: number; curve: CurveStep[]; at: ReturnType<typeof readOff> }> = [];

const wanted = o.families?.split(',');
const rows: Array<{ family: string; selectivity: number; chosen: string; plans: Record<string, Run> }> = [];
for (const fam of cases.families) {
  if (wanted && !wanted.includes(fam.name)) continue;
  const filters: Array<NodeFilter | null> = [];
  const byJson = new Map<string, { bits: Uint32Array; matched: number; runs: Uint32Array; links: Uint32Array | null; runRows: number }>();
  /** Each query's rows in value runs: what the planner weighs its scan by. */
  const runRows: number[] = [];
  let selectivity = 0;
  for (let q = 0; q < nq; q++) {
    const json = fam.filters[q % fam.filters.length] ?? null;
    if (json === null) {
      filters.push(null);
      runRows.push(0);
      continue;
    }
    const key = JSON.stringify(json);
    let f = byJson.get(key);
    if (f === undefined) {
      const cover = index.links ? linkCover(parseFilter(json), index.links.blocks) : null;
      const runs = runsOf(json);
      f = { ...nodeFilter(json), runs: runs.words, runRows: runs.rows, links: cover ? Uint32Array.from(cover.blocks) : null };
      byJson.set(key, f);
    }
    selectivity += f.matched / n / nq;
    const { runRows: rows, ...nf } = f;
    filters.push({ ...nf, plan: FILTER_PLAN.SCAN });
    runRows.push(rows);
  }
  // Exact filtered search: every matching full vector scored.
  const truth = filters.map((f, q) => Array.from(fused.exact(queries.vectors.subarray(q * dim, (q + 1) * dim), K, f).ids));
  if (o.atRecall !== undefined) {
    // Each query's plan as the service's planner picks it at that ef, with the value runs and link
    // blocks the service would give it.
    const planned = (ef: number) =>
      filters.map((f, q) => {
        if (f === null) return null;
        const cover = f.links && index.links ? f.links.reduce((a, b) => a + index.links!.blocks[b]!.count, 0) : 0;
        return { ...f, plan: choosePlan(f.matched, index, ef, undefined, walk, runRows[q], cover) };
      });
    const c = curve(planned, truth);
    const at = readOff(c, o.atRecall);
    atRows.push({ family: fam.name, selectivity, curve: c, at });
    const u = unfilteredAt;
    const plans = [...new Set(c.flatMap((p) => Object.keys(p.plans)))].join(', ');
    console.log(
      `${fam.name} (${(100 * selectivity).toFixed(2)}%; ${plans}) | ${
        at === null
          ? `recall ${o.atRecall} never reached (best ${Math.max(...c.map((p) => p.recall)).toFixed(3)})`
          : `${(at.cxlBytes / 1024).toFixed(1)} KB CXL${u ? ` (${(at.cxlBytes / u.cxlBytes).toFixed(2)}× unfiltered)` : ''}, ${at.distances.toFixed(0)} distances, ${at.ms.toFixed(3)} ms${u ? ` (filtered / unfiltered QPS ${(u.ms / at.ms).toFixed(2)})` : ''}`
      } | ${c.map((p) => `ef ${p.ef}: ${p.recall.toFixed(3)} ${(p.cxlBytes / 1024).toFixed(1)}K`).join(', ')}`,
    );
    continue;
  }
  // Only the linked columns are given the filter's link blocks: the others run as a base without links.
  const withPlan = (plan: number, runs: boolean, links: boolean) =>
    filters.map((f) => (f === null ? null : { ...f, plan, runs: runs ? f.runs! : null, links: links ? (f.links ?? null) : null }));
  const covered = filters.every((f) => f === null || (f.links ?? null) !== null);
  const wantedPlans = o.plans?.split(',');
  const plans = sideBySide(
    (
      [
        ['scan, value runs', fused, FILTER_PLAN.SCAN, true],
        ['scan', fused, FILTER_PLAN.SCAN],
        ['scan (JS)', js, FILTER_PLAN.SCAN],
        ['graph (WASM)', fused, FILTER_PLAN.GRAPH],
        ['graph (JS)', js, FILTER_PLAN.GRAPH],
        ['two_hop', fused, FILTER_PLAN.TWO_HOP],
        ['graph or scan', fused, FILTER_PLAN.GRAPH_OR_SCAN],
        ...(covered
          ? ([
              ['linked (JS)', fused, FILTER_PLAN.LINKED],
              ['graph or linked', fused, FILTER_PLAN.GRAPH_OR_SCAN],
            ] as Array<[string, Searcher, number]>)
          : []),
      ] as Array<[string, Searcher, number, boolean?]>
    ).filter(([name]) => wantedPlans === undefined || wantedPlans.includes(name)),
    (s, plan, runs, name) => run(s, withPlan(plan, runs, name.includes('linked')), truth).run,
  );
  const first = filters.find((f) => f !== null);
  const cover = first?.links && index.links ? first.links.reduce((a, b) => a + index.links!.blocks[b]!.count, 0) : 0;
  const plan = choosePlan(first?.matched ?? 0, index, o.ef, undefined, walk, 0, cover);
  const chosen = planName(plan, cover > 0);
  rows.push({ family: fam.name, selectivity, chosen, plans });
  const cell = (name: string, r: Run) =>
    `${name} ${r.ms.toFixed(3)}ms r=${r.recall.toFixed(3)} cxl=${(r.cxlBytes / 1024).toFixed(1)}K${r.short > 0 ? ` short=${r.short}` : ''}${r.scarceScans > 0 ? ` scanned=${r.scarceScans}` : ''}${r.fromRuns > 0 ? ` runs=${r.fromRuns.toFixed(0)}` : ''}${inject ? ` stall=${r.injectedUs.toFixed(1)}µs` : ''}`;
  console.log(
    `${fam.name} (${(100 * selectivity).toFixed(2)}%, planner: ${chosen}) | ${Object.entries(plans)
      .map(([k, r]) => cell(k, r))
      .join(' | ')}`,
  );
}
if (o.json) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    o.json,
    `${JSON.stringify(
      o.atRecall !== undefined
        ? {
            set: o.clustered !== undefined ? `clustered ${o.clustered}` : dir,
            atRecall: o.atRecall,
            efs,
            reps: o.reps,
            dramBudget: o.dramBudget,
            k: K,
            queries: nq,
            unfiltered: { curve: unfilteredCurve, at: unfilteredAt },
            rows: atRows,
          }
        : {
            set: o.clustered !== undefined ? `clustered ${o.clustered}` : dir,
            ef: o.ef,
            reps: o.reps,
            dramBudget: o.dramBudget,
            k: K,
            queries: nq,
            unfiltered,
            rows,
          },
      null,
      2,
    )}\n`,
  );
}
