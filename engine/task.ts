// The unit of work a search thread receives: a batch of queries of one collection and one mode,
// packed in typed arrays so that posting it to a worker is one structured clone (or a transfer).
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

export function emptyResult(n: number, kMax: number): TaskResult {
  return {
    labels: new Float64Array(n * kMax).fill(-1),
    distances: new Float32Array(n * kMax).fill(Infinity),
    kMax,
    stats: new Float64Array(n * STAT_FIELDS),
    busyMs: 0,
  };
}
