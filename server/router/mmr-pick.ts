// MMR over the shards' candidates (Qdrant's `nearest` with `mmr`): its picks depend on every
// candidate's vector, so the router picks, as the server's query stage does (api/query-stages.ts's
// pickMmr): each candidate's stored vector of the vector searched by fetched from its shard, its
// exact score against the query computed here by the same reference kernel, and the server's own
// mmrOrder (api/mmr.ts) over them.
import { distanceRef, type Metric, normalizeRows, type PointKey } from '../../engine/public.js';
import { mmrOrder } from '../api/mmr.js';
import { scoreOf } from '../api/scores.js';
import { exampleVectors } from './examples.js';
import type { Hit } from './merge.js';
import type { RouterContext } from './route-context.js';

export interface MmrAsk {
  /** The query: a dense vector given, or a point id (its stored vector). */
  query: unknown;
  /** The dense vector searched by (undefined: the primary), its dimension and metric. */
  using: string | undefined;
  dim: number;
  metric: Metric;
  diversity: number;
  want: number;
}

/** `want` of the candidates in MMR's order, each scored exactly against the query. */
export async function pickMmr(ctx: RouterContext, name: string, candidates: readonly Hit[], a: MmrAsk): Promise<Hit[]> {
  const ids = candidates.map((h) => h.id as PointKey);
  const byId = typeof a.query === 'number' || typeof a.query === 'string';
  const stored = await exampleVectors(ctx, name, byId ? [a.query as PointKey, ...ids] : ids, a.using);
  let q: Float32Array;
  if (byId) q = Float32Array.from(stored.get(a.query as PointKey) as number[]);
  else {
    q = Float32Array.from(a.query as ArrayLike<number>);
    // A given vector is searched at unit length for Cosine, as stored vectors are.
    if (a.metric === 'cosine') normalizeRows(q, a.dim);
  }
  const vectors = ids.map((id) => Float32Array.from(stored.get(id) as number[]));
  const scores = vectors.map((v) => scoreOf(a.metric, distanceRef(a.metric, q, 0, v, 0, a.dim)));
  const relevance = scores.map((s) => (a.metric === 'l2' ? -s : s));
  return mmrOrder(a.metric, a.dim, vectors, relevance, a.diversity, a.want).map((i) => ({ ...candidates[i]!, score: scores[i]! }));
}
