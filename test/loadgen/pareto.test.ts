import { describe, expect, it } from 'vitest';
import { paretoFront } from '../../loadgen/pareto.js';

describe('Pareto front of recall vs QPS', () => {
  it('keeps the points no other beats on both recall and QPS, by ascending recall', () => {
    const pts = [
      { recall: 0.8, qps: 1000 }, // front
      { recall: 0.85, qps: 900 }, // front
      { recall: 0.84, qps: 800 }, // dominated by 0.85 / 900
      { recall: 0.95, qps: 400 }, // front
      { recall: 0.99, qps: 100 }, // front
      { recall: 0.7, qps: 950 }, // dominated by 0.8 / 1000
    ];
    expect(paretoFront(pts)).toEqual([0, 1, 3, 4]);
  });

  it('keeps only the faster of two points with the same recall, and ignores non-finite points', () => {
    expect(
      paretoFront([
        { recall: 0.9, qps: 10 },
        { recall: 0.9, qps: 20 },
        { recall: NaN, qps: 1e9 },
      ]),
    ).toEqual([1]);
    expect(paretoFront([])).toEqual([]);
  });
});
