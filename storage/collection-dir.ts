// Where a writable collection keeps its files in the data directory, and the config file of a
// collection created over the API. A collection's directory is named from a hash of its name: names
// are up to 255 bytes of any UTF-8 (slashes and dots included), which no file name can hold safely.
// The config file (collection.json) has a format tag, a version and a CRC-32 of its body; it is
// written to a temporary file, synced and renamed, so a crash leaves the old file or the new one.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { createDir, renameDurably, storageError, writeFileDurably } from '../common/durable-fs.js';
import { StrataError } from '../common/errors.js';
import type { Metric } from '../index/kernels/kernels.js';

/** The log's file name in a collection's directory (live-store.ts opens it). */
export const WAL_LOG_FILE = 'wal.log';

export const CONFIG_FILE = 'collection.json';
const FORMAT = 'strata-collection';
const VERSION = 1;

export interface CollectionConfig {
  name: string;
  dim: number;
  metric: Metric;
  /** The HNSW build of the next compaction. */
  m: number;
  efConstruction: number;
  /**
   * Qdrant's optimizers_config.indexing_threshold (kilobytes of vectors, as Qdrant counts them): the
   * fresh vectors past which the collection compacts itself, 0 never; absent: the engine's default.
   */
  indexingThresholdKb?: number;
  /**
   * The compact code the collection's compactions keep in DRAM, as its quantization_config asked:
   * sq8 (Qdrant's scalar int8) or none (quantization disabled); absent: the planner picks by budget.
   */
  codes?: 'sq8' | 'none';
  /** The name its one vector was created with (Qdrant's named vectors); absent: unnamed. */
  vectorName?: string;
  /**
   * Qdrant's hnsw_config.payload_m: the filter links compactions build within each block of the
   * payload indexes (index/filter-links/); absent or 0: none.
   */
  payloadM?: number;
  /** Qdrant's sparse_vectors: each named sparse vector and its weighting; absent: none. */
  sparse?: Record<string, SparseParams>;
  /**
   * Qdrant's named vectors past the first: each a dense vector of its own size and distance, held in
   * a DRAM graph of its own beside the tiered index (index/fresh/dense-column.ts); absent: none.
   */
  secondary?: Record<string, SecondaryParams>;
}

/** A named sparse vector's settings: Qdrant's `modifier` (idf: each dimension weighted by its inverse document frequency). */
export interface SparseParams {
  modifier: 'none' | 'idf';
}

/** A secondary dense vector's settings: its size and distance. */
export interface SecondaryParams {
  dim: number;
  metric: Metric;
}

/** The directory of collection `name` under dataDir. */
export function collectionDir(dataDir: string, name: string): string {
  return join(dataDir, `c-${createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 24)}`);
}

function body(c: CollectionConfig): string {
  // A field set only by an update is written only when set, so configs written before it keep their checksum.
  const threshold = c.indexingThresholdKb !== undefined ? { indexingThresholdKb: c.indexingThresholdKb } : {};
  const codes = c.codes !== undefined ? { codes: c.codes } : {};
  const vectorName = c.vectorName !== undefined ? { vectorName: c.vectorName } : {};
  const payloadM = c.payloadM !== undefined ? { payloadM: c.payloadM } : {};
  const sparse = c.sparse !== undefined ? { sparse: c.sparse } : {};
  const secondary = c.secondary !== undefined ? { secondary: c.secondary } : {};
  return JSON.stringify({
    name: c.name,
    dim: c.dim,
    metric: c.metric,
    m: c.m,
    efConstruction: c.efConstruction,
    ...threshold,
    ...codes,
    ...vectorName,
    ...payloadM,
    ...sparse,
    ...secondary,
  });
}

export function writeConfig(dir: string, c: CollectionConfig): void {
  const text = body(c);
  writeFileDurably(
    join(dir, CONFIG_FILE),
    `${JSON.stringify({ format: FORMAT, version: VERSION, crc32: crc32(text) >>> 0, config: JSON.parse(text) as unknown })}\n`,
  );
}

/**
 * Makes `dir` the collection `c` with the given write-ahead log (a snapshot's): the log first, the
 * config last, so a crash in between leaves a directory that is not a collection.
 */
export function installCollection(dir: string, c: CollectionConfig, log: Uint8Array): void {
  createDir(dir);
  writeFileDurably(join(dir, WAL_LOG_FILE), log);
  writeConfig(dir, c);
}

export function readConfig(dir: string): CollectionConfig {
  const file = join(dir, CONFIG_FILE);
  let parsed: { format?: unknown; version?: unknown; crc32?: unknown; config?: CollectionConfig };
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed;
  } catch (e) {
    throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: not a readable collection config (${(e as Error).message})`, { file });
  }
  if (parsed.format !== FORMAT) throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: not a ${FORMAT} file`, { file });
  if (parsed.version !== VERSION)
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: collection config version ${String(parsed.version)}, this build reads ${VERSION}`, { file });
  const c = parsed.config;
  if (!c || crc32(body(c)) >>> 0 !== parsed.crc32) throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: checksum mismatch`, { file });
  return c;
}

/**
 * Where, inside the data directory, a snapshot is unpacked before it takes a collection's place
 * (engine/snapshots.ts); what a crash leaves there is removed when the data directory opens.
 */
export const RESTORING_DIR = 'restoring';

/** The directories of collections created over the API (those with a config file). */
export function createdCollectionDirs(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith('c-') && existsSync(join(dataDir, d.name, CONFIG_FILE)))
    .map((d) => join(dataDir, d.name));
}

/**
 * Removes a collection's directory: the config file goes first (renamed away and synced), so a
 * crash midway leaves a directory that is no longer a collection rather than half of one.
 */
export function removeCollectionDir(dir: string): void {
  try {
    const file = join(dir, CONFIG_FILE);
    if (existsSync(file)) {
      renameDurably(file, `${file}.deleted`);
    }
    rmSync(dir, { recursive: true, force: true });
  } catch (e) {
    throw storageError(dir, 'remove', e);
  }
}

/** The settings a collection's config holds beyond its shape and build, as a snapshot carries them. */
export function configSettings(
  s: Pick<CollectionConfig, 'indexingThresholdKb' | 'codes' | 'vectorName' | 'payloadM' | 'sparse' | 'secondary'>,
): Partial<CollectionConfig> {
  return {
    ...(s.payloadM !== undefined ? { payloadM: s.payloadM } : {}),
    ...(s.indexingThresholdKb !== undefined ? { indexingThresholdKb: s.indexingThresholdKb } : {}),
    ...(s.codes !== undefined ? { codes: s.codes } : {}),
    ...(s.vectorName !== undefined ? { vectorName: s.vectorName } : {}),
    ...(s.sparse !== undefined ? { sparse: s.sparse } : {}),
    ...(s.secondary !== undefined ? { secondary: s.secondary } : {}),
  };
}
