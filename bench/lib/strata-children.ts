// The Strata processes a benchmark drives from outside, so that no process measures itself: `strata
// serve` (until stopped), one-shot commands (`strata loadgen`, `search`, `build`, `generate`), and
// the CPU of process trees read from /proc, traced over time so that a load generator's measured
// window can be cut out of it.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths.js';

export const STRATA = join(projectRoot(), 'bin', 'strata.js');
const TICK_US = 1e6 / 100; // USER_HZ: /proc times are in 1/100 s on Linux

/** user, system and reaped children's CPU of every process under /proc, by pid, with its parent. */
function procTable(): Map<number, { ppid: number; cpu: number }> {
  const out = new Map<number, { ppid: number; cpu: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let f: string;
    try {
      f = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone since the listing
    }
    const after = f.slice(f.lastIndexOf(')') + 2).split(' ');
    out.set(Number(name), { ppid: Number(after[1]), cpu: (Number(after[11]) + Number(after[12]) + Number(after[13]) + Number(after[14])) * TICK_US });
  }
  return out;
}

/**
 * CPU of a process tree in a /proc table, µs: the process and every live descendant (threads
 * included), each with the children it has reaped — a postmaster with its backends, a server with
 * its workers. null when the process is not there.
 */
function treeCpu(t: Map<number, { ppid: number; cpu: number }>, pid: number): number | null {
  if (!t.has(pid)) return null;
  let total = 0;
  const todo = [pid];
  while (todo.length > 0) {
    const p = todo.pop()!;
    total += t.get(p)!.cpu;
    for (const [c, e] of t) if (e.ppid === p) todo.push(c);
  }
  return total;
}

/** The CPU of a process's main thread alone (its event loop, for node), µs; null when it is not there. */
function mainThreadCpu(pid: number): number | null {
  try {
    const f = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const after = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(after[11]) + Number(after[12])) * TICK_US;
  } catch {
    return null;
  }
}

/**
 * The CPU of process trees (treeCpu) read every `everyMs` on the wall clock from one /proc scan,
 * so that what a process spent inside a window another process reports (a load generator's
 * measured span) can be cut out afterwards, apart from start-up and warm-up. `roots` give each
 * tree's pid (0: not started yet); a tree that is gone keeps its last value. `mainThreads` are
 * processes whose main thread is traced alone as well (after the trees, in `between`'s answer).
 */
export class CpuTrace {
  private readonly times: number[] = [];
  private readonly values: number[][] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly roots: Array<() => number>,
    everyMs = 100,
    private readonly mainThreads: Array<() => number> = [],
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const last = this.values[this.values.length - 1];
    const table = procTable();
    const n = this.roots.length;
    this.times.push(performance.timeOrigin + performance.now());
    this.values.push([
      ...this.roots.map((pid, i) => treeCpu(table, pid()) ?? last?.[i] ?? 0),
      ...this.mainThreads.map((pid, i) => mainThreadCpu(pid()) ?? last?.[n + i] ?? 0),
    ]);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /** Each tree's CPU at wall-clock time t (ms since the epoch), linear between samples. */
  private at(t: number): number[] {
    const ts = this.times;
    let i = 1;
    while (i < ts.length - 1 && ts[i]! < t) i++;
    const a = ts[i - 1]!;
    const b = ts[i]!;
    const w = b > a ? Math.min(1, Math.max(0, (t - a) / (b - a))) : 1;
    return this.values[i]!.map((v, k) => this.values[i - 1]![k]! + w * (v - this.values[i - 1]![k]!));
  }

  /** Each tree's CPU spent between two wall-clock times. */
  between(fromEpochMs: number, toEpochMs: number): number[] {
    const a = this.at(fromEpochMs);
    return this.at(toEpochMs).map((v, k) => v - a[k]!);
  }
}

/** node running `script` (bin/strata.js by default), on the given CPUs only when asked (taskset execs in place: the pid is node's). */
function nodeArgv(nodeFlags: string[], args: string[], cpus: string | undefined, script = STRATA): [string, string[]] {
  const argv = [...nodeFlags, script, ...args];
  return cpus === undefined ? [process.execPath, argv] : ['taskset', ['-c', cpus, process.execPath, ...argv]];
}

/**
 * A server child, resolved once its stdout has printed its REST address (and its gRPC address when
 * `withGrpc`), in the `REST  http://…` / `gRPC  host:port` lines `strata serve` announces.
 */
function listening(argv: [string, string[]], name: string, withGrpc: boolean): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(...argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const rest = /REST {2}(http:\/\/\S+)/.exec(out);
      const grpc = /^gRPC {2}(\S+:\d+)/m.exec(out);
      const qdrantGrpc = /^Qdrant gRPC\s+(\S+:\d+)/m.exec(out);
      if (rest && (grpc || !withGrpc)) resolve({ child, rest: rest[1]!, grpc: grpc?.[1] ?? '', qdrantGrpc: qdrantGrpc?.[1] ?? '' });
    });
    child.on('exit', (code) => reject(new Error(`${name} exited ${code} before listening`)));
  });
}

export function run(args: string[], nodeFlags: string[] = [], cpus?: string, onSpawn?: (pid: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(...nodeArgv(nodeFlags, args, cpus), { stdio: ['ignore', 'pipe', 'pipe'] });
    if (c.pid !== undefined) onSpawn?.(c.pid);
    let out = '';
    let err = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`strata ${args[0]} exited ${code}: ${err.slice(-2000)}`))));
  });
}

export interface BuiltSet {
  index: string;
  base: string;
  queries: string;
  gt: string;
  /** Wall time of `strata build`. */
  buildSeconds: number;
}

/**
 * The service benches' default data: `count` angular embedding-like vectors of 100 dimensions
 * (`strata generate --kind embedding`, 1,000 queries with their ground truth) built with
 * `strata build`'s defaults, under dir.
 */
export async function generatedAngularSet(dir: string, count: number): Promise<BuiltSet> {
  const data = join(dir, 'data');
  process.stderr.write(`generating ${count} × 100 angular vectors and building with the default budget\n`);
  await run(['generate', '--kind', 'embedding', '--count', String(count), '--dim', '100', '--queries', '1000', '--k', '10', '-o', data]);
  const index = join(dir, 'index');
  const base = join(data, 'base.fvecs');
  const t0 = performance.now();
  await run(['build', base, '--out', index, '--metric', 'cosine', '--name', 'bench']);
  return { index, base, queries: join(data, 'query.fvecs'), gt: join(data, 'groundtruth.ivecs'), buildSeconds: (performance.now() - t0) / 1000 };
}

export interface Served {
  child: ChildProcess;
  rest: string;
  /** host:port, or '' for a server without gRPC (the floor). */
  grpc: string;
  /** host:port of Qdrant's gRPC API, or '' when not served. */
  qdrantGrpc: string;
}

export interface ServeOptions {
  /** --search-threads. */
  threads: number;
  /** --inline (auto, always, never); the server's own default when absent. */
  inline?: string;
  /** Flags for node itself (e.g. --cpu-prof). */
  nodeFlags?: string[];
  /** CPUs to pin the server to (taskset -c). */
  cpus?: string;
}

export function serve(index: string, o: ServeOptions): Promise<Served> {
  const args = [index, '--name', 'bench', ...(o.inline !== undefined ? ['--inline', o.inline] : [])];
  return serveWith(args, o);
}

/** `strata serve --demo` (the embedded demo, built on first use under .strata/demo) with a data directory. */
export function serveDemo(dataDir: string, o: ServeOptions): Promise<Served> {
  return serveWith(['--demo', '--data-dir', dataDir], o);
}

/** `strata serve` with a data directory and no index: collections are created and filled over REST; `extra` more flags. */
export function serveDataDir(dataDir: string, o: ServeOptions, extra: readonly string[] = []): Promise<Served> {
  return serveWith(['--data-dir', dataDir, ...extra], o);
}

/** `strata serve <args>` on free ports, silent, with the bench's threads. */
function serveWith(args: readonly string[], o: ServeOptions): Promise<Served> {
  const ports = ['--port', '0', '--grpc-port', '0', '--qdrant-grpc-port', '0'];
  const argv = ['serve', ...args, ...ports, '--search-threads', String(o.threads), '--log-level', 'silent'];
  return listening(nodeArgv(o.nodeFlags ?? [], argv, o.cpus), 'strata serve', true);
}

/** `strata router` over the given shard servers (one replica each) on a free port, silent, without gRPC. */
export function serveRouter(shards: readonly string[]): Promise<Served> {
  const argv = ['router', '--shards', shards.join(','), '--port', '0', '--no-grpc', '--log-level', 'silent'];
  return listening(nodeArgv([], argv, undefined), 'strata router', false);
}

/**
 * The service bench's floor server (floor-server.ts) as a child: `kind` node, fastify, node-thread
 * or fastify-thread, answering with the answers captured in `captured` (a CapturedAnswers file),
 * after burning `burnUs` of CPU per search (fastify on its event loop; the -thread kinds on one
 * worker thread).
 * It serves no gRPC.
 */
export function serveFloor(kind: FloorKind, captured: string, burnUs = 0, cpus?: string): Promise<Served> {
  const script = join(projectRoot(), 'dist', 'bench', 'lib', 'floor-server.js');
  return listening(nodeArgv([], [kind, captured, String(burnUs)], cpus, script), `floor server (${kind})`, false);
}

/** The floor servers of bench/lib/floor-server.ts. */
export type FloorKind = 'node' | 'fastify' | 'node-thread' | 'fastify-thread';

export async function stop(s: Served): Promise<void> {
  const exited = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  s.child.kill('SIGTERM');
  await exited;
}

export interface MeasuredLoad {
  qps: number;
  p99Ms: number;
  recall: number | null;
  /** CPU per answer within the measured window (start-up and warm-up left out). */
  serverCpuUs: number;
  /** Of serverCpuUs, the server's main thread (its event loop); the rest is its other threads (search threads, V8's helpers). */
  serverMainCpuUs: number;
  clientCpuUs: number;
}

/**
 * How one load generator run is measured: its arguments write the report to `report`; the server
 * side is the process tree under `serverPid`; `cpus` pins the load generator (taskset -c).
 */
export interface LoadgenMeasure {
  report: string;
  serverPid: number;
  cpus?: string;
}

/**
 * One `strata loadgen` run (one step), with the server's and the client's CPU per answer inside the
 * window the load generator measured, read from a CpuTrace of both processes taken meanwhile.
 */
export async function measuredLoadgen(args: string[], m: LoadgenMeasure): Promise<MeasuredLoad> {
  let client = 0;
  const trace = new CpuTrace([() => m.serverPid, () => client], 100, [() => m.serverPid]);
  try {
    await run(args, [], m.cpus, (pid) => {
      client = pid;
    });
  } finally {
    trace.stop();
  }
  const r = (
    JSON.parse(readFileSync(m.report, 'utf8')) as {
      results: Array<{
        qps: number;
        ok: number;
        failed: number;
        latencyMs: { p99Ms: number };
        recall: { mean: number } | null;
        window?: { fromEpochMs: number; toEpochMs: number };
      }>;
    }
  ).results[0]!;
  if (!r.window) throw new Error(`${m.report}: the report has no measured window (a load generator from before it was added?)`);
  const [serverUs, clientUs, mainUs] = trace.between(r.window.fromEpochMs, r.window.toEpochMs);
  const answers = Math.max(1, r.ok + r.failed);
  return {
    qps: r.qps,
    p99Ms: r.latencyMs.p99Ms,
    recall: r.recall?.mean ?? null,
    serverCpuUs: serverUs! / answers,
    serverMainCpuUs: mainUs! / answers,
    clientCpuUs: clientUs! / answers,
  };
}
