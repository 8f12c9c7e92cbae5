// The write-ahead log of a live collection: every write is a record appended here and made durable
// (fdatasync) before it is acknowledged; on start the log is replayed. Writers that arrive while a
// flush is on disk wait together for the next one (group commit: one write and one fdatasync for
// all of them), so durability costs one sync per batch of concurrent writers, not per write.
//
// File: an 8-byte magic "STRATWAL", u32 version, u32 reserved; then records
//   u32 payload length | u32 crc32 of (lsn, type, payload) | u64 lsn | u8 type | payload
// little-endian, lsn consecutive from 1. A crash can leave the last record partly written (a torn
// tail): recovery stops at the first record that is short or fails its checksum and, if nothing
// valid follows it, truncates the file there and reports what it cut. A bad record followed by a
// good one is not a torn tail but damage in the middle of the log: it is refused (STRATA_INDEX_CORRUPT),
// never skipped, because the writes after it may depend on it.
import { closeSync, constants, fdatasyncSync, fstatSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { StrataError } from '../../common/errors.js';

export const WAL_MAGIC = 'STRATWAL';
export const WAL_VERSION = 1;
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

/** Storage failures (disk full, read-only file system, no permission) as one typed error naming the file. */
/** Errors that say the file may be read but not written (a read-only file system, or permissions). */
const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM']);

export function storageError(file: string, op: string, e: unknown): StrataError {
  const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
  return new StrataError('STRATA_STORAGE', `${op} ${file} failed (${code}): the write was not acknowledged`, { file, errno: code }, { cause: e });
}

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
export function scanLog(buf: Buffer, file: string): { records: WalRecord[]; validEnd: number; reason: string | null } {
  if (buf.toString('latin1', 0, 8) !== WAL_MAGIC) throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: not a Strata write-ahead log (bad magic)`, { file });
  const version = buf.readUInt32LE(8);
  if (version !== WAL_VERSION)
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: write-ahead log version ${version}; this build reads ${WAL_VERSION}`, { file, version });
  const records: WalRecord[] = [];
  let at = HEADER_BYTES;
  let next = 1n;
  let reason: string | null = null;
  while (at < buf.length) {
    const r = parseAt(buf, at, next);
    if ('bad' in r) {
      reason = r.bad;
      break;
    }
    records.push(r.record);
    next++;
    at = r.end;
  }
  if (reason !== null) {
    const later = validRecordAfter(buf, at);
    if (later >= 0)
      throw new StrataError(
        'STRATA_INDEX_CORRUPT',
        `${file}: record ${next} at byte ${at} is damaged (${reason}) but a valid record follows at byte ${later}: the log is corrupt in the middle, not torn at its end`,
        { file, offset: at, lsn: Number(next) },
      );
  }
  return { records, validEnd: at, reason };
}

/** Checks a log without changing it (strata verify): what recovery would keep and cut. */
export function checkLog(file: string): { records: WalRecord[]; report: RecoveryReport } {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    throw storageError(file, 'read', e);
  }
  if (buf.length < HEADER_BYTES) return { records: [], report: { records: 0, truncatedBytes: buf.length, reason: buf.length > 0 ? 'header cut short' : null } };
  const { records, validEnd, reason } = scanLog(buf, file);
  return { records, report: { records: records.length, truncatedBytes: buf.length - validEnd, reason } };
}

/**
 * Reads and checks the log at `file` (created empty if missing), truncating a torn tail. Returns the
 * records in order and what was cut. Runs once, on open, before any append.
 */
export function recoverLog(file: string): { records: WalRecord[]; report: RecoveryReport; nextLsn: bigint; writeRefusal: StrataError | null } {
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
      return { records: [], report: { records: 0, truncatedBytes: 0, reason: size > 0 ? 'header cut short' : null }, nextLsn: 1n, writeRefusal };
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
      return { records: [], report: { records: 0, truncatedBytes: size, reason: size > 0 ? 'header cut short' : null }, nextLsn: 1n, writeRefusal };
    }
    const buf = Buffer.allocUnsafe(size);
    readSync(fd, buf, 0, size, 0);
    const { records, validEnd: at, reason } = scanLog(buf, file);
    const next = BigInt(records.length + 1);
    if (reason !== null && !readOnly) {
      try {
        ftruncateSync(fd, at);
        fdatasyncSync(fd);
      } catch (e) {
        throw storageError(file, 'truncate', e);
      }
    }
    return { records, report: { records: records.length, truncatedBytes: size - at, reason }, nextLsn: next, writeRefusal };
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

  private constructor(
    readonly file: string,
    private readonly fh: FileHandle,
    private offset: number,
    nextLsn: bigint,
  ) {
    this.nextLsn = nextLsn;
  }

  /** Recovers the log (see recoverLog) and opens it for appending. */
  static async open(file: string): Promise<{ wal: WriteAheadLog; records: WalRecord[]; report: RecoveryReport }> {
    const { records, report, nextLsn, writeRefusal } = recoverLog(file);
    let fh: FileHandle;
    try {
      // A log that cannot be written is still read (replayed, copied into snapshots) and the
      // collection serves searches; every write is refused, naming why.
      fh = await open(file, writeRefusal === null ? 'r+' : 'r');
    } catch (e) {
      throw storageError(file, 'open', e);
    }
    const size = (await fh.stat()).size;
    const wal = new WriteAheadLog(file, fh, size, nextLsn);
    wal.failed = writeRefusal;
    return { wal, records, report };
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

  /** Waits for queued appends, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.fh.close();
  }
}
