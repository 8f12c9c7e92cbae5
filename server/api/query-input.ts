// What a query searches with (Qdrant's query API and its classic recommend route): a vector given,
// or a stored point's by id, or a recommendation from positive and negative examples (each a vector
// or an id). The ids a query names are left out of its answer, as Qdrant does. Only the
// average_vector strategy is taken: it becomes one vector (2 × mean of positives − mean of
// negatives) and a plain search; best_score and sum_scores score candidates against every example,
// which Strata's search does not, so they are refused. A nearest query may re-rank its candidates by
// maximal marginal relevance (`mmr`); a fusion (`fusion`, `rrf`) merges a query's prefetch answers.
import { invalidArgument, quoted } from '../../common/errors.js';
import { checkQueryVector, type OrderBy, type PointKey } from '../../engine/public.js';
import { arrayAt, describe, type Fields, isAbsent, numbersAt, objectAt, onlyMembers, optionalInt, optionalNumber, pointKeyAt } from './fields.js';

/** One vector a query takes. */
export type VectorInput = { readonly vector: Float32Array } | { readonly id: PointKey };

/** Maximal marginal relevance over a nearest query's candidates (mmr.ts). */
export interface MmrAsk {
  /** 0: relevance only … 1: dissimilarity to the points picked before only. */
  readonly diversity: number;
  /** Candidates to pick from; undefined: the query's limit + offset (Qdrant's default). */
  readonly candidatesLimit: number | undefined;
}

/** A fusion of a query's prefetch answers (fusion.ts). */
export type FusionAsk = { readonly method: 'rrf'; readonly k: number; readonly weights: readonly number[] | undefined } | { readonly method: 'dbsf' };

/** A context pair: points nearer its positive example than its negative are in its positive zone. */
export interface ContextPair {
  readonly positive: VectorInput;
  readonly negative: VectorInput;
}

export type QuerySource =
  | { readonly kind: 'nearest'; readonly input: VectorInput; readonly mmr?: MmrAsk }
  | { readonly kind: 'discover'; readonly target: VectorInput; readonly pairs: readonly ContextPair[] }
  | { readonly kind: 'context'; readonly pairs: readonly ContextPair[] }
  | { readonly kind: 'order_by'; readonly orderBy: OrderBy }
  | { readonly kind: 'recommend'; readonly positive: readonly VectorInput[]; readonly negative: readonly VectorInput[] }
  | { readonly kind: 'fusion'; readonly fusion: FusionAsk };

/** The sources that become one vector to search with (query-vector.ts). */
export type VectorSource = Extract<QuerySource, { kind: 'nearest' | 'recommend' }>;

/** Qdrant's RRF constant when a request gives none. */
export const DEFAULT_RRF_K = 2;

/** Most candidates one MMR query picks from. */
export const MAX_MMR_CANDIDATES = 10_000;

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
export function recommendQueryAt(q: Fields, dim: number, field = 'query'): QuerySource {
  onlyMembers(q, ['recommend'], field, 'beside recommend');
  const r = q['recommend'];
  if (typeof r !== 'object' || r === null || Array.isArray(r)) throw invalidArgument(`${field}.recommend`, `must be an object, got ${describe(r)}`);
  onlyMembers(r as Fields, ['positive', 'negative', 'strategy'], `${field}.recommend`, 'in a recommendation');
  return recommendAt(r as Fields, `${field}.recommend.`, dim);
}

/** `{nearest, mmr: {diversity = 0.5, candidates_limit}}`: MMR's parameters, or undefined without `mmr`. */
export function mmrAt(v: unknown, field: string): MmrAsk | undefined {
  if (isAbsent(v)) return undefined;
  const o = objectAt(v, field);
  onlyMembers(o, ['diversity', 'candidates_limit'], field, 'in mmr');
  const diversity = optionalNumber(o['diversity'], `${field}.diversity`) ?? 0.5;
  if (!(diversity >= 0 && diversity <= 1)) throw invalidArgument(`${field}.diversity`, `must be between 0 and 1, got ${diversity}`);
  return { diversity, candidatesLimit: optionalInt(o['candidates_limit'], `${field}.candidates_limit`, 1, MAX_MMR_CANDIDATES) };
}

/** `{fusion: "rrf" | "dbsf"}` or `{rrf: {k, weights}}` (Qdrant's parameterised RRF). */
export function fusionAt(o: Fields, field = 'query'): FusionAsk {
  if (!isAbsent(o['fusion'])) {
    onlyMembers(o, ['fusion'], field, 'beside fusion');
    const f = o['fusion'];
    if (f === 'rrf') return { method: 'rrf', k: DEFAULT_RRF_K, weights: undefined };
    if (f === 'dbsf') return { method: 'dbsf' };
    throw invalidArgument(`${field}.fusion`, `must be "rrf" or "dbsf", got ${describe(f)}`);
  }
  onlyMembers(o, ['rrf'], field, 'beside rrf');
  const r = objectAt(o['rrf'], `${field}.rrf`);
  onlyMembers(r, ['k', 'weights'], `${field}.rrf`, 'in rrf');
  const weights = isAbsent(r['weights'])
    ? undefined
    : arrayAt(r['weights'], `${field}.rrf.weights`, MAX_EXAMPLES).map((w, i) => {
        const x = optionalNumber(w, `${field}.rrf.weights[${i}]`);
        if (x === undefined || x < 0) throw invalidArgument(`${field}.rrf.weights[${i}]`, `must be a number of at least 0, got ${describe(w)}`);
        return x;
      });
  return { method: 'rrf', k: optionalInt(r['k'], `${field}.rrf.k`, 1, 1_000_000) ?? DEFAULT_RRF_K, weights };
}

/** Context pairs: one `{positive, negative}` or a list of them, at `field`. */
export function pairsAt(v: unknown, field: string, dim: number): ContextPair[] {
  const list = Array.isArray(v) ? v : [v];
  if (list.length > MAX_EXAMPLES) throw invalidArgument(field, `at most ${MAX_EXAMPLES} context pairs, got ${list.length}`);
  return list.map((raw, i) => {
    const at = Array.isArray(v) ? `${field}[${i}]` : field;
    const o = objectAt(raw, at);
    onlyMembers(o, ['positive', 'negative'], at, 'in a context pair');
    for (const k of ['positive', 'negative'] as const) if (isAbsent(o[k])) throw invalidArgument(`${at}.${k}`, 'required: a vector or a point id');
    return { positive: vectorInputAt(o['positive'], `${at}.positive`, dim), negative: vectorInputAt(o['negative'], `${at}.negative`, dim) };
  });
}

/** `{discover: {target, context}}`: a target and context pairs (none: the target alone ranks). */
export function discoverAt(q: Fields, field: string, dim: number): QuerySource {
  onlyMembers(q, ['discover'], field, 'beside discover');
  const d = objectAt(q['discover'], `${field}.discover`);
  onlyMembers(d, ['target', 'context'], `${field}.discover`, 'in discover');
  if (isAbsent(d['target'])) throw invalidArgument(`${field}.discover.target`, 'required: a vector or a point id');
  const pairs = isAbsent(d['context']) ? [] : pairsAt(d['context'], `${field}.discover.context`, dim);
  return { kind: 'discover', target: vectorInputAt(d['target'], `${field}.discover.target`, dim), pairs };
}

/** `{context: pair | [pairs]}`: context pairs alone. */
export function contextAt(q: Fields, field: string, dim: number): QuerySource {
  onlyMembers(q, ['context'], field, 'beside context');
  const pairs = pairsAt(q['context'], `${field}.context`, dim);
  if (pairs.length === 0) throw invalidArgument(`${field}.context`, 'required: at least one {positive, negative} pair');
  return { kind: 'context', pairs };
}

/** The vectors a source names: its examples, target and pairs. */
function inputsOf(s: QuerySource): VectorInput[] {
  switch (s.kind) {
    case 'fusion':
    case 'order_by':
      return [];
    case 'nearest':
      return [s.input];
    case 'recommend':
      return [...s.positive, ...s.negative];
    case 'discover':
      return [s.target, ...s.pairs.flatMap((p) => [p.positive, p.negative])];
    case 'context':
      return s.pairs.flatMap((p) => [p.positive, p.negative]);
  }
}

/**
 * Checks each vector a source gives (length and values) under `field`: the re-scoring, MMR and
 * discovery read them directly, with no engine search to check them first.
 */
export function checkGivenVectors(s: QuerySource, dim: number, field: string): void {
  for (const i of inputsOf(s)) if ('vector' in i) checkQueryVector(i.vector, dim, field);
}

/** The ids a source names (left out of its answer). */
export function namedIds(s: QuerySource): PointKey[] {
  const inputs = inputsOf(s);
  return inputs.flatMap((i) => ('id' in i ? [i.id] : []));
}

/** The query kinds other than nearest and recommend, named in refusals. */
export function unsupportedKind(keys: readonly string[]): string {
  return keys
    .slice(0, 5)
    .map((k) => quoted(k, 32))
    .join(', ');
}
