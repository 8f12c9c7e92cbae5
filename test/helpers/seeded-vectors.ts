// Deterministic vectors for model tests: one per seed (xorshift, values exact in float32), and the
// squared L2 distance the models rank by; and the small base index they start from.
import { writeFvecs } from '../../datasets/index.js';
import { buildIndex } from '../../index/build/build-index.js';

export function seededVector(seed: number, dim: number): Float32Array {
  let x = seed | 0 || 1;
  return Float32Array.from({ length: dim }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return Math.fround(((x >>> 0) / 2 ** 32) * 20 - 10);
  });
}

export function squaredL2(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return s;
}

/** Builds a small l2 index of `vectors` (hop placement, 30% DRAM) in tmp's `index` folder; resolves with its path. */
export async function buildModelBase(tmp: { path(name: string): string }, vectors: Float32Array, dim: number): Promise<string> {
  const input = tmp.path('base.fvecs');
  await writeFvecs(input, vectors, dim);
  const out = tmp.path('index');
  await buildIndex({ input, out, metric: 'l2', m: 8, efConstruction: 40, dramBudget: '30%', placement: 'hops' });
  return out;
}
