// Qdrant's search matrix (POST …/points/search/matrix/pairs and …/offsets): a random sample of the
// points (those matching a filter), and for each its `limit` nearest among the sample, scored by
// the collection's distance. Strata computes it exactly over the sample's stored vectors, bounded by
// the request work limit (work-limit.ts), a few rows per turn of the event loop.
import { denseDim, usingAt, type VectorSpace } from './vector-space.js';
import { denseView } from './dense-view.js';
import { type Collection, distanceRef, type Filter, type Metric, type PointKey } from '../../engine/public.js';
import { type Fields, filterAt, noShardKey, optionalInt } from './fields.js';
import { scoreOf } from './scores.js';
import { checkWork } from './work-limit.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface MatrixPlan {
  /** The secondary vector it scores by (undefined: the primary). */
  secondary: string | undefined;
  sample: number;
  limit: number;
  filter: Filter | undefined;
}

/** Most points one matrix samples. */
export const MAX_MATRIX_SAMPLE = 10_000;

/** {sample = 10, limit = 3, filter, using}: `using` names one of the collection's dense vectors. */
export function parseSearchMatrix(body: Fields, space: VectorSpace): MatrixPlan {
  noShardKey(body, '');
  const secondary = usingAt(body['using'], 'using', space);
  const dim = denseDim(space, secondary);
  const sample = optionalInt(body['sample'], 'sample', 2, MAX_MATRIX_SAMPLE) ?? 10;
  const limit = optionalInt(body['limit'], 'limit', 1, MAX_MATRIX_SAMPLE) ?? 3;
  checkWork(sample * sample * dim, 'sample', `a matrix of ${sample} × ${sample} points of ${dim} dimensions`);
  return { secondary, sample, limit, filter: filterAt(body['filter'], 'filter') };
}

/** One sampled point's nearest others: positions in the sample, with their scores. */
export interface MatrixRow {
  cols: number[];
  scores: number[];
}

/** A sample (external ids, in sample order) and each one's nearest others among it. */
export interface Matrix {
  ids: PointKey[];
  rows: MatrixRow[];
}

/** Vector products of matrix rows computed between two turns of the event loop. */
const PRODUCTS_PER_TURN = 4_000_000;

/** Vector i's `limit` nearest others among `vectors`, best first (ties by position), by the metric's score. */
function matrixRow(vectors: ArrayLike<number>[], i: number, metric: Metric, dim: number, limit: number): MatrixRow {
  const better = metric === 'l2' ? 1 : -1;
  const n = vectors.length;
  const scores = new Float64Array(n);
  const cols = new Uint32Array(n - 1);
  for (let j = 0, at = 0; j < n; j++) {
    if (j === i) continue;
    scores[j] = scoreOf(metric, distanceRef(metric, vectors[i]!, 0, vectors[j]!, 0, dim));
    cols[at++] = j;
  }
  cols.sort((a, b) => better * (scores[a]! - scores[b]!) || a - b);
  const best = Array.from(cols.subarray(0, limit));
  return { cols: best, scores: best.map((j) => scores[j]!) };
}

/** Each vector's `limit` nearest others among them, best first (ties by position), by the metric's score. */
export function matrixRows(vectors: ArrayLike<number>[], metric: Metric, dim: number, limit: number): MatrixRow[] {
  return vectors.map((_, i) => matrixRow(vectors, i, metric, dim, limit));
}

/** matrixRows, yielding to the event loop between rows every PRODUCTS_PER_TURN products. */
export async function matrixRowsInTurns(vectors: ArrayLike<number>[], metric: Metric, dim: number, limit: number): Promise<MatrixRow[]> {
  const rows: MatrixRow[] = [];
  const perTurn = Math.max(1, Math.floor(PRODUCTS_PER_TURN / Math.max(1, vectors.length * dim)));
  for (let i = 0; i < vectors.length; i++) {
    if (i > 0 && i % perTurn === 0) await nextTurn();
    rows.push(matrixRow(vectors, i, metric, dim, limit));
  }
  return rows;
}

/** The sample (of the points holding the vector it scores by) and each one's nearest others among it. */
export async function searchMatrix(c: Collection, p: MatrixPlan): Promise<Matrix> {
  const d = denseView(c, p.secondary);
  await c.settle(p.filter);
  const matching = c.ids(p.filter);
  const all = p.secondary === undefined ? matching : matching.filter((id) => d.vectorOf(id) !== null);
  // A uniform sample without replacement: a partial Fisher–Yates shuffle.
  const n = Math.min(p.sample, all.length);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(Math.random() * (all.length - i));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  const picked = all.slice(0, n);
  const vectors = picked.map((id) => d.vectorOf(id)!);
  const ids = picked.map((id) => c.externalId(id));
  return { ids, rows: await matrixRowsInTurns(vectors, d.metric, d.dim, p.limit) };
}

/** The matrix as …/matrix/pairs answers it. */
export function matrixPairs(m: Matrix): { pairs: Array<{ a: PointKey; b: PointKey; score: number }> } {
  return { pairs: m.rows.flatMap((r, i) => r.cols.map((j, k) => ({ a: m.ids[i]!, b: m.ids[j]!, score: r.scores[k]! }))) };
}

/** The matrix as …/matrix/offsets answers it (a sparse matrix over the sample's positions). */
export function matrixOffsets(m: Matrix): { offsets_row: number[]; offsets_col: number[]; scores: number[]; ids: PointKey[] } {
  return {
    offsets_row: m.rows.flatMap((r, i) => r.cols.map(() => i)),
    offsets_col: m.rows.flatMap((r) => r.cols),
    scores: m.rows.flatMap((r) => r.scores),
    ids: m.ids,
  };
}
