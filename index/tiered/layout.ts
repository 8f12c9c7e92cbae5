// Lays an unplaced graph out as a tiered index: renumbers nodes by the placement's order (so every
// store's DRAM part is a prefix of the ids), then fills the stores: neighbour lists, vectors, codes
// (encoded here, in the new order) and labels.
import { StrataError } from '../../common/errors.js';
import { encodeRows } from '../codes/encode-rows.js';
import { encodeListCodes, type ListCodeBook } from '../codes/list-codes.js';
import { fillListCodes, ListCodeStore } from './list-code-store.js';
import type { Codec } from '../codes/index.js';
import type { GraphImage } from '../graph/graph-image.js';
import type { Metric } from '../kernels/kernels.js';
import { type AllocateOptions, type LayoutPlan, TieredIndex } from './tiered-index.js';
import type { UpperLayers } from './upper-layers.js';

export interface LayoutInput {
  /** New id -> old id. */
  order: Uint32Array;
  adjacencyInDram: number;
  vectorsInDram: number;
  /** Promotion pool slots (0: none). */
  poolLists?: number;
  /** A trained code, or null (traversal on full vectors). */
  codec: Codec | null;
  /** Threads that encode the codes (encode-rows.ts; default 1). */
  threads?: number;
  /** DRAM for value runs (value-runs.ts; default none). */
  runBytes?: number;
  /** A trained list code: its blocks are laid out beside the neighbour lists (list-code-store.ts). */
  listCodes?: ListCodeBook;
}

/** Upper layers renumbered: nodes of level ≥ 1 in new-id order, their links translated. */
export function renumberUpper(g: GraphImage, order: Uint32Array, newOf: Uint32Array): UpperLayers {
  const n = g.count;
  const M1 = 1 + g.maxM;
  const ids: number[] = [];
  let words = 0;
  for (let i = 0; i < n; i++) {
    const lv = g.levels[order[i]!]!;
    if (lv > 0) {
      ids.push(i);
      words += lv * M1;
    }
  }
  const u: UpperLayers = { ids: Int32Array.from(ids), levels: new Uint8Array(ids.length), offsets: new Int32Array(ids.length), links: new Uint32Array(words) };
  let p = 0;
  ids.forEach((id, k) => {
    const old = order[id]!;
    const lv = g.levels[old]!;
    u.levels[k] = lv;
    u.offsets[k] = p;
    const src = g.upperOffset[old]!;
    for (let l = 0; l < lv; l++) {
      const cnt = g.upperLinks[src + l * M1]!;
      u.links[p + l * M1] = cnt;
      for (let j = 1; j <= cnt; j++) u.links[p + l * M1 + j] = newOf[g.upperLinks[src + l * M1 + j]!]!;
    }
    p += lv * M1;
  });
  return u;
}

/**
 * @param externalIds the input's ids by row (null: ids are the 0-based row numbers)
 */
export function layoutIndex(g: GraphImage, input: LayoutInput, metric: Metric, externalIds: Float64Array | null, opts: AllocateOptions = {}): TieredIndex {
  const n = g.count;
  const { order, codec } = input;
  const newOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) newOf[order[i]!] = i;
  const plan: LayoutPlan = {
    adjacencyInDram: input.adjacencyInDram,
    vectorsInDram: input.vectorsInDram,
    poolLists: input.poolLists ?? 0,
    code: codec ? codec.spec : null,
    ...(input.runBytes ? { runBytes: input.runBytes } : {}),
  };
  const index = TieredIndex.allocate(
    {
      meta: { dim: g.dim, metric, count: n, maxM0: g.maxM0, maxM: g.maxM, entry: n > 0 ? newOf[g.entry]! : 0, maxLevel: g.maxLevel },
      plan,
      upper: renumberUpper(g, order, newOf),
      codeParams: codec ? codec.params : null,
    },
    input.listCodes ? { ...opts, listCodeRoom: { subspaces: input.listCodes.subspaces, bytes: ListCodeStore.bytesFor(input.listCodes, n, g.maxM0) } } : opts,
  );

  const stride = 1 + g.maxM0;
  for (const seg of index.adjacency.segments) {
    const adj = seg.u32;
    for (let local = 0; local < seg.count; local++) {
      const src = order[seg.start + local]! * stride;
      const dst = seg.recordBase + local * stride;
      const cnt = g.level0[src]!;
      adj[dst] = cnt;
      for (let j = 1; j <= cnt; j++) adj[dst + j] = newOf[g.level0[src + j]!]!;
    }
  }
  const dim = g.dim;
  for (const seg of index.vectors.segments) {
    const base = seg.recordBase;
    for (let local = 0; local < seg.count; local++) {
      const old = order[seg.start + local]!;
      seg.f32.set(g.vectors.subarray(old * dim, old * dim + dim), base + local * dim);
    }
  }
  if (codec && index.codes) {
    // Encoded in the new order, straight into each segment.
    for (const seg of index.codes.segments)
      encodeRows(
        codec,
        { vectors: g.vectors, dim, order, start: seg.start, count: seg.count, target: { buffer: seg.region.buffer, at: seg.layout.recordOffset } },
        input.threads ?? 1,
      );
  }
  for (const seg of index.labelStore.segments) {
    const labels = new Float64Array(seg.region.buffer, seg.layout.recordOffset, seg.count);
    for (let local = 0; local < seg.count; local++) {
      const row = g.rows[order[seg.start + local]!]!;
      labels[local] = externalIds ? externalIds[row]! : row;
    }
  }
  if (input.listCodes) layoutListCodes(index, g, order, input.listCodes, metric);
  index.pool?.fillInitial();
  return index;
}

/** Encodes every vector's list code, lays out each node's block where the index kept them room, and attaches them. */
function layoutListCodes(index: TieredIndex, g: GraphImage, order: Uint32Array, book: ListCodeBook, metric: Metric): void {
  const n = g.count;
  const area = index.listCodeArea(ListCodeStore.bytesFor(book, n, g.maxM0));
  if (area === null) throw new StrataError('STRATA_INVALID_ARGUMENT', 'the fused region has no room for list codes at this size', { field: 'listCodes' });
  const old = encodeListCodes(book, g.vectors, n);
  const sub = book.subspaces;
  const codes = new Uint8Array(n * sub);
  for (let i = 0; i < n; i++) codes.set(old.subarray(order[i]! * sub, (order[i]! + 1) * sub), i * sub);
  const words = index.adjacency.shape.stride >>> 2;
  const source = {
    count: n,
    dim: g.dim,
    metric,
    maxDegree: g.maxM0,
    list: (node: number): Uint32Array => {
      const { seg, at } = index.neighbourBlock(node);
      return seg.u32.subarray(at, at + words);
    },
    vector: (node: number): Float32Array => index.vectorOf(node),
  };
  index.attachListCodes(fillListCodes(source, book, codes, area));
}

/** Identity layout with everything in DRAM and no code: what profiling queries run on before placement. */
export function identityLayout(g: GraphImage, metric: Metric, opts: AllocateOptions = {}): TieredIndex {
  const order = Uint32Array.from({ length: g.count }, (_, i) => i);
  return layoutIndex(g, { order, adjacencyInDram: g.count, vectorsInDram: g.count, codec: null }, metric, null, opts);
}
