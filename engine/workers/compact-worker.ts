// A compaction's build, off the event loop: the live points (shared memory, copied at the cut) into
// a new tiered index directory, with the collection's build settings. One worker thread per
// compaction; it posts the build's summary or its error, then exits.
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '../../common/worker-errors.js';
import type { CodeKind } from '../../index/codes/index.js';
import type { CodeMiss } from '../../index/placement/planner.js';
import { buildIndex } from '../../index/build/build-index.js';
import type { BlockRows } from '../../index/filter-links/blocks.js';
import type { Metric } from '../../index/kernels/kernels.js';
import type { PlacementPolicy } from '../../index/placement/placement.js';

/** A base to build: its points (shared memory, copied at the cut), where, and its code. */
export interface PointsJob {
  name: string;
  out: string;
  dim: number;
  metric: Metric;
  vectors: SharedArrayBuffer;
  ids: SharedArrayBuffer;
  codes: CodeKind | 'none' | 'auto';
}

/** One secondary vector's build: built with the collection's graph and budget settings. */
export type NamedJob = PointsJob;

export interface CompactJob extends PointsJob {
  m: number;
  efConstruction: number;
  dramBudget: string;
  placement: PlacementPolicy;
  /** The promotion pool's share of the list budget (the base's, kept). */
  poolShare: number;
  /** The collection's recorded live queries (count × dim), profiling the new placement; absent: a sample of the data. */
  profile: SharedArrayBuffer | null;
  /** Points of each keyword value worth a run, from the collection's keyword indexes (index/tiered/value-runs.ts runValues). */
  runValues: number[];
  /** What the code gets when it no longer fits (planner.ts whenCodeMisses). */
  whenCodeMisses: CodeMiss;
  /** DRAM of the collection's payload indexes at the cut: the planner sets it aside from the budget first, as `strata build` does. */
  payloadIndexBytes: number;
  /** payload_m, and the filter-link blocks over the input positions (index/filter-links/blocks.ts); 0 and none: no links. */
  payloadM: number;
  linkBlocks: BlockRows[];
  /** The secondary vectors' points, each built after the collection's own into a base of its own. */
  named: NamedJob[];
}

const job = workerData as CompactJob;
const vectors = new Float32Array(job.vectors);
const ids = new Float64Array(job.ids);

/** A secondary vector's base: the collection's graph and budget settings, its own code, no payload. */
function buildNamed(n: NamedJob): Promise<unknown> {
  const ids = new Float64Array(n.ids);
  return buildIndex({
    input: `compaction of ${job.name}, vector ${n.name}`,
    out: n.out,
    name: `${job.name}.${n.name}`,
    dataset: {
      file: `compaction of ${job.name}, vector ${n.name}`,
      format: 'fvecs',
      dim: n.dim,
      count: ids.length,
      vectors: new Float32Array(n.vectors),
      ids,
      metric: null,
    },
    metric: n.metric,
    m: job.m,
    efConstruction: job.efConstruction,
    dramBudget: job.dramBudget,
    placement: job.placement,
    codes: n.codes,
    poolShare: job.poolShare,
    threads: 1,
  });
}

buildIndex({
  input: `compaction of ${job.name}`,
  out: job.out,
  name: job.name,
  dataset: { file: `compaction of ${job.name}`, format: 'fvecs', dim: job.dim, count: ids.length, vectors, ids, metric: null },
  metric: job.metric,
  m: job.m,
  efConstruction: job.efConstruction,
  dramBudget: job.dramBudget,
  placement: job.placement,
  codes: job.codes,
  whenCodeMisses: job.whenCodeMisses,
  poolShare: job.poolShare,
  runValues: job.runValues,
  payloadIndexBytes: job.payloadIndexBytes,
  payloadM: job.payloadM,
  linkBlocks: job.linkBlocks,
  // A compaction runs beside searches of the same process: one thread, so that they keep the rest.
  threads: 1,
  ...(job.profile !== null ? { profileRows: new Float32Array(job.profile) } : {}),
})
  .then(async (s) => {
    for (const n of job.named) await buildNamed(n);
    return s;
  })
  .then(
    (s) => parentPort!.postMessage({ ok: true, count: s.count, seconds: s.seconds.total }),
    (e: unknown) => parentPort!.postMessage({ ok: false, error: toWire(e) }),
  );
