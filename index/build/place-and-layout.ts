// From an unplaced graph to a tiered index: plan the DRAM budget (planner.ts), rank nodes by the
// placement policy, renumber so the hot ones come first, train the code, lay everything out. The
// build, the benchmarks and the tests all place an index through this one function.
import { trainListCodes } from '../codes/list-codes.js';
import { type CodeKind, trainCodec } from '../codes/index.js';
import { codeMetric } from '../codes/codec.js';
import type { RotationKind } from '../codes/rotation.js';
import type { GraphImage } from '../graph/graph-image.js';
import type { Metric } from '../kernels/kernels.js';
import { orderNodes, type PlacementPolicy, rankNodes } from '../placement/placement.js';
import { type BudgetPlan, type CodeMiss, DEFAULT_POOL_SHARE, fullPrecisionBytes, planBudget, upperLayersBytesFor } from '../placement/planner.js';
import { layoutIndex } from '../tiered/layout.js';
import type { AllocateOptions, TieredIndex } from '../tiered/tiered-index.js';

export interface PlaceOptions extends AllocateOptions {
  budgetBytes: number;
  policy: PlacementPolicy;
  /** Level-0 expansions per node from profiling queries ('profile' needs it). */
  profile?: Float64Array;
  codes: CodeKind | 'none' | 'auto';
  /** The planner's whenCodeMisses: what a code asked for that does not fit gets (default refused). */
  whenCodeMisses?: CodeMiss;
  /** rq codes' rotation (default hadamard; dense is what index format 3 made: tests and comparisons). */
  rotation?: RotationKind;
  /** Share of the list budget that live re-tiering moves (planner.ts; default DEFAULT_POOL_SHARE). */
  poolShare?: number;
  /** DRAM the payload indexes take (index-bytes.ts), set aside before the graph's parts are placed. */
  payloadIndexBytes?: number;
  /** Points of each keyword value worth a run (index/tiered/value-runs.ts runValues): the planner gives runs DRAM before hot lists. */
  runValues?: readonly number[];
  /** Most of the budget value runs take (planner.ts; default RUN_BUDGET_SHARE). */
  runShare?: number;
  seed: number;
  /** Renumber each group in BFS order from the entry (default), or keep the graph's own order (benchmarks measure the difference). */
  renumber?: 'bfs' | 'keep';
  /** Lanes of the fused traversal region (0: none; tests). */
  fusedLanes?: number;
  /** Threads that encode the codes (default 1). */
  threads?: number;
  /** Lay out list codes beside the neighbour lists (index/tiered/list-code-store.ts; default none). */
  listCodes?: boolean;
}

export interface Placed {
  index: TieredIndex;
  plan: BudgetPlan;
  /** New id -> old id. */
  order: Uint32Array;
  unreachable: number;
  /** Share of the profile's expansions whose neighbour lists landed in DRAM (null without a profile). */
  predictedDramShare: number | null;
}

/** The base a percentage budget refers to: the graph's index at full precision. */
export function graphFullPrecisionBytes(g: GraphImage): number {
  return fullPrecisionBytes({ count: g.count, dim: g.dim, maxM0: g.maxM0, upperBytes: graphUpperBytes(g) });
}

/** The smallest budget a plan accepts: the upper layers, which always stay in DRAM. */
export function graphUpperBytes(g: GraphImage): number {
  return upperLayersBytesFor(g.levels, g.maxM);
}

export function placeAndLayout(g: GraphImage, metric: Metric, externalIds: Float64Array | null, o: PlaceOptions): Placed {
  const plan = planBudget({
    count: g.count,
    dim: g.dim,
    metric: codeMetric(metric),
    maxM0: g.maxM0,
    upperBytes: graphUpperBytes(g),
    budgetBytes: o.budgetBytes,
    codes: o.codes,
    ...(o.whenCodeMisses ? { whenCodeMisses: o.whenCodeMisses } : {}),
    poolShare: o.poolShare ?? DEFAULT_POOL_SHARE,
    payloadIndexBytes: o.payloadIndexBytes ?? 0,
    runValues: o.runValues ?? [],
    ...(o.runShare !== undefined ? { runShare: o.runShare } : {}),
  });
  const prio = rankNodes(g, o.policy, o.profile, o.seed);
  const { order, unreachable } = orderNodes(g, prio, plan.adjacencyInDram, o.renumber ?? 'bfs', plan.poolLists);
  const codec = plan.code
    ? trainCodec(plan.code, g.vectors, g.dim, codeMetric(metric), {
        seed: o.seed,
        dims: plan.codeDims,
        centroids: plan.codeCentroids,
        ...(o.rotation ? { rotation: o.rotation } : {}),
      })
    : null;
  const alloc: AllocateOptions = {
    ...(o.segmentBytes ? { segmentBytes: o.segmentBytes } : {}),
    ...(o.slots ? { slots: o.slots } : {}),
    ...(o.cxlSegments ? { cxlSegments: o.cxlSegments } : {}),
    ...(o.kernels ? { kernels: o.kernels } : {}),
    ...(o.fusedLanes !== undefined ? { fusedLanes: o.fusedLanes } : {}),
  };
  const index = layoutIndex(
    g,
    {
      order,
      adjacencyInDram: plan.adjacencyInDram,
      vectorsInDram: plan.vectorsInDram,
      poolLists: plan.poolLists,
      codec,
      threads: o.threads ?? 1,
      runBytes: plan.dram.runs,
      ...(o.listCodes ? { listCodes: trainListCodes(g.vectors, g.dim, o.seed) } : {}),
    },
    metric,
    externalIds,
    alloc,
  );
  let predictedDramShare: number | null = null;
  if (o.profile) {
    let hot = 0;
    let all = 0;
    for (let i = 0; i < order.length; i++) {
      const a = o.profile[order[i]!]!;
      all += a;
      if (i < plan.adjacencyInDram + plan.poolLists) hot += a;
    }
    predictedDramShare = all > 0 ? hot / all : null;
  }
  return { index, plan, order, unreachable, predictedDramShare };
}
