// Two halves of a clustered set split by a hyperplane, and query loads on each: what the
// re-tiering tests shift the load between (load A queries one half, load B the other).
import { generateClustered } from '../../datasets/index.js';

export interface Halves {
  base: Float32Array;
  dim: number;
  halves: [number[], number[]];
  /** `count` queries: rows of one half, in a fixed scattered order. */
  load(half: 0 | 1, count: number): Float32Array;
}

export function clusteredHalves(n = 4000, d = 16): Halves {
  const set = generateClustered({ count: n, dim: d, clusters: 20, seed: 31 }, 1);
  const u = Array.from({ length: d }, (_, j) => Math.sin(j * 2.1 + 0.3));
  const halves: [number[], number[]] = [[], []];
  for (let i = 0; i < n; i++) halves[set.base.subarray(i * d, (i + 1) * d).reduce((a, x, j) => a + x * u[j]!, 0) > 0 ? 0 : 1].push(i);
  const load = (half: 0 | 1, count: number): Float32Array => {
    const rows = halves[half];
    const q = new Float32Array(count * d);
    for (let k = 0; k < count; k++) q.set(set.base.subarray(rows[(k * 7919) % rows.length]! * d, (rows[(k * 7919) % rows.length]! + 1) * d), k * d);
    return q;
  };
  return { base: set.base, dim: d, halves, load };
}
