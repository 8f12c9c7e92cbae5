// Payload attributes for the filtered benchmark sets, taken from what each row is: a GloVe word's
// frequency rank, length, first letter and whether it is letters only; a generated row's cluster
// label. Every set also gets `tags`, an array of keywords drawn independently of the vectors at fixed
// rates, the uncorrelated filters' field (one tag per selectivity, so a filter's share of the points
// is known before any is counted).

/** A point's payload as the sets write it (one JSON object per base row). */
export type Payload = Record<string, string | number | boolean | string[]>;

/** The `tags` values and the share of rows that carry each (independently of one another). */
export const SELECTIVITY_TAGS: ReadonlyArray<{ tag: string; share: number }> = [
  { tag: 's50', share: 0.5 },
  { tag: 's10', share: 0.1 },
  { tag: 's1', share: 0.01 },
  { tag: 's0.1', share: 0.001 },
];

/** The tags one row carries, drawn from `rnd` (one draw per tag, so the rates do not depend on each other). */
export function selectivityTags(rnd: () => number): string[] {
  const out: string[] = [];
  for (const { tag, share } of SELECTIVITY_TAGS) if (rnd() < share) out.push(tag);
  return out;
}

/**
 * A word's attributes. `rank` is its position in the package's word list, which is GloVe's vocabulary
 * order (by corpus frequency: "the" is 0); `first` its first character, `alpha` whether it is
 * letters only (GloVe's vocabulary also holds numbers, punctuation and hyphenated words).
 */
export function wordAttributes(word: string, rank: number): Payload {
  const chars = [...word];
  return { rank, len: chars.length, first: chars[0] ?? '', alpha: /^\p{L}+$/u.test(word) };
}

/** The keyword label of cluster c. */
export const clusterLabel = (c: number): string => `c${c}`;
