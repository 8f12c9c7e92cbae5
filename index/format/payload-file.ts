// The base points' payloads and the payload indexes the index was built with: `payloads.jsonl` in the
// index directory. JSON text, not MessagePack, because msgpackr turns a `__proto__` key into a
// prototype; one point per line so that writing and reading stream instead of holding the file.
// Line 1 is a header, {"format": "strata-payloads", "version": 1, "indexes": [{field, params}]};
// every other line is [label, payload] (label: the point's external id, as the labels store holds
// it). The file is listed in the manifest (size and SHA-256) and written inside the index's
// temporary directory by writeIndex, so it is as crash-safe as the other files; a file that fails
// its checksum, or is there without being listed, is STRATA_INDEX_CORRUPT.
import { existsSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorMessage, isStrataError, StrataError } from '../../common/errors.js';
import { parseKeyPath } from '../filter/key-path.js';
import { checkIndexParams, type IndexSpec, type PayloadIndexParams } from '../payload-index/params.js';
import { PAYLOAD_FILE } from './constants.js';
import { HashedFile, hashFile } from './hashed-file.js';
import { readTextLines } from './json-lines.js';
import { readManifest } from './load-index.js';
import type { FileEntry } from './manifest.js';

export const PAYLOAD_FILE_FORMAT = 'strata-payloads';
export const PAYLOAD_FILE_VERSION = 1;

export type BasePayload = [label: number, payload: Record<string, unknown>];

export interface BasePayloads {
  payloads: BasePayload[];
  /** The payload indexes the index directory asks for (key path in canonical spelling, parameters). */
  indexes: IndexSpec[];
}

/** Lines are gathered into writes of about this many characters (one syscall per point is slow). */
const WRITE_BATCH = 1 << 20;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks index fields (key paths by parseKeyPath, parameters an object checked by checkIndexParams,
 * no key twice) and returns them with each key path in its canonical spelling. Errors name `field`.
 */
export function checkIndexFields(indexes: readonly IndexSpec[], field: string): IndexSpec[] {
  const seen = new Set<string>();
  return indexes.map((f, i) => {
    const at = `${field}[${i}]`;
    const path = parseKeyPath(f.field, `${at}.field`).text;
    if (seen.has(path)) throw new StrataError('STRATA_INVALID_ARGUMENT', `${at}.field: ${JSON.stringify(path)} is indexed twice`, { field: `${at}.field` });
    seen.add(path);
    if (!isPlainObject(f.params))
      throw new StrataError('STRATA_INVALID_ARGUMENT', `${at}.params: must be an object like {"type": "keyword"}`, { field: `${at}.params` });
    return { field: path, params: checkIndexParams(f.params, `${at}.params`) };
  });
}

/**
 * Writes `payloads.jsonl` into `dir`, a directory being written (writeIndex's temporary: pass
 * `{payloads}` to writeIndex rather than calling this on a finished index, whose manifest would not
 * list the file). Consumes `payloads` one point at a time; returns the manifest entry and the count.
 */
export function writeBasePayloads(
  dir: string,
  payloads: Iterable<BasePayload>,
  indexes: readonly IndexSpec[],
  onProgress?: (points: number) => void,
): FileEntry & { points: number } {
  const fields = checkIndexFields(indexes, 'indexes');
  const path = join(dir, PAYLOAD_FILE);
  const f = new HashedFile(path);
  try {
    let batch: string[] = [];
    let chars = 0;
    const flush = (): void => {
      f.write(Buffer.from(batch.join('')));
      batch = [];
      chars = 0;
    };
    const add = (line: string): void => {
      batch.push(line, '\n');
      chars += line.length + 1;
      if (chars >= WRITE_BATCH) flush();
    };
    add(JSON.stringify({ format: PAYLOAD_FILE_FORMAT, version: PAYLOAD_FILE_VERSION, indexes: fields }));
    let points = 0;
    for (const [label, payload] of payloads) {
      if (!Number.isSafeInteger(label) || label < 0)
        throw new StrataError('STRATA_INVALID_ARGUMENT', `payloads: label ${label} is not a non-negative safe integer`, { field: 'label' });
      if (!isPlainObject(payload))
        throw new StrataError('STRATA_INVALID_ARGUMENT', `payloads: the payload of ${label} is not a JSON object`, { field: 'payload' });
      add(JSON.stringify([label, payload]));
      points++;
      if (points % 65536 === 0) onProgress?.(points);
    }
    flush();
    onProgress?.(points);
    return { ...f.finish(), points };
  } catch (e) {
    f.abandon();
    rmSync(path, { force: true });
    throw e;
  }
}

const corrupt = (file: string, reason: string): StrataError => new StrataError('STRATA_INDEX_CORRUPT', `${file}: ${reason}`, { file, reason });

/** The listed payload file of an index directory, its size and checksum judged; null when there is none. */
function checkedPayloadFile(dirIn: string): string | null {
  const dir = resolve(dirIn);
  const manifest = readManifest(dir);
  const path = join(dir, PAYLOAD_FILE);
  const entry = manifest.files[PAYLOAD_FILE];
  if (entry === undefined) {
    if (existsSync(path)) throw corrupt(path, 'is not listed in the manifest (a damaged manifest, or a file put there by hand)');
    return null;
  }
  if (!existsSync(path)) throw corrupt(path, 'missing');
  const size = statSync(path).size;
  if (size !== entry.bytes) throw corrupt(path, `${size} bytes, the manifest says ${entry.bytes} (truncated or overwritten)`);
  if (hashFile(path).sha256 !== entry.sha256) throw corrupt(path, 'SHA-256 mismatch (the file is damaged)');
  return path;
}

/**
 * Parses a payload file whose checksum has been judged, line by line, handing each point to `each`;
 * returns the index fields. The checks below catch what a checksum cannot: a writer's bug.
 */
function parsePayloadFile(path: string, each: (label: number, payload: Record<string, unknown>) => void): IndexSpec[] {
  let indexes: IndexSpec[] | null = null;
  for (const { number, text } of readTextLines(path, (line) => {
    throw corrupt(path, `line ${line} is not valid UTF-8`);
  })) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw corrupt(path, `line ${number} is not valid JSON (${errorMessage(e)})`);
    }
    if (indexes === null) {
      indexes = headerIndexes(path, value);
      continue;
    }
    if (!Array.isArray(value) || value.length !== 2) throw corrupt(path, `line ${number} is not a [label, payload] pair`);
    const [label, payload] = value as [unknown, unknown];
    if (typeof label !== 'number' || !Number.isSafeInteger(label) || label < 0)
      throw corrupt(path, `line ${number}: the label is not a non-negative safe integer`);
    if (!isPlainObject(payload)) throw corrupt(path, `line ${number}: the payload is not a JSON object`);
    each(label, payload);
  }
  if (indexes === null) throw corrupt(path, 'is empty (no header line)');
  return indexes;
}

function headerIndexes(path: string, header: unknown): IndexSpec[] {
  if (!isPlainObject(header) || header['format'] !== PAYLOAD_FILE_FORMAT) throw corrupt(path, `line 1 is not a ${PAYLOAD_FILE_FORMAT} header`);
  if (header['version'] !== PAYLOAD_FILE_VERSION) {
    throw new StrataError('STRATA_INDEX_VERSION', `${path}: payload file version ${String(header['version'])}, this build reads ${PAYLOAD_FILE_VERSION}`, {
      file: path,
      version: String(header['version']),
    });
  }
  const raw = header['indexes'];
  if (!Array.isArray(raw) || !raw.every(isPlainObject)) throw corrupt(path, 'line 1: indexes must be a list of {field, params}');
  try {
    return checkIndexFields(
      raw.map((f) => ({ field: typeof f['field'] === 'string' ? f['field'] : '', params: f['params'] as PayloadIndexParams })),
      'indexes',
    );
  } catch (e) {
    if (isStrataError(e, 'STRATA_INVALID_ARGUMENT')) throw corrupt(path, `line 1: ${e.message}`);
    throw e;
  }
}

/**
 * Streams the index directory's payloads to `each`, one point at a time (so that a columnar store
 * can take them without an object per point staying alive), and returns the index fields; null,
 * and `each` never called, when the directory has no payload file. The checksum is judged before
 * any line is parsed, so `each` sees only what the writer wrote.
 */
export function forEachBasePayload(dir: string, each: (label: number, payload: Record<string, unknown>) => void): IndexSpec[] | null {
  const path = checkedPayloadFile(dir);
  return path === null ? null : parsePayloadFile(path, each);
}

/**
 * The payloads and index fields of the index directory `dir`, or null when it has no payload file
 * (built without payloads or index fields).
 */
export function readBasePayloads(dir: string): BasePayloads | null {
  const payloads: BasePayload[] = [];
  const indexes = forEachBasePayload(dir, (label, payload) => payloads.push([label, payload]));
  return indexes === null ? null : { payloads, indexes };
}

/** What `strata verify` reports of the payload file: checksum and every line checked, nothing kept. */
export function checkBasePayloads(dir: string): { points: number; indexes: IndexSpec[] } | null {
  let points = 0;
  const indexes = forEachBasePayload(dir, () => {
    points++;
  });
  return indexes === null ? null : { points, indexes };
}
