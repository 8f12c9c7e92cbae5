// A small real tiered index for format and search tests: a clustered set, an hnswlib graph, a DRAM
// budget plan with hop-order placement and (optionally) a code, all built in about a second.
import { graphFullPrecisionBytes, graphUpperBytes, placeAndLayout, type Placed } from '../../index/build/place-and-layout.js';
import { buildGraph } from '../../index/build/hnsw-build.js';
import type { CodeKind } from '../../index/codes/index.js';
import type { RotationKind } from '../../index/codes/rotation.js';
import type { ManifestInfo } from '../../index/format/write-index.js';
import { generateClustered } from '../../datasets/index.js';
import type { GraphImage } from '../../index/graph/graph-image.js';
import type { AllocateOptions, TieredIndex } from '../../index/tiered/tiered-index.js';

export interface SmallIndex {
  graph: GraphImage;
  placed: Placed;
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
  /** Share of the full-precision index given to DRAM. */
  dramShare?: number;
  /** The DRAM code (default none: whole records, the layout the format tests began with). */
  codes?: CodeKind | 'none' | 'auto';
  /** rq codes' rotation (default: the builder's). */
  rotation?: RotationKind;
  seed?: number;
  /** Codes worth value runs, and the budget share they may take (planner.ts). */
  runValues?: readonly number[];
  runShare?: number;
}

export function buildSmallIndex(spec: SmallIndexSpec = {}, alloc: AllocateOptions = {}): SmallIndex {
  const count = spec.count ?? 2000;
  const dim = spec.dim ?? 16;
  const m = spec.m ?? 8;
  const efConstruction = spec.efConstruction ?? 50;
  const seed = spec.seed ?? 7;
  const set = generateClustered({ count, dim, clusters: 8, seed }, spec.queries ?? 40);
  const graph = buildGraph(set.base, dim, { metric: 'l2', m, efConstruction, seed: 100 });
  // Share 0 means the least a plan accepts: the upper layers alone.
  const budgetBytes = Math.max(graphUpperBytes(graph), Math.floor(graphFullPrecisionBytes(graph) * (spec.dramShare ?? 0.3)));
  const placed = placeAndLayout(graph, 'l2', null, {
    budgetBytes,
    policy: 'hops',
    codes: spec.codes ?? 'none',
    seed,
    ...(spec.rotation ? { rotation: spec.rotation } : {}),
    ...(spec.runValues !== undefined ? { runValues: spec.runValues } : {}),
    ...(spec.runShare !== undefined ? { runShare: spec.runShare } : {}),
    ...alloc,
  });
  const info: ManifestInfo = {
    name: 'small',
    build: { source: null, m, efConstruction, seed: 100, seconds: 0, builder: 'test' },
    placement: { policy: 'hops', profileQueries: 0, predictedDramShare: null },
    plan: { dramBudgetBytes: budgetBytes, fullPrecisionBytes: placed.plan.fullPrecisionBytes, reason: placed.plan.reason },
    graph: { unreachable: placed.unreachable },
  };
  return { graph, placed, index: placed.index, queries: set.queries, info };
}
