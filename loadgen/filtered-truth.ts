// Exact filtered ground truth, computed by the load generator itself: each query's filter is
// evaluated on every base row's payload by Qdrant's semantics (index/filter's reference evaluator),
// and the top k is brute force over the rows that match (datasets/' masked brute force, float64, in
// the collection's metric). One pass over the base per query serves every family, and a filter
// repeated across queries (a family's fixed filter, a label shared by a cluster's queries) is
// evaluated once.
import { bruteForceKnnWhere, type PayloadObject } from '../datasets/index.js';
import type { Filter } from '../index/filter/ast.js';
import { compile } from '../index/filter/evaluate.js';
import type { QdrantDistance } from './ground-truth.js';
import { scoreOrder } from './ground-truth.js';
import type { GroundTruth } from './recall.js';

export interface FilteredTruth {
  /** k ids per query (row numbers, as the server labels the rows); past `matched`, id -1. */
  gt: GroundTruth;
  /** Base rows each query's filter matches. */
  matched: Int32Array;
}

/** Masks are kept for this many distinct filters at a time: enough for a family's repeated ones, bounded for per-query ones. */
const MASK_CACHE = 256;

export interface FilteredTruthInput {
  base: Float32Array;
  payloads: readonly PayloadObject[];
  queries: Float32Array;
  dim: number;
  k: number;
  distance: QdrantDistance;
  /** Per family, per query: the filter (null: none, every row). */
  families: ReadonlyArray<ReadonlyArray<Filter | null>>;
  /** The filters as sent, per family and query: the cache's keys (equal JSON, equal mask). */
  keys: ReadonlyArray<ReadonlyArray<unknown>>;
  /** Each base row's id as the server reports it (the input's own ids); absent: the row number. */
  rowIds?: ArrayLike<number>;
}

export function filteredGroundTruth(o: FilteredTruthInput): FilteredTruth[] {
  const n = o.base.length / o.dim;
  if (o.payloads.length !== n) throw new RangeError(`${o.payloads.length} payloads for ${n} base rows`);
  const idOf = (row: number): number => (o.rowIds === undefined ? row : o.rowIds[row]!);
  const points = o.payloads.map((payload, row) => ({ id: idOf(row), payload }));
  const all = new Uint8Array(n).fill(1);
  const cache = new Map<string, Uint8Array>();
  const maskOf = (filter: Filter | null, key: unknown): Uint8Array => {
    if (filter === null) return all;
    const k = JSON.stringify(key);
    const hit = cache.get(k);
    if (hit !== undefined) return hit;
    const test = compile(filter);
    const mask = new Uint8Array(n);
    for (let i = 0; i < n; i++) mask[i] = test(points[i]!) ? 1 : 0;
    if (cache.size >= MASK_CACHE) cache.delete(cache.keys().next().value!);
    cache.set(k, mask);
    return mask;
  };
  const metric = o.distance === 'Euclid' ? 'l2' : o.distance === 'Dot' ? 'ip' : 'cosine';
  const out = bruteForceKnnWhere(o.base, o.queries, o.dim, o.k, metric, o.families.length, (q) =>
    o.families.map((fam, f) => maskOf(fam[q] ?? null, o.keys[f]![q])),
  );
  return out.map(({ truth, matched }) => {
    // Scores in the server's convention: the Euclidean distance for Euclid, the similarity (1 - d) otherwise.
    const scores = Float32Array.from(truth.distances, (d) => (metric === 'l2' ? d : 1 - d));
    const ids = Float64Array.from(truth.ids, (row) => (row < 0 ? row : idOf(row)));
    return { gt: { dim: truth.k, count: matched.length, ids, scores, order: scoreOrder(o.distance) }, matched };
  });
}
