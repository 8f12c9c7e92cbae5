// The build's filter links step (index/filter-links/): the blocks of the payload indexes (given by a
// compaction, else read from the build's own payloads), mapped from input rows to the placed nodes,
// and each linked by the same graph builder as the base.
import { invalidArgument } from '../../common/errors.js';
import type { BasePayload } from '../format/payload-file.js';
import type { GraphImage } from '../graph/graph-image.js';
import { type BlockRows, chooseBlocks } from '../filter-links/blocks.js';
import { buildFilterLinks } from '../filter-links/build-links.js';
import type { FilterLinks } from '../filter-links/filter-links.js';
import { FieldIndexes } from '../payload-index/field-indexes.js';
import { indexOptions, type IndexSpec } from '../payload-index/params.js';

/** Largest payload_m taken (Qdrant's own bound on m is far above what a filter walk gains from). */
export const MAX_PAYLOAD_M = 64;

/** Checks payload_m (0: no links) where a build takes it: an error names `field`. */
export function checkPayloadM(v: number, field: string): number {
  if (!Number.isInteger(v) || v < 0 || v === 1 || v > MAX_PAYLOAD_M)
    throw invalidArgument(field, `must be 0 (no filter links) or an integer in 2..${MAX_PAYLOAD_M}, got ${v}`);
  return v;
}

/** The blocks over input rows of the build's payloads (labels `ids`, or the rows themselves). */
export function blocksOfPayloads(entries: Iterable<BasePayload>, specs: readonly IndexSpec[], ids: Float64Array | null, count: number): BlockRows[] {
  if (specs.length === 0) return [];
  const rowOf = new Map<number, number>();
  if (ids !== null) for (let r = 0; r < ids.length; r++) rowOf.set(ids[r]!, r);
  const indexes = new FieldIndexes();
  for (const s of specs) indexes.createIndex(s.field, s.params.type, indexOptions(s.params));
  for (const [label, payload] of entries) {
    const row = ids === null ? label : rowOf.get(label);
    if (row !== undefined && row >= 0 && row < count) indexes.add(row, payload);
  }
  return chooseBlocks(indexes, (row) => row, count);
}

export interface LinkStep {
  payloadM: number;
  dim: number;
  /** Input rows, normalised for cosine (as the base graph was built on them). */
  vectors: Float32Array;
  /** The graph's input row per graph node, and the graph node per placed node. */
  graphRows: Uint32Array;
  order: ArrayLike<number>;
  build: (vectors: Float32Array, m: number) => Promise<GraphImage>;
  onProgress?: (done: number, total: number) => void;
}

export function linkBlocks(blocks: readonly BlockRows[], s: LinkStep): Promise<FilterLinks> {
  const count = s.order.length;
  const nodeOfRow = new Uint32Array(count);
  const rowOfNode = new Uint32Array(count);
  for (let n = 0; n < count; n++) {
    const row = s.graphRows[s.order[n]!]!;
    nodeOfRow[row] = n;
    rowOfNode[n] = row;
  }
  const dim = s.dim;
  return buildFilterLinks(
    blocks.map((b) => ({ block: b.block, nodes: Uint32Array.from(b.rows, (r) => nodeOfRow[r]!).sort() })),
    {
      payloadM: s.payloadM,
      dim,
      vectorOf: (node) => s.vectors.subarray(rowOfNode[node]! * dim, (rowOfNode[node]! + 1) * dim),
      buildGraph: s.build,
      ...(s.onProgress ? { onProgress: s.onProgress } : {}),
    },
  );
}
