// What a query searches with (Qdrant's query API and its classic recommend route): a vector given,
// or a stored point's by id, or a recommendation from positive and negative examples (each a vector
// or an id). The ids a query names are left out of its answer, as Qdrant does. Only the
// average_vector strategy is taken: it becomes one vector (2 × mean of positives − mean of
// negatives) and a plain search; best_score and sum_scores score candidates against every example,
// which Strata's search does not, so they are refused.
import { invalidArgument, quoted } from '../../common/errors.js';
import type { PointKey } from '../../engine/public.js';
import { arrayAt, describe, type Fields, isAbsent, numbersAt, onlyMembers, pointKeyAt } from './fields.js';

/** One vector a query takes. */
export type VectorInput = { readonly vector: Float32Array } | { readonly id: PointKey };

export type QuerySource =
  | { readonly kind: 'nearest'; readonly input: VectorInput }
  | { readonly kind: 'recommend'; readonly positive: readonly VectorInput[]; readonly negative: readonly VectorInput[] };

/** Most examples one recommendation takes. */
export const MAX_EXAMPLES = 256;

/** A vector, or a point id (an integer past 2^53 is no Strata id: not found, as an unknown id is). */
export function vectorInputAt(v: unknown, field: string, dim: number): VectorInput {
  if (typeof v === 'number' || typeof v === 'string') return { id: pointKeyAt(v, field) ?? Number.MAX_SAFE_INTEGER };
  return { vector: numbersAt(v, field, dim) };
}

/** {positive, negative, strategy} of a recommendation, at `at` (e.g. "query.recommend."). */
export function recommendAt(o: Fields, at: string, dim: number): QuerySource {
  const strategy = o['strategy'];
  if (!isAbsent(strategy) && strategy !== 'average_vector')
    throw invalidArgument(
      `${at}strategy`,
      `only average_vector is supported (best_score and sum_scores score against every example), got ${describe(strategy)}`,
    );
  const list = (key: string): VectorInput[] =>
    isAbsent(o[key]) ? [] : arrayAt(o[key], `${at}${key}`, MAX_EXAMPLES).map((v, i) => vectorInputAt(v, `${at}${key}[${i}]`, dim));
  const positive = list('positive');
  if (positive.length === 0) throw invalidArgument(`${at}positive`, 'required: at least one example (average_vector needs a positive)');
  return { kind: 'recommend', positive, negative: list('negative') };
}

/** Qdrant's query-API recommend: `{recommend: {positive, negative, strategy}}`. */
export function recommendQueryAt(q: Fields, dim: number): QuerySource {
  const r = q['recommend'];
  if (typeof r !== 'object' || r === null || Array.isArray(r)) throw invalidArgument('query.recommend', `must be an object, got ${describe(r)}`);
  onlyMembers(r as Fields, ['positive', 'negative', 'strategy'], 'query.recommend', 'in a recommendation');
  return recommendAt(r as Fields, 'query.recommend.', dim);
}

/** The ids a source names (left out of its answer). */
export function namedIds(s: QuerySource): PointKey[] {
  const inputs = s.kind === 'nearest' ? [s.input] : [...s.positive, ...s.negative];
  return inputs.flatMap((i) => ('id' in i ? [i.id] : []));
}

/** The query kinds other than nearest and recommend, named in refusals. */
export function unsupportedKind(keys: readonly string[]): string {
  return keys
    .slice(0, 5)
    .map((k) => quoted(k, 32))
    .join(', ');
}
