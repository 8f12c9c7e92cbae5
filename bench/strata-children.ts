// The Strata processes a benchmark drives from outside, so that no process measures itself: `strata
// serve` (until stopped), one-shot commands (`strata loadgen`, `search`, `build`, `generate`), and
// CPU time read from /proc for a live process or for the children this process has reaped.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../common/paths.js';

export const STRATA = join(projectRoot(), 'bin', 'strata.js');
const TICK_US = 1e6 / 100; // USER_HZ: /proc times are in 1/100 s on Linux

/** user + system CPU of a live process, µs. */
export function procCpuUs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const after = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(after[11]) + Number(after[12])) * TICK_US;
}

/** user + system CPU of a live process and of the children it has reaped (a postmaster's ended backends), µs. */
export function procTreeCpuUs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const after = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(after[11]) + Number(after[12]) + Number(after[13]) + Number(after[14])) * TICK_US;
}

/** CPU of this process's reaped children (cutime + cstime), µs. */
export function childrenCpuUs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8');
  const after = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(after[13]) + Number(after[14])) * TICK_US;
}

export function run(args: string[], nodeFlags: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [...nodeFlags, STRATA, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`strata ${args[0]} exited ${code}: ${err.slice(-2000)}`))));
  });
}

export interface Served {
  child: ChildProcess;
  rest: string;
  grpc: string;
}

export function serve(index: string, threads: number, nodeFlags: string[], handoff: string): Promise<Served> {
  return new Promise((resolve, reject) => {
    const args = [
      'serve',
      index,
      '--name',
      'bench',
      '--port',
      '0',
      '--grpc-port',
      '0',
      '--search-threads',
      String(threads),
      '--handoff',
      handoff,
      '--log-level',
      'silent',
    ];
    const child = spawn(process.execPath, [...nodeFlags, STRATA, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const rest = /REST {2}(http:\/\/\S+)/.exec(out);
      const grpc = /gRPC {2}(\S+:\d+)/.exec(out);
      if (rest && grpc) resolve({ child, rest: rest[1]!, grpc: grpc[1]! });
    });
    child.on('exit', (code) => reject(new Error(`strata serve exited ${code} before listening`)));
  });
}

export async function stop(s: Served): Promise<void> {
  const exited = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  s.child.kill('SIGTERM');
  await exited;
}

export interface MeasuredLoad {
  qps: number;
  p99Ms: number;
  recall: number | null;
  /** CPU per request (the warm-up's requests and CPU included in both). */
  serverCpuUs: number;
  clientCpuUs: number;
}

/**
 * One `strata loadgen` run whose arguments write its report to `report` after `warmup` untimed
 * requests, with the server's CPU per request (`serverCpuUs` reads the server side's total) and
 * the client's (this process's reaped children). `settle` runs before the second reading: a server
 * whose per-connection processes are reaped after the run needs the time.
 */
export async function measuredLoadgen(
  args: string[],
  report: string,
  warmup: number,
  serverCpuUs: () => number,
  settle: () => Promise<void> = async () => {},
): Promise<MeasuredLoad> {
  const s0 = serverCpuUs();
  const c0 = childrenCpuUs();
  await run(args);
  await settle();
  const serverUs = serverCpuUs() - s0;
  const clientUs = childrenCpuUs() - c0;
  const r = (
    JSON.parse(readFileSync(report, 'utf8')) as {
      results: Array<{ qps: number; sent: number; latencyMs: { p99Ms: number }; recall: { mean: number } | null }>;
    }
  ).results[0]!;
  const requests = r.sent + warmup;
  return { qps: r.qps, p99Ms: r.latencyMs.p99Ms, recall: r.recall?.mean ?? null, serverCpuUs: serverUs / requests, clientCpuUs: clientUs / requests };
}
