import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { bruteForceKnn, bruteForceKnnWhere, type Metric } from '../../datasets/index.js';

const DIM = 5;
const rnd = mulberry32(3);
const base = Float32Array.from({ length: 300 * DIM }, () => rnd() * 2 - 1);
const queries = Float32Array.from({ length: 7 * DIM }, () => rnd() * 2 - 1);

/** The definition, written out pair by pair: the order brute force must agree with. */
function definition(metric: Metric, q: number, i: number): number {
  let dot = 0;
  let qq = 0;
  let bb = 0;
  let sq = 0;
  for (let j = 0; j < DIM; j++) {
    const a = queries[q * DIM + j]!;
    const b = base[i * DIM + j]!;
    dot += a * b;
    qq += a * a;
    bb += b * b;
    sq += (a - b) ** 2;
  }
  if (metric === 'l2') return Math.sqrt(sq);
  return metric === 'ip' ? 1 - dot : 1 - dot / Math.sqrt(qq * bb);
}

describe('exact ground truth by brute force', () => {
  for (const metric of ['l2', 'ip', 'cosine'] as const) {
    it(`ranks every base row of every query by the ${metric} definition`, () => {
      const gt = bruteForceKnn(base, queries, DIM, 10, metric);
      expect(gt.k).toBe(10);
      for (let q = 0; q < 7; q++) {
        const want = Array.from({ length: 300 }, (_, i) => i).sort((a, b) => definition(metric, q, a) - definition(metric, q, b) || a - b);
        expect(Array.from(gt.ids.subarray(q * 10, q * 10 + 10))).toEqual(want.slice(0, 10));
        for (let j = 0; j < 10; j++) expect(gt.distances[q * 10 + j]!).toBeCloseTo(definition(metric, q, want[j]!), 6);
      }
    });
  }

  it('is blind to row norms under cosine, and a zero row is at distance 1 from everything', () => {
    const scaled = base.map((v, i) => v * (1 + (Math.floor(i / DIM) % 7)));
    scaled.fill(0, 0, DIM);
    const a = bruteForceKnn(base.slice(DIM), queries, DIM, 10, 'cosine');
    const b = bruteForceKnn(scaled, queries, DIM, 300, 'cosine');
    expect(Array.from(b.ids.subarray(0, 10))).toEqual(Array.from(a.ids.subarray(0, 10), (i) => i + 1));
    const zeroAt = Array.from(b.ids.subarray(0, 300)).indexOf(0);
    expect(b.distances[zeroAt]!).toBe(1);
  });

  it('keeps the smaller id first among ties, and returns all rows when k exceeds them', () => {
    const twins = Float32Array.of(1, 0, 1, 0, 0, 1);
    const gt = bruteForceKnn(twins, Float32Array.of(1, 0), 2, 5, 'l2');
    expect(gt.k).toBe(3);
    expect(Array.from(gt.ids)).toEqual([0, 1, 2]);
    expect(Array.from(gt.distances)).toEqual([0, 0, Math.fround(Math.SQRT2)]);
  });
});

describe('exact ground truth restricted by masks', () => {
  it('ranks only the rows a mask allows, pads past them, and counts them', () => {
    // Five rows on a line at 0..4; the query sits at 0.
    const rows = Float32Array.from([0, 1, 2, 3, 4]);
    const q = Float32Array.from([0]);
    const evens = Uint8Array.from([1, 0, 1, 0, 1]);
    const none = new Uint8Array(5);
    const [even, empty] = bruteForceKnnWhere(rows, q, 1, 2, 'l2', 2, () => [evens, none]);
    expect(Array.from(even!.truth.ids)).toEqual([0, 2]);
    expect(Array.from(even!.truth.distances)).toEqual([0, 2]);
    expect(Array.from(even!.matched)).toEqual([3]);
    expect(Array.from(empty!.truth.ids)).toEqual([-1, -1]);
    expect(Array.from(empty!.truth.distances)).toEqual([Infinity, Infinity]);
    expect(Array.from(empty!.matched)).toEqual([0]);
  });

  it('gives the unrestricted answer for an all-ones mask', () => {
    const all = new Uint8Array(300).fill(1);
    const [r] = bruteForceKnnWhere(base, queries, DIM, 10, 'cosine', 1, () => [all]);
    const plain = bruteForceKnn(base, queries, DIM, 10, 'cosine');
    expect(Array.from(r!.truth.ids)).toEqual(Array.from(plain.ids));
  });
});
