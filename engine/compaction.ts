// The compaction protocol, in one place: a live collection's live points (the base's unhidden ones
// and the fresh ones, at the live store's cut) are built into a new tiered index on a worker thread
// while searches and writes go on, and each secondary vector's points into one of its own beside it;
// the base is opened and the state file naming it (storage/compacted.ts) is written; then, in one
// synchronous step, the new base is swapped in, the live store rebased on it and the search threads
// replaced; last, the previous base's files are removed and the log's head up to the cut is cut. A
// crash at any point recovers either the old state or the new one, whole. Everything but the cut and
// the swap runs over turns of the event loop or off it (the payloads at the cut are read copy on
// write, the base's vectors copied, the base read and hashed, a step at a time), so that neither
// stalls the server for long. Also the automatic trigger (compactAt) and, at open, what a previous
// compaction left.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { errorMessage, invalidArgument, quoted, readOnly, StrataError } from '../common/errors.js';
import { stepsInTurns } from '../common/turns.js';
import { fromWorker } from '../common/worker-errors.js';
import { runValues } from '../index/tiered/value-runs.js';
import { DEFAULT_BUILD } from '../index/build/build-index.js';
import type { OpenedIndex } from '../index/open-index.js';
import { DEFAULT_POOL_SHARE } from '../index/placement/planner.js';
import { collectionDir } from '../storage/collection-dir.js';
import {
  baseDirName,
  type Compacted,
  namedBaseDir,
  readCompacted,
  readCompactedInTurns,
  removeStaleBases,
  removeStaleBasesAsync,
  writeCompactedInTurns,
} from '../storage/compacted.js';
import type { DenseEntries } from '../index/fresh/dense-column.js';
import type { NamedBase } from '../index/named/named-base.js';
import { encodeStateParts, type LiveStore } from '../storage/live-store.js';
import { BaseLookup } from './base-lookup.js';
import type { Collection } from './collection.js';
import { workerFile } from './executor.js';
import type { CompactJob, NamedJob } from './workers/compact-worker.js';
import type { BlockRows } from '../index/filter-links/blocks.js';

/** Default of OpenEngineOptions.compactAt. */
export const DEFAULT_COMPACT_AT = 50_000;

/** Default of OpenEngineOptions.collectionDramBudget: a quarter of the base at full precision. */
export const DEFAULT_COLLECTION_DRAM_BUDGET = 0.25;

/** Recorded live queries a compaction needs before it profiles its placement with them. */
export const MIN_PROFILE_QUERIES = 200;

/** What a compaction did (Engine.compact; the REST answer's `result`). */
export interface CompactionReport {
  /** False when there was nothing to compact (no live point). */
  compacted: boolean;
  /** Live points in the new base. */
  points: number;
  seconds: number;
  /** Fresh points and hidden base points before and after: what the swap freed. */
  before: { fresh: number; hidden: number };
  after: { fresh: number; hidden: number };
  /** The new base's directory name, inside the collection's directory. */
  base: string | null;
}

/** What compactions need of the engine. */
export interface CompactionHost {
  readonly dataDir: string | null;
  isClosing(): boolean;
  /** Whether bases can be swapped at run time (not with near-data tier workers). */
  readonly canSwap: boolean;
  /** OpenEngineOptions.collectionDramBudget: a created collection's DRAM budget, a share of its base at full precision. */
  readonly collectionDramBudget: number;
  collection(name: string): Collection;
  /** Opens a base as the engine opens bases (slots and lanes for its threads), over turns of the event loop. */
  openBase(dir: string): Promise<OpenedIndex>;
  /** Opens a secondary vector's base, searched on the main thread (over turns, too). */
  openNamed(dir: string): Promise<NamedBase>;
  /** Replaces the search threads by threads over every collection's current base. */
  swapThreads(): void;
}

/**
 * What a previous compaction left in a collection's directory: the state naming its base (null:
 * none), every other base directory (an interrupted compaction's, or one replaced) removed.
 */
export function recoverCompacted(dir: string): Compacted | null {
  const compacted = readCompacted(dir);
  removeStaleBases(dir, compacted?.baseDir ?? null);
  return compacted;
}

/** recoverCompacted over turns of the event loop (a collection restored while others are served). */
export async function recoverCompactedInTurns(dir: string): Promise<Compacted | null> {
  const compacted = await readCompactedInTurns(dir);
  await removeStaleBasesAsync(dir, compacted?.baseDir ?? null);
  return compacted;
}

/** Base vectors livePoints copies between two yields. */
const COPY_STEP_POINTS = 8192;

/**
 * The live points, copied into shared memory: the base's unhidden nodes and the fresh points named
 * (a cut's). Which points, and the fresh vectors, are taken at the call; the base's vectors, which
 * nothing rewrites until this compaction's swap, by `copy` in steps. Cosine vectors are stored
 * normalised already.
 */
function livePoints(c: Collection, freshIds: readonly number[]): { vectors: Float32Array; ids: Float64Array; copy: Generator<void, void, void> } {
  const live = c.live;
  const index = c.index;
  const dim = c.dim;
  const baseNodes: number[] = [];
  if (index !== null) {
    const labels = index.labels;
    for (let n = 0; n < labels.length; n++) if (live === null || live.baseLive(labels[n]!)) baseNodes.push(n);
  }
  const freshLive = live === null ? [] : freshIds.filter((id) => live.fresh.has(id));
  const count = baseNodes.length + freshLive.length;
  const vectors = new Float32Array(new SharedArrayBuffer(count * dim * 4));
  const ids = new Float64Array(new SharedArrayBuffer(count * 8));
  freshLive.forEach((id, j) => {
    vectors.set(live!.fresh.vector(id)!, (baseNodes.length + j) * dim);
    ids[baseNodes.length + j] = id;
  });
  function* copy(): Generator<void, void, void> {
    for (let i = 0; i < baseNodes.length; i++) {
      const n = baseNodes[i]!;
      vectors.set(index!.vectorOf(n), i * dim);
      ids[i] = index!.labels[n]!;
      if ((i + 1) % COPY_STEP_POINTS === 0) yield;
    }
  }
  return { vectors, ids, copy: copy() };
}

export class Compactions {
  /** Running compactions' build threads (terminated at close). */
  private readonly builders = new Set<Worker>();

  constructor(private readonly host: CompactionHost) {}

  /** The write hook of a live collection: compacts it once enough has changed. */
  trigger(c: Collection, store: LiveStore): () => void {
    return () => {
      const base = c.index?.meta.count ?? 0;
      // Secondary vectors may be rewritten alone (a vector update): the most changed vector counts.
      const changed = Math.max(store.fresh.size + store.tombstones.size, ...[...store.secondary.values()].map((col) => col.changed));
      // Fresh points + hidden base points past which the collection compacts itself (0: never).
      const at = c.autoCompactAt();
      if (at > 0 && c.compacting === null && !this.host.isClosing() && changed >= Math.max(at, 0.3 * base))
        this.compact(this.host.collection(c.name)).catch((e: unknown) => process.emitWarning(`compaction of ${c.name} failed: ${errorMessage(e)}`));
    };
  }

  /**
   * Compacts a live collection (the protocol above), from its state at the call: a compaction running
   * already took its cut before it (and its payload indexes as they were), so the call waits for it,
   * then compacts again, or joins a compaction started since.
   */
  compact(c: Collection): Promise<CompactionReport> {
    const h = this.host;
    if (h.isClosing()) return Promise.reject(new StrataError('STRATA_SHUTTING_DOWN', 'engine shutting down', {}));
    const live = c.live;
    if (h.dataDir === null || live === null)
      return Promise.reject(readOnly(`collection ${quoted(c.name)}`, 'no-data-dir', 'there is nothing to compact', { allow: 'GET' }));
    if (!h.canSwap) return Promise.reject(invalidArgument('compact', 'compaction with near-data tier workers (--mode ndp) is not supported yet'));
    const running = c.compacting as Promise<CompactionReport> | null;
    if (running !== null) return running.then(() => (c.compacting !== null ? (c.compacting as Promise<CompactionReport>) : this.compact(c)));
    return c.trackCompaction(this.run(c, live, h.dataDir));
  }

  /** Ends every build still running (its directory is removed at the next open). */
  async abandon(): Promise<void> {
    await Promise.all([...this.builders].map((w) => w.terminate()));
  }

  private async run(c: Collection, live: LiveStore, dataDir: string): Promise<CompactionReport> {
    const t0 = performance.now();
    const before = { fresh: live.fresh.size, hidden: live.tombstones.size };
    const dir = collectionDir(dataDir, c.name);
    const cut = live.beginCut();
    let baseName: string | null = null;
    let namedBases = new Map<string, NamedBase>();
    try {
      const { vectors, ids, copy } = livePoints(c, cut.freshIds);
      if (ids.length === 0) {
        live.abortCut();
        return { compacted: false, points: 0, seconds: (performance.now() - t0) / 1000, before, after: before, base: null };
      }
      baseName = baseDirName(cut.lsn);
      const named = namedJobs(c, join(dir, baseName), cut.secondary);
      // The payloads as they stood at the cut, read over turns while writes go on (copy on write).
      const payloadParts = (await stepsInTurns(cut.payloads, () => false))!;
      await stepsInTurns(copy, () => false);
      const links = (await stepsInTurns(linkSteps(c, ids), () => false))!;
      this.unlessClosing();
      await this.build(c, join(dir, baseName), vectors.buffer as SharedArrayBuffer, ids.buffer as SharedArrayBuffer, named, links);
      const opened = await this.host.openBase(join(dir, baseName));
      const lookup = new BaseLookup(opened.index);
      await stepsInTurns(lookup.warmSteps(), () => false);
      // Every payload row's node in the new base, so that the swap only patches the rows written since.
      const ahead = (await stepsInTurns(
        live.placeSteps((id) => lookup.node(id)),
        () => false,
      ))!;
      for (const n of named) namedBases.set(n.name, await this.host.openNamed(n.out));
      this.unlessClosing();
      await writeCompactedInTurns(dir, baseName, cut.lsn, encodeStateParts(cut.state, payloadParts));
      // A crash from here on restarts on the new base; an engine closing meanwhile leaves it to that.
      this.unlessClosing();
      // From here to the end of the step, nothing yields: searches and writes see the old state or the new one.
      c.rebase(opened, lookup);
      live.rebase(c.baseIds(), namedBases, ahead);
      namedBases = new Map();
      this.host.swapThreads();
      // The previous compacted base, if any: loaded in memory, so its files can go now (a failure
      // leaves them to the next open).
      await removeStaleBasesAsync(dir, join(dir, baseName)).catch((e: unknown) =>
        process.emitWarning(`removing the previous base of ${c.name} failed: ${errorMessage(e)}`),
      );
      // And the log's records up to the cut, which the new base holds (a failure leaves them: replay skips them).
      await live.cutLog(cut.lsn).catch((e: unknown) => process.emitWarning(`cutting the log of ${c.name} after its compaction failed: ${errorMessage(e)}`));
      return {
        compacted: true,
        points: ids.length,
        seconds: (performance.now() - t0) / 1000,
        before,
        after: { fresh: live.fresh.size, hidden: live.tombstones.size },
        base: baseName,
      };
    } catch (e) {
      // Bases opened but not swapped in: their searchers' slots go back.
      for (const b of namedBases.values()) b.close();
      if (live.cutOpen) live.abortCut();
      // This compaction's base and the bases beside it, unless its state file names them.
      if (baseName !== null && readCompacted(dir)?.baseDir !== join(dir, baseName)) removeStaleBases(dir, readCompacted(dir)?.baseDir ?? null);
      throw e;
    }
  }

  /** Abandons a compaction, between its steps, once the engine closes. */
  private unlessClosing(): void {
    if (this.host.isClosing()) throw new StrataError('STRATA_SHUTTING_DOWN', 'engine shutting down: compaction abandoned', {});
  }

  /** Builds a base on a worker thread (workers/compact-worker.ts), with the collection's build settings. */
  private build(c: Collection, out: string, vectors: SharedArrayBuffer, ids: SharedArrayBuffer, named: NamedJob[], linkBlocks: BlockRows[]): Promise<void> {
    const m = c.base?.manifest;
    // A created collection takes the server's share; one served from an index directory its build's.
    const budgetShare = !c.fromIndexDir ? this.host.collectionDramBudget : m ? m.plan.dramBudgetBytes / Math.max(1, m.plan.fullPrecisionBytes) : null;
    const job: CompactJob = {
      name: c.name,
      out,
      dim: c.dim,
      metric: c.metric,
      vectors,
      ids,
      // A created collection builds as its config says (an update changes it); a served index as it was built.
      m: c.shape?.m ?? m?.build.m ?? DEFAULT_BUILD.m,
      efConstruction: c.shape?.efConstruction ?? m?.build.efConstruction ?? DEFAULT_BUILD.efConstruction,
      dramBudget: budgetShare !== null ? `${Math.min(100, budgetShare * 100).toFixed(4)}%` : DEFAULT_BUILD.dramBudget,
      placement: m?.placement.policy ?? DEFAULT_BUILD.placement,
      // The collection's quantization_config when it gave one; else the code the base has, or the planner's pick.
      codes: c.shape?.codes ?? (m ? (m.plan.code?.kind ?? 'none') : 'auto'),
      // The base's code is no promise: as the points or their payload indexes grow it may no longer
      // fit, and another is picked. A code the collection asked for is kept, over the budget if need be.
      whenCodeMisses: c.shape?.codes === undefined ? 'pick' : 'overspend',
      poolShare: m?.plan.poolShare ?? DEFAULT_POOL_SHARE,
      profile: null,
      runValues: runValues(c.payloads.keywordValueCounts(), ids.byteLength / 8),
      payloadIndexBytes: Object.values(c.payloadIndexBytes()).reduce((a, b) => a + b, 0),
      payloadM: payloadMOf(c),
      linkBlocks,
      named,
    };
    // The placement follows the live load: profiled with the queries the collection has been asked,
    // when there are enough of them; otherwise with a sample of its own points, as strata build does.
    const recent = c.recentQueries();
    if (recent.length / c.dim >= MIN_PROFILE_QUERIES) {
      const shared = new Float32Array(new SharedArrayBuffer(recent.byteLength));
      shared.set(recent);
      job.profile = shared.buffer as SharedArrayBuffer;
    }
    return new Promise<void>((resolve, reject) => {
      const w = new Worker(workerFile('compact-worker.js'), { workerData: job });
      this.builders.add(w);
      let answered = false;
      w.on('message', (r: { ok: boolean; error?: unknown }) => {
        answered = true;
        if (r.ok) resolve();
        else reject(fromWorker(r.error, 'compaction build'));
      });
      w.on('error', (e) => reject(fromWorker(e, 'compaction build')));
      w.on('exit', (code) => {
        this.builders.delete(w);
        if (!answered) reject(new StrataError('STRATA_WORKER_FAILED', `compaction build thread exited (code ${code}) without an answer`, {}));
      });
    });
  }
}

/**
 * The builds of the secondary vectors' bases, beside the collection's own at `baseDir`: each name's
 * points at the cut, copied into shared memory (a name no point holds gets no base).
 */
function namedJobs(c: Collection, baseDir: string, cut: ReadonlyMap<string, DenseEntries>): NamedJob[] {
  const jobs: NamedJob[] = [];
  for (const [name, e] of cut) {
    if (e.ids.length === 0) continue;
    const p = c.secondaryVectors[name]!;
    const vectors = new Float32Array(new SharedArrayBuffer(e.vectors.byteLength));
    vectors.set(e.vectors);
    const ids = new Float64Array(new SharedArrayBuffer(e.ids.length * 8));
    ids.set(e.ids);
    // The collection's quantization_config when it gave one; else the planner's pick for this vector.
    const codes = c.shape?.codes ?? 'auto';
    jobs.push({
      name,
      out: namedBaseDir(baseDir, name),
      dim: p.dim,
      metric: p.metric,
      vectors: vectors.buffer as SharedArrayBuffer,
      ids: ids.buffer as SharedArrayBuffer,
      codes,
    });
  }
  return jobs;
}

/** The payload_m a compaction links blocks with (0: none): the collection's, or its base's. */
function payloadMOf(c: Collection): number {
  return c.shape?.payloadM ?? c.base?.manifest.filterLinks?.payloadM ?? 0;
}

/** The blocks a compaction gives filter links (index/filter-links/), over its input positions: none without payload_m. */
function* linkSteps(c: Collection, ids: Float64Array): Generator<void, BlockRows[], void> {
  if (payloadMOf(c) === 0) return [];
  return yield* c.payloads.linkBlockSteps(ids);
}
