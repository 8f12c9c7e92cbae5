// Qdrant's search matrix (POST …/points/search/matrix/pairs and …/offsets): a random sample of the
// points (those matching a filter), and for each its `limit` nearest among the sample, scored by
// the collection's distance. Strata computes it exactly over the sample's stored vectors, bounded by
// the request work limit (work-limit.ts).
import { usingAt, type VectorSpace } from './vector-space.js';
import { type Collection, distanceRef, type Filter, type PointKey } from '../../engine/public.js';
import { type Fields, filterAt, noShardKey, optionalInt } from './fields.js';
import { scoreOf } from './scores.js';
import { checkWork } from './work-limit.js';

export interface MatrixPlan {
  sample: number;
  limit: number;
  filter: Filter | undefined;
}

/** Most points one matrix samples. */
export const MAX_MATRIX_SAMPLE = 10_000;

/** {sample = 10, limit = 3, filter, using}: `using` names the collection's vector. */
export function parseSearchMatrix(body: Fields, space: VectorSpace): MatrixPlan {
  noShardKey(body, '');
  usingAt(body['using'], 'using', space);
  const dim = space.dim;
  const sample = optionalInt(body['sample'], 'sample', 2, MAX_MATRIX_SAMPLE) ?? 10;
  const limit = optionalInt(body['limit'], 'limit', 1, MAX_MATRIX_SAMPLE) ?? 3;
  checkWork(sample * sample * dim, 'sample', `a matrix of ${sample} × ${sample} points of ${dim} dimensions`);
  return { sample, limit, filter: filterAt(body['filter'], 'filter') };
}

/** One sampled point's nearest others: positions in the sample, with their scores. */
export interface MatrixRow {
  cols: number[];
  scores: number[];
}

/** The sample (external ids, in sample order) and each one's nearest others among it, best first (ties by position). */
export function searchMatrix(c: Collection, p: MatrixPlan): { ids: PointKey[]; rows: MatrixRow[] } {
  const all = c.ids(p.filter);
  // A uniform sample without replacement: a partial Fisher–Yates shuffle.
  const n = Math.min(p.sample, all.length);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(Math.random() * (all.length - i));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  const picked = all.slice(0, n);
  const vectors = picked.map((id) => c.getPoint(id)!.vector);
  const better = c.metric === 'l2' ? 1 : -1;
  const rows = vectors.map((v, i) => {
    const others: Array<{ col: number; score: number }> = [];
    for (let j = 0; j < n; j++) if (j !== i) others.push({ col: j, score: scoreOf(c.metric, distanceRef(c.metric, v, 0, vectors[j]!, 0, c.dim)) });
    others.sort((a, b) => better * (a.score - b.score) || a.col - b.col);
    const best = others.slice(0, p.limit);
    return { cols: best.map((o) => o.col), scores: best.map((o) => o.score) };
  });
  return { ids: picked.map((id) => c.externalId(id)), rows };
}
