// The engine: every loaded index as a collection, one set of search threads for all of them, and,
// for near-data execution, tier workers per CXL expander. One engine serves the CLI, the server and
// the benchmarks alike.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { pack, unpack } from 'msgpackr';
import { basename, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { invalidArgument, quoted, StrataError, errorMessage, readOnly } from '../common/errors.js';
import { fromWorker } from '../common/worker-errors.js';
import {
  type CollectionConfig,
  collectionDir,
  createdCollectionDirs,
  installCollection,
  writeFileDurably,
  readConfig,
  removeCollectionDir,
  writeConfig,
} from '../storage/collection-dir.js';
import { DEFAULT_BUILD } from '../index/build/build-index.js';
import { DEFAULT_POOL_SHARE } from '../index/placement/planner.js';
import { baseDirName, type Compacted, readCompacted, removeStaleBases, writeCompacted } from '../storage/compacted.js';
import { DEFAULT_FRESH } from '../index/fresh/fresh-layer.js';
import { type BaseIds, emptyLiveState, type LiveState, LiveStore } from '../storage/live-store.js';
import { decodeSnapshot, deleteSnapshot, listSnapshots, type SnapshotDescription, snapshotFile, writeSnapshot } from '../storage/snapshot.js';
import { storageError } from '../storage/wal.js';
import { openIndex, type OpenedIndex } from '../index/open-index.js';
import { type WriteLogOptions, WriteLogService } from './replication/jetstream-log.js';
import { readManifest } from '../index/format/load-index.js';
import { DEFAULT_PREFETCH } from '../index/search/searcher.js';
import { STAT } from '../index/search/stats.js';
import type { MemoryRequest } from '../index/tiered/memory-binding.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import { costModel, type CostModelParams } from '../tiers/cost-model.js';
import { readTopology } from '../tiers/topology.js';
import { Collection, TASKS_PER_THREAD } from './collection.js';
import { HybridExecutor, InlineExecutor, PoolExecutor, workerFile, type Executor } from './executor.js';
import { createChannel } from './ndp/channel.js';
import { NdpRunner, type NdpOptions } from './ndp/ndp-runner.js';
import { RingExecutor } from './ring-executor.js';
import { RING_HITS_PER_QUERY, ringShape } from './ring-protocol.js';
import { makeContext, type SearchContext } from './run-task.js';
import type { EngineOptions } from './types.js';
import type { ServeArgs, ServeReport } from './workers/tier-worker.js';
import type { CompactJob } from './workers/compact-worker.js';
import type { CollectionLinks } from './workers/worker-data.js';

/** Longest collection name, UTF-8 bytes (Qdrant's limit). */
export const MAX_COLLECTION_NAME_BYTES = 255;

/** Task slots per search thread's ring: tasks beyond them wait in the executor. */
const RING_SLOTS = 4;

/** How long threads get to stop once the drain is over before they are terminated, ms. */
export const THREAD_STOP_GRACE_MS = 1000;

/** Throws STRATA_INVALID_ARGUMENT naming `field` unless `name` is 1..255 bytes of UTF-8. */
export function checkCollectionName(name: string, field = 'collection_name'): void {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes === 0) throw invalidArgument(field, 'must not be empty');
  if (bytes > MAX_COLLECTION_NAME_BYTES)
    throw invalidArgument(field, `at most ${MAX_COLLECTION_NAME_BYTES} bytes, got ${bytes} (${quoted(name, 32)})`, { limit: MAX_COLLECTION_NAME_BYTES });
}

/** Whether `p` settles within `ms` (it is left running either way). */
function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    p.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}

export interface CollectionSpec {
  dir: string;
  name?: string;
}

export interface OpenEngineOptions extends EngineOptions {
  memory?: MemoryRequest;
  cost?: CostModelParams;
  /** Largest tier segment, bytes (default 1 GiB): tests make it small so one expander holds several. */
  segmentBytes?: number;
  /**
   * Where writable collections keep their logs: with it, every collection takes writes and new ones
   * can be created; without it, collections are read-only.
   */
  dataDir?: string;
  /**
   * Fresh points + hidden base points past which a live collection compacts itself (and at least
   * 30% of its base); 0: only when asked (Engine.compact). Default DEFAULT_COMPACT_AT.
   */
  compactAt?: number;
  /**
   * Re-tiering: when the share of neighbour-list reads served from DRAM over a window of
   * RETIER_WINDOW searches falls this far below the share measured in the first window after the
   * collection's last layout (the query load moved), the collection is compacted, which lays it out
   * again profiled with its recorded live queries. 0: never. Default DEFAULT_RETIER_DROP.
   */
  retierDrop?: number;
  /**
   * In-place re-tiering (index/tiered/list-pool.ts): every this many ms, each collection whose base
   * has a promotion pool swaps the pool's coldest lists for the CXL lists the load visited most, if
   * it served POOL_ROUND_SEARCHES searches since the last round. 0: never. Default DEFAULT_POOL_ROUND_MS.
   */
  poolRoundMs?: number;
  /**
   * The shared write log this server's replicas of a shard follow (NATS JetStream): with it, writes
   * are published there and applied as the log delivers them, on every replica alike.
   */
  writeLog?: WriteLogOptions;
}

interface TierPool {
  pool: Piscina;
  done: Promise<ServeReport>;
  stop: Int32Array;
  /** The expander's doorbell, rung at shutdown so a sleeping worker sees the stop flag at once. */
  bell: Int32Array;
  expander: number;
}

export interface EngineMetrics {
  searchThreads: number;
  /** Tasks run on the calling thread though search threads exist (inlineEfBudget), since start. */
  inlineTasks: number;
  /** Busy time of the search threads / (threads × uptime). */
  searchUtilisation: number;
  collections: Array<{ name: string; queue: Collection['queueStats']; searches: number; totals: Float64Array }>;
}

/** Recorded live queries a compaction needs before it profiles its placement with them. */
export const MIN_PROFILE_QUERIES = 200;

/** Default of OpenEngineOptions.retierDrop, and the searches a share is measured over. */
export const DEFAULT_RETIER_DROP = 0.05;
export const RETIER_WINDOW = 2000;
/** Default of OpenEngineOptions.poolRoundMs, and the searches a round needs (fewer: counts are noise). */
export const DEFAULT_POOL_ROUND_MS = 1000;
export const POOL_ROUND_SEARCHES = 200;

/** Share of neighbour-list reads served from DRAM in a stats total (1 when there were none). */
export function listDramShare(totals: Float64Array): number {
  const d = totals[STAT.adjReadsDram]!;
  const c = totals[STAT.adjReadsCxl]!;
  return d + c > 0 ? d / (d + c) : 1;
}

/** Default of OpenEngineOptions.compactAt. */
export const DEFAULT_COMPACT_AT = 50_000;

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

/** A collection's base ids, as its live store asks for them (follows the collection's current base). */
function baseIdsOf(c: Collection): BaseIds {
  return {
    has: (id) => c.baseHas(id),
    get count(): number {
      return c.index?.meta.count ?? 0;
    },
  };
}

/** The write-log service and the collections following it. */
class SharedLogs {
  constructor(private readonly service: WriteLogService) {}

  follow(name: string, store: LiveStore, fromNow = false): Promise<void> {
    return store.follow(this.service.logOf(name), fromNow);
  }

  close(): Promise<void> {
    return this.service.close();
  }
}

export class Engine {
  private readonly byName = new Map<string, Collection>();
  /** Set when the engine follows a shared write log (OpenEngineOptions.writeLog). */
  private writeLog: SharedLogs | null = null;
  /** Opens a base index as Engine.open does (slots, lanes, memory plan); set by open(). */
  private openBase: ((dir: string) => OpenedIndex) | null = null;
  /** Search threads (or the inline executor) over these bases, in order; null with near-data workers. */
  private makeExecutor: ((bases: OpenedIndex[]) => Executor) | null = null;
  /** Compactions of each collection's last compaction found at open, by name (built collections). */
  private readonly compactedAtOpen = new Map<string, Compacted>();
  /** Running compactions' build threads (terminated at close). */
  private readonly builders = new Set<Worker>();
  /** Fresh points + hidden base points past which a live collection compacts itself (0: never). */
  private compactAt = DEFAULT_COMPACT_AT;
  /** Drop of the neighbour-list DRAM share that re-tiers a collection (0: never); see retierCheck. */
  private retierDrop = DEFAULT_RETIER_DROP;
  /** Period of the promotion pools' rounds, ms (0: none); see poolRound. */
  private poolRoundMs = DEFAULT_POOL_ROUND_MS;
  private poolTimer: NodeJS.Timeout | null = null;
  /** Per collection: the base its pool rounds ran on, and its search count at the last round. */
  private readonly poolRounds = new Map<Collection, { index: TieredIndex; searches: number }>();
  /** Per collection: the searches and stats totals at the start of its current window, and its share after the last layout. */
  private readonly shares = new Map<Collection, { generation: number; searches: number; totals: Float64Array; baseline: number | null }>();
  private retierTimer: NodeJS.Timeout | null = null;
  private closing = false;
  private closed: Promise<{ tierReports: ServeReport[] }> | null = null;
  /** performance.now() past which close() stops waiting for searches (it only ever moves earlier). */
  private drainUntil = Number.POSITIVE_INFINITY;
  private readonly startedAt = performance.now();

  private constructor(
    readonly options: Required<
      Pick<
        EngineOptions,
        | 'searchThreads'
        | 'inflightPerThread'
        | 'maxQueue'
        | 'mode'
        | 'ndp'
        | 'expanders'
        | 'inject'
        | 'prefetch'
        | 'pipeline'
        | 'defaultEf'
        | 'spin'
        | 'nearData'
      >
    >,
    private executor: Executor,
    collections: Collection[],
    private readonly tierPools: TierPool[],
    readonly dataDir: string | null,
  ) {
    for (const c of collections) this.byName.set(c.name, c);
  }

  /** Settings of a collection with no base index (created over the API). */
  private liveSettings(name: string): ConstructorParameters<typeof Collection>[2] {
    const o = this.options;
    const maxTasks = Math.max(1, this.executor.threads) * TASKS_PER_THREAD;
    return { id: -1, name, maxQueue: o.maxQueue, batch: o.inflightPerThread, maxTasks, defaultMode: 'local', ndpAvailable: false, defaultEf: o.defaultEf };
  }

  /** Opens the data directory: a live store for every collection, and the collections created over the API. */
  private async openDataDir(dataDir: string): Promise<void> {
    try {
      mkdirSync(dataDir, { recursive: true });
    } catch (e) {
      throw storageError(dataDir, 'create', e);
    }
    for (const c of this.byName.values()) {
      const dir = collectionDir(dataDir, c.name);
      const compacted = this.compactedAtOpen.get(c.name) ?? null;
      removeStaleBases(dir, compacted?.baseDir ?? null);
      const { store } = await LiveStore.open(dir, c.dim, c.metric, baseIdsOf(c), DEFAULT_FRESH, compacted);
      this.watch(c, store);
      await this.writeLog?.follow(c.name, store);
    }
    let based = false;
    for (const dir of createdCollectionDirs(dataDir)) {
      const cfg = readConfig(dir);
      if (this.byName.has(cfg.name))
        throw new StrataError('STRATA_INVALID_ARGUMENT', `${dir}: collection ${quoted(cfg.name)} is also served from an index directory`, { field: 'dataDir' });
      based = (await this.attachCreated(dir, cfg)).index !== null || based;
    }
    // Created collections compacted before: their bases join the search threads.
    if (based) this.swapExecutor();
  }

  /** `created`: made just now (not reopened, not restored), so it follows its write log from the end. */
  private async attachCreated(dir: string, cfg: CollectionConfig, created = false): Promise<Collection> {
    const compacted = created ? null : readCompacted(dir);
    removeStaleBases(dir, compacted?.baseDir ?? null);
    const opened = compacted ? this.openBase!(compacted.baseDir) : null;
    const c = new Collection(opened, this.executor, this.liveSettings(cfg.name), {
      dim: cfg.dim,
      metric: cfg.metric,
      m: cfg.m,
      efConstruction: cfg.efConstruction,
    });
    const { store } = await LiveStore.open(
      dir,
      cfg.dim,
      cfg.metric,
      opened ? baseIdsOf(c) : null,
      { m: cfg.m, efConstruction: cfg.efConstruction, seed: 100 },
      compacted,
    );
    this.watch(c, store);
    await this.writeLog?.follow(cfg.name, store, created);
    this.byName.set(cfg.name, c);
    return c;
  }

  /** Attaches a live store to its collection, and compacts the collection once enough has changed. */
  private watch(c: Collection, store: LiveStore): void {
    c.live = store;
    c.onWritten = () => {
      const base = c.index?.meta.count ?? 0;
      const changed = store.fresh.size + store.tombstones.size;
      if (this.compactAt > 0 && c.compacting === null && !this.closing && changed >= Math.max(this.compactAt, 0.3 * base))
        this.compact(c.name).catch((e: unknown) => process.emitWarning(`compaction of ${c.name} failed: ${errorMessage(e)}`));
    };
  }

  /**
   * Compacts a live collection: its live points (the base's unhidden ones and the fresh ones, at a
   * cut) are built into a new tiered index on a worker thread (the collection's build settings,
   * placement and codes recomputed) while searches and writes go on; then, in one synchronous step,
   * the new base is swapped in, the fresh layer keeps only points written since the cut and the
   * tombstones only ids written since the cut, and the search threads are replaced by threads over
   * the new bases (the old ones finish what they hold). The state file is written before the swap,
   * so a crash at any point recovers either the old state or the new one, whole.
   */
  compact(name: string): Promise<CompactionReport> {
    const c = this.collection(name);
    if (this.closing) return Promise.reject(new StrataError('STRATA_SHUTTING_DOWN', 'engine shutting down', {}));
    if (this.dataDir === null || c.live === null)
      return Promise.reject(readOnly(`collection ${quoted(name)}`, 'no-data-dir', 'there is nothing to compact', { allow: 'GET' }));
    if (this.makeExecutor === null || this.openBase === null)
      return Promise.reject(invalidArgument('compact', 'compaction with near-data tier workers (--mode ndp) is not supported yet'));
    if (c.compacting) return c.compacting as Promise<CompactionReport>;
    const run = this.runCompaction(c, c.live).finally(() => {
      c.compacting = null;
    });
    c.compacting = run;
    return run;
  }

  private async runCompaction(c: Collection, live: LiveStore): Promise<CompactionReport> {
    const t0 = performance.now();
    const before = { fresh: live.fresh.size, hidden: live.tombstones.size };
    const dir = collectionDir(this.dataDir!, c.name);
    const cut = live.beginCut();
    let baseName: string | null = null;
    try {
      const { vectors, ids } = c.livePoints(cut.freshIds);
      if (ids.length === 0) {
        live.abortCut();
        return { compacted: false, points: 0, seconds: (performance.now() - t0) / 1000, before, after: before, base: null };
      }
      baseName = baseDirName(cut.lsn);
      await this.build(c, join(dir, baseName), vectors.buffer as SharedArrayBuffer, ids.buffer as SharedArrayBuffer);
      const opened = this.openBase!(join(dir, baseName));
      if (this.closing) throw new StrataError('STRATA_SHUTTING_DOWN', 'engine shutting down: compaction abandoned', {});
      writeCompacted(dir, baseName, cut.lsn, cut.state);
      // From here to the end of the step, nothing yields: searches and writes see the old state or the new one.
      c.rebase(opened);
      live.rebase(baseIdsOf(c));
      this.swapExecutor();
      c.compactions++;
      // The previous compacted base, if any: loaded in memory, so its files can go now.
      removeStaleBases(dir, join(dir, baseName));
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
      if (live.cutOpen) live.abortCut();
      if (baseName !== null && readCompacted(dir)?.baseDir !== join(dir, baseName)) rmSync(join(dir, baseName), { recursive: true, force: true });
      throw e;
    }
  }

  /** Builds a base on a worker thread (engine/workers/compact-worker.ts), with the collection's build settings. */
  private build(c: Collection, out: string, vectors: SharedArrayBuffer, ids: SharedArrayBuffer): Promise<void> {
    const m = c.base?.manifest;
    const budgetShare = m ? m.plan.dramBudgetBytes / Math.max(1, m.plan.fullPrecisionBytes) : null;
    const job: CompactJob = {
      name: c.name,
      out,
      dim: c.dim,
      metric: c.metric,
      vectors,
      ids,
      m: m?.build.m ?? c.shape?.m ?? DEFAULT_BUILD.m,
      efConstruction: m?.build.efConstruction ?? c.shape?.efConstruction ?? DEFAULT_BUILD.efConstruction,
      dramBudget: budgetShare !== null ? `${Math.min(100, budgetShare * 100).toFixed(4)}%` : DEFAULT_BUILD.dramBudget,
      placement: m?.placement.policy ?? DEFAULT_BUILD.placement,
      codes: m ? (m.plan.code?.kind ?? 'none') : 'auto',
      poolShare: m?.plan.poolShare ?? DEFAULT_POOL_SHARE,
      profile: null,
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

  /**
   * Live re-tiering: each live collection's neighbour-list DRAM share is measured over windows of
   * RETIER_WINDOW searches; the first window after a layout sets its baseline, and a later window
   * retierDrop below it starts a compaction, whose placement is profiled with the recorded live
   * queries. Public for tests and benchmarks, which call it instead of waiting for the timer.
   */
  retierCheck(): void {
    if (this.closing || this.retierDrop <= 0) return;
    for (const c of this.byName.values()) {
      if (c.live === null || c.index === null || c.compacting !== null) continue;
      let w = this.shares.get(c);
      if (w === undefined || w.generation !== c.generation) {
        w = { generation: c.generation, searches: c.searches, totals: c.totals.slice(), baseline: null };
        this.shares.set(c, w);
        continue;
      }
      if (c.searches - w.searches < RETIER_WINDOW) continue;
      const window = c.totals.map((v, i) => v - w!.totals[i]!);
      const share = listDramShare(window);
      w.searches = c.searches;
      w.totals = c.totals.slice();
      if (w.baseline === null) w.baseline = share;
      else if (share < w.baseline - this.retierDrop) {
        const name = c.name;
        this.compact(name).catch((e: unknown) => process.emitWarning(`re-tiering compaction of ${name} failed: ${errorMessage(e)}`));
      }
    }
  }

  /**
   * In-place re-tiering: a round of each collection's promotion pool (ListPool.rebalance) once it
   * served POOL_ROUND_SEARCHES searches since the last one; a round whose refills wait for running
   * traversals finishes on a later tick. Runs on the main thread, beside searches on every thread:
   * a round reads the counters, swaps table entries and copies a few lists (no search waits).
   * Public for tests and benchmarks, which call it instead of waiting for the timer.
   */
  poolRound(): Array<{ collection: string; promoted: number; demoted: number }> {
    const out: Array<{ collection: string; promoted: number; demoted: number }> = [];
    if (this.closing) return out;
    for (const c of this.byName.values()) {
      const index = c.index;
      const pool = index?.pool;
      if (!index || !pool) continue;
      const last = this.poolRounds.get(c);
      if (last === undefined || last.index !== index) {
        // A new base (a compaction): its pool starts from the placement; count from here.
        this.poolRounds.set(c, { index, searches: c.searches });
        continue;
      }
      if (c.searches - last.searches < POOL_ROUND_SEARCHES) {
        const promoted = pool.refill();
        if (promoted > 0) out.push({ collection: c.name, promoted, demoted: 0 });
        continue;
      }
      const r = pool.rebalance();
      last.searches = c.searches;
      out.push({ collection: c.name, promoted: r.promoted, demoted: r.demoted });
    }
    return out;
  }

  /**
   * Replaces the search threads by threads over every collection's current base (after a swap),
   * each collection told its new number; the old threads finish the tasks they hold and stop.
   */
  private swapExecutor(): void {
    const bases = [...this.byName.values()].filter((c) => c.base !== null);
    const next = this.makeExecutor!(bases.map((c) => c.base!));
    const old = this.executor;
    this.executor = next;
    bases.forEach((c, id) => c.useExecutor(next, id));
    for (const c of this.byName.values()) if (c.base === null) c.useExecutor(next, -1);
    old.close().catch((e: unknown) => process.emitWarning(`old search threads did not stop cleanly: ${errorMessage(e)}`));
  }

  /** Names being created right now: a second create of the same name fails at once. */
  private readonly creating = new Set<string>();

  /** Creates an empty writable collection (validated by the caller: dim, metric, m, efConstruction). */
  async createCollection(cfg: CollectionConfig): Promise<Collection> {
    checkCollectionName(cfg.name, 'collection_name');
    if (this.closing) throw new StrataError('STRATA_SHUTTING_DOWN', 'engine shutting down: retry on another replica', {});
    if (this.dataDir === null) throw readOnly('this server', 'no-data-dir', 'start it with --data-dir to create collections', { allow: 'GET' });
    if (this.byName.has(cfg.name) || this.creating.has(cfg.name))
      throw new StrataError('STRATA_COLLECTION_EXISTS', `collection ${quoted(cfg.name)} exists already`, { collection: cfg.name.slice(0, 64) });
    this.creating.add(cfg.name);
    try {
      const dir = collectionDir(this.dataDir, cfg.name);
      // A directory left by an earlier collection of this name that was not fully removed.
      removeCollectionDir(dir);
      try {
        mkdirSync(dir, { recursive: true });
      } catch (e) {
        throw storageError(dir, 'create', e);
      }
      writeConfig(dir, cfg);
      return await this.attachCreated(dir, cfg, true);
    } finally {
      this.creating.delete(cfg.name);
    }
  }

  /** Where a collection's snapshots live: beside, not inside, its directory (they outlive it). */
  private snapshotDir(name: string): string {
    return join(this.dataDir!, 'snapshots', basename(collectionDir(this.dataDir!, name)));
  }

  /** A writable collection, or STRATA_READ_ONLY naming why snapshots do not apply. */
  private created(name: string): Collection {
    const c = this.collection(name);
    if (this.dataDir === null || c.live === null)
      throw readOnly(`collection ${quoted(name)}`, 'no-data-dir', 'snapshots are of writable collections', { allow: 'GET' });
    return c;
  }

  /**
   * A snapshot of a writable collection: its config and every acknowledged write (the log's durable
   * prefix) and, when it has a base index (built, or compacted), the base's files with the cut the
   * log is replayed from and the live state the base does not hold. Taken in one synchronous step,
   * so no compaction swaps the base in between.
   */
  createSnapshot(name: string): SnapshotDescription {
    const c = this.created(name);
    const live = c.live!;
    const m = c.base?.manifest;
    const cfg: CollectionConfig = {
      name,
      dim: c.dim,
      metric: c.metric,
      m: c.shape?.m ?? m?.build.m ?? DEFAULT_BUILD.m,
      efConstruction: c.shape?.efConstruction ?? m?.build.efConstruction ?? DEFAULT_BUILD.efConstruction,
    };
    const entries: Array<[string, Uint8Array]> = [
      ['collection.json', Buffer.from(JSON.stringify(cfg))],
      ['wal.log', live.logPrefix()],
    ];
    const base = c.base;
    if (base !== null) {
      // The base is the compacted one (its cut and saved state) or the directory it was built in
      // (cut 0: the whole log applies on top of it).
      const compacted = readCompacted(collectionDir(this.dataDir!, name));
      const mine = compacted !== null && compacted.baseDir === base.dir ? compacted : null;
      const state: LiveState = mine?.state ?? emptyLiveState();
      entries.push(['base.json', Buffer.from(JSON.stringify({ cutLsn: String(mine?.cutLsn ?? 0n) }))]);
      entries.push(['base-state.msgpack', pack(state)]);
      for (const f of readdirSync(base.dir).sort()) entries.push([`base/${f}`, readFileSync(join(base.dir, f))]);
    }
    return writeSnapshot(this.snapshotDir(name), live.appliedLsn, entries);
  }

  listSnapshots(name: string): SnapshotDescription[] {
    this.created(name);
    return listSnapshots(this.snapshotDir(name));
  }

  snapshotFile(name: string, snapshot: string): string {
    this.created(name);
    return snapshotFile(this.snapshotDir(name), snapshot);
  }

  deleteSnapshot(name: string, snapshot: string): void {
    this.created(name);
    deleteSnapshot(this.snapshotDir(name), snapshot);
  }

  /**
   * Restores a snapshot (its bytes) as collection `name`, replacing a collection of that name
   * created over the API: its log is written and replayed, so the collection answers as the
   * snapshot's source did when it was taken.
   */
  async recoverSnapshot(name: string, bytes: Buffer, source: string): Promise<Collection> {
    checkCollectionName(name, 'collection_name');
    if (this.dataDir === null) throw readOnly('this server', 'no-data-dir', 'start it with --data-dir', { allow: 'GET' });
    const entries = decodeSnapshot(bytes, source);
    const cfgBytes = entries.get('collection.json');
    const wal = entries.get('wal.log');
    if (!cfgBytes || !wal) throw invalidArgument('location', `${source}: a snapshot needs collection.json and wal.log`);
    const src = JSON.parse(cfgBytes.toString('utf8')) as CollectionConfig;
    const existing = this.byName.get(name);
    if (existing?.fromIndexDir) throw readOnly(`collection ${quoted(name)}`, 'index-dir', 'restore under another name', { allow: 'GET' });
    if (existing) await this.deleteCollection(name);
    const dir = collectionDir(this.dataDir, name);
    removeCollectionDir(dir);
    const cfg: CollectionConfig = { name, dim: src.dim, metric: src.metric, m: src.m, efConstruction: src.efConstruction };
    const baseJson = entries.get('base.json');
    if (baseJson) {
      // The base's files first, then the state naming them, then the log and (last) the config:
      // a crash midway leaves a directory that is not a collection.
      const { cutLsn } = JSON.parse(baseJson.toString('utf8')) as { cutLsn: string };
      if (!/^\d+$/.test(cutLsn)) throw invalidArgument('location', `${source}: base.json has no valid cutLsn`);
      const baseName = baseDirName(BigInt(cutLsn));
      try {
        mkdirSync(join(dir, baseName), { recursive: true });
      } catch (e) {
        throw storageError(dir, 'create', e);
      }
      for (const [entry, data] of entries) {
        if (!entry.startsWith('base/')) continue;
        const file = entry.slice('base/'.length);
        if (!/^[a-z0-9][a-z0-9.-]*$/.test(file)) throw invalidArgument('location', `${source}: base file ${JSON.stringify(file)} is not a plain file name`);
        writeFileDurably(join(dir, baseName, file), data);
      }
      const state = entries.get('base-state.msgpack');
      writeCompacted(dir, baseName, BigInt(cutLsn), state ? (unpack(state) as LiveState) : emptyLiveState());
    }
    installCollection(dir, cfg, wal);
    const c = await this.attachCreated(dir, cfg);
    // A restored base joins the search threads.
    if (c.index !== null) this.swapExecutor();
    return c;
  }

  /** Deletes a collection created over the API, and its files; false when there is none of that name. */
  async deleteCollection(name: string): Promise<boolean> {
    checkCollectionName(name, 'collection_name');
    const c = this.byName.get(name);
    if (!c) return false;
    if (c.fromIndexDir || this.dataDir === null) throw readOnly(`collection ${quoted(name)}`, 'index-dir', 'stop serving it instead', { allow: 'GET' });
    this.byName.delete(name);
    c.refuse(new StrataError('STRATA_COLLECTION_NOT_FOUND', `collection ${quoted(name)} was deleted`, { collection: name.slice(0, 64) }));
    await c.live?.close();
    removeCollectionDir(collectionDir(this.dataDir, name));
    return true;
  }

  static async open(specs: CollectionSpec[], o: OpenEngineOptions = {}): Promise<Engine> {
    const mode = o.mode ?? 'local';
    const opts = {
      searchThreads: o.searchThreads ?? 1,
      inflightPerThread: o.inflightPerThread ?? 16,
      maxQueue: o.maxQueue ?? 1024,
      mode,
      ndp: o.ndp ?? mode === 'ndp',
      expanders: o.expanders ?? 1,
      inject: o.inject ?? false,
      prefetch: o.prefetch ?? DEFAULT_PREFETCH,
      pipeline: o.pipeline ?? false,
      defaultEf: o.defaultEf ?? 64,
      spin: o.spin ?? 20000,
      nearData: o.nearData ?? 'host',
    };
    if (!Number.isInteger(opts.searchThreads) || opts.searchThreads < 0 || opts.searchThreads > 256)
      throw new StrataError('STRATA_INVALID_ARGUMENT', `searchThreads: must be 0..256, got ${opts.searchThreads}`, { field: 'searchThreads' });
    if (!Number.isInteger(opts.expanders) || opts.expanders < 1 || opts.expanders > 64)
      throw new StrataError('STRATA_INVALID_ARGUMENT', `expanders: must be 1..64, got ${opts.expanders}`, { field: 'expanders' });
    if (mode === 'ndp' && !opts.ndp) throw new StrataError('STRATA_INVALID_ARGUMENT', 'mode ndp needs ndp: true', { field: 'mode' });
    const cost = o.cost ?? costModel();
    const threads = Math.max(1, opts.searchThreads);
    const groups = opts.pipeline ? 2 : 1;
    const slots = threads * opts.inflightPerThread * (opts.ndp ? 2 : 1) + 8;

    const names = new Set<string>();
    const compactedAtOpen = new Map<string, Compacted>();
    const opened: OpenedIndex[] = [];
    const links: CollectionLinks[] = [];
    for (const spec of specs) {
      const manifest = readManifest(spec.dir);
      const name = spec.name ?? manifest.name ?? basename(spec.dir);
      checkCollectionName(name, spec.name !== undefined ? 'name' : `${spec.dir}: manifest name`);
      if (names.has(name)) throw new StrataError('STRATA_INVALID_ARGUMENT', `two collections named ${quoted(name)}: pass distinct names`, { field: 'name' });
      names.add(name);
      // With E expanders the CXL tier needs at least E segments: one group of segments per expander.
      // A fused-traversal lane for every searcher that may run at once: each search thread's local
      // searcher and near-data runner, and the main thread's (exact queries, searchThreads 0).
      // A collection compacted while served with this data directory: its compacted base replaces the
      // directory it was built in (the live store then replays only records past the cut).
      const compacted = o.dataDir !== undefined ? readCompacted(collectionDir(o.dataDir, name)) : null;
      if (compacted) compactedAtOpen.set(name, compacted);
      const oi = openIndex(compacted?.baseDir ?? spec.dir, o.memory ?? {}, {
        slots,
        fusedLanes: 2 * threads + 2,
        ...(opts.ndp ? { cxlSegments: opts.expanders } : {}),
        ...(o.segmentBytes ? { segmentBytes: o.segmentBytes } : {}),
      });
      opened.push(oi);
      const handle = oi.index.share();
      let ndp: CollectionLinks['ndp'] = null;
      if (opts.ndp) {
        // Tier workers compute on the vectors of the CXL tier: one group of vector segments per expander.
        const segs = oi.index.vectors.segments;
        const cxlSegs = segs.map((s, i) => (s.tier === 1 ? i : -1)).filter((i) => i >= 0);
        const expanderOfSegment = new Int32Array(segs.length).fill(-1);
        cxlSegs.forEach((s, j) => (expanderOfSegment[s] = Math.floor((j * opts.expanders) / Math.max(1, cxlSegs.length))));
        const perExpander = Math.ceil(Math.max(1, cxlSegs.length) / opts.expanders);
        const maxEntries = opts.inflightPerThread * perExpander + 4;
        const channelsByThread = Array.from({ length: threads }, () =>
          Array.from({ length: groups }, () => Array.from({ length: opts.expanders }, () => createChannel(maxEntries))),
        );
        ndp = { expanderOfSegment, channelsByThread, bell: new SharedArrayBuffer(4 * opts.expanders) };
      }
      links.push({ handle, ndp });
    }

    // On a real NUMA plan, threads run on the CPUs of the DRAM tier's node (the CXL node has none).
    const plan = opened[0]?.memory;
    const cpus = plan && plan.mode === 'numa' && plan.nodes[0] !== null ? (readTopology().nodes.find((n) => n.id === plan.nodes[0])?.cpus ?? null) : null;
    const ndpOptions: NdpOptions = {
      inflight: opts.inflightPerThread,
      pipeline: opts.pipeline,
      prefetch: opts.prefetch,
      inject: opts.inject,
      cost,
      model: opts.nearData,
      spin: opts.spin,
    };
    const searcherOptions = { cost, inject: opts.inject, prefetch: opts.prefetch };

    // Tier workers: one per expander per collection, each serving every search thread's channels.
    const tierPools: TierPool[] = [];
    links.forEach((l, ci) => {
      if (!l.ndp) return;
      for (let e = 0; e < opts.expanders; e++) {
        const stop = new Int32Array(new SharedArrayBuffer(4));
        const pool = new Piscina({ filename: workerFile('tier-worker.js'), minThreads: 1, maxThreads: 1, idleTimeout: 2 ** 31 - 1 });
        const args: ServeArgs = {
          handle: l.handle,
          expander: e,
          channels: l.ndp.channelsByThread.flatMap((byGroup) => byGroup.map((byExp) => byExp[e]!)),
          bell: l.ndp.bell,
          stop: stop.buffer as SharedArrayBuffer,
          node: opened[ci]!.index.tiers[1]!.binding.node,
          spin: opts.spin,
          cpus,
        };
        const done = (pool.run(args) as Promise<ServeReport>).catch((e: unknown) => {
          throw fromWorker(e, 'tier worker');
        });
        done.catch(() => {});
        tierPools.push({ pool, done, stop, bell: new Int32Array(l.ndp.bell), expander: e });
      }
    });

    /** Search threads (or the inline executor) over these links; `inline` makes the inline contexts. */
    const executorOver = (all: CollectionLinks[], dims: number[], inline: () => SearchContext[]): Executor => {
      if (opts.searchThreads === 0) return new InlineExecutor(inline());
      const data = { collections: all, searcherOptions, ndpOptions, threadCounter: new SharedArrayBuffer(4), cpus };
      const pool =
        (o.handoff ?? 'ring') !== 'ring'
          ? new PoolExecutor(opts.searchThreads, data)
          : new RingExecutor(opts.searchThreads, data, ringShape(RING_SLOTS, opts.inflightPerThread, Math.max(1, ...dims), RING_HITS_PER_QUERY));
      // The inline contexts of near-data mode would share thread 0's channels: cheap tasks stay local-only.
      const budget = o.inlineEfBudget ?? 0;
      return budget > 0 && !opts.ndp ? new HybridExecutor(new InlineExecutor(inline()), pool, budget) : pool;
    };
    const executor = executorOver(
      links,
      opened.map((oi) => oi.index.meta.dim),
      () =>
        opened.map((oi, ci) => {
          const l = links[ci]!;
          const ndp = l.ndp
            ? new NdpRunner(
                oi.index,
                { expanderOfSegment: l.ndp.expanderOfSegment, channels: l.ndp.channelsByThread[0]!, bell: new Int32Array(l.ndp.bell) },
                ndpOptions,
              )
            : null;
          return makeContext(oi.index, searcherOptions, ndp);
        }),
    );
    const collections = opened.map(
      (oi, id) =>
        new Collection(oi, executor, {
          id,
          name: [...names][id]!,
          maxQueue: opts.maxQueue,
          batch: opts.inflightPerThread,
          maxTasks: threads * TASKS_PER_THREAD,
          defaultMode: mode,
          ndpAvailable: opts.ndp,
          defaultEf: opts.defaultEf,
        }),
    );
    const engine = new Engine(opts, executor, collections, tierPools, o.dataDir ?? null);
    for (const [name, c] of compactedAtOpen) engine.compactedAtOpen.set(name, c);
    if (o.compactAt !== undefined) engine.compactAt = o.compactAt;
    if (o.retierDrop !== undefined) engine.retierDrop = o.retierDrop;
    if (o.poolRoundMs !== undefined) engine.poolRoundMs = o.poolRoundMs;
    if (engine.poolRoundMs > 0) {
      engine.poolTimer = setInterval(() => engine.poolRound(), engine.poolRoundMs);
      engine.poolTimer.unref();
    }
    if (o.dataDir !== undefined && engine.retierDrop > 0) {
      engine.retierTimer = setInterval(() => engine.retierCheck(), 1000);
      engine.retierTimer.unref();
    }
    engine.openBase = (dir) =>
      openIndex(dir, o.memory ?? {}, { slots, fusedLanes: 2 * threads + 2, ...(o.segmentBytes ? { segmentBytes: o.segmentBytes } : {}) });
    // Swapping search threads at run time is for local search: near-data tier workers hold channels
    // per thread and collection, made once here.
    if (!opts.ndp)
      engine.makeExecutor = (bases) =>
        executorOver(
          bases.map((b) => ({ handle: b.index.share(), ndp: null })),
          bases.map((b) => b.index.meta.dim),
          () => bases.map((b) => makeContext(b.index, searcherOptions, null)),
        );
    if (o.dataDir !== undefined) {
      try {
        if (o.writeLog) engine.writeLog = new SharedLogs(await WriteLogService.open(o.writeLog));
        await engine.openDataDir(o.dataDir);
      } catch (e) {
        await engine.close(0);
        throw e;
      }
    }
    return engine;
  }

  collections(): Collection[] {
    return [...this.byName.values()];
  }

  /** The collection of that name; a name over 255 bytes is STRATA_INVALID_ARGUMENT naming `field`. */
  collection(name: string, field = 'collection_name'): Collection {
    const c = this.byName.get(name);
    if (c) return c;
    checkCollectionName(name, field);
    throw new StrataError('STRATA_COLLECTION_NOT_FOUND', `collection ${quoted(name)} not found (loaded: ${[...this.byName.keys()].join(', ') || 'none'})`, {
      collection: name.slice(0, 64),
    });
  }

  get ready(): boolean {
    return !this.closing;
  }

  /** A collection still applying what its shared write log held when it began following it, or null. */
  catchingUp(): string | null {
    for (const c of this.byName.values()) {
      const at = c.live?.catchingUp;
      if (at) return `collection ${quoted(c.name)} is catching up with its write log (applied ${at.at} of ${at.to})`;
    }
    return null;
  }

  metrics(): EngineMetrics {
    const wall = performance.now() - this.startedAt;
    const threads = Math.max(1, this.executor.threads);
    return {
      searchThreads: this.executor.threads,
      inlineTasks: this.executor.inlineTasks ?? 0,
      searchUtilisation: wall > 0 ? this.executor.busyMs() / (threads * wall) : 0,
      collections: this.collections().map((c) => ({ name: c.name, queue: c.queueStats, searches: c.searches, totals: c.totals })),
    };
  }

  /**
   * Stops taking new searches (they fail with STRATA_SHUTTING_DOWN), lets those queued or running
   * finish for up to drainMs, then fails whatever is left with STRATA_SHUTTING_DOWN and stops the
   * threads, terminating any that do not stop within THREAD_STOP_GRACE_MS: close() returns within
   * drainMs + 2 × THREAD_STOP_GRACE_MS even when a search never ends. A second call with a shorter
   * drainMs moves the deadline earlier. (Searches on the calling thread, searchThreads 0, cannot be
   * interrupted: they finish first.)
   */
  close(drainMs = 10_000): Promise<{ tierReports: ServeReport[] }> {
    this.drainUntil = Math.min(this.drainUntil, performance.now() + Math.max(0, drainMs));
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<{ tierReports: ServeReport[] }> {
    this.closing = true;
    for (const c of this.collections()) c.refuse(new StrataError('STRATA_SHUTTING_DOWN', 'engine shutting down: retry on another replica', {}));
    const busy = (): boolean => this.collections().some((c) => c.busy);
    while (busy() && performance.now() < this.drainUntil) await new Promise((r) => setTimeout(r, 5));
    const late = busy();
    if (late) {
      const e = new StrataError('STRATA_SHUTTING_DOWN', 'engine shut down before the search finished (the drain deadline passed)', {});
      for (const c of this.collections()) c.abandon(e);
    }
    // A thread still holding a task after the deadline may never return it: terminate rather than wait.
    if (late || !(await settlesWithin(this.executor.close(), THREAD_STOP_GRACE_MS))) await this.executor.destroy();
    for (const t of this.tierPools) {
      Atomics.store(t.stop, 0, 1);
      Atomics.add(t.bell, t.expander, 1);
      Atomics.notify(t.bell, t.expander);
    }
    // Appends already queued are flushed (and acknowledged) before the logs close.
    if (this.retierTimer) clearInterval(this.retierTimer);
    if (this.poolTimer) clearInterval(this.poolTimer);
    // A compaction still building is abandoned (its directory is removed at the next open).
    await Promise.all([...this.builders].map((w) => w.terminate()));
    await Promise.all(this.collections().map((c) => c.live?.close()));
    await this.writeLog?.close();
    const tierReports = await Promise.all(
      this.tierPools.map(async (t) => {
        const stopped = await settlesWithin(t.done, THREAD_STOP_GRACE_MS);
        const report = stopped ? await t.done.catch(() => EMPTY_REPORT) : EMPTY_REPORT;
        await (stopped ? t.pool.close() : t.pool.destroy());
        return report;
      }),
    );
    return { tierReports };
  }
}

const EMPTY_REPORT: ServeReport = { messages: 0, ids: 0, busyMs: 0, injectedNs: 0 };
