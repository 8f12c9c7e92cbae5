// Write-ahead log appends/s with fdatasync on: one append at a time (each waits for its own sync)
// against 100 in flight (group commit: one sync for all that arrived during the previous).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { WriteAheadLog } from '../storage/wal.js';

async function run(dir: string, inFlight: number, seconds: number, bytes: number): Promise<{ recordsPerSecond: number; recordsPerSync: number }> {
  const file = join(dir, `wal-${inFlight}.log`);
  const { wal } = await WriteAheadLog.open(file);
  const payload = new Uint8Array(bytes).fill(7);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) {
    await Promise.all(Array.from({ length: inFlight }, () => wal.append(1, payload)));
    n += inFlight;
  }
  const s = (performance.now() - t0) / 1000;
  const out = { recordsPerSecond: n / s, recordsPerSync: wal.flushedRecords / wal.flushes };
  await wal.close();
  return out;
}

const o = new Command()
  .option('--seconds <n>', 'seconds per row', Number, 2)
  .option('--bytes <n>', 'payload bytes per record', Number, 512)
  .option('--dir <dir>', 'where the log is written (default: the OS temp dir)')
  .parse(process.argv)
  .opts<{ seconds: number; bytes: number; dir?: string }>();
const dir = mkdtempSync(join(o.dir ?? tmpdir(), 'strata-wal-'));
try {
  console.log(`| appends in flight | records/s | records per fdatasync |\n|---|---|---|`);
  for (const k of [1, 100]) {
    const r = await run(dir, k, o.seconds, o.bytes);
    console.log(`| ${k} | ${Math.round(r.recordsPerSecond)} | ${r.recordsPerSync.toFixed(1)} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
