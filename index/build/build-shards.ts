// `strata build --shards N`: one index per shard, rows assigned by a hash of their global id, and a
// shard map that says so. Each shard is an ordinary index directory (servable by `strata serve`)
// whose labels are the global ids, so answers merged across shards need no translation. The map
// (shards.json) is written last, through a rename: a directory holds a shard map only once every
// shard in it is complete, and the map carries each shard manifest's SHA-256 and its own.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { replaceFileDurably } from '../../common/durable-fs.js';
import { invalidArgument, StrataError } from '../../common/errors.js';
import type { Dataset } from '../../datasets/index.js';
import type { Metric } from '../kernels/kernels.js';
import { type BuildIndexOptions, type BuildSummary, buildIndex, checkBuildOptions, readBuildInput, readPayloadInput } from './build-index.js';

export const SHARD_MAP_FILE = 'shards.json';
export const SHARD_MAP_FORMAT = 'strata-shard-map';
export const SHARD_MAP_VERSION = 1;
export const MAX_SHARDS = 1024;

export interface ShardEntry {
  shard: number;
  dir: string;
  count: number;
  /** SHA-256 of the shard's manifest.json (which in turn checksums every file of the shard). */
  manifestSha256: string;
}

export interface ShardMap {
  format: typeof SHARD_MAP_FORMAT;
  version: number;
  /** How a row's shard is chosen: FNV-1a (32-bit) of the id's decimal text, modulo the shard count. */
  hash: 'fnv1a32-decimal';
  shards: ShardEntry[];
  count: number;
  dim: number;
  metric: Metric;
  sha256: string;
}

/** The shard of a global id among n (the router routes by the same function). */
export function shardOf(id: number, n: number): number {
  const text = String(id);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % n;
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function mapChecksum(m: Omit<ShardMap, 'sha256'>): string {
  return sha256(JSON.stringify({ ...m, sha256: undefined }));
}

/** Reads and checks a shard map: its own checksum and every shard manifest's. */
export function readShardMap(dir: string): ShardMap {
  const file = join(dir, SHARD_MAP_FILE);
  const corrupt = (why: string): StrataError => new StrataError('STRATA_INDEX_CORRUPT', `${file}: ${why}`, { file });
  let m: ShardMap;
  try {
    m = JSON.parse(readFileSync(file, 'utf8')) as ShardMap;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new StrataError('STRATA_INDEX_NOT_FOUND', `${file}: no shard map`, { file });
    throw corrupt('not valid JSON');
  }
  if (m.format !== SHARD_MAP_FORMAT) throw corrupt(`format is ${JSON.stringify(m.format)}, not ${SHARD_MAP_FORMAT}`);
  if (m.version !== SHARD_MAP_VERSION)
    throw new StrataError('STRATA_INDEX_VERSION', `${file}: shard map version ${m.version}; this build reads ${SHARD_MAP_VERSION}`, { file });
  const { sha256: stored, ...rest } = m;
  if (mapChecksum(rest) !== stored) throw corrupt('SHA-256 mismatch (the shard map is damaged)');
  for (const s of m.shards) {
    const manifest = join(dir, s.dir, 'manifest.json');
    if (!existsSync(manifest)) throw corrupt(`shard ${s.shard}: ${manifest} is missing`);
    if (sha256(readFileSync(manifest)) !== s.manifestSha256) throw corrupt(`shard ${s.shard}: ${manifest} does not match the map`);
  }
  return m;
}

/** Whether `dir` holds nothing but a shard set this command wrote (what --force may replace). */
function isShardSet(dir: string): boolean {
  if (!existsSync(join(dir, SHARD_MAP_FILE))) return false;
  return readdirSync(dir).every((f) => f === SHARD_MAP_FILE || /^shard-\d+$/.test(f) || f.startsWith(`${SHARD_MAP_FILE}.tmp`));
}

export interface ShardBuildSummary {
  out: string;
  map: ShardMap;
  shards: BuildSummary[];
}

export async function buildShards(o: BuildIndexOptions & { shards: number }): Promise<ShardBuildSummary> {
  const n = o.shards;
  if (!Number.isInteger(n) || n < 2 || n > MAX_SHARDS) throw invalidArgument('shards', `must be an integer in 2..${MAX_SHARDS}, got ${n}`);
  checkBuildOptions(o);
  if (o.basePayloads) throw invalidArgument('basePayloads', 'payloads by label are for one index; a shard set reads its payloads from the input');
  const out = resolve(o.out);
  if (existsSync(out)) {
    if (!o.force) throw new StrataError('STRATA_INDEX_EXISTS', `${out} exists already: choose another --out or pass --force to replace it`, { path: out });
    if (lstatSync(out).isSymbolicLink() || !lstatSync(out).isDirectory() || !isShardSet(out))
      throw new StrataError('STRATA_INDEX_EXISTS', `${out} is not a shard set this command wrote: --force replaces only those`, { path: out });
    rmSync(out, { recursive: true, force: true });
  }
  const ds = await readBuildInput(o);
  const payloads = o.basePayloads ? null : await readPayloadInput(o, ds);
  // Rows per shard, in input order.
  const rows: number[][] = Array.from({ length: n }, () => []);
  for (let r = 0; r < ds.count; r++) rows[shardOf(ds.ids ? ds.ids[r]! : r, n)]!.push(r);
  mkdirSync(out, { recursive: true });
  const name = o.name ?? basename(out);
  const summaries: BuildSummary[] = [];
  const entries: ShardEntry[] = [];
  for (let s = 0; s < n; s++) {
    const pick = rows[s]!;
    const vectors = new Float32Array(pick.length * ds.dim);
    const ids = new Float64Array(pick.length);
    pick.forEach((r, j) => {
      vectors.set(ds.vectors.subarray(r * ds.dim, (r + 1) * ds.dim), j * ds.dim);
      ids[j] = ds.ids ? ds.ids[r]! : r;
    });
    const part: Dataset = { ...ds, count: pick.length, vectors, ids };
    const dir = `shard-${s}`;
    const summary = await buildIndex({
      ...o,
      out: join(out, dir),
      name: `${name}-${s}`,
      force: false,
      dataset: part,
      payloadInput: { input: payloads, rows: pick },
    });
    summaries.push(summary);
    entries.push({ shard: s, dir, count: pick.length, manifestSha256: sha256(readFileSync(join(out, dir, 'manifest.json'))) });
  }
  const body: Omit<ShardMap, 'sha256'> = {
    format: SHARD_MAP_FORMAT,
    version: SHARD_MAP_VERSION,
    hash: 'fnv1a32-decimal',
    shards: entries,
    count: ds.count,
    dim: ds.dim,
    metric: summaries[0]!.metric,
  };
  const map: ShardMap = { ...body, sha256: mapChecksum(body) };
  // On disk before it is named, and the name on disk before we return: a crash leaves either no map
  // (the set is incomplete and --force may replace it) or a whole one.
  replaceFileDurably(join(out, SHARD_MAP_FILE), JSON.stringify(map, null, 2) + '\n');
  return { out, map, shards: summaries };
}
