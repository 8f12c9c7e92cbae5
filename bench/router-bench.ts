// The router's overhead: QPS, p99 and recall through `strata router` over 3 shard servers vs one
// `strata serve` of all the data, driven by `strata loadgen`; every process shares this machine's
// cores, so the ratio prices the whole fan-out on one machine (docs/benchmarks.md says how to read it).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { projectRoot } from '../common/paths.js';

const STRATA = join(projectRoot(), 'bin', 'strata.js');

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [STRATA, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`strata ${args[0]} exited ${code}: ${err.slice(-2000)}`))));
  });
}

/** A long-running child that prints "REST  <url>" once it listens. */
function start(args: string[], nodeFlags: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, STRATA, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /REST {2}(http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`strata ${args[0]} exited ${code} before listening`)));
  });
}

const o = new Command()
  .option('--count <n>', 'vectors', Number, 50_000)
  .option('--duration <s>', 'seconds per loadgen step', Number, 5)
  .option('--shard-threads <n>', 'search threads of each shard server', Number, 1)
  .option('--json <file>', 'also write the figures as JSON')
  .parse(process.argv)
  .opts<{ count: number; duration: number; shardThreads: number; json?: string }>();

const tmp = mkdtempSync(join(tmpdir(), 'strata-router-bench-'));
const children: ChildProcess[] = [];
try {
  const data = join(tmp, 'data');
  await run(['generate', '--out-dir', data, '--count', String(o.count), '--queries', '500', '--kind', 'embedding', '--dim', '100']);
  const base = join(data, 'base.fvecs');
  const build = ['--metric', 'cosine', '--name', 'bench'];
  await run(['build', base, '--out', join(tmp, 'single'), ...build]);
  await run(['build', base, '--out', join(tmp, 'set'), '--shards', '3', ...build]);
  const serveArgs = ['--name', 'bench', '--port', '0', '--no-grpc', '--search-threads', '1', '--log-level', 'silent'];
  const single = await start(['serve', join(tmp, 'single'), ...serveArgs]);
  children.push(single.child);
  const shards = [];
  // --shard-threads 0 searches on each shard's main thread: three servers on two cores then run 3
  // threads instead of 6 (docs/benchmarks.md §6 compares both).
  const shardArgs = serveArgs.map((a, i) => (serveArgs[i - 1] === '--search-threads' ? String(o.shardThreads) : a));
  for (let s = 0; s < 3; s++) {
    const sh = await start(['serve', join(tmp, 'set', `shard-${s}`), ...shardArgs]);
    children.push(sh.child);
    shards.push(sh.url);
  }
  // STRATA_BENCH_PROFILE=dir: the router's CPU profile (written when it stops, at the end).
  const prof = process.env['STRATA_BENCH_PROFILE'];
  const router = await start(
    ['router', '--shards', shards.join(','), '--shard-map', join(tmp, 'set'), '--port', '0', '--log-level', 'silent'],
    prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : [],
  );
  children.push(router.child);

  const rows: Array<Record<string, number | string>> = [];
  for (const concurrency of [8, 32]) {
    for (const [label, url] of [
      ['one server, all data', single.url],
      ['router over 3 shards', router.url],
    ] as const) {
      const report = join(tmp, `r-${concurrency}-${rows.length}.json`);
      await run([
        'loadgen',
        ...['--url', url, '--collection', 'bench', '-q', join(data, 'query.fvecs'), '--gt', join(data, 'groundtruth.ivecs'), '--protocol', 'msgpack'],
        ...['--concurrency', String(concurrency), '--ef', '64', '--duration', String(o.duration), '--warmup', '300', '--no-progress', '--report', report],
        // The router refuses with_stats (the shards' stats do not add up to one search's): ask for none.
        ...['--stats-every', '0'],
      ]);
      const r = (
        JSON.parse(readFileSync(report, 'utf8')) as {
          results: Array<{ qps: number; latencyMs: { p50Ms: number; p99Ms: number }; recall: { mean: number } | null }>;
        }
      ).results[0]!;
      rows.push({ concurrency, target: label, qps: r.qps, p50Ms: r.latencyMs.p50Ms, p99Ms: r.latencyMs.p99Ms, recall: r.recall?.mean ?? Number.NaN });
    }
  }
  const lines = [
    `${o.count} × 100 angular (cosine), ef 64, limit 10, MessagePack; one server: 1 search thread; shards: ${o.shardThreads} search thread(s) each; loadgen ${o.duration} s per row`,
    '',
    '| clients | target | QPS | p50 ms | p99 ms | recall@10 | QPS ratio router / one server |',
    '|---|---|---|---|---|---|---|',
  ];
  for (let i = 0; i < rows.length; i += 2) {
    const a = rows[i]!;
    const b = rows[i + 1]!;
    for (const r of [a, b])
      lines.push(
        `| ${r.concurrency} | ${r.target} | ${Math.round(Number(r.qps))} | ${Number(r.p50Ms).toFixed(2)} | ${Number(r.p99Ms).toFixed(2)} | ${Number(r.recall).toFixed(4)} | ${r === b ? (Number(b.qps) / Number(a.qps)).toFixed(2) : ''} |`,
      );
  }
  console.log(lines.join('\n'));
  if (o.json) writeFileSync(o.json, `${JSON.stringify({ node: process.version, date: new Date().toISOString(), count: o.count, rows }, null, 2)}\n`);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1500));
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}
