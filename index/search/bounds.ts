// The one home of a search's parameter bounds (k, ef, re-rank pool) and of the query-vector check,
// with one wording. Every edge that takes a search checks through here, each naming the field as
// its caller spells it: the REST and gRPC parsers ("searches[2].params.hnsw_ef"), the engine, and
// the in-process batch. The searcher behind them trusts what they passed.
import { invalidArgument } from '../../common/errors.js';

export const MAX_EF = 10_000;
export const MAX_K = 10_000;
/** Largest re-rank pool a search may use: the pool is drawn from the beam, which ef bounds. */
export const MAX_RERANK = MAX_EF;
/** Re-ranked candidates by default: k × this, measured in docs/benchmarks.md. */
export const DEFAULT_RERANK_FACTOR = 5;

/**
 * The re-rank pool a search uses when its caller names none: the default factor × k, clamped to
 * MAX_RERANK, so that a large k never fails on a field its caller did not send.
 */
export function defaultRerank(k: number): number {
  return Math.min(MAX_RERANK, DEFAULT_RERANK_FACTOR * k);
}

/** Throws STRATA_INVALID_ARGUMENT naming `field` unless `v` is an integer in min..max. */
export function checkIntIn(v: number, field: string, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max)
    throw invalidArgument(field, `must be an integer in ${min}..${max}, got ${Number.isNaN(v) ? 'NaN' : String(v)}`);
  return v;
}

export function checkK(k: number, field: string): number {
  return checkIntIn(k, field, 1, MAX_K);
}

export function checkEf(ef: number, field: string): number {
  return checkIntIn(ef, field, 1, MAX_EF);
}

/**
 * A re-rank pool asked for by the caller: 0 (no re-rank) or at least the `k` results it must hold
 * (limit + offset where the server adds an offset), at most MAX_RERANK.
 */
export function checkRerank(rerank: number, k: number, field: string): number {
  if (rerank === 0) return 0;
  if (!Number.isInteger(rerank) || rerank < k || rerank > MAX_RERANK)
    throw invalidArgument(field, `must be 0 (no re-rank) or an integer in ${k}..${MAX_RERANK}, got ${Number.isNaN(rerank) ? 'NaN' : String(rerank)}`);
  return rerank;
}

/** Largest finite float32. */
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * The largest magnitude a query element may have in a `dim`-dimensional collection. Distances are
 * summed in float32: with every |q_i| and |x_i| at most this, (q_i - x_i)^2 summed over dim terms
 * and q·x both stay below FLOAT32_MAX, so no distance overflows to Infinity or NaN (which would rank
 * nothing and serialise as a null score). Stored vectors are far below it in any real data set.
 */
export function maxQueryMagnitude(dim: number): number {
  return Math.sqrt(FLOAT32_MAX / (4 * dim));
}

/**
 * Throws STRATA_INVALID_ARGUMENT naming `field` unless the vector has `dim` elements, each finite and
 * within maxQueryMagnitude.
 */
export function checkQueryVector(v: Float32Array, dim: number, field: string): void {
  if (v.length !== dim) throw invalidArgument(field, `expected ${dim} dimensions, got ${v.length}`);
  const bound = maxQueryMagnitude(dim);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (Math.abs(x) <= bound) continue;
    if (!Number.isFinite(x)) throw invalidArgument(field, `element ${i} is not a finite float32 number (${String(x)})`);
    throw invalidArgument(
      field,
      `element ${i} is ${x.toPrecision(3)}, beyond ±${bound.toPrecision(3)}: the largest magnitude a ${dim}-d query can have before its distances overflow float32`,
      { limit: bound },
    );
  }
}
