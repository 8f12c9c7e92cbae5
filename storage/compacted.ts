// What a compaction leaves in a collection's directory: the new base index (a Strata index
// directory, `base-<cut lsn>-<tag>/`), beside it the live state the base does not hold (payloads,
// UUID pairs, the shared log's position: `live-state.msgpack`), and `compacted.json`, which names
// both with the cut and their checksums. The state file is written last (durably), so a crash before
// it leaves the previous state (the previous base, or none, and the whole log replayed); after it,
// the new base and the records past the cut. Leftovers of an interrupted compaction are removed.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { writeFileDurably, writeFileDurablyAsync } from '../common/durable-fs.js';
import { STEP_BYTES } from '../common/turns.js';
import { StrataError } from '../common/errors.js';
import { decodeLiveState, encodeLiveState, type LiveState } from './live-store.js';

export const COMPACTED_FILE = 'compacted.json';
export const LIVE_STATE_FILE = 'live-state.msgpack';
const FORMAT = 'strata-compacted';
/** Version 2: the live state's payloads in parts (live-store.ts encodeLiveState); version 1 is still read. */
const VERSION = 2;
const READ_VERSIONS: readonly number[] = [1, 2];

export interface Compacted {
  /** The base index directory, inside the collection's directory. */
  baseDir: string;
  /** The last log record the base holds. */
  cutLsn: bigint;
  state: LiveState;
}

const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** A fresh directory name for the base a compaction at `cutLsn` builds. */
export function baseDirName(cutLsn: bigint): string {
  return `base-${cutLsn}-${Date.now().toString(36)}`;
}

/** Saves the live state beside a built base, then (last) the state file naming both. */
export function writeCompacted(collectionDir: string, baseName: string, cutLsn: bigint, state: LiveState): void {
  const bytes = encodeLiveState(state);
  writeFileDurably(join(collectionDir, baseName, LIVE_STATE_FILE), bytes);
  writeFileDurably(join(collectionDir, COMPACTED_FILE), compactedText(baseName, cutLsn, sha256(bytes)));
}

/**
 * writeCompacted of a state encoded already, over turns of the event loop: hashed a step at a time,
 * written and synced on libuv's threads (a serving process's compaction).
 */
export async function writeCompactedInTurns(collectionDir: string, baseName: string, cutLsn: bigint, state: Uint8Array): Promise<void> {
  const digest = await sha256InTurns(state);
  await writeFileDurablyAsync(join(collectionDir, baseName, LIVE_STATE_FILE), state);
  await writeFileDurablyAsync(join(collectionDir, COMPACTED_FILE), Buffer.from(compactedText(baseName, cutLsn, digest), 'utf8'));
}

/** The SHA-256 of `bytes` in hex, hashed a step (STEP_BYTES) per turn of the event loop. */
async function sha256InTurns(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.byteLength; at += STEP_BYTES) {
    hash.update(bytes.subarray(at, at + STEP_BYTES));
    await nextTurn();
  }
  return hash.digest('hex');
}

function compactedText(baseName: string, cutLsn: bigint, stateSha256: string): string {
  const body = { base: baseName, cutLsn: String(cutLsn), liveStateSha256: stateSha256 };
  return `${JSON.stringify({ format: FORMAT, version: VERSION, sha256: sha256(JSON.stringify(body)), ...body })}\n`;
}

/** What the state file names: the base, its cut, and its live state's file with that file's SHA-256. */
export interface CompactedHead {
  baseDir: string;
  cutLsn: bigint;
  stateFile: string;
  stateSha256: string;
}

/** The collection's last compaction, or null when it has none. Damage is STRATA_INDEX_CORRUPT. */
export function readCompacted(collectionDir: string): Compacted | null {
  const head = readCompactedHead(collectionDir);
  if (head === null) return null;
  const { stateFile } = head;
  let bytes: Buffer;
  try {
    bytes = readFileSync(stateFile);
  } catch (e) {
    throw missingState(stateFile, e);
  }
  return checkedState(head, bytes, sha256(bytes));
}

/**
 * readCompacted over turns of the event loop: the state file read on libuv's threads and hashed a
 * step at a time (a collection restored while the server serves others).
 */
export async function readCompactedInTurns(collectionDir: string): Promise<Compacted | null> {
  const head = readCompactedHead(collectionDir);
  if (head === null) return null;
  let bytes: Buffer;
  try {
    bytes = await readFile(head.stateFile);
  } catch (e) {
    throw missingState(head.stateFile, e);
  }
  return checkedState(head, bytes, await sha256InTurns(bytes));
}

function missingState(stateFile: string, e: unknown): StrataError {
  return new StrataError('STRATA_INDEX_CORRUPT', `${stateFile}: missing (${(e as Error).message})`, { file: stateFile });
}

/** The compaction a head names, its state's bytes checked against the head's SHA-256. */
function checkedState(head: CompactedHead, bytes: Uint8Array, digest: string): Compacted {
  if (digest !== head.stateSha256) throw new StrataError('STRATA_INDEX_CORRUPT', `${head.stateFile}: checksum mismatch`, { file: head.stateFile });
  return { baseDir: head.baseDir, cutLsn: head.cutLsn, state: decodeLiveState(bytes) };
}

/** readCompacted's state file alone, its live state left unread; null when the collection has none. */
export function readCompactedHead(collectionDir: string): CompactedHead | null {
  const file = join(collectionDir, COMPACTED_FILE);
  if (!existsSync(file)) return null;
  const bad = (why: string): StrataError => new StrataError('STRATA_INDEX_CORRUPT', `${file}: ${why}`, { file });
  let m: { format?: unknown; version?: unknown; sha256?: unknown; base?: unknown; cutLsn?: unknown; liveStateSha256?: unknown };
  try {
    m = JSON.parse(readFileSync(file, 'utf8')) as typeof m;
  } catch (e) {
    throw bad(`not readable (${(e as Error).message})`);
  }
  if (m.format !== FORMAT) throw bad(`not a ${FORMAT} file`);
  if (!READ_VERSIONS.includes(m.version as number))
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: version ${String(m.version)}, this build reads ${READ_VERSIONS.join(' and ')}`, { file });
  const body = { base: m.base, cutLsn: m.cutLsn, liveStateSha256: m.liveStateSha256 };
  if (sha256(JSON.stringify(body)) !== m.sha256) throw bad('checksum mismatch');
  if (
    typeof m.base !== 'string' ||
    !/^base-[0-9a-z-]+$/.test(m.base) ||
    typeof m.cutLsn !== 'string' ||
    !/^\d+$/.test(m.cutLsn) ||
    typeof m.liveStateSha256 !== 'string'
  )
    throw bad('malformed');
  const baseDir = join(collectionDir, m.base);
  return { baseDir, cutLsn: BigInt(m.cutLsn), stateFile: join(baseDir, LIVE_STATE_FILE), stateSha256: m.liveStateSha256 };
}

/** What follows a base's directory name in the names of the bases built beside it of its secondary vectors. */
const NAMED_INFIX = '.vector-';

/**
 * The directory of the tiered base a compaction built of secondary vector `name` beside `baseDir`
 * (the name hex-encoded: any string names a vector, and a directory name must be plain).
 */
export function namedBaseDir(baseDir: string, name: string): string {
  return `${baseDir}${NAMED_INFIX}${Buffer.from(name, 'utf8').toString('hex')}`;
}

/** The secondary vector a directory beside `baseName` holds (namedBaseDir's name), or null. */
export function namedBaseOf(baseName: string, dirName: string): string | null {
  const prefix = `${baseName}${NAMED_INFIX}`;
  if (!dirName.startsWith(prefix)) return null;
  const hex = dirName.slice(prefix.length);
  return /^(?:[0-9a-f]{2})+$/.test(hex) ? Buffer.from(hex, 'hex').toString('utf8') : null;
}

/** Removes base directories the state file does not name, or its named bases (an interrupted or superseded compaction's). */
export function removeStaleBases(collectionDir: string, keep: string | null): void {
  for (const path of staleBases(collectionDir, keep)) rmSync(path, { recursive: true, force: true });
}

/** removeStaleBases on libuv's threads (a serving process's compaction, once its new base is in). */
export async function removeStaleBasesAsync(collectionDir: string, keep: string | null): Promise<void> {
  for (const path of staleBases(collectionDir, keep)) await rm(path, { recursive: true, force: true });
}

function staleBases(collectionDir: string, keep: string | null): string[] {
  if (!existsSync(collectionDir)) return [];
  return readdirSync(collectionDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith('base-'))
    .map((d) => join(collectionDir, d.name))
    .filter((path) => path !== keep && !(keep !== null && path.startsWith(`${keep}${NAMED_INFIX}`)));
}
