import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { weightedPicker, zipfWeights } from '../../../datasets/generate/sampling.js';

describe('topic sampling', () => {
  it('draws each index in proportion to its weight, never one of weight 0', () => {
    const pick = weightedPicker([1, 0, 3, 6], mulberry32(4));
    const seen = [0, 0, 0, 0];
    const n = 20000;
    for (let i = 0; i < n; i++) seen[pick()]!++;
    expect(seen[1]).toBe(0);
    expect(seen[0]! / n).toBeCloseTo(0.1, 1);
    expect(seen[2]! / n).toBeCloseTo(0.3, 1);
    expect(seen[3]! / n).toBeCloseTo(0.6, 1);
  });

  it('makes Zipf-like weights: the first n^s times the last', () => {
    const w = zipfWeights(100, 0.5);
    expect(w[0]! / w[99]!).toBeCloseTo(10, 10);
    expect(Array.from(w).every((x, i) => i === 0 || x < w[i - 1]!)).toBe(true);
  });
});
