import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isStrataError } from '../../common/errors.js';
import { cutLogFile, recoverLog, WAL_VERSION_CUT, WriteAheadLog } from '../../storage/wal.js';
import { makeTempDir, type TempDir, thrown } from '../helpers/temp.js';

let tmp: TempDir;
afterEach(() => tmp?.cleanup());

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

/** The payload the crash-test writer (wal-writer.mjs) gives seed s. */
function payloadOf(s: number): Uint8Array {
  const n = 1 + (s % 3000);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (s * 31 + i * 7) & 255;
  return b;
}

describe('write-ahead log', () => {
  it('returns every acknowledged record after reopening, in order, and commits concurrent appends in groups', async () => {
    tmp = makeTempDir();
    const file = tmp.path('wal.log');
    const { wal, records, report } = await WriteAheadLog.open(file);
    expect(records).toEqual([]);
    expect(report.truncatedBytes).toBe(0);
    const lsns = await Promise.all(Array.from({ length: 200 }, (_, i) => wal.append(i % 7, bytes(`record ${i}`))));
    expect(lsns).toEqual(Array.from({ length: 200 }, (_, i) => BigInt(i + 1)));
    // 200 appends in flight at once: far fewer fsyncs than records.
    expect(wal.flushedRecords).toBe(200);
    expect(wal.flushes).toBeLessThan(50);
    await wal.close();
    const again = await WriteAheadLog.open(file);
    expect(again.records.map((r) => text(r.payload))).toEqual(Array.from({ length: 200 }, (_, i) => `record ${i}`));
    expect(again.records.map((r) => r.type)).toEqual(Array.from({ length: 200 }, (_, i) => i % 7));
    expect(await again.wal.append(1, bytes('next'))).toBe(201n);
    await again.wal.close();
  });

  it('truncates a torn tail, reports it, and appends after the last whole record', async () => {
    tmp = makeTempDir();
    const file = tmp.path('wal.log');
    const { wal } = await WriteAheadLog.open(file);
    for (let i = 0; i < 5; i++) await wal.append(1, bytes(`r${i}`.repeat(20)));
    await wal.close();
    const whole = statSync(file).size;
    // A sixth record, cut in the middle as a crash during its write would leave it.
    const { wal: w2 } = await WriteAheadLog.open(file);
    await w2.append(1, bytes('x'.repeat(100)));
    await w2.close();
    truncateSync(file, whole + 40);
    const r = await WriteAheadLog.open(file);
    expect(r.records).toHaveLength(5);
    expect(r.report.truncatedBytes).toBe(40);
    expect(r.report.reason).toMatch(/cut short/);
    expect(statSync(file).size).toBe(whole);
    expect(await r.wal.append(2, bytes('after'))).toBe(6n);
    await r.wal.close();
    expect(
      recoverLog(file)
        .records.map((x) => text(x.payload))
        .at(-1),
    ).toBe('after');
  });

  it('treats garbage at the end (zeros, random bytes) as a torn tail', async () => {
    tmp = makeTempDir();
    const file = tmp.path('wal.log');
    const { wal } = await WriteAheadLog.open(file);
    await wal.append(1, bytes('kept'));
    await wal.close();
    appendFileSync(file, Buffer.alloc(300));
    expect(recoverLog(file)).toMatchObject({ report: { records: 1, truncatedBytes: 300 } });
    appendFileSync(file, Buffer.from([7, 0, 0, 0, 1, 2, 3, 4, 9]));
    const r = recoverLog(file);
    expect(r.records.map((x) => text(x.payload))).toEqual(['kept']);
    expect(r.report.truncatedBytes).toBe(9);
  });

  it('refuses a log damaged in the middle instead of dropping the records after the damage', async () => {
    tmp = makeTempDir();
    const file = tmp.path('wal.log');
    const { wal } = await WriteAheadLog.open(file);
    for (let i = 0; i < 5; i++) await wal.append(1, bytes(`payload number ${i}`));
    await wal.close();
    const buf = readFileSync(file);
    const size = buf.length;
    // Flip a payload byte of the second record (16-byte header, 17-byte record heads, 16-byte payloads).
    buf[16 + 33 + 17 + 3]! ^= 0xff;
    writeFileSync(file, buf);
    const err = thrown(() => recoverLog(file));
    expect(isStrataError(err, 'STRATA_INDEX_CORRUPT')).toBe(true);
    expect((err as Error).message).toMatch(/record 2 .*damaged.*corrupt in the middle/);
    expect(statSync(file).size).toBe(size);
  });

  it('refuses a file that is not a log, and a log of another version, with typed errors', () => {
    tmp = makeTempDir();
    const file = tmp.path('wal.log');
    writeFileSync(file, Buffer.from('NOTAWAL!\x01\0\0\0\0\0\0\0'));
    expect(() => recoverLog(file)).toThrow(/bad magic/);
    // Versions 1 (a whole log) and 2 (a log whose head was cut) are read; 3 is not.
    const v3 = Buffer.alloc(16);
    v3.write('STRATWAL', 0, 'latin1');
    v3.writeUInt32LE(3, 8);
    writeFileSync(file, v3);
    const err = thrown(() => recoverLog(file));
    expect(isStrataError(err, 'STRATA_INDEX_VERSION')).toBe(true);
  });

  it('fails appends with STRATA_STORAGE when the file cannot be written, and acknowledges none of them', async () => {
    tmp = makeTempDir();
    const file = tmp.path('wal.log');
    const { wal } = await WriteAheadLog.open(file);
    await wal.append(1, bytes('durable'));
    // The file handle goes away under the log, as on a failing disk: every write now errors.
    await (wal as unknown as { fh: { close(): Promise<void> } }).fh.close();
    const results = await Promise.allSettled([wal.append(1, bytes('a')), wal.append(1, bytes('b'))]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect(isStrataError((r as PromiseRejectedResult).reason, 'STRATA_STORAGE')).toBe(true);
    }
    await expect(wal.append(1, bytes('c'))).rejects.toMatchObject({ code: 'STRATA_STORAGE' });
    expect(recoverLog(file).records.map((x) => text(x.payload))).toEqual(['durable']);
  });

  it('on a full disk (a file-size limit cutting a write short) fails with STRATA_STORAGE, keeps every acknowledged record and truncates the torn write', async () => {
    tmp = makeTempDir();
    const file = tmp.path('wal.log');
    const writer = join(__dirname, 'wal-writer.mjs');
    // RLIMIT_FSIZE: writes past 256 KiB fail with EFBIG after writing what fits, as a full disk does.
    const child = spawn('bash', ['-c', `ulimit -f 256 && exec "${process.execPath}" "${writer}" "${file}" 0`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    await new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const acked = new Map<bigint, number>();
    for (const line of out.split('\n')) {
      const m = /^ack (\d+) (\d+)$/.exec(line);
      if (m) acked.set(BigInt(m[1]!), Number(m[2]!));
    }
    expect(out).toMatch(/^error STRATA_STORAGE EFBIG$/m);
    expect(acked.size).toBeGreaterThan(0);
    const { records, report } = recoverLog(file);
    const byLsn = new Map(records.map((r) => [r.lsn, r]));
    for (const [lsn, s] of acked) expect(Buffer.from(byLsn.get(lsn)!.payload).equals(Buffer.from(payloadOf(s)))).toBe(true);
    records.forEach((r, i) => expect(r.lsn).toBe(BigInt(i + 1)));
    // The write that hit the limit left part of a batch behind: cut off and reported.
    expect(report.truncatedBytes).toBeGreaterThan(0);
    expect(statSync(file).size).toBeLessThanOrEqual(256 * 1024);
  });

  it(
    'loses no acknowledged record when its writer is killed with SIGKILL at random moments',
    async () => {
      tmp = makeTempDir();
      const file = tmp.path('wal.log');
      const writer = join(__dirname, 'wal-writer.mjs');
      const acked = new Map<bigint, number>();
      let seed = 0;
      const cycles = Number(process.env['STRATA_WAL_CRASH_CYCLES'] ?? 6);
      let truncations = 0;
      for (let cycle = 0; cycle < cycles; cycle++) {
        const child = spawn(process.execPath, [writer, file, String(seed)], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        const ready = new Promise<void>((resolve) => {
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.startsWith('ready')) resolve();
          });
        });
        const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
        await ready;
        await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 150)));
        child.kill('SIGKILL');
        await exited;
        for (const line of out.split('\n')) {
          const m = /^ack (\d+) (\d+)$/.exec(line);
          if (m) acked.set(BigInt(m[1]!), Number(m[2]!));
        }
        const { records, report } = recoverLog(file);
        if (report.truncatedBytes > 0) truncations++;
        const byLsn = new Map(records.map((r) => [r.lsn, r]));
        // Every acknowledged record is there, whole, with the content it was acknowledged with.
        for (const [lsn, s] of acked) {
          const r = byLsn.get(lsn);
          expect(r, `lsn ${lsn} acknowledged, lost after cycle ${cycle}`).toBeDefined();
          expect(r!.type).toBe(s % 251);
          expect(Buffer.from(r!.payload).equals(Buffer.from(payloadOf(s)))).toBe(true);
        }
        // Records are consecutive from 1: nothing half-applied, nothing skipped.
        records.forEach((r, i) => expect(r.lsn).toBe(BigInt(i + 1)));
        // The next writer uses fresh seeds (records are matched to their content by lsn).
        seed += 1_000_000;
      }
      expect(acked.size).toBeGreaterThan(0);
      console.info(`WAL crash test: ${cycles} SIGKILL cycles, ${acked.size} acknowledged records, 0 lost, ${truncations} torn tails truncated`);
    },
    Math.max(60_000, 3000 * Number(process.env['STRATA_WAL_CRASH_CYCLES'] ?? 6)),
  );

  it('cuts its head after a compaction: later records kept with their lsns, appends during the cut all kept, and the sequence carries on', async () => {
    tmp = makeTempDir();
    const file = tmp.path('wal.log');
    const { wal } = await WriteAheadLog.open(file);
    for (let i = 1; i <= 300; i++) await wal.append(1 + (i % 3), bytes(`record ${i} `.repeat(5)));
    const whole = statSync(file).size;
    // Appends in flight while the cut runs: they wait for it and land in the new log.
    const during = Array.from({ length: 50 }, (_, i) => wal.append(1, bytes(`during ${i}`)));
    const removed = await wal.truncateThrough(200n);
    const lsns = await Promise.all(during);
    expect(lsns).toEqual(Array.from({ length: 50 }, (_, i) => BigInt(301 + i)));
    expect(removed).toBeGreaterThan(0);
    expect(statSync(file).size).toBeLessThan(whole);
    expect(await wal.append(1, bytes('after'))).toBe(351n);
    await wal.close();
    const again = await WriteAheadLog.open(file);
    expect(again.cutAt).toBe(200n);
    expect(again.records.map((r) => r.lsn)).toEqual(Array.from({ length: 151 }, (_, i) => BigInt(201 + i)));
    expect(text(again.records[0]!.payload)).toBe('record 201 '.repeat(5));
    expect(text(again.records[100]!.payload)).toBe('during 0');
    expect(text(again.records[150]!.payload)).toBe('after');
    // A second cut, and cuts at or before the last one, which remove nothing.
    expect(await again.wal.truncateThrough(250n)).toBeGreaterThan(0);
    expect(await again.wal.truncateThrough(250n)).toBe(0);
    expect(await again.wal.truncateThrough(100n)).toBe(0);
    expect(await again.wal.append(1, bytes('last'))).toBe(352n);
    await again.wal.close();
    const third = await WriteAheadLog.open(file);
    expect(third.cutAt).toBe(250n);
    expect(third.records.map((r) => r.lsn)).toEqual(Array.from({ length: 102 }, (_, i) => BigInt(251 + i)));
    // Cut past the last record: the log keeps only its mark, and the next lsn.
    expect(await third.wal.truncateThrough(352n)).toBeGreaterThan(0);
    await third.wal.close();
    const empty = await WriteAheadLog.open(file);
    expect(empty.records).toEqual([]);
    expect(empty.cutAt).toBe(352n);
    expect(await empty.wal.append(1, bytes('on'))).toBe(353n);
    await empty.wal.close();
  });

  it('removes a cut log a crash left before it replaced the log, and refuses a cut log without its mark', async () => {
    tmp = makeTempDir();
    const file = tmp.path('wal.log');
    const { wal } = await WriteAheadLog.open(file);
    for (let i = 1; i <= 10; i++) await wal.append(1, bytes(`r${i}`));
    await wal.close();
    writeFileSync(cutLogFile(file), 'half a cut log');
    const r = await WriteAheadLog.open(file);
    expect(r.records).toHaveLength(10);
    expect(existsSync(cutLogFile(file))).toBe(false);
    await r.wal.close();
    // Version 2 whose first record is an ordinary one.
    const b = readFileSync(file);
    b.writeUInt32LE(WAL_VERSION_CUT, 8);
    writeFileSync(file, b);
    const e: unknown = await WriteAheadLog.open(file).then(
      () => null,
      (x: unknown) => x,
    );
    expect(isStrataError(e) && e.code).toBe('STRATA_INDEX_CORRUPT');
    expect((e as Error).message).toMatch(/must start with its mark record/);
  });
});
