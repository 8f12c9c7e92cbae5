// The engine: every loaded index as a collection, one set of search threads for all of them, and,
// for near-data execution, tier workers per CXL expander. One engine serves the CLI, the server and
// the benchmarks alike. This module keeps the registry, metrics and shutdown; threads, the data
// directory, compaction, re-tiering and snapshots are collaborators, each with a narrow host.
import type { ChunkMemory } from '../index/payload/chunk-memory.js';
import { payloadMemoryFor } from './payload-memory.js';
import { basename } from 'node:path';
import { invalidArgument, quoted, StrataError, readOnly } from '../common/errors.js';
import { readManifest } from '../index/format/load-index.js';
import type { OpenedIndex } from '../index/open-index.js';
import { DEFAULT_PREFETCH } from '../index/search/searcher.js';
import type { MemoryRequest } from '../index/tiered/memory-binding.js';
import type { CollectionConfig } from '../storage/collection-dir.js';
import { collectionDir } from '../storage/collection-dir.js';
import type { Compacted } from '../storage/compacted.js';
import type { LiveStore } from '../storage/live-store.js';
import type { SnapshotDescription } from '../storage/snapshot.js';
import { type CostModelParams, costModel } from '../tiers/cost-model.js';
import { Collection, type CollectionSettings, type LiveShape } from './collection.js';
import { checkCollectionName } from './collection-name.js';
import { type CompactionReport, Compactions, DEFAULT_COLLECTION_DRAM_BUDGET, DEFAULT_COMPACT_AT, recoverCompacted } from './compaction.js';
import { type AliasAction, Aliases } from './aliases.js';
import { DataDir } from './data-dir.js';
import { TASKS_PER_THREAD } from './dispatch.js';
import type { WriteLogOptions } from './replication/jetstream-log.js';
import { DEFAULT_POOL_ROUND_MS, DEFAULT_RETIER_DROP, Retiering } from './retiering.js';
import { Snapshots } from './snapshots.js';
import { SearchThreads, type ThreadSettings } from './threads.js';
import type { CollectionUpdate, EngineOptions } from './types.js';
import type { ServeReport } from './workers/tier-worker.js';

export { checkCollectionName, MAX_COLLECTION_NAME_BYTES } from './collection-name.js';
export { type CompactionReport, DEFAULT_COLLECTION_DRAM_BUDGET, DEFAULT_COMPACT_AT, MIN_PROFILE_QUERIES } from './compaction.js';
export { DEFAULT_POOL_ROUND_MS, DEFAULT_RETIER_DROP, listDramShare, POOL_ROUND_SEARCHES, RETIER_WINDOW } from './retiering.js';
export { THREAD_STOP_GRACE_MS } from './threads.js';

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
   * The DRAM budget of a collection created over the API, as a share of its base at full precision:
   * each compaction plans the base within it, its payload indexes set aside first. Default
   * DEFAULT_COLLECTION_DRAM_BUDGET. A collection served from an index directory keeps its build's.
   */
  collectionDramBudget?: number;
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

export interface EngineMetrics {
  searchThreads: number;
  /** Tasks run on the calling thread though search threads exist (inlineEfBudget), since start. */
  inlineTasks: number;
  /** Busy time of the search threads / (threads × uptime). */
  searchUtilisation: number;
  /** poolMoves: lists moved into the promotion pool since the base was laid out (0 without a pool). */
  collections: Array<{ name: string; queue: Collection['queueStats']; searches: number; totals: Float64Array; poolMoves: number }>;
}

/** The engine options with their defaults, checked. */
function threadSettings(o: OpenEngineOptions): ThreadSettings {
  const mode = o.mode ?? 'local';
  const s: ThreadSettings = {
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
    valueRuns: o.valueRuns ?? true,
  };
  if (!Number.isInteger(s.searchThreads) || s.searchThreads < 0 || s.searchThreads > 256)
    throw new StrataError('STRATA_INVALID_ARGUMENT', `searchThreads: must be 0..256, got ${s.searchThreads}`, { field: 'searchThreads' });
  if (!Number.isInteger(s.expanders) || s.expanders < 1 || s.expanders > 64)
    throw new StrataError('STRATA_INVALID_ARGUMENT', `expanders: must be 1..64, got ${s.expanders}`, { field: 'expanders' });
  if (mode === 'ndp' && !s.ndp) throw new StrataError('STRATA_INVALID_ARGUMENT', 'mode ndp needs ndp: true', { field: 'mode' });
  return s;
}

const shuttingDown = (): StrataError => new StrataError('STRATA_SHUTTING_DOWN', 'engine shutting down: retry on another replica', {});

export class Engine {
  private readonly byName = new Map<string, Collection>();
  private readonly aliases: Aliases;
  private data: DataDir | null = null;
  private readonly compactions: Compactions;
  private readonly retiering: Retiering;
  private readonly snapshots: Snapshots;
  private closing = false;
  private closed: Promise<{ tierReports: ServeReport[] }> | null = null;
  /** performance.now() past which close() stops waiting for searches (it only ever moves earlier). */
  private drainUntil = Number.POSITIVE_INFINITY;
  private readonly startedAt = performance.now();

  /** Memory for each collection's payload values, and the node it is planned on (engine/payload-memory.ts). */
  private readonly payloadMemory: () => ChunkMemory;
  private readonly valuesNode: number | null;
  /** OpenEngineOptions.compactAt, each collection's unless its config sets its own. */
  private readonly compactAt: number;

  private constructor(
    readonly options: ThreadSettings,
    private readonly threads: SearchThreads,
    readonly dataDir: string | null,
    o: OpenEngineOptions,
  ) {
    const values = payloadMemoryFor(o.memory ?? {});
    this.payloadMemory = values.make;
    this.compactAt = o.compactAt ?? DEFAULT_COMPACT_AT;
    this.valuesNode = values.node;
    const swapThreads = (): void => this.swapThreads();
    this.aliases = new Aliases(dataDir);
    this.compactions = new Compactions({
      dataDir,
      isClosing: () => this.closing,
      canSwap: threads.canSwap,
      collectionDramBudget: o.collectionDramBudget ?? DEFAULT_COLLECTION_DRAM_BUDGET,
      collection: (name) => this.collection(name),
      openBase: (dir) => threads.openBaseInTurns(dir),
      openNamed: (dir) => threads.openNamed(dir),
      swapThreads,
    });
    this.retiering = new Retiering(
      {
        isClosing: () => this.closing,
        collections: () => this.collections(),
        compact: (name) => this.compact(name),
      },
      { retierDrop: o.retierDrop ?? DEFAULT_RETIER_DROP, poolRoundMs: o.poolRoundMs ?? DEFAULT_POOL_ROUND_MS, writable: dataDir !== null },
    );
    this.snapshots = new Snapshots({
      dataDir,
      collection: (name) => this.collection(name),
      find: (name) => this.byName.get(name),
      deleteCollection: (name) => this.deleteCollection(name),
      attach: (dir, cfg) => this.data!.attach(dir, cfg),
      swapThreads,
    });
  }

  /** New search threads over every collection's current base (a base came or changed). */
  private swapThreads(): void {
    this.threads.swap([...this.byName.values()]);
  }

  /** Settings of a collection over the current threads; `id` its number among their contexts. */
  private settings(name: string, id: number): CollectionSettings {
    const o = this.options;
    const maxTasks = Math.max(1, this.threads.current.threads) * TASKS_PER_THREAD;
    return {
      id,
      name,
      maxQueue: o.maxQueue,
      batch: o.inflightPerThread,
      maxTasks,
      defaultMode: o.mode,
      ndpAvailable: o.ndp,
      defaultEf: o.defaultEf,
      filters: this.threads.filters,
      valueRuns: o.valueRuns,
      payloadMemory: this.payloadMemory,
      valuesNode: this.valuesNode,
      compactAt: this.compactAt,
    };
  }

  private async openDataDir(dir: string, writeLog: WriteLogOptions | undefined, compacted: ReadonlyMap<string, Compacted>): Promise<void> {
    this.data = await DataDir.open(
      dir,
      {
        registry: this.byName,
        // A collection with no base index (created over the API) searches its fresh layer only.
        newCollection: (opened: OpenedIndex | null, name: string, shape: LiveShape) =>
          new Collection(opened, this.threads.current, { ...this.settings(name, -1), defaultMode: 'local', ndpAvailable: false }, shape),
        openBase: (d) => this.threads.openBaseInTurns(d),
        openNamed: (d) => this.threads.openNamed(d),
        swapThreads: () => this.swapThreads(),
        attachLive: (c: Collection, store: LiveStore) => c.attachLive(store, this.compactions.trigger(c, store)),
        payloadMemory: this.payloadMemory,
      },
      writeLog,
      compacted,
    );
  }

  static async open(specs: CollectionSpec[], o: OpenEngineOptions = {}): Promise<Engine> {
    const settings = threadSettings(o);
    const threads = new SearchThreads(settings, {
      cost: o.cost ?? costModel(),
      memory: o.memory ?? {},
      ...(o.segmentBytes ? { segmentBytes: o.segmentBytes } : {}),
      inlineEfBudget: o.inlineEfBudget ?? 0,
    });
    const names: string[] = [];
    const compacted = new Map<string, Compacted>();
    const opened: OpenedIndex[] = [];
    for (const spec of specs) {
      const manifest = readManifest(spec.dir);
      const name = spec.name ?? manifest.name ?? basename(spec.dir);
      checkCollectionName(name, spec.name !== undefined ? 'name' : `${spec.dir}: manifest name`);
      if (names.includes(name))
        throw new StrataError('STRATA_INVALID_ARGUMENT', `two collections named ${quoted(name)}: pass distinct names`, { field: 'name' });
      names.push(name);
      // A collection compacted while served with this data directory: its compacted base replaces the
      // directory it was built in (the live store then replays only records past the cut).
      const c = o.dataDir !== undefined ? recoverCompacted(collectionDir(o.dataDir, name)) : null;
      if (c) compacted.set(name, c);
      opened.push(threads.openBase(c?.baseDir ?? spec.dir, settings.ndp));
    }
    threads.start(opened);
    const engine = new Engine(settings, threads, o.dataDir ?? null, o);
    opened.forEach((oi, id) => engine.byName.set(names[id]!, new Collection(oi, threads.current, engine.settings(names[id]!, id))));
    if (o.dataDir !== undefined) {
      try {
        await engine.openDataDir(o.dataDir, o.writeLog, compacted);
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
    const c = this.byName.get(name) ?? this.byName.get(this.aliases.target(name) ?? '');
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
    const executor = this.threads.current;
    const threads = Math.max(1, executor.threads);
    return {
      searchThreads: executor.threads,
      inlineTasks: executor.inlineTasks ?? 0,
      searchUtilisation: wall > 0 ? executor.busyMs() / (threads * wall) : 0,
      collections: this.collections().map((c) => ({
        name: c.name,
        queue: c.queueStats,
        searches: c.searches,
        totals: c.totals,
        poolMoves: c.index?.pool?.moves ?? 0,
      })),
    };
  }

  /** Compacts a live collection (compaction.ts): its fresh points and deletes into a new tiered base. */
  compact(name: string): Promise<CompactionReport> {
    return this.compactions.compact(this.collection(name));
  }

  /** A re-tiering check now (retiering.ts): for tests and benchmarks, which call it instead of waiting for the timer. */
  retierCheck(): void {
    this.retiering.retierCheck();
  }

  /** A promotion-pool round now (retiering.ts): for tests and benchmarks, which call it instead of waiting for the timer. */
  poolRound(): Array<{ collection: string; promoted: number; demoted: number }> {
    return this.retiering.poolRound();
  }

  /** Creates an empty writable collection (validated by the caller: dim, metric, m, efConstruction). */
  async createCollection(cfg: CollectionConfig): Promise<Collection> {
    checkCollectionName(cfg.name, 'collection_name');
    if (this.aliases.target(cfg.name) !== undefined) throw invalidArgument('collection_name', `${quoted(cfg.name)} is an alias's name: delete the alias first`);
    if (this.closing) throw shuttingDown();
    if (this.data === null) throw readOnly('this server', 'no-data-dir', 'start it with --data-dir to create collections', { allow: 'GET' });
    return this.data.create(cfg);
  }

  /**
   * Qdrant's collection update: a created collection's HNSW build and compaction threshold, applied
   * from its next compaction. A collection served from an index directory keeps what strata build gave it.
   */
  updateCollection(name: string, u: CollectionUpdate): void {
    const c = this.updatable(name);
    this.data!.update(c, u);
  }

  /** The collection an update would change, or why it cannot be (read-only server, built collection); checked before its body is. */
  updatable(name: string): Collection {
    if (this.closing) throw shuttingDown();
    const c = this.collection(name);
    if (this.data === null) throw readOnly('this server', 'no-data-dir', 'start it with --data-dir to update collections', { allow: 'GET' });
    if (c.fromIndexDir)
      throw readOnly(`collection ${quoted(c.name)}`, 'index-dir', 'its build settings are those strata build gave it: rebuild it to change them', {
        allow: 'GET',
      });
    return c;
  }

  /** Deletes a collection created over the API, and its files; false when there is none of that name. */
  async deleteCollection(name: string): Promise<boolean> {
    checkCollectionName(name, 'collection_name');
    const c = this.byName.get(name);
    if (!c) return false;
    if (c.fromIndexDir || this.data === null) throw readOnly(`collection ${quoted(name)}`, 'index-dir', 'stop serving it instead', { allow: 'GET' });
    await this.data.delete(c);
    this.aliases.dropCollection(name);
    return true;
  }

  /** Qdrant's alias actions, applied in order, all or none (aliases.ts). */
  updateAliases(actions: readonly AliasAction[]): void {
    if (this.closing) throw shuttingDown();
    this.aliases.apply(actions, (name) => this.byName.has(name));
  }

  /** Every alias (of `collection`'s, given a collection or one of its aliases). */
  listAliases(collection?: string): Array<{ alias_name: string; collection_name: string }> {
    return this.aliases.list(collection === undefined ? undefined : this.collection(collection).name);
  }

  createSnapshot(name: string): Promise<SnapshotDescription> {
    return this.snapshots.create(name);
  }

  listSnapshots(name: string): SnapshotDescription[] {
    return this.snapshots.list(name);
  }

  snapshotFile(name: string, snapshot: string): string {
    return this.snapshots.file(name, snapshot);
  }

  deleteSnapshot(name: string, snapshot: string): void {
    this.snapshots.delete(name, snapshot);
  }

  /** Restores a snapshot (its bytes, which move: snapshots.ts) as collection `name`; with `checksum`, its SHA-256 must be it. */
  recoverSnapshot(name: string, bytes: Buffer, source: string, checksum?: string): Promise<Collection> {
    return this.snapshots.recover(name, bytes, source, checksum);
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
    for (const c of this.collections()) c.refuse(shuttingDown());
    const busy = (): boolean => this.collections().some((c) => c.busy);
    while (busy() && performance.now() < this.drainUntil) await new Promise((r) => setTimeout(r, 5));
    const late = busy();
    if (late) {
      const e = new StrataError('STRATA_SHUTTING_DOWN', 'engine shut down before the search finished (the drain deadline passed)', {});
      for (const c of this.collections()) c.abandon(e);
    }
    await this.threads.stop(late);
    this.retiering.stop();
    // A compaction still building is abandoned (its directory is removed at the next open).
    await this.compactions.abandon();
    // Appends already queued are flushed (and acknowledged) before the logs close.
    await this.data?.close();
    return { tierReports: await this.threads.tierReports() };
  }
}
