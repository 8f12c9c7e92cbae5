// A small real tiered index for format and search tests: a clustered set, an hnswlib graph,
// hop-order placement with a DRAM budget and the tiered layout, all built in well under a second.
import { buildGraph } from '../../index/build/hnsw-build.js';
import type { ManifestInfo } from '../../index/format/write-index.js';
import { generateClustered } from '../../index/generate/clustered.js';
import type { GraphImage } from '../../index/graph/graph-image.js';
import { placeNodes, type Placement } from '../../index/placement/placement.js';
import { layoutIndex } from '../../index/tiered/layout.js';
import type { AllocateOptions, TieredIndex } from '../../index/tiered/tiered-index.js';

export interface SmallIndex {
  graph: GraphImage;
  placement: Placement;
  index: TieredIndex;
  queries: Float32Array;
  info: ManifestInfo;
}

export interface SmallIndexSpec {
  count?: number;
  dim?: number;
  queries?: number;
  m?: number;
  efConstruction?: number;
  /** Share of the total record bytes given to DRAM. */
  dramShare?: number;
  seed?: number;
}

export function buildSmallIndex(spec: SmallIndexSpec = {}, alloc: AllocateOptions = {}): SmallIndex {
  const count = spec.count ?? 2000;
  const dim = spec.dim ?? 16;
  const m = spec.m ?? 8;
  const efConstruction = spec.efConstruction ?? 50;
  const seed = spec.seed ?? 7;
  const set = generateClustered({ count, dim, clusters: 8, seed }, spec.queries ?? 40);
  const graph = buildGraph(set.base, dim, { metric: 'l2', m, efConstruction, seed: 100 });
  const totalBytes = placeNodes(graph, { policy: 'id', budgetBytes: 0 }).totalBytes;
  const budgetBytes = Math.floor(totalBytes * (spec.dramShare ?? 0.3));
  const placement = placeNodes(graph, { policy: 'hops', budgetBytes });
  const index = layoutIndex(graph, placement, 'l2', null, alloc);
  const info: ManifestInfo = {
    name: 'small',
    build: { source: null, m, efConstruction, seed: 100, seconds: 0, builder: 'test' },
    placement: {
      policy: 'hops',
      dramBudgetBytes: budgetBytes,
      dramNodes: placement.dramCount,
      cxlNodes: count - placement.dramCount,
      upperInCxl: placement.upperInCxl,
      profileQueries: 0,
      predictedDramShare: null,
    },
    graph: { unreachable: placement.unreachable },
  };
  return { graph, placement, index, queries: set.queries, info };
}
