// The service with its client in its own process: `strata serve` driven by `strata loadgen` per
// protocol and search-thread count (QPS, p99, recall, server and client CPU per query from /proc),
// against in-process `strata search` and against a floor server that does all but Strata's work.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { request } from 'undici';
import { readDataset } from '../datasets/index.js';
import type { CapturedAnswers } from './lib/floor-server.js';
import { type FloorKind, generatedAngularSet, type MeasuredLoad, measuredLoadgen, run, type Served, serve, serveFloor, stop } from './lib/strata-children.js';

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The monotonic clock V8's profiles are stamped with, µs. */
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** The stage a profile frame's time belongs to (the server's main thread). */
function stageOf(fn: string, url: string): string {
  if (fn === '(idle)') return 'idle';
  if (fn === '(garbage collector)') return 'gc';
  if (/node_modules\/piscina|postMessage|receiveMessageOnPort/.test(url + fn) || /dist\/engine\//.test(url)) return 'queue + hand-off';
  if (/dist\/(index|tiers)\//.test(url) || url.startsWith('wasm://')) return 'search';
  if (/node_modules\/(msgpackr|protobufjs|@grpc\/proto-loader)/.test(url) || fn === 'stringify' || fn === 'parse') return 'encode / decode';
  if (/dist\/server\/grpc\//.test(url) || /node_modules\/@grpc\//.test(url)) return 'grpc framework';
  if (/dist\/server\//.test(url)) return 'parse + validate (strata)';
  if (/node_modules\/(fastify|find-my-way|avvio|light-my-request|fast-json-stringify|ajv|pino|@fastify)/.test(url)) return 'fastify';
  if (/node_modules\/prom-client/.test(url)) return 'metrics';
  if (
    /^node:(_http|http|net|internal\/(streams|stream_base|http|net|js_stream))/.test(url) ||
    /^(writev|writeBuffer|writeUtf8String|read|onStreamRead)$/.test(fn)
  )
    return 'http + socket';
  if (fn === '(program)') return 'V8 / native (unattributed)';
  return 'other';
}

/** Main-thread time by stage over [fromUs, toUs] (the load, not the index loading before it). */
function stagesOf(file: string, fromUs: number, toUs: number): Map<string, number> {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i]!;
    if (t < fromUs || t > toUs) continue;
    const n = byId.get(p.samples[i]!)!;
    const s = stageOf(n.callFrame.functionName, n.callFrame.url);
    out.set(s, (out.get(s) ?? 0) + p.timeDeltas[i]!);
  }
  return out;
}

interface Row extends MeasuredLoad {
  threads: number;
  /** strata serve --inline (auto: cheap searches on the event loop when the server has one effective CPU). */
  inline: string;
  protocol: string;
  inProcessQps: number;
  ratio: number;
}

/** One floor row: the load generator against a server that answers with captured bytes. */
interface FloorRow {
  server: FloorKind;
  protocol: string;
  /** CPU µs the floor burns per search before answering, on its event loop or (the -thread kinds) its one worker thread (0: none). */
  burnUs: number;
  qps: number;
  serverCpuUs: number;
  serverMainCpuUs: number;
  clientCpuUs: number;
}

/**
 * The bodies the floor servers replay, taken from the real server: GET /, GET /collections/bench
 * and the JSON answer to the first query at ef (single-query answers; with --batch the floor still
 * answers single searches, so it is skipped then). Written to `file`, whose path it returns.
 */
async function captureAnswers(origin: string, queries: string, ef: number, file: string): Promise<string> {
  const q = await readDataset(queries, { limit: 1 });
  const text = async (path: string, body?: string): Promise<string> => {
    const r = await request(origin + path, body === undefined ? {} : { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    const t = await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${path}: ${r.statusCode} ${t.slice(0, 200)}`);
    return t;
  };
  const captured: CapturedAnswers = {
    root: await text('/'),
    collection: await text('/collections/bench'),
    search: await text(
      '/collections/bench/points/search',
      JSON.stringify({ vector: Array.from(q.vectors.subarray(0, q.dim)), limit: 10, params: { hnsw_ef: ef } }),
    ),
  };
  writeFileSync(file, JSON.stringify(captured));
  return file;
}

/** A server's CPU per request: all its threads, its event loop, and the rest (search threads, V8's helpers). */
function cpuSplit(m: { serverCpuUs: number; serverMainCpuUs: number }): string {
  return `${m.serverCpuUs.toFixed(0)}, ${m.serverMainCpuUs.toFixed(0)}, ${(m.serverCpuUs - m.serverMainCpuUs).toFixed(0)}`;
}

/**
 * What the floors say about the served rows. The fastify floor burning the search's CPU is
 * `--search-threads 0` with every cost of Strata's own removed: its QPS over in-process is the most
 * that row could reach on this machine, and its CPU per request beside the served row's is what
 * Strata's own work costs (validation, hand-off, result assembly, encoding, metrics and the garbage
 * they leave). The floors without a search show what the HTTP stack and the client cost at their
 * fastest; at a served row's lower rate each request pays more (fewer share an event-loop wake-up).
 */
function floorLines(floors: FloorRow[], rows: Row[], where: string): string[] {
  if (floors.length === 0) return [];
  const lines = [
    '',
    `The floor: the same load generator against a server that answers every search with the bytes of one captured answer (bench/lib/floor-server.ts; node = node:http, no parse; fastify = fastify parsing the body as strata serve does; "+ search" = fastify burning the 0-thread row's in-process CPU per query on its event loop before answering; "+ search thread" = the same CPU burnt on one worker thread, the searches waiting handed over together through shared memory, behind node:http or fastify). ${where}.`,
    '',
    '| floor server | protocol | QPS | / in-process (same search threads) | server CPU µs/request: all, event loop, other threads | client CPU µs/request | the served row with those threads: QPS, server µs, client µs |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const f of floors) {
    const threads = f.server.endsWith('-thread') ? 1 : 0;
    const served = f.burnUs > 0 ? rows.find((r) => r.threads === threads && r.protocol === f.protocol) : undefined;
    const name = f.burnUs > 0 ? `${f.server.replace('-thread', '')} + search${threads === 1 ? ' thread' : ''} (${f.burnUs.toFixed(0)} µs)` : f.server;
    const inProc = rows.find((r) => r.threads === threads)?.inProcessQps;
    lines.push(
      `| ${name} | ${f.protocol} | ${f.qps.toFixed(0)} | ${f.burnUs > 0 && inProc ? (f.qps / inProc).toFixed(2) : '–'} | ${cpuSplit(f)} | ${f.clientCpuUs.toFixed(0)} | ${served ? `${served.qps.toFixed(0)}, ${served.serverCpuUs.toFixed(0)}, ${served.clientCpuUs.toFixed(0)}` : '–'} |`,
    );
  }
  return lines;
}

interface MeasuredPair {
  qps: number;
  serverCpuUs: number;
}

/** A served row and the floor burning its search with as many search threads (0 or 1), measured back to back. */
interface FloorPair {
  threads: number;
  rep: number;
  protocol: string;
  served: MeasuredPair;
  floor: MeasuredPair;
}

function pairLines(pairs: FloorPair[]): string[] {
  if (pairs.length === 0) return [];
  return [
    '',
    "Back to back (a served row, then the floor burning its search with as many search threads, each pair in turn): served / floor QPS and what Strata spends per request beyond the floor's server CPU.",
    '',
    '| search threads | pair | protocol | served QPS | floor QPS | served / floor | served server µs/request | floor server µs/request | Strata beyond the floor, µs |',
    '|---|---|---|---|---|---|---|---|---|',
    ...pairs.map(
      (p) =>
        `| ${p.threads} | ${p.rep + 1} | ${p.protocol} | ${p.served.qps.toFixed(0)} | ${p.floor.qps.toFixed(0)} | ${(p.served.qps / p.floor.qps).toFixed(2)} | ${p.served.serverCpuUs.toFixed(0)} | ${p.floor.serverCpuUs.toFixed(0)} | ${(p.served.serverCpuUs - p.floor.serverCpuUs).toFixed(0)} |`,
    ),
  ];
}

async function main(): Promise<void> {
  const o = new Command('service-bench')
    .option('--index <dir>', 'a built index (default: generate a 100k × 100 angular embedding-like set and build it)')
    .option('--queries <file>', 'query vectors (with --index)')
    .option('--gt <file>', 'ground truth (with --index)')
    .option('--count <n>', 'generated vectors', (v) => Number(v), 100_000)
    .option('--threads <list>', 'search threads to compare', '0,1')
    .option('--protocols <list>', "msgpack, json, grpc (strata.v1), qdrant-grpc (Qdrant's API through its official client)", 'msgpack,json,grpc')
    .option('--concurrency <n>', 'client requests outstanding', (v) => Number(v), 16)
    .option('--ef <n>', 'hnsw_ef', (v) => Number(v), 64)
    .option('--duration <s>', 'seconds per measurement', (v) => Number(v), 8)
    .option('--batch <n>', 'queries per request (strata loadgen --batch); QPS and CPU are then per query', (v) => Number(v), 1)
    .option('--no-floor', 'skip the floor rows (a node:http and a fastify server answering canned bytes)')
    .option(
      '--pairs <n>',
      'back-to-back pairs of a served row (0 search threads, and 1 when --threads has it) and the floor burning its search, per protocol',
      (v) => Number(v),
      2,
    )
    .option('--inline <list>', 'strata serve --inline values to compare (auto, never) for each thread count above 0', 'auto')
    .option('--pin-server <cpus>', 'run the servers and the in-process search on these CPUs (taskset -c)')
    .option('--pin-client <cpus>', 'run the load generator on these CPUs (taskset -c)')
    .option('--no-profile', 'skip the profiled pass (the stage table)')
    .option('--profile-dir <dir>', 'keep the server CPU profiles here')
    .option('--json <file>', 'also write the results as JSON')
    .parse(process.argv)
    .opts<{
      index?: string;
      queries?: string;
      gt?: string;
      count: number;
      threads: string;
      protocols: string;
      concurrency: number;
      ef: number;
      duration: number;
      batch: number;
      profileDir?: string;
      json?: string;
      floor: boolean;
      inline: string;
      pairs: number;
      pinServer?: string;
      pinClient?: string;
      profile: boolean;
    }>();

  const tmp = mkdtempSync(join(tmpdir(), 'strata-service-bench-'));
  try {
    let { index, queries, gt } = o;
    if (!index) ({ index, queries, gt } = await generatedAngularSet(tmp, o.count));
    if (!queries || !gt) throw new Error('--queries and --gt are required with --index');
    const q = queries;
    const truth = gt;
    /** Warm-up requests: about 2,000 queries whatever the batch size (the load generator's default, docs/loadgen.md#warm-up). */
    const warmup = Math.ceil(2000 / o.batch);
    /** The gRPC address a protocol speaks to: strata.v1's, or Qdrant's API (qdrant-grpc). */
    const grpcUrl = (at: Served, protocol: string): string[] => {
      const addr = protocol === 'qdrant-grpc' ? at.qdrantGrpc : at.grpc;
      return addr === '' ? [] : ['--grpc-url', addr];
    };
    /** One closed-loop step against a served index: the timed rows and the profiled pass run the same. */
    const loadgenArgs = (at: Served, protocol: string, report: string): string[] => [
      'loadgen',
      ...['--url', at.rest, ...grpcUrl(at, protocol), '--collection', 'bench', '-q', q, '--gt', truth, '--protocol', protocol],
      ...['--concurrency', String(o.concurrency), '--ef', String(o.ef), '--duration', String(o.duration), '--batch', String(o.batch)],
      ...['--warmup', String(warmup), '--no-progress', '--report', report],
    ];
    const threadsList = o.threads.split(',').map(Number);
    const protocols = o.protocols.split(',');
    const rows: Row[] = [];
    let captured: string | null = null;
    const stages: Record<string, Record<string, number>> = {};
    for (const threads of threadsList) {
      // In-process QPS, measured before and after the served rows (the machine is noisy): the mean.
      const inProcess = async (): Promise<number> => {
        const args = ['search', index, '-q', queries, '--gt', gt, '--ef', String(o.ef), '--threads', String(threads)];
        const lines = (await run(args, [], o.pinServer)).trim().split('\n');
        return (JSON.parse(lines[lines.length - 1]!) as { qps: number }).qps;
      };
      const before = await inProcess();
      const firstRow = rows.length;
      // --inline only matters with search threads: without them every search runs on the event loop.
      for (const inline of threads === 0 ? ['never'] : o.inline.split(',')) {
        const s = await serve(index, { threads, inline, cpus: o.pinServer });
        try {
          if (captured === null && o.floor && o.batch === 1) captured = await captureAnswers(s.rest, q, o.ef, join(tmp, 'captured.json'));
          for (const protocol of protocols) {
            const report = join(tmp, `r-${threads}-${inline}-${protocol}.json`);
            const args = loadgenArgs(s, protocol, report);
            const m = await measuredLoadgen(args, { report, serverPid: s.child.pid!, ...(o.pinClient !== undefined ? { cpus: o.pinClient } : {}) });
            rows.push({ threads, inline, protocol, ...m, inProcessQps: before, ratio: 0 });
            process.stderr.write(`threads ${threads} inline ${inline} ${protocol}: ${m.qps.toFixed(0)} QPS\n`);
          }
        } finally {
          await stop(s);
        }
      }
      const inProc = (before + (await inProcess())) / 2;
      for (const r of rows.slice(firstRow)) {
        r.inProcessQps = inProc;
        r.ratio = r.qps / inProc;
      }
      if (!o.profile) continue;
      // The profiled pass: MessagePack only, the server's main thread split by stage (--cpu-prof slows
      // the server, so this pass is not a timed one).
      const profDir = o.profileDir ? join(o.profileDir, `threads-${threads}`) : join(tmp, `prof-${threads}`);
      rmSync(profDir, { recursive: true, force: true });
      mkdirSync(profDir, { recursive: true });
      const p = await serve(index, {
        threads,
        inline: o.inline.split(',')[0]!,
        nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profDir}`],
        cpus: o.pinServer,
      });
      let answered = 0;
      let fromUs = 0;
      let toUs = 0;
      try {
        const report = join(tmp, `p-${threads}.json`);
        fromUs = monotonicUs();
        await run(loadgenArgs(p, 'msgpack', report), [], o.pinClient);
        toUs = monotonicUs();
        // Queries answered, the warm-up's included: the profile covers it too.
        const r = (JSON.parse(readFileSync(report, 'utf8')) as { results: Array<{ ok: number; failed: number }> }).results[0]!;
        answered = r.ok + r.failed + warmup * o.batch;
      } finally {
        await stop(p);
      }
      // The main thread's profile is the first one written (thread 0).
      const main = readdirSync(profDir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .sort()[0]!;
      const st = stagesOf(join(profDir, main), fromUs, toUs);
      stages[String(threads)] = Object.fromEntries([...st.entries()].filter(([k]) => k !== 'idle').map(([k, v]) => [k, v / answered]));
    }

    // The floor: the same load generator against servers that answer with the captured bytes.
    const floors: FloorRow[] = [];
    const pairs: FloorPair[] = [];
    const restProtocols = protocols.filter((p) => p !== 'grpc' && p !== 'qdrant-grpc');
    if (o.floor && captured !== null && restProtocols.length > 0) {
      // As fast as the harness goes, with nothing behind it; then fastify burning the search's own CPU
      // (the 0-thread row's in-process µs per query) on its event loop, as `--search-threads 0` does.
      // With a 1-thread row as well, node:http and fastify burning the same CPU on one worker thread,
      // as `--search-threads 1` does: the most a server with one search thread could serve here.
      const inProc0 = rows.find((r) => r.threads === 0)?.inProcessQps;
      const withThread = threadsList.includes(1);
      const runs: Array<{ server: FloorKind; burnUs: number }> = [
        { server: 'node', burnUs: 0 },
        { server: 'fastify', burnUs: 0 },
        ...(inProc0 === undefined ? [] : [{ server: 'fastify' as const, burnUs: 1e6 / inProc0 }]),
        ...(inProc0 === undefined || !withThread
          ? []
          : [
              { server: 'node-thread' as const, burnUs: 1e6 / inProc0 },
              { server: 'fastify-thread' as const, burnUs: 1e6 / inProc0 },
            ]),
      ];
      for (const fl of runs) {
        const f = await serveFloor(fl.server, captured, fl.burnUs, o.pinServer);
        try {
          for (const protocol of restProtocols) {
            const report = join(tmp, `f-${fl.server}-${fl.burnUs.toFixed(0)}-${protocol}.json`);
            const m = await measuredLoadgen(loadgenArgs(f, protocol, report), {
              report,
              serverPid: f.child.pid!,
              ...(o.pinClient !== undefined ? { cpus: o.pinClient } : {}),
            });
            floors.push({ ...fl, protocol, qps: m.qps, serverCpuUs: m.serverCpuUs, serverMainCpuUs: m.serverMainCpuUs, clientCpuUs: m.clientCpuUs });
            process.stderr.write(`floor ${fl.server} burning ${fl.burnUs.toFixed(0)} µs ${protocol}: ${m.qps.toFixed(0)} QPS\n`);
          }
        } finally {
          await stop(f);
        }
      }
      // Served and floor rows minutes apart see different machines when its speed drifts: pairs run
      // back to back (a served row, then the floor burning its search with as many threads), repeated.
      for (const threads of inProc0 !== undefined && o.pairs > 0 ? [0, ...(withThread ? [1] : [])] : []) {
        const inline = threads === 0 ? 'never' : o.inline.split(',')[0]!;
        const served = await serve(index, { threads, inline, cpus: o.pinServer });
        const floor = await serveFloor(threads === 0 ? 'fastify' : 'fastify-thread', captured, 1e6 / inProc0!, o.pinServer);
        try {
          for (let rep = 0; rep < o.pairs; rep++)
            for (const protocol of restProtocols) {
              const one = async (at: Served, name: string): Promise<MeasuredPair> => {
                const report = join(tmp, `pair-${rep}-${protocol}-${name}.json`);
                const m = await measuredLoadgen(loadgenArgs(at, protocol, report), {
                  report,
                  serverPid: at.child.pid!,
                  ...(o.pinClient !== undefined ? { cpus: o.pinClient } : {}),
                });
                return { qps: m.qps, serverCpuUs: m.serverCpuUs };
              };
              const a = await one(served, 'served');
              const b = await one(floor, 'floor');
              pairs.push({ threads, rep, protocol, served: a, floor: b });
              process.stderr.write(`pair ${rep} ${threads} threads ${protocol}: served ${a.qps.toFixed(0)}, floor ${b.qps.toFixed(0)} QPS\n`);
            }
        } finally {
          await stop(served);
          await stop(floor);
        }
      }
    }

    const where =
      o.pinServer === undefined && o.pinClient === undefined
        ? `${availableParallelism()} cores shared by server and client`
        : `servers and in-process search on CPUs ${o.pinServer ?? 'any'}, load generator on CPUs ${o.pinClient ?? 'any'} (taskset)`;
    const lines = [
      `${where}. ${o.concurrency} clients in their own process (strata loadgen), ${o.batch === 1 ? 'one query' : `${o.batch} queries`} per request, ef ${o.ef}, ${o.duration} s per row; in-process = strata search with the same search threads in its own process, the mean of a run before and one after the served rows.`,
      '',
      '| search threads | --inline | protocol | QPS | p99 ms | recall@10 | server / in-process | server CPU µs/query: all, event loop, other threads | client CPU µs/query |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.threads} | ${r.inline} | ${r.protocol} | ${r.qps.toFixed(0)} | ${r.p99Ms.toFixed(2)} | ${r.recall?.toFixed(4) ?? '–'} | ${r.ratio.toFixed(2)} (${r.inProcessQps.toFixed(0)}) | ${cpuSplit(r)} | ${r.clientCpuUs.toFixed(0)} |`,
      ),
    ];
    if (o.profile) {
      lines.push(
        '',
        "Server main thread, CPU µs per query by stage (MessagePack, profiled pass, samples during the load only; with threads the search's own time is on the search thread):",
        '',
        `| stage | ${threadsList.map((t) => `${t} search threads`).join(' | ')} |`,
        `|---|${threadsList.map(() => '---|').join('')}`,
      );
      const names = [...new Set(Object.values(stages).flatMap((s) => Object.keys(s)))].sort(
        (a, b) => (stages[String(threadsList[0])]![b] ?? 0) - (stages[String(threadsList[0])]![a] ?? 0),
      );
      for (const n of names) lines.push(`| ${n} | ${threadsList.map((t) => (stages[String(t)]![n] ?? 0).toFixed(1)).join(' | ')} |`);
      lines.push(
        `| **total** | ${threadsList
          .map((t) =>
            Object.values(stages[String(t)]!)
              .reduce((a, b) => a + b, 0)
              .toFixed(1),
          )
          .join(' | ')} |`,
      );
    }
    lines.push(...floorLines(floors, rows, where), ...pairLines(pairs));
    process.stdout.write(`${lines.join('\n')}\n`);
    if (o.json)
      writeFileSync(
        o.json,
        `${JSON.stringify({ node: process.version, date: new Date().toISOString(), cores: availableParallelism(), rows, stages, floors, pairs }, null, 2)}\n`,
      );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
