// `strata build`: dataset file -> payloads judged -> HNSW graph (Strata's or hnswlib's) -> profile -> budget plan,
// code, placement -> tiered layout -> index directory (with its payload file). Each phase reports
// progress through one callback so the CLI decides how to show it.
import { profileWalks, WALK_PROFILE } from '../search/walk-profile.js';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { invalidArgument, StrataError } from '../../common/errors.js';
import { type Dataset, detectFormat, readDataset, type DatasetFormat } from '../../datasets/index.js';
import { type BasePayload, checkIndexFields } from '../format/payload-file.js';
import type { IndexSpec } from '../payload-index/params.js';
import { checkOutput } from '../format/output-path.js';
import { recoverInterruptedSwap } from '../format/replace-dir.js';
import { writeIndex } from '../format/write-index.js';
import type { Manifest } from '../format/manifest.js';
import { normalizeRows } from '../kernels/reference.js';
import type { Metric } from '../kernels/kernels.js';
import { type CodeKind, parseCodeKind } from '../codes/index.js';
import { parseBudget, type PlacementPolicy } from '../placement/placement.js';
import { type BudgetPlan, type CodeMiss, DEFAULT_POOL_SHARE } from '../placement/planner.js';
import { payloadIndexSizing } from '../payload-index/index-bytes.js';
import { runValues } from '../tiered/value-runs.js';
import { graphFullPrecisionBytes, placeAndLayout } from './place-and-layout.js';
import { type ConnectResult, connectUnreachable, unconnected } from './connect-unreachable.js';
import { DEFAULT_FILL_ALPHA, type FillResult, fillFreeSlots } from './fill-free-slots.js';
import { buildGraph } from './hnsw-build.js';
import type { GraphImage } from '../graph/graph-image.js';
import type { BlockRows } from '../filter-links/blocks.js';
import { LINK_EF_CONSTRUCTION } from '../filter-links/build-links.js';
import { blocksOfPayloads, checkPayloadM, linkBlocks } from './link-blocks.js';
import { buildGraphParallel, graphRegionBytes, graphThreads } from './parallel-graph.js';
import { MAX_REGION_BYTES } from '../../tiers/shared-region.js';
import { parseIndexFields } from './index-fields.js';
import { basePayloadEntries, checkPayloadInput, checkPayloadsOption, type PayloadInput } from './payload-input.js';
import { profileGraph, sampleRows } from './profile.js';

export const GRAPH_BUILDERS = ['strata', 'hnswlib'] as const;
export type GraphBuilder = (typeof GRAPH_BUILDERS)[number];

/** Whether Strata's graph build fits its one wasm32 memory (the vectors, level 0, its threads' work). */
export function strataGraphFits(count: number, dim: number, m: number, efConstruction: number, threads: number): boolean {
  return graphRegionBytes(count, dim, m, efConstruction, graphThreads(count, threads)) <= MAX_REGION_BYTES;
}

/** Who builds the graph when the caller does not say: Strata's on two threads or more where it fits, else hnswlib's. */
export function defaultBuilder(count: number, dim: number, m: number, efConstruction: number, threads: number): GraphBuilder {
  return threads > 1 && strataGraphFits(count, dim, m, efConstruction, threads) ? 'strata' : 'hnswlib';
}

/** The build's phases; `fill` is what follows the graph: the free slots filled, the unreachable linked in. */
export type BuildPhase = 'read' | 'payloads' | 'graph' | 'fill' | 'profile' | 'layout' | 'links' | 'write';

export interface BuildIndexOptions {
  input: string;
  out: string;
  format?: DatasetFormat;
  metric?: Metric;
  m?: number;
  efConstruction?: number;
  seed?: number;
  /** Bytes ("512MiB", "2GB") or a share of the index ("10%"). */
  dramBudget?: string;
  placement?: PlacementPolicy;
  /** The DRAM code: auto (the planner picks), none (full-precision traversal), or a kind. */
  codes?: CodeKind | 'none' | 'auto';
  /** What a code asked for that does not fit the budget gets (planner.ts whenCodeMisses; default refused). */
  whenCodeMisses?: CodeMiss;
  /** Share of the neighbour-list budget given to the promotion pool (planner.ts; default DEFAULT_POOL_SHARE). */
  poolShare?: number;
  /** File of profiling queries; default: a sample of the data. */
  profileQueries?: string;
  /** Profiling queries already in memory (a live collection's recorded load: compaction); wins over profileQueries. */
  profileRows?: Float32Array;
  profileSamples?: number;
  profileEf?: number;
  name?: string;
  force?: boolean;
  limit?: number;
  segmentBytes?: number;
  /** No links to the nodes the entry cannot reach (default false); with fillAlpha 0, hnswlib's graph as built. */
  keepUnreachable?: boolean;
  /** α for filling the free level-0 slots (fill-free-slots.ts; default DEFAULT_FILL_ALPHA); 0 leaves them empty. */
  fillAlpha?: number;
  /** Threads for the build's parallel passes (the graph, the slot fill, the codes' encoding; default every core). */
  threads?: number;
  /**
   * Who builds the HNSW graph: `strata` (parallel-graph.ts, on every thread) or `hnswlib`
   * (hnswlib-node, one thread: the reference). Default: defaultBuilder (strata with two threads or
   * more while its memory fits, hnswlib with one, where hnswlib's own insertion is the faster).
   */
  builder?: GraphBuilder;
  onProgress?: (phase: BuildPhase, done: number, total: number) => void;
  /** The rows, already read (a shard of `input`: build-shards.ts); `input` then only names the source. */
  dataset?: Dataset;
  /** A JSONL file of one payload object per line, line i row i's (beside a non-JSONL input). */
  payloads?: string;
  /** `key:type` per payload index to record (index-fields.ts). */
  indexFields?: readonly string[];
  /** Payloads already judged (build-shards.ts), and the input rows `dataset` holds, ascending. */
  payloadInput?: { input: PayloadInput | null; rows: readonly number[] };
  /**
   * Payloads by label already in memory (a compaction's), instead of reading them from the input,
   * and the payload indexes with their full parameters (added to any `indexFields`).
   */
  basePayloads?: { entries: Iterable<BasePayload>; indexes: readonly IndexSpec[] };
  /**
   * Points of each keyword value worth a run (index/tiered/value-runs.ts runValues), when they are
   * counted elsewhere (a compaction's are in the collection); else counted over the build's payloads.
   */
  runValues?: readonly number[];
  /**
   * DRAM of the payload indexes the base is served with, when they are held elsewhere (a
   * compaction's are the collection's): set aside from the budget first. Else measured over the
   * build's payloads and `indexFields`.
   */
  payloadIndexBytes?: number;
  /**
   * Qdrant's payload_m: links per point within each block of its payload indexes
   * (index/filter-links/; 2 × payload_m on the block's graph level 0). 0 or absent: none.
   */
  payloadM?: number;
  /** The blocks over input rows, when chosen elsewhere (a compaction's, from the collection's indexes); else from the build's payloads. */
  linkBlocks?: readonly BlockRows[];
}

export interface BuildSummary {
  out: string;
  count: number;
  dim: number;
  metric: Metric;
  seconds: Record<BuildPhase | 'total', number>;
  vectorsPerSecond: number;
  /** Who built the graph (`builder` in BuildIndexOptions). */
  builder: GraphBuilder;
  /** The process's peak resident memory at the end of the build (its worker threads included). */
  peakRssBytes: number;
  tiers: Array<{ kind: string; bytes: number }>;
  placement: Manifest['placement'];
  plan: BudgetPlan;
  unreachable: number;
  /** Nodes hnswlib left unreachable on level 0, and the links the build added to reach them. */
  connected: ConnectResult;
  /** The free level-0 slots filled, or null with fillAlpha 0. */
  filled: FillResult | null;
  /** Points given a payload and the payload indexes recorded, or null: no payload file. */
  payloads: { points: number; indexes: IndexSpec[] } | null;
  /** The filter links built (index/filter-links/), or null: payload_m 0, or no block to link. */
  links: { blocks: number; members: number; dramBytes: number; cxlBytes: number } | null;
  manifest: Manifest;
}

export const DEFAULT_BUILD = {
  m: 16,
  efConstruction: 200,
  seed: 100,
  dramBudget: '25%',
  placement: 'profile' as PlacementPolicy,
  profileSamples: 1000,
  profileEf: 64,
};

/** The options that can be judged without the data (budget, code, samples, index fields): checked before any read. */
export function checkBuildOptions(o: BuildIndexOptions): {
  budgetText: string;
  codes: CodeKind | 'none' | 'auto';
  samples: number;
  fillAlpha: number;
  indexFields: IndexSpec[];
} {
  const budgetText = o.dramBudget ?? DEFAULT_BUILD.dramBudget;
  parseBudget(budgetText, 0);
  if (o.builder !== undefined && !GRAPH_BUILDERS.includes(o.builder)) {
    throw invalidArgument('builder', `must be one of ${GRAPH_BUILDERS.join(', ')}, got ${String(o.builder)}`);
  }
  const codes = parseCodeKind(o.codes ?? 'auto');
  const samples = o.profileSamples ?? DEFAULT_BUILD.profileSamples;
  if (!Number.isInteger(samples) || samples < 0) throw invalidArgument('profile-samples', `must be a whole number, got ${samples}`);
  const fillAlpha = o.fillAlpha ?? DEFAULT_FILL_ALPHA;
  if (!(fillAlpha === 0 || (fillAlpha >= 1 && fillAlpha <= 4))) throw invalidArgument('fill-alpha', `must be 0 (off) or in 1..4, got ${fillAlpha}`);
  const parsed = parseIndexFields(o.indexFields ?? []);
  const indexFields = o.basePayloads ? checkIndexFields([...parsed, ...o.basePayloads.indexes], 'basePayloads.indexes') : parsed;
  if (o.dataset === undefined) checkPayloadsOption(o, o.format ?? detectFormat(o.input));
  if (o.payloadM !== undefined) checkPayloadM(o.payloadM, 'payload-m');
  return { budgetText, codes, samples, fillAlpha, indexFields };
}

/**
 * The build's payloads, judged against the rows read (the 'payloads' phase) before the graph is
 * built; null without a payload source (neither JSONL nor --payloads).
 */
export async function readPayloadInput(o: BuildIndexOptions, ds: Dataset): Promise<PayloadInput | null> {
  return checkPayloadInput(
    { input: ds.file, format: ds.format, ...(o.payloads !== undefined ? { payloads: o.payloads } : {}), ...(o.limit !== undefined ? { limit: o.limit } : {}) },
    ds.count,
    (d, t) => o.onProgress?.('payloads', d, t),
  );
}

/** Reads the build's input as the options say (format, limit), reporting the 'read' phase. */
export function readBuildInput(o: BuildIndexOptions): Promise<Dataset> {
  return readDataset(o.input, {
    ...(o.format ? { format: o.format } : {}),
    ...(o.limit ? { limit: o.limit } : {}),
    onProgress: (d, t) => o.onProgress?.('read', d, t),
  });
}

export async function buildIndex(o: BuildIndexOptions): Promise<BuildSummary> {
  const t0 = performance.now();
  const seconds: Record<BuildPhase | 'total', number> = { read: 0, payloads: 0, graph: 0, fill: 0, profile: 0, layout: 0, links: 0, write: 0, total: 0 };
  let mark = t0;
  const lap = (p: BuildPhase): void => {
    const now = performance.now();
    seconds[p] = (now - mark) / 1000;
    mark = now;
  };
  const progress = o.onProgress ?? ((): void => {});
  const m = o.m ?? DEFAULT_BUILD.m;
  const efConstruction = o.efConstruction ?? DEFAULT_BUILD.efConstruction;
  const seed = o.seed ?? DEFAULT_BUILD.seed;
  const policy = o.placement ?? DEFAULT_BUILD.placement;

  // Everything that can be judged without the data is judged before reading it: a bad option or
  // output path must not cost a whole graph build.
  const { budgetText, codes, samples, fillAlpha, indexFields } = checkBuildOptions(o);
  const inputs = [o.input, ...(o.profileQueries ? [o.profileQueries] : []), ...(o.payloads ? [o.payloads] : [])];
  recoverInterruptedSwap(o.out);
  checkOutput(o.out, { force: o.force ?? false, inputs });

  const ds = o.dataset ?? (await readBuildInput(o));
  if (ds.count === 0) throw new StrataError('STRATA_DATASET_FORMAT', `${ds.file}: no vectors to index`, { file: ds.file });
  const metric: Metric = o.metric ?? ds.metric ?? 'l2';
  if (metric === 'cosine') normalizeRows(ds.vectors, ds.dim);
  lap('read');
  const payloadInput = o.basePayloads ? null : o.payloadInput ? o.payloadInput.input : await readPayloadInput(o, ds);
  lap('payloads');

  const threads = o.threads ?? availableParallelism();
  const builder = o.builder ?? defaultBuilder(ds.count, ds.dim, m, efConstruction, threads);
  if (builder === 'strata' && !strataGraphFits(ds.count, ds.dim, m, efConstruction, threads)) {
    throw invalidArgument(
      'builder',
      `strata keeps the vectors, level 0 and its threads' work in one wasm32 memory of at most 4 GiB, too small for ${ds.count} vectors of ${ds.dim} dimensions: use hnswlib`,
    );
  }
  const graphOptions = { metric, m, efConstruction, seed, onProgress: (d: number, t: number) => progress('graph', d, t) };
  const graph =
    builder === 'strata' ? await buildGraphParallel(ds.vectors, ds.dim, { ...graphOptions, threads }) : buildGraph(ds.vectors, ds.dim, graphOptions);
  lap('graph');
  const filled = fillAlpha > 0 ? await fillFreeSlots(graph, metric, fillAlpha, threads) : null;
  const connected = o.keepUnreachable ? unconnected(graph) : connectUnreachable(graph, metric);
  lap('fill');

  let profQ: Float32Array;
  if (o.profileRows) {
    profQ = o.profileRows;
  } else if (o.profileQueries) {
    const pq = await readDataset(o.profileQueries);
    if (pq.dim !== ds.dim) {
      throw new StrataError('STRATA_DATASET_DIMENSION', `${pq.file}: profiling queries have ${pq.dim} dimensions, the data ${ds.dim}`, {
        file: pq.file,
        expected: ds.dim,
        found: pq.dim,
      });
    }
    profQ = pq.vectors;
    if (metric === 'cosine') normalizeRows(profQ, ds.dim);
  } else {
    profQ = sampleRows(ds.vectors, ds.dim, samples, seed);
  }
  const profileEf = o.profileEf ?? DEFAULT_BUILD.profileEf;
  const nq = profQ.length / ds.dim;
  progress('profile', 0, nq);
  const profile = profileGraph(graph, metric, profQ, 10, profileEf);
  progress('profile', nq, nq);
  lap('profile');

  // Payloads given in memory are read twice (index bytes, then the file): held as an array.
  const given = o.basePayloads ? [...o.basePayloads.entries] : null;
  const entriesOf = (): Iterable<BasePayload> | null =>
    given ??
    // A JSONL input whose rows carry no payload gets no payload file (unless it has index fields).
    (payloadInput === null || payloadInput.points === 0 ? null : basePayloadEntries(payloadInput, ds.ids, o.payloadInput?.rows ?? null));
  const sizing = indexFields.length > 0 ? payloadIndexSizing(entriesOf() ?? [], indexFields) : { bytes: 0, valueCounts: [] };
  const budgetBytes = parseBudget(budgetText, graphFullPrecisionBytes(graph));
  const placed = placeAndLayout(graph, metric, ds.ids, {
    budgetBytes,
    payloadIndexBytes: o.payloadIndexBytes ?? sizing.bytes,
    runValues: o.runValues ?? runValues(sizing.valueCounts, graph.count),
    policy,
    profile: profile.accesses,
    codes,
    ...(o.whenCodeMisses ? { whenCodeMisses: o.whenCodeMisses } : {}),
    seed,
    ...(o.poolShare !== undefined ? { poolShare: o.poolShare } : {}),
    threads,
    ...(o.segmentBytes ? { segmentBytes: o.segmentBytes } : {}),
  });
  const index = placed.index;
  // What a filtered walk costs on this graph, for the planner (index/search/walk-profile.ts).
  const filterWalk = profileWalks(index, profQ.length >= ds.dim ? profQ : sampleRows(ds.vectors, ds.dim, WALK_PROFILE.queries, seed), seed);
  progress('layout', 1, 1);
  lap('layout');
  const payloadM = o.payloadM ?? 0;
  const blocks = payloadM > 0 ? (o.linkBlocks ?? blocksOfPayloads(entriesOf() ?? [], indexFields, ds.ids, ds.count)) : [];
  if (blocks.length > 0) {
    const linkGraph = (vectors: Float32Array, lm: number): Promise<GraphImage> => {
      const lo = { metric, m: lm, efConstruction: Math.min(efConstruction, LINK_EF_CONSTRUCTION), seed };
      const n = vectors.length / ds.dim;
      return builder === 'strata' && strataGraphFits(n, ds.dim, lm, lo.efConstruction, threads)
        ? buildGraphParallel(vectors, ds.dim, { ...lo, threads })
        : Promise.resolve(buildGraph(vectors, ds.dim, lo));
    };
    index.attachLinks(
      await linkBlocks(blocks, {
        payloadM,
        dim: ds.dim,
        vectors: ds.vectors,
        graphRows: graph.rows,
        order: placed.order,
        build: linkGraph,
        onProgress: (d, t) => progress('links', d, t),
      }),
    );
  }
  lap('links');

  const payloadEntries = entriesOf();
  const withPayloadFile = payloadEntries !== null || indexFields.length > 0;
  // A shard's count is known only once written: its rows bound it.
  const payloadTotal = payloadInput === null ? 0 : o.payloadInput ? o.payloadInput.rows.length : payloadInput.points;
  let pointsWritten = 0;
  const onPayloadsWritten = (n: number): void => {
    pointsWritten = n;
    progress('write', n, Math.max(n, payloadTotal));
  };

  const manifest = writeIndex(
    index,
    o.out,
    {
      name: o.name ?? basename(o.out),
      build: {
        source: ds.file,
        m,
        efConstruction,
        seed,
        seconds: (performance.now() - t0) / 1000,
        builder: `${builder === 'strata' ? `strata (HNSW on ${threads} threads)` : 'hnswlib-node 3.0.0 (hnswlib 0.8.0)'}${filled ? `, free level-0 slots filled at alpha ${fillAlpha}` : ''}`,
      },
      placement: { policy, profileQueries: nq, predictedDramShare: nq > 0 ? placed.predictedDramShare : null },
      plan: {
        dramBudgetBytes: budgetBytes,
        fullPrecisionBytes: placed.plan.fullPrecisionBytes,
        reason: placed.plan.reason,
        poolShare: o.poolShare ?? DEFAULT_POOL_SHARE,
        ...(filterWalk !== null ? { filterWalk } : {}),
      },
      graph: { unreachable: placed.unreachable },
    },
    {
      force: o.force ?? false,
      inputs,
      ...(withPayloadFile ? { payloads: { entries: payloadEntries ?? [], indexes: indexFields, onProgress: onPayloadsWritten } } : {}),
    },
  );
  if (!withPayloadFile) progress('write', 1, 1);
  lap('write');
  seconds.total = (performance.now() - t0) / 1000;
  return {
    out: o.out,
    count: ds.count,
    dim: ds.dim,
    metric,
    seconds,
    vectorsPerSecond: ds.count / (seconds.graph + seconds.fill),
    builder,
    // maxRSS is in kilobytes (getrusage's unit).
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    tiers: manifest.tiers.map((t) => ({ kind: t.kind, bytes: t.bytes })),
    placement: manifest.placement,
    plan: placed.plan,
    unreachable: placed.unreachable,
    connected,
    filled,
    payloads: withPayloadFile ? { points: pointsWritten, indexes: indexFields } : null,
    links: index.links && {
      blocks: index.links.blocks.length,
      members: index.links.memberCount,
      dramBytes: index.links.bytes().dram,
      cxlBytes: index.links.bytes().cxl,
    },
    manifest,
  };
}
