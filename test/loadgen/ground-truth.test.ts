import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { bruteForceKnn, distancesFileBeside, writeFvecs, writeIvecs } from '../../datasets/index.js';
import { bruteForceScores, cosineScores, groundTruthFromBase, groundTruthFromFile } from '../../loadgen/ground-truth.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { ensureLoadgenBuilt } from './built.js';

const DIM = 6;
const rnd = mulberry32(7);
const base = Float32Array.from({ length: 400 * DIM }, () => rnd() * 2 - 1);
const queries = Float32Array.from({ length: 12 * DIM }, () => rnd() * 2 - 1);

let tmp: TempDir;
beforeAll(() => {
  ensureLoadgenBuilt();
  tmp = makeTempDir('strata-loadgen-gt-');
});
afterAll(() => tmp.cleanup());

function dot(a: Float32Array, ao: number, b: Float32Array, bo: number): number {
  let s = 0;
  for (let i = 0; i < DIM; i++) s += a[ao + i]! * b[bo + i]!;
  return s;
}

describe('ground truth by brute force (worker threads)', () => {
  it('matches the single-threaded oracle for Euclid, with Euclidean distances as scores', async () => {
    const r = await bruteForceScores(base, queries, DIM, 5, 'Euclid', 2);
    const ref = bruteForceKnn(base, queries, DIM, 5, 'l2');
    expect(Array.from(r.ids)).toEqual(Array.from(ref.ids));
    expect(Array.from(r.scores)).toEqual(Array.from(ref.distances));
  });

  it('scores Dot by the dot product and Cosine by the cosine similarity, best first', async () => {
    const d = await bruteForceScores(base, queries, DIM, 3, 'Dot', 1);
    expect(d.scores[0]!).toBeCloseTo(dot(queries, 0, base, d.ids[0]! * DIM), 5);
    expect(d.scores[0]!).toBeGreaterThanOrEqual(d.scores[1]!);
    const c = await bruteForceScores(base, queries, DIM, 3, 'Cosine', 2);
    const id = c.ids[0]!;
    const cos = dot(queries, 0, base, id * DIM) / Math.sqrt(dot(queries, 0, queries, 0) * dot(base, id * DIM, base, id * DIM));
    expect(c.scores[0]!).toBeCloseTo(cos, 5);
    expect(c.scores[0]!).toBeLessThanOrEqual(1 + 1e-6);
  });

  it('caches the result next to the queries and reuses it while the inputs are the same', async () => {
    const dir = tmp.path('cache');
    await writeFvecs(tmp.path('base.fvecs'), base, DIM);
    await writeFvecs(tmp.path('query.fvecs'), queries, DIM);
    const o = {
      baseFile: tmp.path('base.fvecs'),
      queriesFile: tmp.path('query.fvecs'),
      queries,
      dim: DIM,
      k: 5,
      distance: 'Euclid' as const,
      threads: 1,
      cacheDir: dir,
    };
    const first = await groundTruthFromBase(o);
    expect(first.info.source).toBe('computed');
    expect(first.info.tieAware).toBe(true);
    expect(readdirSync(dir)).toHaveLength(1);
    const again = await groundTruthFromBase(o);
    expect(again.info.source).toBe('cache');
    expect(Array.from(again.gt.ids)).toEqual(Array.from(first.gt.ids));
    // another k is another key: computed afresh, cached beside the first
    const k3 = await groundTruthFromBase({ ...o, k: 3 });
    expect(k3.info.source).toBe('computed');
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it('still returns the ground truth, uncached, when the cache cannot be written', async () => {
    // a cache "directory" that is a file: writing there fails, and the next candidate is not used
    // when cacheDir is explicit, so the result is still returned (just not cached)
    writeFileSync(tmp.path('not-a-dir'), 'x');
    const r = await groundTruthFromBase({
      baseFile: tmp.path('base.fvecs'),
      queriesFile: tmp.path('query.fvecs'),
      queries,
      dim: DIM,
      k: 2,
      distance: 'Euclid',
      threads: 1,
      cacheDir: tmp.path('not-a-dir'),
    });
    expect(r.info.source).toBe('computed');
    expect(r.info.file).toBe(tmp.path('base.fvecs'));
  });
});

describe('ground truth from files', () => {
  it('is tie-aware when groundtruth_dist.fvecs sits beside the ids (Euclid)', async () => {
    const gt = bruteForceKnn(base, queries, DIM, 5, 'l2');
    await writeIvecs(tmp.path('groundtruth.ivecs'), gt.ids, 5);
    await writeFvecs(tmp.path('groundtruth_dist.fvecs'), gt.distances, 5);
    expect(distancesFileBeside(tmp.path('groundtruth.ivecs'))).toBe(tmp.path('groundtruth_dist.fvecs'));
    const r = await groundTruthFromFile(tmp.path('groundtruth.ivecs'), 'Euclid', 12, 5);
    expect(r.info).toMatchObject({ source: 'file', tieAware: true, distancesFile: tmp.path('groundtruth_dist.fvecs'), note: null });
    expect(Array.from(r.gt.scores!)).toEqual(Array.from(gt.distances));
  });

  it('reads stored cosine distances (1 - cos) as Cosine scores, the similarity', async () => {
    const gt = bruteForceKnn(base, queries, DIM, 5, 'cosine');
    mkdirSync(tmp.path('cos'), { recursive: true });
    await writeIvecs(tmp.path('cos', 'groundtruth.ivecs'), gt.ids, 5);
    await writeFvecs(tmp.path('cos', 'groundtruth_dist.fvecs'), gt.distances, 5);
    const r = await groundTruthFromFile(tmp.path('cos', 'groundtruth.ivecs'), 'Cosine', 12, 5);
    expect(r.info).toMatchObject({ tieAware: true, distancesFile: tmp.path('cos', 'groundtruth_dist.fvecs'), note: null });
    // the scores the server would send: the cosine similarity of each true neighbour, best first
    const id = gt.ids[0]!;
    const cos = dot(queries, 0, base, id * DIM) / Math.sqrt(dot(queries, 0, queries, 0) * dot(base, id * DIM, base, id * DIM));
    expect(r.gt.scores![0]!).toBeCloseTo(cos, 5);
    expect(r.gt.scores![0]!).toBeGreaterThanOrEqual(r.gt.scores![4]!);
  });

  it('compares ids when stored distances do not read as cosine distances, and always for Dot', async () => {
    // similarities stored instead of distances: the rows descend
    const gt = bruteForceKnn(base, queries, DIM, 5, 'cosine');
    mkdirSync(tmp.path('sim'), { recursive: true });
    await writeIvecs(tmp.path('sim', 'groundtruth.ivecs'), gt.ids, 5);
    await writeFvecs(
      tmp.path('sim', 'groundtruth_dist.fvecs'),
      gt.distances.map((d) => 1 - d),
      5,
    );
    const r = await groundTruthFromFile(tmp.path('sim', 'groundtruth.ivecs'), 'Cosine', 12, 5);
    expect(r.info.tieAware).toBe(false);
    expect(r.gt.scores).toBeNull();
    expect(r.info.note).toMatch(/does not hold cosine distances/);
    const dotGt = await groundTruthFromFile(tmp.path('cos', 'groundtruth.ivecs'), 'Dot', 12, 5);
    expect(dotGt.info.tieAware).toBe(false);
    expect(dotGt.info.note).toMatch(/recall compares ids/);
  });

  it('refuses cosine distances out of [0, 2] or out of order in any row', () => {
    const ok = cosineScores(Float32Array.of(0.1, 0.2, 0.3, 0.4), 2, 2)!;
    [0.9, 0.8, 0.7, 0.6].forEach((s, i) => expect(ok[i]!).toBeCloseTo(s, 6));
    expect(cosineScores(Float32Array.of(0.1, 0.2, 0.4, 0.3), 2, 2)).toBeNull();
    expect(cosineScores(Float32Array.of(0.1, 0.2, 0.3, 2.5), 2, 2)).toBeNull();
    expect(cosineScores(Float32Array.of(-0.5, 0.2), 2, 1)).toBeNull();
  });

  it('compares ids when no distances sit beside the ids file', async () => {
    const gt = bruteForceKnn(base, queries, DIM, 5, 'l2');
    await writeIvecs(tmp.path('cache', 'lonely.ivecs'), gt.ids, 5);
    const r = await groundTruthFromFile(tmp.path('cache', 'lonely.ivecs'), 'Euclid', 12, 5);
    expect(r.info.tieAware).toBe(false);
    expect(r.info.note).toMatch(/no groundtruth_dist\.fvecs/);
  });

  it('refuses ground truth with fewer rows than queries or fewer neighbours than k', async () => {
    await expect(groundTruthFromFile(tmp.path('groundtruth.ivecs'), 'Euclid', 13, 5)).rejects.toMatchObject({ code: 'STRATA_DATASET_FORMAT' });
    await expect(groundTruthFromFile(tmp.path('groundtruth.ivecs'), 'Euclid', 12, 10)).rejects.toThrow(/--k: .*fewer than k = 10/);
    expect(existsSync(tmp.path('groundtruth.ivecs'))).toBe(true);
  });
});
