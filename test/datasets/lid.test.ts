import { describe, expect, it } from 'vitest';
import { gaussian, mulberry32, randomOrthogonal } from '../../common/random.js';
import { estimateLid, lidFromDistances } from '../../datasets/index.js';

/** n points uniform in a d-dimensional unit cube, placed in `ambient` dimensions by a random rotation. */
function cube(n: number, d: number, ambient: number, seed: number): Float32Array {
  const rnd = mulberry32(seed);
  const basis = randomOrthogonal(ambient, gaussian(rnd));
  const out = new Float32Array(n * ambient);
  for (let r = 0; r < n; r++) {
    for (let i = 0; i < d; i++) {
      const c = rnd();
      for (let j = 0; j < ambient; j++) out[r * ambient + j] = out[r * ambient + j]! + c * basis[i * ambient + j]!;
    }
  }
  return out;
}

describe('local intrinsic dimensionality (MLE)', () => {
  it('follows the definition on one row: distances growing as r^(1/m) give m', () => {
    // F(r) ∝ r^m: the i-th of k neighbours sits at (i/k)^(1/m); the estimate tends to m as k grows
    const m = 6;
    const k = 4000;
    const r = Float64Array.from({ length: k }, (_, i) => ((i + 1) / k) ** (1 / m));
    expect(lidFromDistances(r)!).toBeCloseTo(m, 1);
    expect(lidFromDistances([0, 1, 2])).toBeNull();
    expect(lidFromDistances([1, 1, 1])).toBeNull();
  });

  for (const d of [2, 8]) {
    it(`measures about ${d} for a ${d}-dimensional cube in 32 dimensions, whatever the ambient dimension`, () => {
      const v = cube(4000, d, 32, d);
      const lid = estimateLid(v, 32, { k: 20, sample: 400 });
      expect(lid.rows).toBe(400);
      expect(lid.mean).toBeGreaterThan(d * 0.75);
      expect(lid.mean).toBeLessThan(d * 1.35);
    });
  }

  it('under cosine, measures the angle: scaling rows changes nothing', () => {
    const v = cube(3000, 6, 16, 3).map((x) => x + 0.2);
    const scaled = v.map((x, i) => x * (1 + (Math.floor(i / 16) % 5)));
    const a = estimateLid(v, 16, { metric: 'cosine', sample: 200 });
    const b = estimateLid(scaled, 16, { metric: 'cosine', sample: 200 });
    expect(b.mean).toBeCloseTo(a.mean, 3);
  });
});
