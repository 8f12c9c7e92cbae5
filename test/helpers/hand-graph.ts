// A level-0-only graph written out by hand: points (rows of equal length) and each node's list,
// entry 0. For the build steps that edit lists (linking, filling), whose every link a test can name.
import type { GraphImage } from '../../index/graph/graph-image.js';

export function handGraph(points: number[][], lists: number[][], maxM0: number): GraphImage {
  const stride = 1 + maxM0;
  const level0 = new Uint32Array(points.length * stride);
  lists.forEach((l, u) => {
    level0[u * stride] = l.length;
    l.forEach((v, j) => (level0[u * stride + 1 + j] = v));
  });
  return {
    count: points.length,
    dim: points[0]?.length ?? 0,
    maxM0,
    maxM: Math.max(1, maxM0 >> 1),
    entry: 0,
    maxLevel: 0,
    levels: new Uint8Array(points.length),
    level0,
    upperOffset: new Int32Array(points.length).fill(-1),
    upperLinks: new Uint32Array(0),
    vectors: Float32Array.from(points.flat()),
    rows: Uint32Array.from(points.keys()),
  };
}

/** Node u's level-0 list. */
export function listOf(g: GraphImage, u: number): number[] {
  const s = 1 + g.maxM0;
  return Array.from(g.level0.subarray(u * s + 1, u * s + 1 + g.level0[u * s]!));
}
