import { describe, expect, it } from 'vitest';
import { bruteForceKnn, estimateLid, generateEmbedding, generateSet, readFvecsMatrix, readIvecs, writeGeneratedSet } from '../../../datasets/index.js';
import { makeTempDir } from '../../helpers/temp.js';

const SPEC = { count: 4000, dim: 48, topics: 300, seed: 7 } as const;

function norms(v: Float32Array, dim: number): number[] {
  const out: number[] = [];
  for (let o = 0; o < v.length; o += dim) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += v[o + j]! ** 2;
    out.push(Math.sqrt(s));
  }
  return out;
}

function cosine(v: Float32Array, dim: number, a: number, b: number): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let j = 0; j < dim; j++) {
    d += v[a * dim + j]! * v[b * dim + j]!;
    na += v[a * dim + j]! ** 2;
    nb += v[b * dim + j]! ** 2;
  }
  return d / Math.sqrt(na * nb);
}

describe('embedding-like generator', () => {
  const set = generateEmbedding(SPEC, 50);

  it('has the asked shapes and is meant for cosine', () => {
    expect(set.dim).toBe(48);
    expect(set.base.length).toBe(4000 * 48);
    expect(set.queries.length).toBe(50 * 48);
    expect(set.metric).toBe('cosine');
    expect(set.base.every(Number.isFinite)).toBe(true);
  });

  it('is deterministic given the seed, and another seed gives another set', () => {
    const again = generateEmbedding(SPEC, 50);
    expect(Buffer.from(again.base.buffer).equals(Buffer.from(set.base.buffer))).toBe(true);
    expect(Buffer.from(again.queries.buffer).equals(Buffer.from(set.queries.buffer))).toBe(true);
    const other = generateEmbedding({ ...SPEC, seed: 8 }, 50);
    expect(Buffer.from(other.base.buffer).equals(Buffer.from(set.base.buffer))).toBe(false);
  });

  it('has uneven norms: a coefficient of variation above 0.3', () => {
    const n = norms(set.base, set.dim);
    const mean = n.reduce((a, b) => a + b, 0) / n.length;
    const sd = Math.sqrt(n.reduce((a, b) => a + (b - mean) ** 2, 0) / n.length);
    expect(sd / mean).toBeGreaterThan(0.3);
  });

  it('shares a mean direction: unrelated rows have a clearly positive mean cosine', () => {
    let sum = 0;
    const pairs = 2000;
    for (let p = 0; p < pairs; p++) sum += cosine(set.base, set.dim, (p * 7919) % 4000, (p * 104729 + 13) % 4000);
    expect(sum / pairs).toBeGreaterThan(0.15);
  });

  it('spreads variance unevenly over directions no coordinate lines up with', () => {
    // per-coordinate variances are alike (the basis is rotated) ...
    const dim = set.dim;
    const n = 4000;
    const mean = new Float64Array(dim);
    for (let r = 0; r < n; r++) for (let j = 0; j < dim; j++) mean[j] = mean[j]! + set.base[r * dim + j]! / n;
    const variance = new Float64Array(dim);
    for (let r = 0; r < n; r++) for (let j = 0; j < dim; j++) variance[j] = variance[j]! + (set.base[r * dim + j]! - mean[j]!) ** 2 / n;
    const sorted = Array.from(variance).sort((a, b) => a - b);
    expect(sorted[dim - 1]! / sorted[0]!).toBeLessThan(20);
    // ... yet the local structure is far below the 48 dimensions (isotropic noise would measure ~48)
    const lid = estimateLid(set.base, dim, { k: 20, sample: 300, metric: 'cosine' });
    expect(lid.rows).toBe(300);
    expect(lid.mean).toBeGreaterThan(8);
    expect(lid.mean).toBeLessThan(30);
  });

  it('writes cosine ground truth that equals brute force over the written files', async () => {
    const tmp = makeTempDir('strata-embedding-');
    try {
      const w = await writeGeneratedSet(tmp.path('set'), { kind: 'embedding', ...SPEC }, 30, 10);
      expect(w.metric).toBe('cosine');
      const base = await readFvecsMatrix(w.base);
      const queries = await readFvecsMatrix(w.query);
      const ids = await readIvecs(w.groundtruth);
      const dist = await readFvecsMatrix(w.groundtruthDist);
      expect([base.count, base.dim, queries.count, ids.count, ids.dim]).toEqual([4000, 48, 30, 30, 10]);
      const direct = generateSet({ kind: 'embedding', ...SPEC }, 30);
      expect(Buffer.from(base.data.buffer).equals(Buffer.from(direct.base.buffer))).toBe(true);
      const gt = bruteForceKnn(base.data, queries.data, 48, 10, 'cosine');
      expect(Array.from(ids.data)).toEqual(Array.from(gt.ids));
      expect(Array.from(dist.data)).toEqual(Array.from(gt.distances));
      // the first neighbour's distance is 1 - cosine, computed here from the files
      expect(dist.data[0]!).toBeCloseTo(
        1 - cosine(Float32Array.from([...queries.data.subarray(0, 48), ...base.data.subarray(ids.data[0]! * 48, ids.data[0]! * 48 + 48)]), 48, 0, 1),
        5,
      );
    } finally {
      tmp.cleanup();
    }
  });

  it('caps the topics at the row count', () => {
    const tiny = generateEmbedding({ count: 5, dim: 8, seed: 1 }, 2);
    expect(tiny.base.length).toBe(40);
  });
});
