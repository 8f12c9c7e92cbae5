// The unit of work a search thread receives: a batch of queries of one collection and one mode.
// A task and its result each live in one ArrayBuffer, every field a view at an offset computed once
// (taskLayout, ResultViews), so that crossing to a search thread is one transfer of one buffer each
// way: cloning an object of six typed arrays cost ~15 µs per task on the main thread
// (bench/service-bench.ts, "queue + hand-off").
import { STAT_FIELDS } from '../index/search/stats.js';
import type { ExecutionMode } from './types.js';

export interface QueryTask {
  collection: number;
  mode: ExecutionMode;
  dim: number;
  /** n × dim query vectors (normalised already for cosine). */
  vectors: Float32Array;
  k: Int32Array;
  ef: Int32Array;
  /** Candidates re-scored with full vectors (ignored by indexes without a code). */
  rerank: Int32Array;
  /** 0: re-score every candidate up to rerank, skipping none by the error bound (quantization.ignore). */
  prune: Uint8Array;
  exact: Uint8Array;
  /** A filtered query's bitset of matching base nodes: its word offset in the filter arena, or -1 (no filter). */
  filterAt: Int32Array;
  /** Matching base nodes of each filtered query. */
  matched: Int32Array;
  /** FILTER_PLAN of each query (index/search/query-state.ts). */
  plan: Uint8Array;
}

export interface TaskResult {
  /** n × kMax labels, -1 past a query's results. */
  labels: Float64Array;
  distances: Float32Array;
  kMax: number;
  /** n × STAT_FIELDS per-query counters. */
  stats: Float64Array;
  /** Time the search thread spent on the task, ms. */
  busyMs: number;
}

export function taskSize(t: QueryTask): number {
  return t.k.length;
}

const MODES: readonly ExecutionMode[] = ['local', 'ndp'];
/** Task header, i32: collection, mode, dim, n. Result header, f64: kMax, busyMs, n. */
const TASK_HEAD = 16;
const RESULT_HEAD = 24;
const align8 = (x: number): number => Math.ceil(x / 8) * 8;

/** Byte offsets of a task's fields in its buffer. */
function taskLayout(n: number, dim: number) {
  const k = TASK_HEAD;
  const ef = k + 4 * n;
  const rerank = ef + 4 * n;
  const filterAt = rerank + 4 * n;
  const matched = filterAt + 4 * n;
  const prune = matched + 4 * n;
  const exact = prune + n;
  const plan = exact + n;
  const vectors = align8(plan + n);
  return { k, ef, rerank, filterAt, matched, prune, exact, plan, vectors, bytes: vectors + 4 * n * dim };
}

/** Bytes of a task of n queries of dim dimensions (the ring sizes its slots by it). */
export function taskBytes(n: number, dim: number): number {
  return taskLayout(n, dim).bytes;
}

function taskViews(buf: ArrayBufferLike, at: number, collection: number, mode: ExecutionMode, dim: number, n: number): QueryTask {
  const l = taskLayout(n, dim);
  return {
    collection,
    mode,
    dim,
    vectors: new Float32Array(buf, at + l.vectors, n * dim),
    k: new Int32Array(buf, at + l.k, n),
    ef: new Int32Array(buf, at + l.ef, n),
    rerank: new Int32Array(buf, at + l.rerank, n),
    prune: new Uint8Array(buf, at + l.prune, n),
    exact: new Uint8Array(buf, at + l.exact, n),
    filterAt: new Int32Array(buf, at + l.filterAt, n),
    matched: new Int32Array(buf, at + l.matched, n),
    plan: new Uint8Array(buf, at + l.plan, n),
  };
}

/** An empty task of n queries whose fields share one buffer (taskBuffer). */
export function allocTask(collection: number, mode: ExecutionMode, dim: number, n: number): QueryTask {
  const buf = new ArrayBuffer(taskLayout(n, dim).bytes);
  new Int32Array(buf, 0, 4).set([collection, MODES.indexOf(mode), dim, n]);
  const t = taskViews(buf, 0, collection, mode, dim, n);
  t.filterAt.fill(-1);
  return t;
}

/** The one buffer under a task (copied into one first unless allocTask made it): what crosses to a search thread. */
export function taskBuffer(t: QueryTask): ArrayBuffer {
  const n = t.k.length;
  const buf = t.k.buffer as ArrayBuffer;
  const l = taskLayout(n, t.dim);
  if (buf === t.vectors.buffer && buf === t.exact.buffer && t.k.byteOffset === l.k && t.vectors.byteOffset === l.vectors && buf.byteLength === l.bytes)
    return buf;
  const c = allocTask(t.collection, t.mode, t.dim, n);
  c.vectors.set(t.vectors);
  c.k.set(t.k);
  c.ef.set(t.ef);
  c.rerank.set(t.rerank);
  c.prune.set(t.prune);
  c.exact.set(t.exact);
  c.filterAt.set(t.filterAt);
  c.matched.set(t.matched);
  c.plan.set(t.plan);
  return c.k.buffer as ArrayBuffer;
}

/** The task whose bytes from taskBuffer sit at byte `at` of buf (8-aligned): views, no copy. */
export function taskFromBuffer(buf: ArrayBufferLike, at = 0): QueryTask {
  const [collection, mode, dim, n] = new Int32Array(buf, at, 4);
  return taskViews(buf, at, collection!, MODES[mode!]!, dim!, n!);
}

/**
 * A result's views over its one buffer; busyMs lives in the buffer's head. A class, not an object
 * literal with a getter and setter: as such a literal, results outlived the scavenges (see Answer in
 * collection.ts).
 */
class ResultViews implements TaskResult {
  readonly labels: Float64Array;
  readonly distances: Float32Array;
  readonly stats: Float64Array;
  private readonly head: Float64Array;
  constructor(
    buf: ArrayBuffer,
    n: number,
    readonly kMax: number,
  ) {
    const labels = RESULT_HEAD;
    const stats = labels + 8 * n * kMax;
    const distances = stats + 8 * n * STAT_FIELDS;
    this.head = new Float64Array(buf, 0, 3);
    this.labels = new Float64Array(buf, labels, n * kMax);
    this.distances = new Float32Array(buf, distances, n * kMax);
    this.stats = new Float64Array(buf, stats, n * STAT_FIELDS);
  }
  get busyMs(): number {
    return this.head[1]!;
  }
  set busyMs(ms: number) {
    this.head[1] = ms;
  }
}

/** An empty result in one buffer (resultBuffer): labels -1, distances +∞. */
export function emptyResult(n: number, kMax: number): TaskResult {
  const buf = new ArrayBuffer(RESULT_HEAD + 8 * n * kMax + 8 * n * STAT_FIELDS + 4 * n * kMax);
  new Float64Array(buf, 0, 3).set([kMax, 0, n]);
  const r = new ResultViews(buf, n, kMax);
  r.labels.fill(-1);
  r.distances.fill(Infinity);
  return r;
}

export function resultBuffer(r: TaskResult): ArrayBuffer {
  return r.labels.buffer as ArrayBuffer;
}

export function resultFromBuffer(buf: ArrayBuffer): TaskResult {
  const [kMax, , n] = new Float64Array(buf, 0, 3);
  return new ResultViews(buf, n!, kMax!);
}
