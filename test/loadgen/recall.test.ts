import { describe, expect, it } from 'vitest';
import { bruteForceKnn } from '../../datasets/index.js';
import { recallAtK } from '../../index/search/recall.js';
import { judgeQuery, nearestRank, queryRecall, recallOfAnswers, summarizeRecall, type GroundTruth } from '../../loadgen/recall.js';
import { mulberry32 } from '../../common/random.js';

// One query, true neighbours 10..14 at Euclidean distances 1, 2, 3, 3, 3 (a three-way tie at the 5th).
const tied: GroundTruth = { dim: 5, count: 1, ids: Int32Array.of(10, 11, 12, 13, 14), scores: Float32Array.of(1, 2, 3, 3, 3), order: 'distance' };

describe('tie-aware recall', () => {
  it('counts an equally distant point that is not in the true list as a hit', () => {
    // id 99 is at distance 3 too: another of the tied points
    expect(queryRecall(tied, 0, 5, [10, 11, 12, 13, 99], [1, 2, 3, 3, 3])).toBe(1);
    expect(queryRecall({ ...tied, scores: null }, 0, 5, [10, 11, 12, 13, 99], [1, 2, 3, 3, 3])).toBe(0.8);
  });

  it('allows 1e-3 of slack over the true k-th distance and no more', () => {
    expect(queryRecall(tied, 0, 5, [10, 11, 12, 13, 99], [1, 2, 3, 3, 3.0009])).toBe(1);
    expect(queryRecall(tied, 0, 5, [10, 11, 12, 13, 99], [1, 2, 3, 3, 3.002])).toBe(0.8);
  });

  it('takes the k-th true score at the recall k, not at the stored width', () => {
    // at k = 2 the bar is distance 2: a result at 3 is a miss
    expect(queryRecall(tied, 0, 2, [10, 12], [1, 3])).toBe(0.5);
  });

  it('reads similarity scores (Dot, Cosine) the other way round: larger is better', () => {
    const sim: GroundTruth = { dim: 3, count: 1, ids: Int32Array.of(1, 2, 3), scores: Float32Array.of(0.9, 0.8, 0.7), order: 'similarity' };
    expect(queryRecall(sim, 0, 3, [1, 2, 7], [0.9, 0.8, 0.7])).toBe(1);
    expect(queryRecall(sim, 0, 3, [1, 2, 7], [0.9, 0.8, 0.69])).toBeCloseTo(2 / 3, 12);
  });

  it('counts missing results (fewer than k answers, id -1) as misses', () => {
    expect(queryRecall(tied, 0, 5, [10, 11], [1, 2])).toBe(0.4);
    expect(queryRecall(tied, 0, 5, [10, -1, 12, 13, 14], [1, 0, 3, 3, 3])).toBe(0.8);
    expect(queryRecall({ ...tied, scores: null }, 0, 5, [10, 10, 10, 10, 10], [1, 1, 1, 1, 1])).toBe(0.2);
  });

  it('agrees with the in-process recall (index/search/recall.ts) on Euclidean answers', () => {
    const rnd = mulberry32(5);
    const dim = 8;
    const base = Float32Array.from({ length: 300 * dim }, () => Math.round(rnd() * 4)); // coarse values: many ties
    const queries = Float32Array.from({ length: 20 * dim }, () => Math.round(rnd() * 4));
    const gt = bruteForceKnn(base, queries, dim, 10, 'l2');
    // an imperfect "index": the true list with every third answer replaced by a far point
    const labels = new Float64Array(20 * 10);
    const sq = new Float32Array(20 * 10);
    for (let i = 0; i < labels.length; i++) {
      const far = i % 3 === 0;
      labels[i] = far ? 299 : gt.ids[i]!;
      sq[i] = far ? 1e4 : gt.distances[i]! ** 2;
    }
    const inProcess = recallAtK({ k: 10, results: labels, resultDistances: sq, metric: 'l2', gtIds: gt.ids, gtDim: 10, gtDistances: gt.distances });
    const truth: GroundTruth = { dim: 10, count: 20, ids: gt.ids, scores: gt.distances, order: 'distance' };
    const ids = Array.from({ length: 20 }, (_, q) => labels.slice(q * 10, q * 10 + 10));
    const scores = Array.from({ length: 20 }, (_, q) => Float64Array.from(sq.slice(q * 10, q * 10 + 10), Math.sqrt));
    const ours = recallOfAnswers(truth, 10, ids, scores)!;
    expect(ours.mean).toBeCloseTo(inProcess.mean, 12);
    expect(ours.tieAware).toBe(true);
    expect(ours.queries).toBe(20);
  });

  it('judges only the queries that were answered', () => {
    const truth: GroundTruth = { dim: 1, count: 3, ids: Int32Array.of(1, 2, 3), scores: null, order: 'distance' };
    const r = recallOfAnswers(truth, 1, [Float64Array.of(1), undefined, Float64Array.of(9)], [Float64Array.of(0), undefined, Float64Array.of(0)])!;
    expect(r.queries).toBe(2);
    expect(r.mean).toBe(0.5);
    expect(r.tieAware).toBe(false);
  });
});

describe('tie-aware recall checks ids, not only reported distances', () => {
  // True neighbours 10..16 at 1, 2, 3, 3, 3, 3, 4: at k = 5 the k-th distance is 3, ids 15 (at 3) is a
  // tie beyond rank k, 16 (at 4) is not, and the list reaches past the tie band (so it holds every tie).
  const long: GroundTruth = {
    dim: 7,
    count: 1,
    ids: Int32Array.of(10, 11, 12, 13, 14, 15, 16),
    scores: Float32Array.of(1, 2, 3, 3, 3, 3, 4),
    order: 'distance',
  };

  it('counts a repeated id once: a list of one id reported five times is 1 hit of 5, with 4 duplicates', () => {
    expect(queryRecall(tied, 0, 5, [10, 10, 10, 10, 10], [1, 1, 1, 1, 1])).toBe(0.2);
    expect(judgeQuery(tied, 0, 5, [13, 13, 12, 13, 99], [3, 3, 3, 3, 3])).toEqual({ hits: 3, duplicates: 2 });
    const r = recallOfAnswers(tied, 5, [Float64Array.of(10, 10, 11, 11, 12)], [Float64Array.of(1, 1, 2, 2, 3)])!;
    expect(r.mean).toBe(0.6);
    expect(r.duplicates).toBe(2);
  });

  it('does not count a wrong id reported with a small distance', () => {
    // 77 is not a neighbour; its reported 1.5 is better than the k-th (3) but is no tie
    expect(queryRecall(tied, 0, 5, [10, 11, 12, 13, 77], [1, 2, 3, 3, 1.5])).toBe(0.8);
  });

  it('judges an id listed beyond rank k by its true distance, whatever distance is reported', () => {
    expect(queryRecall(long, 0, 5, [10, 11, 12, 13, 15], [1, 2, 3, 3, 3])).toBe(1);
    expect(queryRecall(long, 0, 5, [10, 11, 12, 13, 16], [1, 2, 3, 3, 3])).toBe(0.8);
  });

  it('rejects an unlisted id at the k-th distance when the list reaches past the ties', () => {
    expect(queryRecall(long, 0, 5, [10, 11, 12, 13, 99], [1, 2, 3, 3, 3])).toBe(0.8);
  });

  it('applies the same rule in the in-process recall (index/search/recall.ts)', () => {
    const gtIds = Int32Array.from(long.ids as Int32Array);
    const gtDistances = long.scores!;
    const sq = (ds: number[]): Float32Array => Float32Array.from(ds, (d) => d * d);
    const one = (ids: number[], ds: number[]) =>
      recallAtK({ k: 5, results: Float64Array.from(ids), resultDistances: sq(ds), metric: 'l2', gtIds, gtDim: 7, gtDistances });
    expect(one([10, 11, 12, 13, 15], [1, 2, 3, 3, 3]).mean).toBe(1);
    expect(one([10, 11, 12, 13, 16], [1, 2, 3, 3, 3]).mean).toBe(0.8);
    expect(one([10, 11, 12, 13, 99], [1, 2, 3, 3, 3]).mean).toBe(0.8);
    expect(one([10, 11, 12, 13, 77], [1, 2, 3, 3, 1.5]).mean).toBe(0.8);
    const dup = one([10, 10, 10, 10, 10], [1, 1, 1, 1, 1]);
    expect([dup.mean, dup.duplicates]).toEqual([0.2, 4]);
  });
});

describe('recall spread', () => {
  it('summarises per-query recall by mean, nearest-rank p5 and p50, and min', () => {
    const per = Array.from({ length: 100 }, (_, i) => (i < 10 ? 0.5 : 1));
    const s = summarizeRecall(per, true)!;
    expect(s.mean).toBeCloseTo(0.95, 12);
    expect(s.p5).toBe(0.5);
    expect(s.p50).toBe(1);
    expect(s.min).toBe(0.5);
    expect(nearestRank(Float64Array.of(1, 2, 3, 4), 50)).toBe(2);
    expect(nearestRank(Float64Array.of(1, 2, 3, 4), 0)).toBe(1);
    expect(summarizeRecall([], true)).toBeNull();
  });
});
