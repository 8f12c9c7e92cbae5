import { describe, expect, it } from 'vitest';
import { gaussian, mulberry32, randomOrthogonal } from '../../common/random.js';

describe('random orthogonal basis', () => {
  it('has orthonormal rows, and the same seed gives the same basis', () => {
    const n = 24;
    const q = randomOrthogonal(n, gaussian(mulberry32(11)));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        let d = 0;
        for (let k = 0; k < n; k++) d += q[i * n + k]! * q[j * n + k]!;
        expect(d).toBeCloseTo(i === j ? 1 : 0, 10);
      }
    }
    expect(randomOrthogonal(n, gaussian(mulberry32(11)))).toEqual(q);
    expect(randomOrthogonal(n, gaussian(mulberry32(12)))).not.toEqual(q);
  });
});
