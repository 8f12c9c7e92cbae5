// Query-profile placement input: run sample queries over the unplaced graph and count, per node,
// how often a search reads its neighbour list or its vector. The same counts predict the DRAM share
// of accesses any placement would get on queries like these.
import { pickRows, seededSample } from '../../common/random.js';
import type { Metric } from '../kernels/kernels.js';
import type { GraphImage } from '../graph/graph-image.js';
import { Searcher } from '../search/searcher.js';
import { identityLayout } from '../tiered/layout.js';

export interface Profile {
  /** Accesses per (hnswlib internal) node id. */
  accesses: Float64Array;
  queries: number;
  ef: number;
}

/** Sample rows of the data itself as profiling queries (seeded, without replacement when possible). */
export function sampleRows(vectors: Float32Array, dim: number, n: number, seed: number): Float32Array {
  const count = vectors.length / dim;
  return pickRows(vectors, dim, seededSample(count, Math.min(n, count), seed));
}

export function profileGraph(g: GraphImage, metric: Metric, queries: Float32Array, k: number, ef: number): Profile {
  const accesses = new Float64Array(g.count);
  const index = identityLayout(g, metric);
  const s = new Searcher(index, { trace: accesses });
  const nq = queries.length / g.dim;
  try {
    for (let q = 0; q < nq; q++) s.search(queries.subarray(q * g.dim, (q + 1) * g.dim), k, ef);
  } finally {
    s.close();
  }
  return { accesses, queries: nq, ef };
}

/** Share of profiled accesses that hit nodes of the DRAM tier under `inDram` (old ids). */
export function predictedDramShare(p: Profile, order: Uint32Array, dramCount: number): number {
  let dram = 0;
  let all = 0;
  for (let i = 0; i < order.length; i++) {
    const a = p.accesses[order[i]!]!;
    all += a;
    if (i < dramCount) dram += a;
  }
  return all > 0 ? dram / all : 1;
}
