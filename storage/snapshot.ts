// Snapshots of a live collection: one file holding its config and the durable prefix of its
// write-ahead log (every acknowledged write, whole), so that restoring it is replaying that log into
// a new collection, which then answers exactly as the original did when the snapshot was taken.
//
// File: "STRATSNP" (8 bytes), u32 version, u32 entry count; per entry: u32 name length, the name
// (UTF-8), u64 size, u32 CRC-32 of the bytes, the bytes; then a SHA-256 of everything before it
// (32 bytes). Little-endian. The checksum the API reports is the SHA-256 of the whole file. A snapshot is written to a temporary
// file, synced and renamed, so a listed snapshot is always whole.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { createDir, writeFileDurably } from '../common/durable-fs.js';
import { invalidArgument, StrataError } from '../common/errors.js';

export const SNAPSHOT_MAGIC = 'STRATSNP';
// Version 2 holds the base's live state with its payloads in parts (storage/live-store.ts); a
// build that reads only version 1 would fail on that state, so it must refuse the file instead.
export const SNAPSHOT_VERSION = 2;
const SNAPSHOT_READ_VERSIONS: readonly number[] = [1, 2];
const NAME = /^snapshot-[0-9TZ.-]+-\d+\.snapshot$/;

export interface SnapshotDescription {
  name: string;
  creation_time: string;
  size: number;
  /** SHA-256 of the whole file: what a client checks a download against (Qdrant's `checksum`). */
  checksum: string;
}

export function encodeSnapshot(entries: ReadonlyArray<[string, Uint8Array]>): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(16);
  head.write(SNAPSHOT_MAGIC, 0, 'latin1');
  head.writeUInt32LE(SNAPSHOT_VERSION, 8);
  head.writeUInt32LE(entries.length, 12);
  parts.push(head);
  for (const [name, bytes] of entries) {
    const n = Buffer.from(name, 'utf8');
    const h = Buffer.alloc(4 + n.length + 12);
    h.writeUInt32LE(n.length, 0);
    n.copy(h, 4);
    h.writeBigUInt64LE(BigInt(bytes.length), 4 + n.length);
    h.writeUInt32LE(crc32(bytes) >>> 0, 12 + n.length);
    parts.push(h, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

/** The entries of a snapshot; STRATA_INDEX_CORRUPT / _VERSION naming what is wrong otherwise. */
export function decodeSnapshot(buf: Buffer, what: string): Map<string, Buffer> {
  const bad = (why: string): StrataError => new StrataError('STRATA_INDEX_CORRUPT', `${what}: not a valid snapshot (${why})`, { file: what.slice(0, 200) });
  if (buf.length < 48 || buf.toString('latin1', 0, 8) !== SNAPSHOT_MAGIC) throw bad('no snapshot header');
  const version = buf.readUInt32LE(8);
  if (!SNAPSHOT_READ_VERSIONS.includes(version))
    throw new StrataError('STRATA_INDEX_VERSION', `${what}: snapshot version ${version}, this build reads ${SNAPSHOT_READ_VERSIONS.join(' and ')}`, {});
  const body = buf.subarray(0, buf.length - 32);
  if (
    !createHash('sha256')
      .update(body)
      .digest()
      .equals(buf.subarray(buf.length - 32))
  )
    throw bad('SHA-256 mismatch: truncated or damaged');
  const out = new Map<string, Buffer>();
  let at = 16;
  for (let i = buf.readUInt32LE(12); i > 0; i--) {
    if (at + 4 > body.length) throw bad('entry header past the end');
    const n = body.readUInt32LE(at);
    const name = body.toString('utf8', at + 4, at + 4 + n);
    const size = Number(body.readBigUInt64LE(at + 4 + n));
    const crc = body.readUInt32LE(at + 12 + n);
    const start = at + 16 + n;
    if (start + size > body.length) throw bad(`entry ${name} past the end`);
    const bytes = body.subarray(start, start + size);
    if (crc32(bytes) >>> 0 !== crc) throw bad(`entry ${name} fails its CRC-32`);
    out.set(name, bytes);
    at = start + size;
  }
  if (at !== body.length) throw bad('bytes after the last entry');
  return out;
}

/** Beside each snapshot, its SHA-256 in hex: listing them then reads no snapshot whole. */
const CHECKSUM_SUFFIX = '.sha256';

/**
 * Writes a snapshot file into dir, through a temporary file and a rename, its checksum beside it
 * first; returns its description.
 */
export function writeSnapshot(dir: string, lsn: bigint, entries: ReadonlyArray<[string, Uint8Array]>): SnapshotDescription {
  const now = new Date();
  const name = `snapshot-${now.toISOString().replace(/:/g, '-')}-${lsn}.snapshot`;
  const bytes = encodeSnapshot(entries);
  const checksum = createHash('sha256').update(bytes).digest('hex');
  createDir(dir);
  writeFileDurably(join(dir, name + CHECKSUM_SUFFIX), checksum);
  writeFileDurably(join(dir, name), bytes);
  return { name, creation_time: now.toISOString(), size: bytes.length, checksum };
}

/** A snapshot's SHA-256: from beside it, or (a snapshot written without one) from its bytes. */
function checksumOf(file: string): string {
  const beside = file + CHECKSUM_SUFFIX;
  if (existsSync(beside)) return readFileSync(beside, 'latin1').trim();
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The snapshot file `name` in dir; a name that is not one of ours is STRATA_INVALID_ARGUMENT (no path tricks). */
export function snapshotFile(dir: string, name: string): string {
  if (!NAME.test(name)) throw invalidArgument('snapshot_name', `not a snapshot name (${name.slice(0, 64)})`);
  const file = join(dir, name);
  if (!existsSync(file)) throw new StrataError('STRATA_SNAPSHOT_NOT_FOUND', `no snapshot ${name}`, { snapshot: name });
  return file;
}

export function listSnapshots(dir: string): SnapshotDescription[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => NAME.test(n))
    .sort()
    .map((name) => {
      const file = join(dir, name);
      const st = statSync(file);
      return { name, creation_time: st.mtime.toISOString(), size: st.size, checksum: checksumOf(file) };
    });
}

export function deleteSnapshot(dir: string, name: string): void {
  rmSync(snapshotFile(dir, name));
  rmSync(join(dir, name + CHECKSUM_SUFFIX), { force: true });
}
