// What serving over the network costs: the same queries at ef 64 over REST with JSON, REST with
// MessagePack and gRPC, side by side with the engine in this process, each a closed loop on
// loopback (alternating repetitions, medians, each one's ratio to in-process).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance as perfHooks } from 'node:perf_hooks';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Command } from 'commander';
import { Pool } from 'undici';
import { Engine } from '../engine/engine.js';
import { buildIndex } from '../index/build/build-index.js';
import { readDataset, writeGeneratedSet } from '../datasets/index.js';
import { buildServer } from '../server/app.js';
import { loadPackage } from '../server/grpc/protos.js';
import { packMsgpack, unpackMsgpack } from '../server/rest/codec.js';
import { median } from '../common/median.js';

type Contender = 'in-process' | 'json' | 'msgpack' | 'grpc';
type Send = (i: number) => Promise<number[]>;

interface Run {
  qps: number;
  /** CPU time of the whole process (client, server, search thread) per request, µs. */
  cpuUs: number;
  /** Busy time of the main thread (client and server share it) per request, µs. */
  mainUs: number;
}

async function closedLoop(send: Send, requests: number, concurrency: number): Promise<Run> {
  let next = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const e0 = perfHooks.eventLoopUtilization();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) await send(next++);
    }),
  );
  const cpu = process.cpuUsage(c0);
  const elu = perfHooks.eventLoopUtilization(e0);
  return { qps: requests / ((performance.now() - t0) / 1000), cpuUs: (cpu.user + cpu.system) / requests, mainUs: (elu.active * 1000) / requests };
}

async function main(): Promise<void> {
  const o = new Command('server-bench')
    .option('--index <dir>', 'a built index (default: generate 20k x 128 and build it with 10% DRAM)')
    .option('--queries <file>', "query vectors (default: the generated set's)")
    .option('--count <n>', 'vectors to generate', (v) => Number(v), 20_000)
    .option('--requests <n>', 'requests per contender per repetition', (v) => Number(v), 1500)
    .option('--reps <n>', 'repetitions (contenders alternate)', (v) => Number(v), 7)
    .option('--concurrency <n>', 'requests outstanding', (v) => Number(v), 8)
    .option('--ef <n>', 'hnsw_ef', (v) => Number(v), 64)
    .option('--search-threads <n>', 'engine search threads', (v) => Number(v), 1)
    .option('--json <file>', 'also write the results as JSON')
    .parse(process.argv)
    .opts<{
      index?: string;
      queries?: string;
      count: number;
      requests: number;
      reps: number;
      concurrency: number;
      ef: number;
      searchThreads: number;
      json?: string;
    }>();

  let tmp: string | null = null;
  let indexDir = o.index;
  let queryFile = o.queries;
  if (!indexDir) {
    tmp = join(tmpdir(), `strata-server-bench-${process.pid}`);
    mkdirSync(tmp, { recursive: true });
    const set = await writeGeneratedSet(join(tmp, 'data'), { count: o.count, dim: 128, clusters: 64, seed: 42 }, 500, 10);
    indexDir = join(tmp, 'index');
    process.stderr.write(`building ${o.count} x 128 with 10% DRAM in ${indexDir}\n`);
    await buildIndex({ input: set.base, out: indexDir, dramBudget: '10%', placement: 'profile' });
    queryFile ??= set.query;
  }
  if (!queryFile) throw new Error('--queries is required with --index');
  const qs = await readDataset(queryFile);
  const dim = qs.dim;
  const nq = qs.count;
  const query = (i: number): Float32Array => qs.vectors.subarray((i % nq) * dim, ((i % nq) + 1) * dim);
  const queryArrays = Array.from({ length: nq }, (_, i) => Array.from(query(i)));
  // Bodies are encoded per request, as a client would.
  const k = 10;

  const engine = await Engine.open([{ dir: indexDir, name: 'bench' }], { searchThreads: o.searchThreads, maxQueue: 1 << 20, memory: { mode: 'emulate' } });
  const server = buildServer(engine, { host: '127.0.0.1', port: 0, grpcPort: 0, qdrantGrpcPort: null, logLevel: 'silent' });
  const addr = await server.listen();
  const pool = new Pool(addr.rest, { connections: o.concurrency, pipelining: 1 });
  const pkg = loadPackage() as unknown as { strata: { v1: { Points: grpc.ServiceClientConstructor } } };
  const points = new pkg.strata.v1.Points(addr.grpc!, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    Search: (r: object, cb: (e: grpc.ServiceError | null, v: { result: Array<{ id: number }> }) => void) => void;
  };
  const collection = engine.collection('bench');
  const path = '/collections/bench/points/search';

  const contenders: Record<Contender, Send> = {
    'in-process': async (i) => (await collection.search({ vector: query(i), k, ef: o.ef })).hits.map((h) => h.id),
    json: async (i) => {
      const r = await pool.request({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ vector: queryArrays[i % nq], limit: k, params: { hnsw_ef: o.ef } }),
      });
      return ((await r.body.json()) as { result: Array<{ id: number }> }).result.map((p) => p.id);
    },
    msgpack: async (i) => {
      const r = await pool.request({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/msgpack', accept: 'application/msgpack' },
        body: packMsgpack({ vector: query(i), limit: k, params: { hnsw_ef: o.ef } }),
      });
      return (unpackMsgpack(Buffer.from(await r.body.arrayBuffer())) as { result: Array<{ id: number }> }).result.map((p) => p.id);
    },
    grpc: (i) =>
      new Promise((resolve, reject) => {
        points.Search({ collection_name: 'bench', vector: queryArrays[i % nq], limit: k, params: { hnsw_ef: o.ef } }, (e, v) =>
          e ? reject(e) : resolve(v.result.map((p) => p.id)),
        );
      }),
  };
  const names = Object.keys(contenders) as Contender[];

  // Every contender answers the same ids (same engine, same queries), and warms up its path.
  const reference = await Promise.all(Array.from({ length: 50 }, (_, i) => contenders['in-process'](i)));
  for (const name of names) {
    const got = await Promise.all(Array.from({ length: 50 }, (_, i) => contenders[name](i)));
    if (JSON.stringify(got) !== JSON.stringify(reference)) throw new Error(`${name} answers differ from the in-process engine's`);
    // Warm-up: two untimed repetitions, so the JIT has compiled each path before it is measured
    // (the first few thousand HTTP requests run measurably slower).
    await closedLoop(contenders[name], 2 * o.requests, o.concurrency);
  }

  const qps: Record<Contender, number[]> = { 'in-process': [], json: [], msgpack: [], grpc: [] };
  const cpu: Record<Contender, number[]> = { 'in-process': [], json: [], msgpack: [], grpc: [] };
  const main: Record<Contender, number[]> = { 'in-process': [], json: [], msgpack: [], grpc: [] };
  for (let rep = 0; rep < o.reps; rep++) {
    // Alternate the order so that drift on a shared machine does not favour one contender.
    const order = rep % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const r = await closedLoop(contenders[name], o.requests, o.concurrency);
      qps[name].push(r.qps);
      cpu[name].push(r.cpuUs);
      main[name].push(r.mainUs);
    }
  }
  // The machine is shared: a contender's ratio is taken within each repetition (against the
  // in-process run of the same repetition, seconds apart), and the median of those is reported.
  const rows = names.map((name) => {
    const ratios = qps[name].map((q, rep) => q / qps['in-process'][rep]!);
    return {
      contender: name,
      qps: Math.round(median(qps[name])),
      ratio: Number(median(ratios).toFixed(2)),
      cpuUsPerRequest: Math.round(median(cpu[name])),
      mainThreadUsPerRequest: Math.round(median(main[name])),
      runs: qps[name].map(Math.round),
      ratios: ratios.map((r) => Number(r.toFixed(2))),
    };
  });

  process.stdout.write(
    `server-bench: ${collection.count()} x ${dim}, ef ${o.ef}, k ${k}, concurrency ${o.concurrency}, ${o.requests} requests x ${o.reps} reps, ${o.searchThreads} search thread(s), loopback 127.0.0.1\n`,
  );
  process.stdout.write(
    '| contender | QPS (median) | ratio to in-process (median of reps) | CPU µs/request (all threads) | main-thread µs/request | QPS per rep | ratio per rep |\n|---|---|---|---|---|---|---|\n',
  );
  for (const r of rows)
    process.stdout.write(
      `| ${r.contender} | ${r.qps} | ${r.ratio.toFixed(2)} | ${r.cpuUsPerRequest} | ${r.mainThreadUsPerRequest} | ${r.runs.join(', ')} | ${r.ratios.join(', ')} |\n`,
    );
  if (o.json)
    writeFileSync(
      o.json,
      JSON.stringify(
        { vectors: collection.count(), dim, ef: o.ef, k, concurrency: o.concurrency, requests: o.requests, reps: o.reps, searchThreads: o.searchThreads, rows },
        null,
        2,
      ) + '\n',
    );

  points.close();
  await pool.close();
  await server.close();
  await engine.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  process.stderr.write(`server-bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
