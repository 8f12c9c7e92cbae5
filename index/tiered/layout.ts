// Lays an unplaced graph out as a tiered index: renumbers nodes by the placement's order (so each
// tier is a contiguous id range) and copies neighbour lists and vectors into the tiers' segments.
import type { Metric } from '../kernels/kernels.js';
import type { GraphImage } from '../graph/graph-image.js';
import type { Placement } from '../placement/placement.js';
import { TieredIndex, type AllocateOptions } from './tiered-index.js';

/**
 * @param externalIds the input's ids by row (null: ids are the 0-based row numbers)
 */
export function layoutIndex(
  g: GraphImage,
  placement: Pick<Placement, 'order' | 'dramCount'>,
  metric: Metric,
  externalIds: Float64Array | null,
  opts: AllocateOptions = {},
): TieredIndex {
  const n = g.count;
  const { order, dramCount } = placement;
  const newOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) newOf[order[i]!] = i;

  const levels = new Uint8Array(n);
  const upperOffset = new Int32Array(n).fill(-1);
  const M1 = 1 + g.maxM;
  let upperLen = 0;
  for (let i = 0; i < n; i++) upperLen += g.levels[order[i]!]! * M1;
  const upperLinks = new Uint32Array(upperLen);
  const labels = new Float64Array(n);
  let p = 0;
  for (let i = 0; i < n; i++) {
    const old = order[i]!;
    const lv = g.levels[old]!;
    levels[i] = lv;
    const row = g.rows[old]!;
    labels[i] = externalIds ? externalIds[row]! : row;
    if (lv === 0) continue;
    upperOffset[i] = p;
    const src = g.upperOffset[old]!;
    for (let l = 0; l < lv; l++) {
      const cnt = g.upperLinks[src + l * M1]!;
      upperLinks[p + l * M1] = cnt;
      for (let j = 1; j <= cnt; j++) upperLinks[p + l * M1 + j] = newOf[g.upperLinks[src + l * M1 + j]!]!;
    }
    p += lv * M1;
  }

  const index = TieredIndex.allocate(
    {
      meta: { dim: g.dim, metric, count: n, maxM0: g.maxM0, maxM: g.maxM, entry: n > 0 ? newOf[g.entry]! : 0, maxLevel: g.maxLevel, dramCount },
      levels,
      upperOffset,
      upperLinks,
      labels,
    },
    opts,
  );

  const stride = 1 + g.maxM0;
  const dim = g.dim;
  for (const seg of index.segments) {
    const adj = seg.u32;
    const vec = seg.f32;
    const vecBase = seg.layout.vecOffset >>> 2;
    for (let local = 0; local < seg.count; local++) {
      const old = order[seg.start + local]!;
      const src = old * stride;
      const dst = seg.adjBase + local * stride;
      const cnt = g.level0[src]!;
      adj[dst] = cnt;
      for (let j = 1; j <= cnt; j++) adj[dst + j] = newOf[g.level0[src + j]!]!;
      vec.set(g.vectors.subarray(old * dim, old * dim + dim), vecBase + local * dim);
    }
  }
  return index;
}

/** Identity layout with everything in DRAM: what profiling queries run on before placement. */
export function identityLayout(g: GraphImage, metric: Metric, opts: AllocateOptions = {}): TieredIndex {
  const order = new Uint32Array(g.count);
  for (let i = 0; i < g.count; i++) order[i] = i;
  return layoutIndex(g, { order, dramCount: g.count }, metric, null, opts);
}
