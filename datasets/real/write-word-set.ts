// Writes a split of a word-vector set in TEXMEX layout with exact cosine ground truth (through
// writeTexmexSet, as generated sets are), plus the words of each row and where they came from.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pickRows } from '../../common/random.js';
import { type WrittenSet, writeTexmexSet } from '../generate/write-set.js';
import { splitRows, type WordVectors } from './word-vectors.js';

export interface WordSetOptions {
  count: number;
  queries: number;
  /** Ground-truth neighbours per query. */
  k: number;
  seed: number;
  /** Provenance written to source.json (package, version, integrity). */
  source: Readonly<Record<string, string | number>>;
}

export interface WrittenWordSet extends WrittenSet {
  /** One word a line, base row order; query words likewise. */
  baseWords: string;
  queryWords: string;
}

export async function writeWordSet(dir: string, wv: WordVectors, o: WordSetOptions): Promise<WrittenWordSet> {
  const split = splitRows(wv.words.length, o.count, o.queries, o.seed);
  const set = await writeTexmexSet(dir, pickRows(wv.vectors, wv.dim, split.base), pickRows(wv.vectors, wv.dim, split.queries), wv.dim, o.k, 'cosine');
  const files: WrittenWordSet = { ...set, baseWords: join(dir, 'base.words.txt'), queryWords: join(dir, 'query.words.txt') };
  // One a line: no word of the pinned set holds whitespace (checked when it was pinned).
  const wordsOf = (rows: Int32Array): string => `${Array.from(rows, (r) => wv.words[r]!).join('\n')}\n`;
  writeFileSync(files.baseWords, wordsOf(split.base));
  writeFileSync(files.queryWords, wordsOf(split.queries));
  writeFileSync(
    join(dir, 'source.json'),
    `${JSON.stringify({ ...o.source, rows: wv.words.length, dim: wv.dim, count: o.count, queries: o.queries, k: o.k, seed: o.seed, metric: 'cosine' }, null, 2)}\n`,
  );
  return files;
}
