// The unplaced graph: what the hnswlib build produces and what placement and layout consume.
// Node ids here are hnswlib's internal ids (insertion order = input row order).

export interface GraphImage {
  readonly count: number;
  readonly dim: number;
  /** Max links per node on level 0 (hnswlib maxM0 = 2M) and on upper levels (maxM = M). */
  readonly maxM0: number;
  readonly maxM: number;
  readonly entry: number;
  readonly maxLevel: number;
  /** Level of each node (0 = only on the base layer). */
  readonly levels: Uint8Array;
  /** count × (1 + maxM0): [neighbour count, ids…] per node. */
  readonly level0: Uint32Array;
  /**
   * Upper-level links: for a node with level L ≥ 1, upperOffset[node] is the u32 index in upperLinks
   * of L consecutive blocks (levels 1..L) of (1 + maxM) u32: [count, ids…]; -1 for level-0 nodes.
   */
  readonly upperOffset: Int32Array;
  readonly upperLinks: Uint32Array;
  /** count × dim, row-major (normalised already for cosine). */
  readonly vectors: Float32Array;
  /** The input row each node came from (hnswlib label). */
  readonly rows: Uint32Array;
}

export function upperBlock(g: Pick<GraphImage, 'upperOffset' | 'maxM'>, node: number, level: number): number {
  return g.upperOffset[node]! + (level - 1) * (1 + g.maxM);
}
