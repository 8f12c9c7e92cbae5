// What the shared write log costs: upserts through NATS JetStream (two replicas following one
// stream) vs the same upserts into a collection's own log, fdatasync on both, and how long the second
// replica lags the one that took the write. Starts Debian's nats-server itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import * as hdr from 'hdr-histogram-js';
import { mulberry32 } from '../common/random.js';
import type { Collection } from '../engine/collection.js';
import { Engine } from '../engine/engine.js';

const o = new Command()
  .option('--seconds <n>', 'seconds per row', Number, 3)
  .option('--nats-server <path>', 'the nats-server binary', '/usr/sbin/nats-server')
  .option('--json <file>', 'also write the figures as JSON')
  .parse(process.argv)
  .opts<{ seconds: number; natsServer: string; json?: string }>();

const DIM = 100;
const tmp = mkdtempSync(join(tmpdir(), 'strata-replication-'));
const rnd = mulberry32(5);
const vector = (): Float32Array => Float32Array.from({ length: DIM }, () => rnd() * 2 - 1);

async function startNats(): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(o.natsServer, ['-js', '-sd', join(tmp, 'js'), '-a', '127.0.0.1', '-p', '-1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const port = await new Promise<number>((resolve, reject) => {
    const seen = (d: Buffer): void => {
      log += d.toString();
      const m = /Listening for client connections on [\d.]+:(\d+)/.exec(log);
      if (m) resolve(Number(m[1]));
    };
    proc.stdout!.on('data', seen);
    proc.stderr!.on('data', seen);
    proc.on('exit', (code) => reject(new Error(`nats-server exited (${code}): ${log}`)));
  });
  return { proc, url: `nats://127.0.0.1:${port}` };
}

interface Row {
  mode: string;
  batch: number;
  writers: number;
  pointsPerSecond: number;
  p50ms: number;
  p99ms: number;
}

/** Upserts for o.seconds from `writers` concurrent writers, `batch` points each; ids never repeat. */
async function upserts(c: Collection, mode: string, batch: number, writers: number, next: { id: number }): Promise<Row> {
  const h = hdr.build();
  let points = 0;
  const until = performance.now() + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (performance.now() < until) {
        const pts = Array.from({ length: batch }, () => ({ key: next.id++, vector: vector(), payload: null }));
        const t0 = performance.now();
        await c.upsert(pts);
        h.recordValue(Math.round((performance.now() - t0) * 1000));
        points += batch;
      }
    }),
  );
  return { mode, batch, writers, pointsPerSecond: points / o.seconds, p50ms: h.getValueAtPercentile(50) / 1000, p99ms: h.getValueAtPercentile(99) / 1000 };
}

const nats = await startNats();
const lines: string[] = [];
const rows: Row[] = [];
let lag: { p50ms: number; p99ms: number; writes: number } | null = null;
try {
  const cfg = { dim: DIM, metric: 'cosine' as const, m: 16, efConstruction: 100 };
  const local = await Engine.open([], { searchThreads: 0, dataDir: join(tmp, 'local') });
  const a = await Engine.open([], { searchThreads: 0, dataDir: join(tmp, 'a'), writeLog: { servers: nats.url, stream: 'bench-shard' } });
  const b = await Engine.open([], { searchThreads: 0, dataDir: join(tmp, 'b'), writeLog: { servers: nats.url, stream: 'bench-shard' } });
  try {
    const cl = await local.createCollection({ name: 'c', ...cfg });
    const ca = await a.createCollection({ name: 'c', ...cfg });
    const cb = await b.createCollection({ name: 'c', ...cfg });
    const next = { id: 0 };
    // Alternating rows, so drift on this shared machine hits both modes alike.
    for (const [batch, writers] of [
      [1, 1],
      [1, 16],
      [100, 1],
    ] as const) {
      rows.push(await upserts(cl, 'own log only', batch, writers, next));
      rows.push(await upserts(ca, 'shared log (JetStream), 2 replicas', batch, writers, next));
    }
    // Lag: a write answered by A (applied there) until B has applied it, one write at a time.
    const h = hdr.build();
    let writes = 0;
    const until = performance.now() + o.seconds * 1000;
    while (performance.now() < until) {
      const seq = await ca.upsert([{ key: next.id++, vector: vector(), payload: null }]);
      const t0 = performance.now();
      await cb.waitForWriteSeq(Number(seq));
      h.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
      writes++;
    }
    lag = { p50ms: h.getValueAtPercentile(50) / 1000, p99ms: h.getValueAtPercentile(99) / 1000, writes };
    if (cb.count() !== ca.count()) throw new Error(`replica B holds ${cb.count()} points, A ${ca.count()}`);
  } finally {
    await local.close();
    await a.close();
    await b.close();
  }
} finally {
  nats.proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}

lines.push(
  `replication-bench: ${DIM}-d cosine points, upserts in process (wait: durable and applied), ${o.seconds} s per row, one nats-server on loopback (file storage)`,
);
lines.push('', '| log | batch | writers | points/s | p50 ms | p99 ms |', '|---|---|---|---|---|---|');
for (const r of rows) lines.push(`| ${r.mode} | ${r.batch} | ${r.writers} | ${r.pointsPerSecond.toFixed(0)} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} |`);
if (lag)
  lines.push(
    '',
    `Replica lag (a write answered by one replica until the other has applied it, ${lag.writes} writes): p50 ${lag.p50ms.toFixed(2)} ms, p99 ${lag.p99ms.toFixed(2)} ms.`,
  );
process.stdout.write(`${lines.join('\n')}\n`);
if (o.json) writeFileSync(o.json, `${JSON.stringify({ node: process.version, date: new Date().toISOString(), dim: DIM, rows, lag }, null, 2)}\n`);
