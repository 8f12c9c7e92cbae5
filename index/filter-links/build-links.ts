// Builds the filter links of each block (blocks.ts): an HNSW graph on the block's points alone, by
// whichever builder the base graph used, whose level 0 becomes the block's lists in base node ids.
import { StrataError } from '../../common/errors.js';
import type { GraphImage } from '../graph/graph-image.js';
import { FilterLinks, type LinkBlockEntry } from './filter-links.js';
import type { LinkBlock } from './blocks.js';

/** A block's points as base nodes, ascending. */
export interface BlockNodes {
  readonly block: LinkBlock;
  readonly nodes: Uint32Array;
}

/** ef_construction of the blocks' graphs, at most: their links are many, and each block's recall gains little above it. */
export const LINK_EF_CONSTRUCTION = 100;

export interface BuildLinksOptions {
  payloadM: number;
  dim: number;
  /** The row of a base node's vector (as the base graph was built on it: normalised for cosine). */
  vectorOf: (node: number) => Float32Array;
  /** Builds an HNSW graph with m = payloadM on these rows. */
  buildGraph: (vectors: Float32Array, m: number) => Promise<GraphImage>;
  onProgress?: (done: number, total: number) => void;
}

export async function buildFilterLinks(blocks: readonly BlockNodes[], o: BuildLinksOptions): Promise<FilterLinks> {
  const degree = 2 * o.payloadM;
  const stride = 1 + degree;
  const total = blocks.reduce((a, b) => a + b.nodes.length, 0);
  const members = new Uint32Array(total);
  const lists = new Uint32Array(total * stride);
  const entries: LinkBlockEntry[] = [];
  let from = 0;
  for (const { block, nodes } of blocks) {
    const vectors = new Float32Array(nodes.length * o.dim);
    nodes.forEach((n, i) => vectors.set(o.vectorOf(n), i * o.dim));
    const g = await o.buildGraph(vectors, o.payloadM);
    if (g.maxM0 !== degree) throw new StrataError('STRATA_INTERNAL', `a block graph has ${g.maxM0} level-0 links, expected ${degree}`, {});
    members.set(nodes, from);
    // Graph node n holds input row g.rows[n]: the block's nodes[row].
    for (let n = 0; n < g.count; n++) {
      const at = (from + g.rows[n]!) * stride;
      const src = n * (1 + g.maxM0);
      const deg = g.level0[src]!;
      lists[at] = deg;
      for (let j = 1; j <= deg; j++) lists[at + j] = nodes[g.rows[g.level0[src + j]!]!]!;
    }
    entries.push({ block, entry: nodes[g.rows[g.entry]!]!, from, count: nodes.length });
    from += nodes.length;
    o.onProgress?.(from, total);
  }
  return new FilterLinks(degree, o.payloadM, entries, members, lists);
}
