// Strata's own HNSW build: the nodes inserted by every core at once, in batches, into one graph in
// shared memory (hnsw-insert.ts), where hnswlib-node inserts from one thread. Levels and the insertion
// order are drawn from the seed before the first insert, and the graph is the same for the same seed
// on any number of threads. hnswlib-node stays the reference builder (hnsw-build.ts, `strata build
// --builder hnswlib`).
import { availableParallelism } from 'node:os';
import { mulberry32, seededSample } from '../../common/random.js';
import { Worker } from 'node:worker_threads';
import { StrataError } from '../../common/errors.js';
import { distWorker } from '../../common/run-worker.js';
import { fromWorker } from '../../common/worker-errors.js';
import type { GraphImage } from '../graph/graph-image.js';
import { type SharedRows, sharedRowsBytes, shareRows } from '../kernels/row-scorer.js';
import { type GraphBuildOptions, validateBuildOptions } from './hnsw-build.js';
import { MAX_BATCH, type SharedGraph, STATE, STATE_SLOTS } from './hnsw-insert.js';
import { threadBlockBytes } from './insert-block.js';

export interface ParallelBuildOptions extends GraphBuildOptions {
  /** Threads inserting (default: every core). */
  threads?: number;
  /** The JS level-0 search instead of WASM's (its twin, for tests and comparisons). */
  js?: boolean;
}

/** What a graph worker receives (graph-worker.ts). */
export interface GraphWorkerInput {
  graph: SharedGraph;
  shared: SharedRows;
  thread: number;
  js: boolean;
}

/** Rows a scorer is asked for at once: a full level-0 list and one more (a pruned list and its newcomer). */
export const graphPick = (maxM0: number): number => maxM0 + 1;

/** How often the progress of the build's threads is read. */
const PROGRESS_MS = 200;

const shared = (bytes: number): SharedArrayBuffer => new SharedArrayBuffer(Math.max(4, bytes));

/** HNSW's level draw: floor(-ln U / ln M), from the seed. */
function drawLevels(count: number, m: number, seed: number): Uint8Array {
  const levels = new Uint8Array(shared(count));
  const rnd = mulberry32(seed ^ 0x5bd1e995);
  const mult = 1 / Math.log(m);
  for (let i = 0; i < count; i++) levels[i] = Math.min(255, Math.floor(-Math.log(Math.max(rnd(), Number.MIN_VALUE)) * mult));
  return levels;
}

/** The threads a graph of count nodes is built on, of those asked: a small graph does not keep two busy. */
export const graphThreads = (count: number, asked: number): number => Math.max(1, Math.min(asked, Math.ceil(count / 1024)));

const level0Bytes = (count: number, maxM0: number): number => Math.ceil((4 * count * (1 + maxM0)) / 16) * 16;

/**
 * The one wasm32 memory Strata's graph build needs: the vectors, level 0 and every thread's block.
 * Past MAX_REGION_BYTES it cannot run, and hnswlib's build must.
 */
export function graphRegionBytes(count: number, dim: number, m: number, efConstruction: number, threads: number): number {
  const extra = level0Bytes(count, 2 * m) + threads * threadBlockBytes(count, efConstruction, 2 * m);
  return sharedRowsBytes(4 * count * dim, dim, graphPick(2 * m), threads, extra);
}

/** The graph's arrays; level 0 and the threads' blocks in the rows' memory, where the WASM search reads them. */
function allocateGraph(vectors: Float32Array, dim: number, o: GraphBuildOptions, threads: number): { g: SharedGraph; rows: SharedRows } {
  const count = vectors.length / dim;
  const maxM = o.m;
  const maxM0 = 2 * o.m;
  const blockBytes = threadBlockBytes(count, o.efConstruction, maxM0);
  const rows = shareRows(vectors, dim, graphPick(maxM0), threads, level0Bytes(count, maxM0) + threads * blockBytes);
  const levels = drawLevels(count, o.m, o.seed);
  const upperOffset = new Int32Array(shared(4 * count));
  let upper = 0;
  for (let i = 0; i < count; i++) {
    const l = levels[i]!;
    upperOffset[i] = l > 0 ? upper : -1;
    upper += l * (1 + maxM);
  }
  const order = new Uint32Array(shared(4 * count));
  order.set(seededSample(count, count, o.seed));
  let topLevel = 0;
  for (let i = 0; i < count; i++) topLevel = Math.max(topLevel, levels[i]!);
  const g: SharedGraph = {
    count,
    dim,
    maxM,
    maxM0,
    efConstruction: o.efConstruction,
    kind: o.metric === 'l2' ? 'l2' : 'ip',
    levels,
    level0: new Uint32Array(rows.memory.buffer, rows.extraAt, count * (1 + maxM0)),
    upperOffset,
    upperLinks: new Uint32Array(shared(4 * upper)),
    state: new Int32Array(shared(4 * STATE_SLOTS)),
    threads,
    topLevel,
    picks: new Uint32Array(shared(4 * MAX_BATCH * (topLevel + 1) * (1 + maxM))),
    order,
    blocksAt: rows.extraAt + level0Bytes(count, maxM0),
    blockBytes,
  };
  return { g, rows };
}

/**
 * Runs the threads as workers (the calling thread stays free to report progress); the first to fail
 * stops the others, which would otherwise wait at a batch's barrier for ever.
 */
function runGraphWorkers(inputs: GraphWorkerInput[]): Promise<void> {
  const file = distWorker('index', 'build', 'graph-worker.js');
  const workers = inputs.map((workerData) => new Worker(file, { workerData }));
  return new Promise<void>((resolve, reject) => {
    let left = workers.length;
    let failed = false;
    const fail = (e: Error): void => {
      if (failed) return;
      failed = true;
      for (const w of workers) void w.terminate();
      reject(e);
    };
    for (const w of workers) {
      let answered = false;
      w.once('message', () => {
        answered = true;
        if (--left === 0) resolve();
      });
      w.once('error', (e) => fail(fromWorker(e, 'graph build worker')));
      w.once('exit', (code) => {
        if (!answered) fail(new StrataError('STRATA_WORKER_FAILED', `graph build worker exited with code ${code} without an answer`));
      });
    }
  });
}

/** vectors normalised already for cosine (the graph is built in inner-product space). */
export async function buildGraphParallel(vectors: Float32Array, dim: number, o: ParallelBuildOptions): Promise<GraphImage> {
  validateBuildOptions(o);
  const count = vectors.length / dim;
  const threads = graphThreads(count, o.threads ?? availableParallelism());
  const { g, rows } = allocateGraph(vectors, dim, o, threads);
  const js = o.js ?? false;
  if (count > 0) {
    const first = g.order[0]!;
    g.state[STATE.entry] = first;
    g.state[STATE.maxLevel] = g.levels[first]!;
    g.state[STATE.next] = 1;
  }
  const every = Math.max(1000, Math.floor(count / 200));
  let told = 0;
  const timer = setInterval(() => {
    const done = Math.min(count, Atomics.load(g.state, STATE.next));
    if (done - told < every) return;
    told = done;
    o.onProgress?.(done, count);
  }, PROGRESS_MS);
  try {
    await runGraphWorkers(Array.from({ length: threads }, (_, thread) => ({ graph: g, shared: rows, thread, js })));
  } finally {
    clearInterval(timer);
  }
  o.onProgress?.(count, count);
  const rowIds = new Uint32Array(count);
  for (let i = 0; i < count; i++) rowIds[i] = i;
  return {
    count,
    dim,
    maxM0: g.maxM0,
    maxM: g.maxM,
    entry: count > 0 ? g.state[STATE.entry]! : 0,
    maxLevel: count > 0 ? g.state[STATE.maxLevel]! : 0,
    levels: g.levels,
    // Level 0 and the vectors stay where the build wrote them, in its shared memory (which never
    // grows, so the views stay valid): shared, as the later parallel passes need them
    // (encode-rows.ts), and not copied again.
    level0: g.level0,
    upperOffset: g.upperOffset,
    upperLinks: g.upperLinks,
    vectors: new Float32Array(rows.memory.buffer, rows.rowsAt, count * dim),
    rows: rowIds,
  };
}
