// A sparse query's terms in the order a pruned search reads their postings: each with its weight
// (the query's value times the column's IDF) and the most and least it can add to any point's score
// (from its posting's value bounds; 0 for a point without the dimension). Terms that can add the
// most come first, long postings last (with IDF, those of common terms, which add little): once the
// points seen can no longer be overtaken by one that holds only the terms left, those terms'
// postings need not be read, only looked up for the points seen.
import type { Posting } from './posting.js';

export interface QueryTerm {
  readonly dim: number;
  readonly posting: Posting;
  /** The query's value times the dimension's weight. */
  readonly weight: number;
  /** The most this term adds to a point's score (≥ 0), and the least (≤ 0). */
  readonly most: number;
  readonly least: number;
}

/**
 * A posting holding more than this share of the points is long: long ones are read last, longest
 * first (with IDF, those of common terms, which add least). Their order changes no answer.
 */
export const LONG_POSTING_SHARE = 1 / 16;

/** The query's terms that some live point holds: short postings most able to add first, then long ones longest first. */
export function queryTerms(
  indices: Uint32Array,
  values: Float32Array,
  postingOf: (dim: number) => Posting | undefined,
  weightOf: (p: Posting) => number,
  points: number,
): QueryTerm[] {
  const out: QueryTerm[] = [];
  for (let j = 0; j < indices.length; j++) {
    const posting = postingOf(indices[j]!);
    if (posting === undefined || posting.live === 0) continue;
    const weight = values[j]! * weightOf(posting);
    const a = weight * posting.maxValue;
    const b = weight * posting.minValue;
    out.push({ dim: indices[j]!, posting, weight, most: Math.max(0, a, b), least: Math.min(0, a, b) });
  }
  const long = (t: QueryTerm): boolean => t.posting.length > LONG_POSTING_SHARE * points;
  return out.sort((x, y) => {
    const lx = long(x);
    if (lx !== long(y)) return lx ? 1 : -1;
    return lx ? y.posting.length - x.posting.length || x.dim - y.dim : y.most - x.most || x.dim - y.dim;
  });
}
