// Near-data (ndp) vs local execution through the engine with emulated CXL injection, side by side
// (alternating, medians) as the modelled extra latency is swept; also the thread hand-off's cost,
// prefetch and the pipelined schedule on and off, and 1 vs 2 search threads.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { Engine, type OpenEngineOptions } from '../engine/engine.js';
import { buildIndex } from '../index/build/build-index.js';
import { readDataset, writeGeneratedSet } from '../datasets/index.js';
import { costModel } from '../tiers/cost-model.js';
import { median } from '../common/median.js';

interface Measured {
  qps: number;
  /** Request latency percentiles, ms (closed loop: includes queueing behind the other outstanding requests). */
  p50: number;
  p99: number;
  modelledExtraUs: number;
  injectedUs: number;
  linkMessages: number;
  ids: string;
}

async function measure(
  dir: string,
  queries: Float32Array,
  dim: number,
  opts: OpenEngineOptions,
  mode: 'local' | 'ndp',
  requests: number,
  concurrency: number,
): Promise<Measured> {
  const e = await Engine.open([{ dir }], { ...opts, maxQueue: concurrency * 4, memory: { mode: 'emulate' } });
  try {
    const c = e.collections()[0]!;
    const nq = queries.length / dim;
    const one = (i: number) => c.search({ vector: queries.subarray((i % nq) * dim, ((i % nq) + 1) * dim), k: 10, ef: 64, mode });
    // warm-up
    await Promise.all(Array.from({ length: Math.min(nq, 200) }, (_, i) => one(i)));
    let next = 0;
    let extra = 0;
    let injected = 0;
    let link = 0;
    const firstIds: string[] = [];
    const lat = new Float64Array(requests);
    const t0 = performance.now();
    const worker = async (): Promise<void> => {
      while (next < requests) {
        const i = next++;
        const t = performance.now();
        const r = await one(i);
        lat[i] = performance.now() - t;
        extra += r.stats.modelledCxlExtraNs;
        injected += r.stats.injectedNs;
        link += r.stats.linkMessages;
        if (i < 20) firstIds[i] = r.hits.map((h) => h.id).join(',');
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const s = (performance.now() - t0) / 1000;
    lat.sort();
    return {
      qps: requests / s,
      p50: lat[Math.floor(0.5 * (requests - 1))]!,
      p99: lat[Math.floor(0.99 * (requests - 1))]!,
      modelledExtraUs: extra / requests / 1000,
      injectedUs: injected / requests / 1000,
      linkMessages: link / requests,
      ids: firstIds.join('|'),
    };
  } finally {
    await e.close();
  }
}

async function main(): Promise<void> {
  const o = new Command('engine-bench')
    .option('--index <dir>', 'a built index (default: generate and build a clustered set)')
    .option('--queries <file>', "query vectors (default: the generated set's)")
    .option('--count <n>', 'generated set size', (v) => Number(v), 100_000)
    .option('--requests <n>', 'requests per measurement', (v) => Number(v), 3000)
    .option('--concurrency <n>', 'outstanding requests', (v) => Number(v), 64)
    .option('--reps <n>', 'alternating repetitions', (v) => Number(v), 3)
    .option('--codes <kind>', 'code of the generated index: auto (what the planner picks at 10%) or none (whole records)', 'auto')
    .option('--json <file>', 'write results as JSON')
    .parse(process.argv)
    .opts<{ index?: string; queries?: string; count: number; requests: number; concurrency: number; reps: number; codes: 'auto' | 'none'; json?: string }>();
  let dir = o.index;
  let qfile = o.queries;
  if (!dir) {
    const work = join(tmpdir(), `strata-engine-bench-${o.count}`);
    if (!existsSync(join(work, 'data', 'query.fvecs')))
      await writeGeneratedSet(join(work, 'data'), { count: o.count, dim: 128, clusters: 100, seed: 42 }, 1000, 10);
    // What `strata build --dram-budget 10%` makes: codes in DRAM (auto), vectors and cold lists in CXL.
    dir = join(work, `idx-10pct-v2-${o.codes}`);
    if (!existsSync(join(dir, 'manifest.json')))
      await buildIndex({ input: join(work, 'data', 'base.fvecs'), out: dir, dramBudget: '10%', placement: 'profile', codes: o.codes });
    qfile ??= join(work, 'data', 'query.fvecs');
  }
  if (!qfile) throw new Error('--queries is required with --index');
  const qs = await readDataset(qfile);
  const results: Record<string, unknown> = { index: resolve(dir), requests: o.requests, concurrency: o.concurrency };
  const lines: string[] = [];
  const run = async (opts: OpenEngineOptions, mode: 'local' | 'ndp'): Promise<Measured> =>
    measure(dir!, qs.vectors, qs.dim, opts, mode, o.requests, o.concurrency);

  // 1. hand-off cost: injection off, zero extra latency.
  {
    const base: OpenEngineOptions = { searchThreads: 1, ndp: true, inflightPerThread: 32, cost: costModel({ cxlExtraLatencyNs: 0 }) };
    const l: number[] = [];
    const n: number[] = [];
    let msgs = 0;
    let same = true;
    for (let r = 0; r < o.reps; r++) {
      const a = await run(base, 'local');
      const b = await run(base, 'ndp');
      l.push(a.qps);
      n.push(b.qps);
      msgs = b.linkMessages;
      same &&= a.ids === b.ids;
    }
    const handoffUs = 1e6 / median(n) - 1e6 / median(l);
    results['handoff'] = { localQps: median(l), ndpQps: median(n), handoffUsPerQuery: handoffUs, messagesPerQuery: msgs, sameAnswers: same };
    lines.push(
      `Hand-off cost (1 search thread + 1 tier worker, injection off): local ${Math.round(median(l))} QPS, ndp ${Math.round(median(n))} QPS: ${handoffUs.toFixed(1)} µs per query for ${msgs.toFixed(1)} messages per query (each shared by the queries in flight); same answers: ${same}.`,
      '',
    );
  }

  // 2. latency sweep with injection: local vs the two near-data models, QPS and p99.
  lines.push(
    '| CXL extra latency | local QPS | ndp host QPS | ndp device QPS | host / local | device / local | p99 ms local | host | device |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  const sweep: Array<Record<string, number>> = [];
  for (const lat of [0, 90, 190, 400, 800]) {
    const cost = costModel({ cxlExtraLatencyNs: lat });
    const base: OpenEngineOptions = { searchThreads: 1, ndp: true, inject: true, inflightPerThread: 32, cost };
    const l: Measured[] = [];
    const h: Measured[] = [];
    const d: Measured[] = [];
    for (let r = 0; r < o.reps; r++) {
      l.push(await run(base, 'local'));
      h.push(await run({ ...base, nearData: 'host' }, 'ndp'));
      d.push(await run({ ...base, nearData: 'device' }, 'ndp'));
    }
    const m = (xs: Measured[], f: (x: Measured) => number): number => median(xs.map(f));
    const row = {
      latencyNs: lat,
      localQps: m(l, (x) => x.qps),
      hostQps: m(h, (x) => x.qps),
      deviceQps: m(d, (x) => x.qps),
      localP99: m(l, (x) => x.p99),
      hostP99: m(h, (x) => x.p99),
      deviceP99: m(d, (x) => x.p99),
    };
    sweep.push(row);
    lines.push(
      `| +${lat} ns | ${Math.round(row.localQps)} | ${Math.round(row.hostQps)} | ${Math.round(row.deviceQps)} | ${(row.hostQps / row.localQps).toFixed(2)} | ${(row.deviceQps / row.localQps).toFixed(2)} | ${row.localP99.toFixed(2)} | ${row.hostP99.toFixed(2)} | ${row.deviceP99.toFixed(2)} |`,
    );
  }
  results['latencySweep'] = sweep;
  // Where host workers start to pay: the first latency at which their QPS reaches local's, interpolated.
  let crossover: number | null = null;
  for (let i = 0; i < sweep.length && crossover === null; i++) {
    const r = sweep[i]!;
    const gap = r['hostQps']! / r['localQps']! - 1;
    if (gap >= 0) {
      const p = sweep[i - 1];
      if (!p) crossover = r['latencyNs']!;
      else {
        const pg = p['hostQps']! / p['localQps']! - 1;
        crossover = p['latencyNs']! + ((r['latencyNs']! - p['latencyNs']!) * -pg) / (gap - pg);
      }
    }
  }
  results['hostCrossoverNs'] = crossover;
  lines.push(
    '',
    crossover === null
      ? 'Host workers do not catch up with local execution within the swept latencies.'
      : `Host workers start to pay at about +${Math.round(crossover)} ns (interpolated).`,
    '',
  );

  // 3. prefetch and pipeline, ndp with injection at the default model.
  lines.push('| ndp schedule (injection on, default model) | QPS | modelled CXL extra µs/query |', '|---|---|---|');
  const sched: Array<Record<string, number | string>> = [];
  for (const [name, extra] of [
    ['plain', { prefetch: false }],
    ['prefetch', { prefetch: true }],
    ['pipeline', { prefetch: false, pipeline: true }],
    ['prefetch + pipeline', { prefetch: true, pipeline: true }],
  ] as const) {
    const xs: Measured[] = [];
    for (let r = 0; r < o.reps; r++) xs.push(await run({ searchThreads: 1, ndp: true, inject: true, inflightPerThread: 32, ...extra }, 'ndp'));
    const q = median(xs.map((x) => x.qps));
    sched.push({ schedule: name, qps: q, extraUs: xs[0]!.modelledExtraUs });
    lines.push(`| ${name} | ${Math.round(q)} | ${xs[0]!.modelledExtraUs.toFixed(1)} |`);
  }
  results['schedule'] = sched;
  lines.push('');

  // 4. search threads.
  lines.push('| search threads | local QPS (injection on) | ndp QPS (injection on) |', '|---|---|---|');
  const threads: Array<Record<string, number>> = [];
  for (const t of [1, 2]) {
    const l: number[] = [];
    const n: number[] = [];
    for (let r = 0; r < o.reps; r++) {
      l.push((await run({ searchThreads: t, ndp: true, inject: true, inflightPerThread: 32 }, 'local')).qps);
      n.push((await run({ searchThreads: t, ndp: true, inject: true, inflightPerThread: 32 }, 'ndp')).qps);
    }
    threads.push({ threads: t, localQps: median(l), ndpQps: median(n) });
    lines.push(`| ${t} | ${Math.round(median(l))} | ${Math.round(median(n))} |`);
  }
  results['threads'] = threads;
  process.stdout.write(lines.join('\n') + '\n');
  if (o.json) {
    mkdirSync(resolve(o.json, '..'), { recursive: true });
    writeFileSync(o.json, JSON.stringify({ node: process.version, date: new Date().toISOString(), ...results }, null, 2) + '\n');
  }
}

await main();
