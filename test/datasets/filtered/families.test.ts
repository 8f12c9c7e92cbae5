// The filtered benchmark sets: attributes follow what each row is (a word's rank, length, letters;
// a generated row's cluster), the tags' shares are near their rates, every family's filters parse by
// Qdrant's rules, and the correlated / anti-correlated families name the query's own / a far cluster.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  clusterFamilies,
  generateClustered,
  readPayloadLines,
  SELECTIVITY_TAGS,
  splitRows,
  wordAttributes,
  writeFilteredClusteredSet,
  writeFilteredWordSet,
  type FilterCases,
} from '../../../datasets/index.js';
import { compile } from '../../../index/filter/evaluate.js';
import { parseFilter } from '../../../index/filter/parse.js';
import { makeTempDir } from '../../helpers/temp.js';

describe('word attributes', () => {
  it('reads rank, length, first character and letters-only from the word', () => {
    expect(wordAttributes('café', 7)).toEqual({ rank: 7, len: 4, first: 'c', alpha: true });
    expect(wordAttributes('1990s', 300)).toEqual({ rank: 300, len: 5, first: '1', alpha: false });
    expect(wordAttributes('well-known', 3)).toMatchObject({ alpha: false, len: 10 });
  });
});

describe('the generated filtered set', () => {
  const tmp = makeTempDir('strata-filtered-set-');
  afterAll(() => tmp.cleanup());
  const spec = { count: 4000, dim: 8, clusters: 20, seed: 5 };

  it('writes one payload per base row whose label is its cluster, and tags near their rates', async () => {
    const set = await writeFilteredClusteredSet(tmp.path('set'), spec, 30, 10);
    const payloads = readPayloadLines(set.payloads, spec.count);
    const g = generateClustered(spec, 30);
    payloads.forEach((p, i) => expect(p['label']).toBe(`c${g.clusters!.base[i]}`));
    for (const { tag, share } of SELECTIVITY_TAGS) {
      const n = payloads.filter((p) => (p['tags'] as string[]).includes(tag)).length;
      // Binomial: within five standard deviations of the rate.
      expect(Math.abs(n - share * spec.count)).toBeLessThanOrEqual(5 * Math.sqrt(spec.count * share * (1 - share)) + 1);
    }
    const cases = JSON.parse(readFileSync(set.filters, 'utf8')) as FilterCases;
    for (const fam of cases.families) {
      expect(fam.filters).toHaveLength(30);
      fam.filters.forEach((f, q) => parseFilter(f, `${fam.name}[${q}]`));
    }
  });

  it("names the query's own cluster in the correlated family and the farthest in the anti-correlated", () => {
    const g = generateClustered(spec, 30);
    const m = g.clusters!;
    const fams = clusterFamilies(m, spec.dim, 1);
    const own = fams.find((f) => f.kind === 'correlated')!;
    const far = fams.find((f) => f.kind === 'anti-correlated')!;
    const dist = (a: number, b: number): number => {
      let s = 0;
      for (let j = 0; j < spec.dim; j++) s += (m.centers[a * spec.dim + j]! - m.centers[b * spec.dim + j]!) ** 2;
      return s;
    };
    for (let q = 0; q < 30; q++) {
      const c = m.queries[q]!;
      expect(own.filters[q]).toEqual({ must: [{ key: 'label', match: { value: `c${c}` } }] });
      const label = ((far.filters[q]!['must'] as Array<{ match: { value: string } }>)[0]!.match.value as string).slice(1);
      for (let b = 0; b < m.count; b++) expect(dist(c, Number(label))).toBeGreaterThanOrEqual(dist(c, b));
    }
  });
});

describe('the word set with attributes', () => {
  const tmp = makeTempDir('strata-filtered-words-');
  afterAll(() => tmp.cleanup());

  it('gives each base word its place in the vocabulary as rank, and rank ranges the share they name', async () => {
    // A vocabulary of 3,000 made-up words in "frequency" order, 4-d vectors.
    const words = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? `w-${i}` : `w${String.fromCharCode(97 + (i % 26))}${i}`));
    const vectors = Float32Array.from({ length: 3000 * 4 }, (_, i) => Math.sin(i));
    const o = { count: 2000, queries: 20, k: 10, seed: 4, source: {} };
    const set = await writeFilteredWordSet(tmp.path('w'), { words, vectors, dim: 4 }, o);
    const payloads = readPayloadLines(set.payloads, 2000);
    const split = splitRows(3000, 2000, 20, 4);
    payloads.forEach((p, i) => expect(p).toMatchObject(wordAttributes(words[split.base[i]!]!, split.base[i]!)));
    const cases = JSON.parse(readFileSync(set.filters, 'utf8')) as FilterCases;
    for (const share of [0.5, 0.1, 0.01]) {
      const fam = cases.families.find((f) => f.name === `rank < ${share * 100}%`)!;
      const test = compile(parseFilter(fam.filters[0]));
      expect(payloads.filter((payload, id) => test({ id, payload })).length).toBe(share * 2000);
    }
  });
});
