// A generated embedding-like set with base and queries normalised (copies), as a cosine index and
// its brute-force truth see them.
import { generateEmbedding } from '../../datasets/index.js';
import { normalizeRows } from '../../index/kernels/reference.js';

export function angularSet(count: number, dim: number, seed: number, queryCount: number): { base: Float32Array; queries: Float32Array } {
  const set = generateEmbedding({ count, dim, seed }, queryCount);
  const base = set.base.slice();
  const queries = set.queries.slice();
  normalizeRows(base, dim);
  normalizeRows(queries, dim);
  return { base, queries };
}
