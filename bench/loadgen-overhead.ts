// The load generator's own limit, so that a Strata figure well below it is Strata's: QPS of its JSON
// closed loop against a trivial fastify endpoint at several concurrencies, then a fresh (cold) load
// generator's open-loop p50/p95/p99 side by side for each warm-up count.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { Command } from 'commander';
import Fastify from 'fastify';
import { writeFvecs } from '../datasets/index.js';
import { runLoadgen } from '../loadgen/index.js';
import { machineInfo, packageVersions } from '../loadgen/report.js';
import { run } from './lib/strata-children.js';

const DIM = 128;

/** The endpoint: just enough of the API for the load generator's checks and its searches. */
async function serve(): Promise<void> {
  const app = Fastify({ logger: false });
  const points = Array.from({ length: 10 }, (_, i) => ({ id: i, version: 0, score: 1 + i / 10, payload: null }));
  const stats = {
    mode: 'local',
    hops: 1,
    distance_computations: 1,
    accesses: { dram: 1, cxl: 0 },
    bytes: { dram: 1, cxl: 0 },
    dram_share: 1,
    modelled_memory_ns: 1,
    modelled_cxl_extra_ns: 0,
    injected_ns: 0,
    link_messages: 0,
    link_bytes: 0,
  };
  const answer = JSON.stringify({ result: points, status: 'ok', time: 0, strata: stats });
  app.get('/', async () => ({ title: 'loadgen-overhead stub', version: '0' }));
  app.get('/collections/:c', async () => ({
    result: { status: 'green', points_count: 10, config: { params: { vectors: { size: DIM, distance: 'Euclid' } } } },
    status: 'ok',
    time: 0,
  }));
  app.post('/collections/:c/points/search', async (_req, reply) => reply.type('application/json').send(answer));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const a = app.server.address();
  parentPort!.postMessage(typeof a === 'object' && a !== null ? a.port : 0);
}

interface WarmRow {
  rep: number;
  warmup: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

async function main(): Promise<void> {
  const o = new Command('loadgen-overhead')
    .option('--requests <n>', 'requests per concurrency level', (v) => Number(v), 20_000)
    .option('--warmup <n>', 'untimed requests first', (v) => Number(v), 2000)
    .option('--concurrency <list>', 'levels', (v) => v.split(',').map(Number), [1, 8, 32])
    .option(
      '--warmups <list>',
      'warm-up counts compared in an open loop, each in a fresh load generator',
      (v) => v.split(',').map(Number),
      [0, 500, 1000, 2000],
    )
    .option('--warm-rate <n>', 'the open loop rate, requests/s', (v) => Number(v), 3000)
    .option('--warm-reps <n>', 'alternating repetitions of the warm-up comparison', (v) => Number(v), 2)
    .option('--json <file>', 'also write the results as JSON')
    .parse(process.argv)
    .opts<{ requests: number; warmup: number; concurrency: number[]; warmups: number[]; warmRate: number; warmReps: number; json?: string }>();

  const worker = new Worker(new URL(import.meta.url));
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (p: number) => resolve(p));
    worker.once('error', reject);
  });
  const tmp = mkdtempSync(join(tmpdir(), 'strata-loadgen-overhead-'));
  try {
    const queries = join(tmp, 'query.fvecs');
    await writeFvecs(
      queries,
      Float32Array.from({ length: 1000 * DIM }, (_, i) => ((i * 7919) % 1000) / 1000),
      DIM,
    );
    const rows = [];
    for (const c of o.concurrency) {
      // one step per level, so the main thread's busy time can be charged to it
      const elu0 = performance.eventLoopUtilization();
      const report = await runLoadgen({
        url: `http://127.0.0.1:${port}`,
        collection: 'stub',
        queries,
        ef: [64],
        concurrency: [c],
        durationS: 120,
        maxRequests: o.requests,
        warmup: o.warmup,
        protocol: 'json',
        label: 'loadgen overhead (trivial endpoint)',
      });
      const elu = performance.eventLoopUtilization(elu0);
      const r = report.results[0]!;
      rows.push({
        concurrency: c,
        requests: r.ok,
        qps: Math.round(r.qps),
        p50Ms: r.latencyMs.p50Ms,
        p99Ms: r.latencyMs.p99Ms,
        loadgenThreadBusy: Number(elu.utilization.toFixed(2)),
        errors: r.errors,
      });
      process.stderr.write(`concurrency ${c}: ${Math.round(r.qps)} QPS\n`);
    }
    process.stdout.write('\n| concurrency | requests | QPS | p50 ms | p99 ms | load generator thread busy |\n|---|---|---|---|---|---|\n');
    for (const r of rows)
      process.stdout.write(
        `| ${r.concurrency} | ${r.requests} | ${r.qps} | ${r.p50Ms.toFixed(3)} | ${r.p99Ms.toFixed(3)} | ${Math.round(100 * r.loadgenThreadBusy)}% |\n`,
      );
    // A cold client in an open loop: each run is a new process, so its JIT starts from nothing.
    const warmRows: WarmRow[] = [];
    for (let rep = 0; rep < o.warmReps; rep++)
      for (const w of o.warmups) {
        const report = join(tmp, `warm-${rep}-${w}.json`);
        await run([
          ...['loadgen', '--url', `http://127.0.0.1:${port}`, '--collection', 'stub', '-q', queries, '--ef', '64', '--concurrency', '16'],
          ...['--mode', 'open', '--rate', String(o.warmRate), '--duration', '3', '--warmup', String(w), '--no-progress', '--report', report],
        ]);
        const r = (JSON.parse(readFileSync(report, 'utf8')) as { results: Array<{ latencyMs: { p50Ms: number; p95Ms: number; p99Ms: number } }> }).results[0]!;
        warmRows.push({ rep, warmup: w, p50Ms: r.latencyMs.p50Ms, p95Ms: r.latencyMs.p95Ms, p99Ms: r.latencyMs.p99Ms });
        process.stderr.write(`warm-up ${w}: p95 ${r.latencyMs.p95Ms.toFixed(2)} ms\n`);
      }
    process.stdout.write(
      `\nOpen loop at ${o.warmRate} requests/s, 16 connections, 3 s, a fresh load generator per run, by warm-up (requests before the timed window):\n\n| warm-up | p50 ms | p95 ms | p99 ms |\n|---|---|---|---|\n`,
    );
    for (const r of warmRows) process.stdout.write(`| ${r.warmup} | ${r.p50Ms.toFixed(2)} | ${r.p95Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} |\n`);
    if (o.json)
      writeFileSync(
        o.json,
        JSON.stringify(
          {
            endpoint: 'fastify stub on 127.0.0.1 in a worker thread',
            protocol: 'json',
            mode: 'closed',
            machine: machineInfo(),
            packages: packageVersions(),
            rows,
            warmRate: o.warmRate,
            warmRows,
          },
          null,
          2,
        ) + '\n',
      );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await worker.terminate();
  }
}

if (isMainThread) {
  main().catch((e: unknown) => {
    process.stderr.write(`loadgen-overhead: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
} else {
  void serve();
}
