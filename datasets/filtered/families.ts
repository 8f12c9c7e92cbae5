// Families of filters for the filtered benchmark: each family is one kind of filter, one instance per
// query, written as Qdrant's REST filter JSON. The kinds are those filtered search is known to fail
// on: uncorrelated keywords and ranges at set selectivities, filters correlated with the query (its
// own cluster or frequency band: the matches are near it) and anti-correlated (a far cluster: the
// matches are where the graph walk starts far from), and two-condition AND / OR / NOT combinations.
import { mulberry32 } from '../../common/random.js';
import type { ClusterMembership } from '../generate/clustered.js';
import { clusterLabel, type Payload, SELECTIVITY_TAGS } from './attributes.js';
import type { FieldSpecs } from './fields.js';

/** A filter as Qdrant's REST API spells it. */
export type FilterJson = Readonly<Record<string, unknown>>;

export type FamilyKind = 'uncorrelated' | 'range' | 'keyword' | 'correlated' | 'anti-correlated' | 'and' | 'or' | 'not';

export interface FilterFamily {
  name: string;
  kind: FamilyKind;
  /** One filter per query, in query order. */
  filters: FilterJson[];
}

export const FILTER_CASES_SCHEMA = 'strata-filters/1';

/** What a filtered set writes beside its vectors (filters.json) and `strata loadgen --filters` reads. */
export interface FilterCases {
  schema: typeof FILTER_CASES_SCHEMA;
  /** The payload fields: what to index, and a SQL table's columns. */
  fields: FieldSpecs;
  families: FilterFamily[];
}

const match = (key: string, value: string | number | boolean): FilterJson => ({ key, match: { value } });
const range = (key: string, bounds: Readonly<Record<string, number>>): FilterJson => ({ key, range: bounds });
const pct = (share: number): string => `${share * 100}%`;
const perQuery = (queries: number, f: (q: number) => FilterJson): FilterJson[] => Array.from({ length: queries }, (_, q) => f(q));

/** The uncorrelated keyword families: `tags` holds a value at each selectivity. */
function tagFamilies(queries: number): FilterFamily[] {
  return SELECTIVITY_TAGS.map(({ tag, share }) => ({
    name: `tag ${pct(share)}`,
    kind: 'uncorrelated',
    filters: perQuery(queries, () => ({ must: [match('tags', tag)] })),
  }));
}

/** The value below which `share` of the sorted values lie. */
const quantile = (sorted: Float64Array, share: number): number => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;

/** GloVe with word attributes: `rank` is each query word's frequency rank too. */
export function wordFamilies(base: readonly Payload[], queryRanks: ArrayLike<number>, seed: number): FilterFamily[] {
  const rnd = mulberry32(seed);
  const queries = queryRanks.length;
  const ranks = Float64Array.from(base, (p) => p['rank'] as number).sort();
  const letterOf = (): string => base[Math.floor(rnd() * base.length)]!['first'] as string;
  // The base's share of words more frequent than rank r: the query's place in the frequency order.
  const shareBelow = (r: number): number => {
    let lo = 0;
    let hi = ranks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ranks[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return lo / ranks.length;
  };
  const band = (centre: number, width: number): FilterJson => {
    const from = Math.max(0, Math.min(1 - width, centre - width / 2));
    return { must: [range('rank', { gte: quantile(ranks, from), lt: quantile(ranks, from + width) })] };
  };
  const BAND = 0.1;
  return [
    ...tagFamilies(queries),
    ...SELECTIVITY_TAGS.map(({ share }) => ({
      name: `rank < ${pct(share)}`,
      kind: 'range' as const,
      filters: perQuery(queries, () => ({ must: [range('rank', { lt: quantile(ranks, share) })] })),
    })),
    { name: 'first letter', kind: 'keyword', filters: perQuery(queries, () => ({ must: [match('first', letterOf())] })) },
    { name: 'not letters only', kind: 'keyword', filters: perQuery(queries, () => ({ must: [match('alpha', false)] })) },
    { name: 'len >= 12', kind: 'range', filters: perQuery(queries, () => ({ must: [range('len', { gte: 12 })] })) },
    { name: 'own frequency band 10%', kind: 'correlated', filters: perQuery(queries, (q) => band(shareBelow(queryRanks[q]!), BAND)) },
    // The far band is the other end of the frequency order: the rarest words for a frequent query word, the most frequent for a rare one.
    {
      name: 'far frequency band 10%',
      kind: 'anti-correlated',
      filters: perQuery(queries, (q) => band(shareBelow(queryRanks[q]!) < 0.5 ? 1 - BAND / 2 : BAND / 2, BAND)),
    },
    { name: 'first letter AND len >= 6', kind: 'and', filters: perQuery(queries, () => ({ must: [match('first', letterOf()), range('len', { gte: 6 })] })) },
    {
      name: 'first letter OR first letter',
      kind: 'or',
      filters: perQuery(queries, () => ({ should: [match('first', letterOf()), match('first', letterOf())] })),
    },
    {
      name: 'tag 50% NOT first letter',
      kind: 'not',
      filters: perQuery(queries, () => ({ must: [match('tags', 's50')], must_not: [match('first', letterOf())] })),
    },
  ];
}

/** Clusters ordered from the farthest centre to the nearest, for each cluster. */
function farthestClusters(m: ClusterMembership, dim: number): Int32Array[] {
  return Array.from({ length: m.count }, (_, a) => {
    const d = new Float64Array(m.count);
    for (let b = 0; b < m.count; b++) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += (m.centers[a * dim + j]! - m.centers[b * dim + j]!) ** 2;
      d[b] = s;
    }
    return Int32Array.from({ length: m.count }, (_, i) => i).sort((x, y) => d[y]! - d[x]!);
  });
}

/** The generated set: `label` follows the clusters, `price` is uniform in [0, PRICE_SPAN). */
export function clusterFamilies(m: ClusterMembership, dim: number, seed: number): FilterFamily[] {
  const rnd = mulberry32(seed);
  const queries = m.queries.length;
  const far = farthestClusters(m, dim);
  const own = (q: number): FilterJson => match('label', clusterLabel(m.queries[q]!));
  const farLabel = (q: number, nth: number): FilterJson => match('label', clusterLabel(far[m.queries[q]!]![nth]!));
  return [
    ...tagFamilies(queries),
    ...SELECTIVITY_TAGS.map(({ share }) => ({
      name: `price range ${pct(share)}`,
      kind: 'range' as const,
      filters: perQuery(queries, () => {
        const from = rnd() * (1 - share) * PRICE_SPAN;
        return { must: [range('price', { gte: from, lt: from + share * PRICE_SPAN })] };
      }),
    })),
    { name: 'own cluster', kind: 'correlated', filters: perQuery(queries, (q) => ({ must: [own(q)] })) },
    { name: 'far cluster', kind: 'anti-correlated', filters: perQuery(queries, (q) => ({ must: [farLabel(q, 0)] })) },
    { name: 'own cluster AND price < 50%', kind: 'and', filters: perQuery(queries, (q) => ({ must: [own(q), range('price', { lt: PRICE_SPAN / 2 })] })) },
    { name: 'far cluster AND tag 50%', kind: 'and', filters: perQuery(queries, (q) => ({ must: [farLabel(q, 0), match('tags', 's50')] })) },
    { name: 'far cluster OR far cluster', kind: 'or', filters: perQuery(queries, (q) => ({ should: [farLabel(q, 0), farLabel(q, 1)] })) },
    { name: 'NOT own cluster', kind: 'not', filters: perQuery(queries, (q) => ({ must_not: [own(q)] })) },
  ];
}

/** The span of the generated set's `price`. */
export const PRICE_SPAN = 1000;
