import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isStrataError } from '../../../common/errors.js';
import {
  bruteForceKnn,
  checkIntegrity,
  fileIntegrity,
  parseWordVectors,
  readFvecsMatrix,
  readIvecs,
  splitRows,
  writeWordSet,
} from '../../../datasets/index.js';
import { pickRows } from '../../../common/random.js';
import { makeTempDir } from '../../helpers/temp.js';

const tmp = makeTempDir('strata-word-set-');
afterAll(() => tmp.cleanup());

/** A file in the package's layout: vectors keyed by word, each dims values then its norm and index. */
function winkJson(words: string[], dim: number, value: (r: number, d: number) => number): string {
  const vectors: Record<string, number[]> = {};
  words.forEach((w, r) => {
    const v = Array.from({ length: dim }, (_, d) => value(r, d));
    vectors[w] = [...v, Math.hypot(...v), r];
  });
  return JSON.stringify({ precision: 8, l2NormIndex: dim, wordIndex: dim + 1, size: words.length, dimensions: dim, words, vectors, unkVector: [] });
}

const WORDS = Array.from({ length: 300 }, (_, i) => `w${i}`);
const value = (r: number, d: number): number => Math.sin(r * 7.3 + d * 1.9) + (d === r % 8 ? 2 : 0);

describe('word vectors from the package file', () => {
  it('reads every row in word order, values as published', () => {
    const wv = parseWordVectors(winkJson(WORDS, 8, value), 'f.json');
    expect(wv.dim).toBe(8);
    expect(wv.words).toEqual(WORDS);
    expect(wv.vectors.length).toBe(300 * 8);
    expect(wv.vectors[17 * 8 + 3]).toBeCloseTo(value(17, 3), 6);
  });

  it('refuses a row that is short, a value that is not finite, and words that do not match size', () => {
    const short = JSON.parse(winkJson(WORDS, 8, value)) as { vectors: Record<string, number[]>; size: number };
    short.vectors['w5'] = [1, 2, 3];
    expect(() => parseWordVectors(JSON.stringify(short), 'f.json')).toThrow(
      expect.objectContaining({ code: 'STRATA_DATASET_FORMAT', message: expect.stringMatching(/w5/) }),
    );
    const bad = JSON.parse(winkJson(WORDS, 8, value)) as { vectors: Record<string, unknown[]> };
    bad.vectors['w9']![4] = 'x';
    try {
      parseWordVectors(JSON.stringify(bad), 'f.json');
      expect.unreachable();
    } catch (e) {
      expect(isStrataError(e, 'STRATA_DATASET_VALUE')).toBe(true);
      expect((e as Error).message).toMatch(/w9.*value 4/);
    }
    const size = JSON.parse(winkJson(WORDS, 8, value)) as { size: number };
    size.size = 301;
    expect(() => parseWordVectors(JSON.stringify(size), 'f.json')).toThrow(/size/);
    expect(() => parseWordVectors('{"dimensions":', 'f.json')).toThrow(/not JSON/);
  });

  it('splits rows by seed: disjoint, the same for the same seed, another for another', () => {
    const a = splitRows(1000, 600, 50, 3);
    const b = splitRows(1000, 600, 50, 3);
    const c = splitRows(1000, 600, 50, 4);
    expect(a.base).toEqual(b.base);
    expect(a.queries).toEqual(b.queries);
    expect(a.base).not.toEqual(c.base);
    const all = new Set([...a.base, ...a.queries]);
    expect(all.size).toBe(650);
    for (const r of all) expect(r >= 0 && r < 1000).toBe(true);
    expect(() => splitRows(100, 90, 20, 1)).toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_ARGUMENT', message: expect.stringMatching(/count: .*110/) }),
    );
  });

  it('writes base, queries, exact cosine ground truth and the words of each row', async () => {
    const dir = tmp.path('set');
    const wv = parseWordVectors(winkJson(WORDS, 8, value), 'f.json');
    const w = await writeWordSet(dir, wv, { count: 200, queries: 20, k: 5, seed: 9, source: { set: 'test' } });
    const base = await readFvecsMatrix(w.base);
    const q = await readFvecsMatrix(w.query);
    expect(base.count).toBe(200);
    expect(q.count).toBe(20);
    const split = splitRows(300, 200, 20, 9);
    expect(base.data).toEqual(pickRows(wv.vectors, 8, split.base));
    const gt = await readIvecs(w.groundtruth);
    expect(Array.from(gt.data)).toEqual(Array.from(bruteForceKnn(base.data, q.data, 8, 5, 'cosine').ids));
    const words = readFileSync(w.queryWords, 'utf8').trimEnd().split('\n');
    expect(words).toEqual(Array.from(split.queries, (r) => WORDS[r]));
    expect(JSON.parse(readFileSync(join(dir, 'source.json'), 'utf8'))).toMatchObject({ set: 'test', count: 200, queries: 20, seed: 9, metric: 'cosine' });
  });
});

describe('the pinned download', () => {
  it('accepts a file with its integrity and refuses one altered by a byte', async () => {
    const f = tmp.path('p.tgz');
    writeFileSync(f, Buffer.from('the package bytes'));
    const pinned = { package: 'p', version: '1.0.0', file: 'package/x', integrity: await fileIntegrity(f) };
    await checkIntegrity(f, pinned);
    writeFileSync(f, Buffer.from('the package byteS'));
    await expect(checkIntegrity(f, pinned)).rejects.toMatchObject({ code: 'STRATA_DATASET_FORMAT' });
  });
});
