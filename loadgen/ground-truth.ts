// Ground truth for recall: read from files (--gt), or computed exactly from the base vectors
// (--base) in worker threads and cached next to the queries, keyed by a hash of what it depends on.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { invalidArgument, StrataError } from '../common/errors.js';
import { distWorker, runWorker } from '../common/run-worker.js';
import { distancesFileBeside, readDataset, readFvecsMatrix, readGroundTruth, TIE_TOLERANCE, type Dataset } from '../datasets/index.js';
import type { GtWorkerInput, GtWorkerOutput } from './gt-worker.js';
import type { GroundTruth, ScoreOrder } from './recall.js';

/** Qdrant's distance names, as GET /collections/{c} reports them. */
export type QdrantDistance = 'Euclid' | 'Dot' | 'Cosine';

export const scoreOrder = (d: QdrantDistance): ScoreOrder => (d === 'Euclid' ? 'distance' : 'similarity');

export interface GroundTruthInfo {
  source: 'file' | 'computed' | 'cache';
  /** The ids file, or the cache file. */
  file: string;
  /** True distances used for tie-aware recall, if any. */
  distancesFile: string | null;
  tieAware: boolean;
  /** Why recall is by ids when it is. */
  note: string | null;
}

export interface LoadedGroundTruth {
  gt: GroundTruth;
  info: GroundTruthInfo;
}

function checkShape(file: string, count: number, dim: number, queries: number, k: number): void {
  if (count < queries)
    throw new StrataError('STRATA_DATASET_FORMAT', `${file}: ${count} ground-truth rows for ${queries} queries`, { file, expected: queries, found: count });
  if (dim < k) throw invalidArgument('--k', `${file} holds ${dim} neighbours per query, fewer than k = ${k}`, { file });
}

interface StoredDistances {
  data: Float32Array | null;
  file: string | null;
  note: string | null;
}

/** The true distances stored with the ids: the HDF5 file's `distances`, or groundtruth_dist.fvecs beside it. */
async function storedDistances(file: string, dim: number, queries: number): Promise<StoredDistances> {
  if (['.hdf5', '.h5'].includes(extname(file).toLowerCase())) {
    try {
      const d = await readDataset(file, { hdf5Dataset: 'distances' });
      if (d.dim === dim && d.count >= queries) return { data: d.vectors, file: `${file}#distances`, note: null };
    } catch {
      // no such dataset: the note below
    }
    return { data: null, file: null, note: `${file} has no usable "distances" dataset: recall compares ids` };
  }
  const df = distancesFileBeside(file);
  if (df === null) return { data: null, file: null, note: `no groundtruth_dist.fvecs beside ${file}: recall compares ids (ties count as misses)` };
  const d = await readFvecsMatrix(df);
  if (d.dim === dim && d.count >= queries) return { data: d.data, file: df, note: null };
  return { data: null, file: null, note: `${df} does not match ${file} (${d.count} x ${d.dim} vs ${queries} x ${dim}): recall compares ids` };
}

/**
 * Stored cosine distances (1 - cos: ann-benchmarks' angular sets and the sets Strata writes) as
 * Cosine scores (the similarity), or null when the rows do not read as such distances: each row
 * must ascend and stay within [0, 2], as 1 - cos does, since scores judged in a wrong convention
 * would count ties that are not there.
 */
export function cosineScores(distances: Float32Array, width: number, rows: number): Float32Array | null {
  const scores = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < width; j++) {
      const d = distances[r * width + j]!;
      if (!(d >= -TIE_TOLERANCE && d <= 2 + TIE_TOLERANCE)) return null;
      if (j > 0 && d < distances[r * width + j - 1]! - TIE_TOLERANCE) return null;
      scores[r * width + j] = 1 - d;
    }
  }
  return scores;
}

/**
 * --gt: ids from .ivecs/.ibin/.hdf5, and the true distances stored with them for tie-aware recall:
 * as they are for Euclid, as 1 - distance for Cosine; Dot compares ids, since stored inner-product
 * distances follow no one convention (1 - dot here, -dot elsewhere).
 */
export async function groundTruthFromFile(file: string, distance: QdrantDistance, queries: number, k: number): Promise<LoadedGroundTruth> {
  const ids = await readGroundTruth(file);
  checkShape(file, ids.count, ids.dim, queries, k);
  let scores: Float32Array | null = null;
  let distancesFile: string | null = null;
  let note: string | null;
  if (distance === 'Dot') note = 'Dot collection: stored inner-product distances follow no one convention, recall compares ids';
  else {
    const stored = await storedDistances(file, ids.dim, queries);
    note = stored.note;
    if (stored.data !== null && distance === 'Euclid') scores = stored.data;
    else if (stored.data !== null) {
      scores = cosineScores(stored.data, ids.dim, queries);
      if (scores === null) note = `${stored.file} does not hold cosine distances (1 - cos, ascending per row): recall compares ids`;
    }
    if (scores !== null) distancesFile = stored.file;
  }
  return {
    gt: { dim: ids.dim, count: ids.count, ids: ids.data, scores, order: scoreOrder(distance) },
    info: { source: 'file', file, distancesFile, tieAware: scores !== null, note },
  };
}

interface CacheFile {
  key: string;
  k: number;
  count: number;
  distance: QdrantDistance;
  ids: number[];
  scores: number[];
}

/** What the answer depends on: the base and query vectors (and ids), k and the distance. */
export function groundTruthKey(base: Dataset, queries: Float32Array, dim: number, k: number, distance: QdrantDistance): string {
  const h = createHash('sha256');
  h.update(`strata-loadgen-gt v1 dim=${dim} k=${k} distance=${distance} base=${base.count}\n`);
  h.update(new Uint8Array(base.vectors.buffer, base.vectors.byteOffset, base.vectors.byteLength));
  if (base.ids) h.update(new Uint8Array(base.ids.buffer, base.ids.byteOffset, base.ids.byteLength));
  h.update(new Uint8Array(queries.buffer, queries.byteOffset, queries.byteLength));
  return h.digest('hex').slice(0, 20);
}

/** Cache files: beside the queries when that directory is writable, else under the OS temp dir. */
function cacheCandidates(queriesFile: string, key: string, cacheDir: string | undefined): string[] {
  const name = `${basename(queriesFile).replace(/\.[^.]+$/, '')}.gt-${key}.json`;
  if (cacheDir !== undefined) return [join(cacheDir, name)];
  return [join(dirname(queriesFile), name), join(tmpdir(), 'strata-loadgen-gt', name)];
}

function readCache(file: string, key: string): CacheFile | null {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    return c.key === key ? c : null;
  } catch {
    return null;
  }
}

function writeCache(candidates: string[], c: CacheFile): string | null {
  for (const file of candidates) {
    try {
      mkdirSync(dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(c));
      renameSync(tmp, file); // atomic: a concurrent reader sees the old file or the whole new one
      return file;
    } catch {
      // read-only directory (e.g. a shared dataset folder): try the next place
    }
  }
  return null;
}

/** Exact top k of every query, split across worker threads. Scores in the server's convention. */
export async function bruteForceScores(
  base: Float32Array,
  queries: Float32Array,
  dim: number,
  k: number,
  distance: QdrantDistance,
  threads: number,
): Promise<{ k: number; ids: Int32Array; scores: Float32Array }> {
  const nq = queries.length / dim;
  const shared = new SharedArrayBuffer(base.byteLength);
  new Float32Array(shared).set(base);
  const metric: GtWorkerInput['metric'] = distance === 'Euclid' ? 'l2' : distance === 'Dot' ? 'ip' : 'cosine';
  const parts = Math.max(1, Math.min(threads, nq));
  const per = Math.ceil(nq / parts);
  const file = distWorker('loadgen', 'gt-worker.js');
  const outs = await Promise.all(
    Array.from({ length: parts }, (_, p) => {
      const input: GtWorkerInput = { base: shared, queries: queries.slice(p * per * dim, Math.min(nq, (p + 1) * per) * dim), dim, k, metric };
      return runWorker<GtWorkerOutput>(file, input, 'ground-truth worker');
    }),
  );
  const kk = outs[0]!.k;
  const ids = new Int32Array(nq * kk);
  const scores = new Float32Array(nq * kk);
  let o = 0;
  for (const part of outs) {
    ids.set(part.ids, o);
    // l2: the Euclidean distance is the Euclid score; ip and cosine: the distance is 1 - score.
    for (let i = 0; i < part.distances.length; i++) scores[o + i] = metric === 'l2' ? part.distances[i]! : 1 - part.distances[i]!;
    o += part.ids.length;
  }
  return { k: kk, ids, scores };
}

export interface ComputeOptions {
  baseFile: string;
  queriesFile: string;
  queries: Float32Array;
  dim: number;
  k: number;
  distance: QdrantDistance;
  threads?: number;
  cacheDir?: string;
  log?: (line: string) => void;
}

/** --base: brute force (or the cache of an earlier run with the same inputs). */
export async function groundTruthFromBase(o: ComputeOptions): Promise<LoadedGroundTruth> {
  const base = await readDataset(o.baseFile);
  if (base.dim !== o.dim)
    throw new StrataError('STRATA_DATASET_DIMENSION', `${o.baseFile}: base has ${base.dim} dimensions, the queries ${o.dim}`, {
      file: o.baseFile,
      expected: o.dim,
      found: base.dim,
    });
  if (base.count < o.k) throw invalidArgument('--k', `${o.baseFile} has ${base.count} vectors, fewer than k = ${o.k}`);
  const key = groundTruthKey(base, o.queries, o.dim, o.k, o.distance);
  const candidates = cacheCandidates(o.queriesFile, key, o.cacheDir);
  const order = scoreOrder(o.distance);
  // Ids are the base's own ids (JSONL) or row numbers, as the server reports them.
  const idOf = (row: number): number => (base.ids ? base.ids[row]! : row);
  for (const file of candidates) {
    const c = readCache(file, key);
    if (c) {
      o.log?.(`ground truth: cached in ${file}`);
      return {
        gt: { dim: c.k, count: c.count, ids: Float64Array.from(c.ids), scores: Float32Array.from(c.scores), order },
        info: { source: 'cache', file, distancesFile: file, tieAware: true, note: null },
      };
    }
  }
  const threads = o.threads ?? Math.max(1, availableParallelism() - 1);
  o.log?.(`ground truth: brute force over ${base.count} x ${o.dim} for ${o.queries.length / o.dim} queries on ${threads} thread(s)`);
  const r = await bruteForceScores(base.vectors, o.queries, o.dim, o.k, o.distance, threads);
  const ids = Float64Array.from(r.ids, idOf);
  const nq = o.queries.length / o.dim;
  const written = writeCache(candidates, { key, k: r.k, count: nq, distance: o.distance, ids: Array.from(ids), scores: Array.from(r.scores) });
  if (written) o.log?.(`ground truth: cached in ${written}`);
  return {
    gt: { dim: r.k, count: nq, ids, scores: r.scores, order },
    info: { source: 'computed', file: written ?? o.baseFile, distancesFile: written, tieAware: true, note: null },
  };
}
