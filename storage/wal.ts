// The write-ahead log of a live collection: every write is a record appended here and made durable
// (fdatasync) before it is acknowledged; on start the log is replayed. Writers that arrive while a
// flush is on disk wait together for the next one (group commit: one write and one fdatasync for
// all of them), so durability costs one sync per batch of concurrent writers, not per write.
//
// File: an 8-byte magic "STRATWAL", u32 version, u32 reserved; then records
//   u32 payload length | u32 crc32 of (lsn, type, payload) | u64 lsn | u8 type | payload
// little-endian, lsn consecutive. Version 1 starts at lsn 1. Version 2 is a log whose head was cut
// off after a compaction (truncateThrough): it starts with a mark record (type WAL_MARK, empty) whose
// lsn is the cut, so the sequence, and the next lsn, carry on. A crash can leave the last record partly written (a torn
// tail): recovery stops at the first record that is short or fails its checksum and, if nothing
// valid follows it, truncates the file there and reports what it cut. A bad record followed by a
// good one is not a torn tail but damage in the middle of the log: it is refused (STRATA_INDEX_CORRUPT),
// never skipped, because the writes after it may depend on it.
import {
  closeSync,
  constants,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { type FileHandle, open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { fsyncDir, storageError } from '../common/durable-fs.js';
import { StrataError } from '../common/errors.js';

export const WAL_MAGIC = 'STRATWAL';
/** A log from lsn 1; a log whose head was cut off (it starts with a WAL_MARK record). */
export const WAL_VERSION = 1;
export const WAL_VERSION_CUT = 2;
/** Record type of the mark that starts a cut log (the types above it are the store's). */
export const WAL_MARK = 0;
/** Every this many records the log keeps (lsn, byte offset), to find where a cut begins without a scan. */
const MARK_EVERY = 64;
const HEADER_BYTES = 16;
const RECORD_HEAD = 17;
/** Largest payload a record may carry: a longer length field can only be damage. */
export const MAX_RECORD_BYTES = 64 << 20;

export interface WalRecord {
  lsn: bigint;
  type: number;
  payload: Uint8Array;
}

export interface RecoveryReport {
  records: number;
  /** Bytes of torn tail cut off (0: the log ended cleanly), and why the first cut record was rejected. */
  truncatedBytes: number;
  reason: string | null;
}

/** Errors that say the file may be read but not written (a read-only file system, or permissions). */
const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM']);

function checksum(buf: Uint8Array, from: number, to: number): number {
  return crc32(buf.subarray(from, to)) >>> 0;
}

function encodeRecord(lsn: bigint, type: number, payload: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(RECORD_HEAD + payload.length);
  b.writeUInt32LE(payload.length, 0);
  b.writeBigUInt64LE(lsn, 8);
  b.writeUInt8(type, 16);
  b.set(payload, RECORD_HEAD);
  b.writeUInt32LE(checksum(b, 8, b.length), 4);
  return b;
}

/** Parses the record at `at` of buf; null when it is short, oversized or fails its checksum. */
function parseAt(buf: Buffer, at: number, expectLsn: bigint | null): { record: WalRecord; end: number } | { bad: string } {
  if (buf.length - at < RECORD_HEAD) return { bad: `a record head needs ${RECORD_HEAD} bytes, ${buf.length - at} remain` };
  const len = buf.readUInt32LE(at);
  if (len > MAX_RECORD_BYTES) return { bad: `record length ${len} exceeds ${MAX_RECORD_BYTES}` };
  const end = at + RECORD_HEAD + len;
  if (end > buf.length) return { bad: `record of ${len} bytes is cut short at ${buf.length - at - RECORD_HEAD}` };
  if (checksum(buf, at + 8, end) !== buf.readUInt32LE(at + 4)) return { bad: 'checksum mismatch' };
  const lsn = buf.readBigUInt64LE(at + 8);
  if (expectLsn !== null && lsn !== expectLsn) return { bad: `sequence ${lsn} where ${expectLsn} was expected` };
  return { record: { lsn, type: buf.readUInt8(at + 16), payload: new Uint8Array(buf.subarray(at + RECORD_HEAD, end)) }, end };
}

/** Whether any valid record (checksum and length) starts after `from`: then the damage is not a torn tail. */
function validRecordAfter(buf: Buffer, from: number): number {
  for (let at = from + 1; at + RECORD_HEAD <= buf.length; at++) {
    if ('record' in parseAt(buf, at, null)) return at;
  }
  return -1;
}

/**
 * Walks the records of a whole log file (header included): those valid and in sequence, where they
 * end, and why the walk stopped before the end (a torn tail), or null. Damage followed by a valid
 * record is not a torn tail: STRATA_INDEX_CORRUPT.
 */
export function scanLog(
  buf: Buffer,
  file: string,
): { records: WalRecord[]; validEnd: number; reason: string | null; nextLsn: bigint; marks: Array<[bigint, number]>; cutAt: bigint } {
  if (buf.toString('latin1', 0, 8) !== WAL_MAGIC) throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: not a Strata write-ahead log (bad magic)`, { file });
  const version = buf.readUInt32LE(8);
  if (version !== WAL_VERSION && version !== WAL_VERSION_CUT)
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: write-ahead log version ${version}; this build reads ${WAL_VERSION} and ${WAL_VERSION_CUT}`, {
      file,
      version,
    });
  const records: WalRecord[] = [];
  const marks: Array<[bigint, number]> = [];
  let at = HEADER_BYTES;
  // A cut log starts at its mark's lsn (the cut); a whole one at 1.
  let next: bigint | null = version === WAL_VERSION ? 1n : null;
  let reason: string | null = null;
  let cutAt = 0n;
  while (at < buf.length) {
    const r = parseAt(buf, at, next);
    if ('bad' in r) {
      reason = r.bad;
      break;
    }
    if (next === null) {
      if (r.record.type !== WAL_MARK || r.record.payload.length > 0)
        throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: a cut log (version ${WAL_VERSION_CUT}) must start with its mark record`, { file });
      next = r.record.lsn;
      cutAt = next;
    } else records.push(r.record);
    if (next % BigInt(MARK_EVERY) === 0n) marks.push([next, at]);
    next++;
    at = r.end;
  }
  // A cut log torn inside its mark cannot be: the mark is written and synced with the header.
  next ??= 1n;
  if (reason !== null) {
    const later = validRecordAfter(buf, at);
    if (later >= 0)
      throw new StrataError(
        'STRATA_INDEX_CORRUPT',
        `${file}: record ${next} at byte ${at} is damaged (${reason}) but a valid record follows at byte ${later}: the log is corrupt in the middle, not torn at its end`,
        { file, offset: at, lsn: Number(next) },
      );
  }
  return { records, validEnd: at, reason, nextLsn: next, marks, cutAt };
}

/** Checks a log without changing it (strata verify): what recovery would keep and cut, and where its head was cut (0: never). */
export function checkLog(file: string): { records: WalRecord[]; report: RecoveryReport; cutAt: bigint } {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    throw storageError(file, 'read', e);
  }
  if (buf.length < HEADER_BYTES)
    return { records: [], report: { records: 0, truncatedBytes: buf.length, reason: buf.length > 0 ? 'header cut short' : null }, cutAt: 0n };
  const { records, validEnd, reason, cutAt } = scanLog(buf, file);
  return { records, report: { records: records.length, truncatedBytes: buf.length - validEnd, reason }, cutAt };
}

/** Where a cut log is written before it replaces the log (a leftover is removed on open). */
export const cutLogFile = (file: string): string => `${file}.cut`;

/** Removes a cut log a crash left before it replaced the log (the log itself is whole). */
function removeLeftoverCut(file: string): void {
  try {
    unlinkSync(cutLogFile(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && !READ_ONLY_CODES.has((e as NodeJS.ErrnoException).code ?? ''))
      throw storageError(cutLogFile(file), 'remove', e);
  }
}

/**
 * Reads and checks the log at `file` (created empty if missing), truncating a torn tail. Returns the
 * records in order and what was cut. Runs once, on open, before any append.
 */
export function recoverLog(file: string): {
  records: WalRecord[];
  report: RecoveryReport;
  nextLsn: bigint;
  writeRefusal: StrataError | null;
  marks: Array<[bigint, number]>;
  /** The lsn the log's head was cut at (its records up to it are gone), or 0. */
  cutAt: bigint;
} {
  removeLeftoverCut(file);
  let fd: number;
  // On a read-only file system (or directory) the log is read as it is: a torn tail is left in
  // place, not cut, and `writeRefusal` (why it cannot be written) makes WriteAheadLog.open refuse
  // every append.
  let writeRefusal: StrataError | null = null;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o644);
  } catch (e) {
    if (!READ_ONLY_CODES.has((e as NodeJS.ErrnoException).code ?? '')) throw storageError(file, 'open', e);
    writeRefusal = storageError(file, 'open for writing', e);
    try {
      fd = openSync(file, constants.O_RDONLY);
    } catch (e2) {
      throw storageError(file, 'open', e2);
    }
  }
  const readOnly = writeRefusal !== null;
  try {
    const size = fstatSync(fd).size;
    if (size < HEADER_BYTES && readOnly)
      return {
        records: [],
        report: { records: 0, truncatedBytes: 0, reason: size > 0 ? 'header cut short' : null },
        nextLsn: 1n,
        writeRefusal,
        marks: [],
        cutAt: 0n,
      };
    if (size < HEADER_BYTES) {
      // New, or torn while its header was being written (nothing was acknowledged before it).
      const h = Buffer.alloc(HEADER_BYTES);
      h.write(WAL_MAGIC, 0, 'latin1');
      h.writeUInt32LE(WAL_VERSION, 8);
      try {
        ftruncateSync(fd, 0);
        writeSync(fd, h, 0, HEADER_BYTES, 0);
        fdatasyncSync(fd);
      } catch (e) {
        throw storageError(file, 'initialise', e);
      }
      return {
        records: [],
        report: { records: 0, truncatedBytes: size, reason: size > 0 ? 'header cut short' : null },
        nextLsn: 1n,
        writeRefusal,
        marks: [],
        cutAt: 0n,
      };
    }
    const buf = Buffer.allocUnsafe(size);
    readSync(fd, buf, 0, size, 0);
    const { records, validEnd: at, reason, nextLsn: next, marks, cutAt } = scanLog(buf, file);
    if (reason !== null && !readOnly) {
      try {
        ftruncateSync(fd, at);
        fdatasyncSync(fd);
      } catch (e) {
        throw storageError(file, 'truncate', e);
      }
    }
    return { records, report: { records: records.length, truncatedBytes: size - at, reason }, nextLsn: next, writeRefusal, marks, cutAt };
  } finally {
    closeSync(fd);
  }
}

interface Pending {
  bytes: Buffer;
  lsn: bigint;
  resolve: (lsn: bigint) => void;
  reject: (e: Error) => void;
}

export class WriteAheadLog {
  private nextLsn: bigint;
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  /**
   * Once a write or sync failed, the file's tail is unknown: every later append fails too. Also set
   * from the start when the file could be opened for reading only.
   */
  private failed: StrataError | null = null;

  /** Why appends fail (a failed write, or a log opened read-only), or null while they are taken. */
  get refusal(): StrataError | null {
    return this.failed;
  }
  private closed = false;
  /** Flushes done and records they carried (group commit shows as records > flushes). */
  flushes = 0;
  flushedRecords = 0;

  /** (lsn, byte offset) of every MARK_EVERY-th record, oldest first: where a cut's tail starts is near one. */
  private marks: Array<[bigint, number]>;
  /** Bytes of records the last cuts removed (truncateThrough). */
  cutBytes = 0;

  private constructor(
    readonly file: string,
    private fh: FileHandle,
    private offset: number,
    nextLsn: bigint,
    marks: Array<[bigint, number]>,
  ) {
    this.nextLsn = nextLsn;
    this.marks = marks;
  }

  /** Recovers the log (see recoverLog) and opens it for appending; cutAt: where its head was cut (0: never). */
  static async open(file: string): Promise<{ wal: WriteAheadLog; records: WalRecord[]; report: RecoveryReport; cutAt: bigint }> {
    const { records, report, nextLsn, writeRefusal, marks, cutAt } = recoverLog(file);
    let fh: FileHandle;
    try {
      // A log that cannot be written is still read (replayed, copied into snapshots) and the
      // collection serves searches; every write is refused, naming why.
      fh = await open(file, writeRefusal === null ? 'r+' : 'r');
    } catch (e) {
      throw storageError(file, 'open', e);
    }
    const size = (await fh.stat()).size;
    const wal = new WriteAheadLog(file, fh, size, nextLsn, marks);
    wal.failed = writeRefusal;
    return { wal, records, report, cutAt };
  }

  /** Bytes of the file that are durable: whole records, each already fdatasync'ed (a snapshot copies these). */
  get durableBytes(): number {
    return this.offset;
  }

  /** Appends one record; resolves with its lsn once it is on disk (fdatasync), never before. */
  append(type: number, payload: Uint8Array): Promise<bigint> {
    if (this.closed) return Promise.reject(new StrataError('STRATA_SHUTTING_DOWN', `${this.file}: the log is closed`, { file: this.file }));
    if (this.failed) return Promise.reject(this.failed);
    if (payload.length > MAX_RECORD_BYTES)
      return Promise.reject(new StrataError('STRATA_PAYLOAD_TOO_LARGE', `a log record holds at most ${MAX_RECORD_BYTES} bytes`, { limit: MAX_RECORD_BYTES }));
    const lsn = this.nextLsn++;
    return new Promise<bigint>((resolve, reject) => {
      this.queue.push({ bytes: encodeRecord(lsn, type, payload), lsn, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Writes what is queued, one batch per write + fdatasync, until the queue is empty. */
  private async flushLoop(): Promise<void> {
    // Appends made in the same turn of the event loop join the first write.
    await Promise.resolve();
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const bytes = batch.length === 1 ? batch[0]!.bytes : Buffer.concat(batch.map((p) => p.bytes));
      try {
        if (this.failed) throw this.failed;
        let done = 0;
        while (done < bytes.length) {
          const { bytesWritten } = await this.fh.write(bytes, done, bytes.length - done, this.offset + done);
          done += bytesWritten;
        }
        await this.fh.datasync();
        let at = this.offset;
        for (const p of batch) {
          if (p.lsn % BigInt(MARK_EVERY) === 0n) this.marks.push([p.lsn, at]);
          at += p.bytes.length;
        }
        this.offset += bytes.length;
        this.flushes++;
        this.flushedRecords += batch.length;
        for (const p of batch) p.resolve(p.lsn);
      } catch (e) {
        this.failed ??= e instanceof StrataError ? e : storageError(this.file, 'append to', e);
        for (const p of batch) p.reject(this.failed);
        for (const p of this.queue) p.reject(this.failed);
        this.queue = [];
      }
    }
    this.flushing = null;
  }

  /** The lsn the next append gets. */
  get next(): bigint {
    return this.nextLsn;
  }

  /**
   * Cuts the log's head: the records up to `cut` (held by a compacted base now) are dropped, the
   * later ones kept, in a log of version 2 that starts with a mark at `cut`. The new log is written
   * beside the old one, synced, and renamed over it; appends wait meanwhile (they hold the file) and
   * resume on the new one, which is durable by then (the directory synced too). A crash before the
   * rename leaves the old log (a leftover is removed on open); after it, the new one: replay skips
   * what the base holds in either case. Resolves with the bytes removed (0 if there was nothing).
   */
  async truncateThrough(cut: bigint): Promise<number> {
    if (this.closed || this.failed) return 0;
    while (this.flushing) await this.flushing;
    if (this.closed || this.failed) return 0;
    let release!: () => void;
    this.flushing = new Promise<void>((r) => {
      release = r;
    });
    const tmp = cutLogFile(this.file);
    let nfh: FileHandle | null = null;
    let renamed = false;
    try {
      const start = await this.offsetOf(cut + 1n);
      if (start <= HEADER_BYTES + RECORD_HEAD) return 0;
      const tail = Buffer.allocUnsafe(this.offset - start);
      for (let done = 0; done < tail.length; ) {
        const { bytesRead } = await this.fh.read(tail, done, tail.length - done, start + done);
        if (bytesRead === 0) throw new StrataError('STRATA_INDEX_CORRUPT', `${this.file}: shorter than its ${this.offset} durable bytes`, { file: this.file });
        done += bytesRead;
      }
      const head = Buffer.alloc(HEADER_BYTES);
      head.write(WAL_MAGIC, 0, 'latin1');
      head.writeUInt32LE(WAL_VERSION_CUT, 8);
      const mark = encodeRecord(cut, WAL_MARK, new Uint8Array(0));
      const bytes = Buffer.concat([head, mark, tail]);
      nfh = await open(tmp, 'w+');
      for (let done = 0; done < bytes.length; ) done += (await nfh.write(bytes, done, bytes.length - done, done)).bytesWritten;
      await nfh.datasync();
      // One synchronous step: the name moves to the new file as the writer moves to it, so a reader of
      // the log (openLogPrefix) sees either file whole with its own length.
      renameSync(tmp, this.file);
      renamed = true;
      const old = this.fh;
      this.fh = nfh;
      nfh = null;
      const removed = start - HEADER_BYTES - mark.length;
      this.offset = bytes.length;
      this.marks = this.marks.filter(([lsn]) => lsn > cut).map(([lsn, off]) => [lsn, off - removed]);
      this.cutBytes += removed;
      fsyncDir(dirname(this.file));
      await old.close();
      return removed;
    } catch (e) {
      const err = e instanceof StrataError ? e : storageError(this.file, 'cut the head of', e);
      // Before the rename nothing changed for the writer: the old log stays, whole, and takes
      // appends. After it, a failed directory sync leaves the name's durability unknown: refuse.
      if (renamed) this.failed ??= err;
      else rmSync(tmp, { force: true });
      throw err;
    } finally {
      await nfh?.close().catch(() => {});
      this.flushing = null;
      release();
      if (this.queue.length > 0) this.flushing = this.flushLoop();
    }
  }

  /** Byte offset of record `lsn` (the log's end if it is past the last): from the nearest mark, reading forward. */
  private async offsetOf(lsn: bigint): Promise<number> {
    if (lsn >= this.nextLsn) return this.offset;
    let from = HEADER_BYTES;
    for (let i = this.marks.length - 1; i >= 0; i--) {
      if (this.marks[i]![0] <= lsn) {
        from = this.marks[i]![1];
        break;
      }
    }
    const head = Buffer.allocUnsafe(RECORD_HEAD);
    for (let at = from; at < this.offset; ) {
      await this.fh.read(head, 0, RECORD_HEAD, at);
      if (head.readBigUInt64LE(8) >= lsn) return at;
      at += RECORD_HEAD + head.readUInt32LE(0);
    }
    return this.offset;
  }

  /** Waits for queued appends, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.fh.close();
  }
}
