// One collection: a loaded index (the base) and, when it is writable, its live store (the fresh
// layer, tombstones and payloads behind a write-ahead log); a collection created over the API has
// only the live store until it is compacted. Request validation, the merge of base and fresh
// answers, writes and point reads; admission and tasks are dispatch.ts's, info and health
// collection-info.ts's.
import type { NamedBase } from '../index/named/named-base.js';
import { NamedSearches } from './named-searches.js';
import type { FilterWalkEntry } from '../index/format/manifest.js';
import type { ChunkMemory, ValuesPlacement } from '../index/payload/chunk-memory.js';
import { invalidArgument, pointNotFound, type StrataError, readOnly } from '../common/errors.js';
import type { Metric } from '../index/kernels/kernels.js';
import {
  type BaseIds,
  type BasePayloadSource,
  type KeyedPoint,
  type LiveStore,
  PAYLOAD_STEP_POINTS,
  type Payload,
  type PointKey,
  type PointWrite,
  type VectorsWrite,
} from '../storage/live-store.js';
import type { SecondaryParams, SparseParams } from '../storage/collection-dir.js';
import type { DensePlan } from '../index/fresh/dense-column.js';
import type { SparseColumn, SparseHit } from '../index/sparse/sparse-column.js';
import type { SparseVector } from '../index/sparse/sparse-vector.js';
import type { OpenedIndex } from '../index/open-index.js';
import { normalizeRows } from '../index/kernels/reference.js';
import { checkEf, checkK, checkQueryVector, checkRerank, defaultRerank, MAX_K } from '../index/search/bounds.js';
import { STAT_FIELDS, statsView } from '../index/search/stats.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import { BaseLookup, liveIdsFrom } from './base-lookup.js';
import { collectionHealth, collectionInfo } from './collection-info.js';
import { type CollectionMemory, collectionMemory } from './collection-memory.js';
import { Dispatcher, type QueueStats, type SearchJob } from './dispatch.js';
import type { FilterArena } from './filter-arena.js';
import { FilterResolver } from './filter-plan.js';
import { type FilteredHost, type SearchControl, searchFiltered } from './filtered-search.js';
import { PointPayloads } from '../storage/point-payloads.js';
import { forEachBasePayload } from '../index/format/payload-file.js';
import type { Executor } from './executor.js';
import { RecentQueries } from './recent-queries.js';
import type { Filter } from '../index/filter/ast.js';
import type { FacetValue } from '../index/payload-index/field-index.js';
import type { PayloadSelector } from '../index/payload/selector.js';
import { smallestFrom } from '../common/smallest.js';
import { stepsInOneTurn, stepsInTurns } from '../common/turns.js';
import type {
  CollectionHealth,
  CollectionInfo,
  ExecutionMode,
  PayloadIndexParams,
  PayloadSchemaEntry,
  PointSelector,
  SearchRequest,
  SearchResponse,
} from './types.js';

export interface CollectionSettings {
  /** The collection's number among the search threads' contexts (-1: no base index). */
  id: number;
  name: string;
  maxQueue: number;
  batch: number;
  maxTasks: number;
  defaultMode: ExecutionMode;
  ndpAvailable: boolean;
  defaultEf: number;
  /** Where filtered searches' bitsets go (the engine's, shared with the search threads). */
  filters: FilterArena;
  /** Filtered scans read value runs (EngineOptions.valueRuns). */
  valueRuns: boolean;
  /** Memory for the payload values of a collection served without a data directory (engine/payload-memory.ts). */
  payloadMemory: () => ChunkMemory;
  /** The node the memory plan puts payload values on, or null (emulated). */
  valuesNode: number | null;
  /** Fresh + hidden points past which a live collection compacts itself, 0 never (OpenEngineOptions.compactAt), unless its config says otherwise. */
  compactAt: number;
}

/**
 * Times a search or a read over turns runs again when a compaction or a write overtook it (a
 * filtered search, a secondary vector's, an exact scan of the fresh layer, a page of points), before
 * it answers as it is or runs in one turn.
 */
export const FILTERED_RETRIES = 3;

/**
 * Most points one write step applies. A step is applied in one synchronous step (so that a search
 * sees it whole), and inserting a point into the fresh HNSW graph costs ~90 µs on this machine: a
 * step holds the event loop for ~0.1 s at most, well inside a health probe's timeout.
 */
export const WRITE_STEP_POINTS = 1000;

/**
 * `items` written in steps of at most `size`, one after another, each logged and applied whole (a
 * search sees each step whole; a step's failure leaves the steps before it written); resolves with
 * the last step's sequence number. `writeId` names each step apart (`id/step`) across retries.
 */
async function inSteps<T>(items: T[], size: number, writeId: string | undefined, step: (part: T[], writeId?: string) => Promise<bigint>): Promise<bigint> {
  if (items.length <= size) return step(items, writeId);
  let lsn = 0n;
  for (let at = 0, n = 0; at < items.length; at += size, n++)
    lsn = await step(items.slice(at, at + size), writeId === undefined ? undefined : `${writeId}/${n}`);
  return lsn;
}

/** The shape of a collection created over the API: its vectors, and the build settings its config holds. */
export interface LiveShape {
  dim: number;
  metric: Metric;
  m: number;
  efConstruction: number;
  /** See CollectionConfig.indexingThresholdKb. */
  indexingThresholdKb?: number;
  /** See CollectionConfig.codes. */
  codes?: 'sq8' | 'none';
  /** See CollectionConfig.vectorName. */
  vectorName?: string;
  /** See CollectionConfig.payloadM. */
  payloadM?: number;
  /** See CollectionConfig.sparse. */
  sparse?: Record<string, SparseParams>;
  /** See CollectionConfig.secondary. */
  secondary?: Record<string, SecondaryParams>;
}

/** An order_by: the key, the direction, and the value to start from (a number, or an RFC 3339 datetime). */
export interface OrderBy {
  readonly key: string;
  readonly descending: boolean;
  readonly start: number | string | undefined;
}

export class Collection implements FilteredHost {
  readonly name: string;
  /** Served from an index directory given at start (strata build), not created over the API. */
  readonly fromIndexDir: boolean;
  readonly dim: number;
  readonly metric: Metric;
  private opened: OpenedIndex | null;
  private gen = 0;
  private running: Promise<unknown> | null = null;
  private done = 0;
  private store: LiveStore | null = null;
  /** Called after each acknowledged write (the compaction trigger). */
  private onWritten: (() => void) | null = null;
  private readonly recent: RecentQueries;
  private readonly dispatcher: Dispatcher;
  /** The secondary vectors' bases on the search threads. */
  private readonly named: NamedSearches;
  private lookup: BaseLookup | null;
  /** Set when the engine closes or the collection is deleted: new searches fail with it at once. */
  private refused: Error | null = null;
  readonly resolver: FilterResolver;
  /** The payloads of a collection served without a live store (rows for the base's points). */
  private readOnlyPayloads: PointPayloads | null = null;

  constructor(
    opened: OpenedIndex | null,
    executor: Executor,
    private readonly s: CollectionSettings,
    private shaped: LiveShape | null = null,
  ) {
    const shape = shaped;
    this.name = s.name;
    this.opened = opened;
    this.lookup = opened ? new BaseLookup(opened.index) : null;
    this.fromIndexDir = shape === null;
    const meta = opened?.index.meta ?? shape;
    if (!meta) throw new Error('a collection needs a base index or a shape');
    this.dim = meta.dim;
    this.metric = meta.metric;
    this.recent = new RecentQueries(meta.dim);
    this.dispatcher = new Dispatcher({ dim: meta.dim, maxQueue: s.maxQueue, batch: s.batch, maxTasks: s.maxTasks }, executor, s.id);
    this.resolver = new FilterResolver(s.filters, s.valueRuns);
    this.named = new NamedSearches({ maxQueue: s.maxQueue, batch: s.batch, maxTasks: s.maxTasks, filters: s.filters });
  }

  /** The base's measured filtered walk, for the planner (null: no base, or one built without it). */
  get walkProfile(): FilterWalkEntry | null {
    return this.opened?.manifest.plan.filterWalk ?? null;
  }

  /** A created collection's shape and build settings (null: served from an index directory). */
  get shape(): LiveShape | null {
    return this.shaped;
  }

  /** The name of the collection's one vector: '' when unnamed (always, for an index directory). */
  get vectorName(): string {
    return this.shaped?.vectorName ?? '';
  }

  /** The collection's sparse vectors by name, with their settings (none for an index directory). */
  get sparseVectors(): Readonly<Record<string, SparseParams>> {
    return this.shaped?.sparse ?? {};
  }

  /** The collection's secondary dense vectors by name (Qdrant's named vectors past the first), with their size and distance. */
  get secondaryVectors(): Readonly<Record<string, SecondaryParams>> {
    return this.shaped?.secondary ?? {};
  }

  /** Takes updated build settings (Engine.updateCollection wrote them to the config first). */
  reshape(s: LiveShape): void {
    if (this.shaped === null) throw new Error('only a created collection has a shape to update');
    this.shaped = s;
  }

  /**
   * Fresh points past which this collection compacts itself: its config's indexing threshold (Qdrant's
   * kilobytes of float32 vectors; 0: never) where one was set, else the engine's.
   */
  autoCompactAt(): number {
    const kb = this.shaped?.indexingThresholdKb;
    if (kb === undefined) return this.s.compactAt;
    return kb === 0 ? 0 : Math.max(1, Math.ceil((kb * 1024) / (4 * this.dim)));
  }

  /** Payload values and indexes: the live store's, or (read-only) rows for the base's points and no payloads. */
  get payloads(): PointPayloads {
    if (this.store !== null) return this.store.payloads;
    if (this.readOnlyPayloads === null) {
      const p = new PointPayloads(
        (id) => (typeof id === 'number' ? id : null),
        (id) => id,
        this.s.payloadMemory(),
      );
      p.placeBase(this.baseIds().forEach);
      const seed = this.basePayloads();
      if (seed !== null) p.seed(seed);
      this.readOnlyPayloads = p;
    }
    return this.readOnlyPayloads;
  }

  /** The payloads the base index was built with (strata build --payloads), or null. */
  basePayloads(): BasePayloadSource | null {
    const dir = this.opened?.dir;
    return dir === undefined ? null : (each) => forEachBasePayload(dir, each);
  }

  /** The base index, or null for a collection created over the API and not yet compacted. */
  get index(): TieredIndex | null {
    return this.opened?.index ?? null;
  }

  /** The opened base (manifest, memory plan), or null. */
  get base(): OpenedIndex | null {
    return this.opened;
  }

  /** The writable part, or null (read-only: served without a data directory). */
  get live(): LiveStore | null {
    return this.store;
  }

  /** Bumped when a compaction swaps in a new base: a search that straddles it runs again. */
  get generation(): number {
    return this.gen;
  }

  /** The compaction running now, if any (compaction.ts). */
  get compacting(): Promise<unknown> | null {
    return this.running;
  }

  /** Compactions done since start, for metrics. */
  get compactions(): number {
    return this.done;
  }

  /** Summed per-query counters of every answered search (for metrics). */
  get totals(): Float64Array {
    return this.dispatcher.totals;
  }

  get searches(): number {
    return this.dispatcher.searches;
  }

  /** Whether new searches are refused (the engine closes, or the collection was deleted). */
  get refusing(): boolean {
    return this.refused !== null;
  }

  /** Makes the collection writable through `store`; `onWritten` runs after each acknowledged write. */
  attachLive(store: LiveStore, onWritten: (() => void) | null = null): void {
    this.store = store;
    this.onWritten = onWritten;
  }

  /** The collection's base ids, as its live store asks for them (follows the current base). */
  baseIds(): BaseIds {
    const index = (): TieredIndex | null => this.index;
    return {
      has: (id) => this.baseHas(id),
      node: (id) => this.lookup?.node(id),
      forEach: (fn, from = 0, to = Number.POSITIVE_INFINITY) => {
        const labels = this.index?.labels;
        if (labels) for (let node = from, end = Math.min(to, labels.length); node < end; node++) fn(labels[node]!, node);
      },
      get count(): number {
        return index()?.meta.count ?? 0;
      },
    };
  }

  /** Records `run` as the compaction running now until it settles; returns it. */
  trackCompaction<T>(run: Promise<T>): Promise<T> {
    const tracked = run.finally(() => {
      this.running = null;
    });
    this.running = tracked;
    return tracked;
  }

  /** The recorded live queries (a copy, oldest first), count × dim. */
  recentQueries(): Float32Array {
    return this.recent.copy();
  }

  /** Where base searches run from now on, and this collection's number among its contexts. */
  useExecutor(executor: Executor, id: number): void {
    this.dispatcher.useExecutor(executor, id);
    if (id < 0) this.named.clear();
    else this.named.keepOnly(new Set(this.namedBases().map((n) => n.name)));
  }

  /** The secondary vectors' tiered bases now, which the search threads hold beside the collection's. */
  namedBases(): Array<{ name: string; base: NamedBase }> {
    const out: Array<{ name: string; base: NamedBase }> = [];
    for (const [name, col] of this.live?.secondary ?? []) if (col.tiered !== null) out.push({ name, base: col.tiered });
    return out;
  }

  /** Where vector `name`'s base is searched from now on: context `id` of `executor`. */
  useNamedExecutor(name: string, base: NamedBase, executor: Executor, id: number): void {
    this.named.use(name, base, executor, id);
  }

  /** The searches each secondary vector sent to the search threads, by name. */
  get namedQueueStats(): Record<string, QueueStats> {
    return this.named.stats();
  }

  /**
   * Swaps in a compaction's new base (synchronous, with the live store's rebase): caches of the old
   * one go, and searches that were out on it run again. `lookup`: its points by id, made ready
   * beforehand (BaseLookup.warmSteps) or on first use.
   */
  rebase(opened: OpenedIndex, lookup = new BaseLookup(opened.index)): void {
    this.opened = opened;
    this.lookup = lookup;
    this.gen++;
    this.done++;
  }

  /** Makes the base's lookup by id ready a step at a time (BaseLookup.warmSteps); nothing without a base. */
  *warmLookupSteps(): Generator<void, void, void> {
    if (this.lookup !== null) yield* this.lookup.warmSteps();
  }

  get queueDepth(): number {
    return this.dispatcher.depth;
  }

  /** The admission queue's counters, and the tasks its searches left in (queries per task = completed / tasks). */
  get queueStats(): QueueStats {
    return this.dispatcher.stats;
  }

  health(): CollectionHealth {
    return collectionHealth(this);
  }

  /**
   * The hottest neighbour lists: the promotion pool's tenants (the lists the load visits most,
   * moved into DRAM) by their sampled read count, most first, with the point each belongs to.
   */
  hottestLists(n: number): Array<{ point: PointKey; reads: number }> {
    const index = this.index;
    const pool = index?.pool;
    if (!index || !pool) return [];
    const labels = index.labels;
    return pool
      .tenants()
      .map((node) => ({ node, reads: pool.countOf(node) }))
      .sort((a, b) => b.reads - a.reads || a.node - b.node)
      .slice(0, n)
      .map((t) => ({ point: this.externalId(labels[t.node]!), reads: t.reads }));
  }

  /** Memory by part and tier (collection-memory.ts). */
  memory(): CollectionMemory {
    return collectionMemory(this);
  }

  info(): CollectionInfo {
    return collectionInfo(this);
  }

  /** Validates a request; errors name the field. */
  private job(r: SearchRequest): SearchJob {
    const dim = this.dim;
    if (!(r.vector instanceof Float32Array)) throw invalidArgument('vector', 'must be an array of numbers');
    checkQueryVector(r.vector, dim, r.vectorField ?? 'vector');
    checkK(r.k, 'limit');
    const ef = checkEf(r.ef ?? Math.max(this.s.defaultEf, r.k), 'ef');
    // Only a pool the caller named is checked: the default is clamped, never refused.
    const rerank = r.rerank === undefined ? defaultRerank(r.k) : checkRerank(r.rerank, r.k, 'rerank');
    const mode = r.mode ?? this.s.defaultMode;
    if (mode !== 'local' && mode !== 'ndp') throw invalidArgument('mode', `must be local or ndp, got ${String(mode)}`);
    if (mode === 'ndp' && !this.s.ndpAvailable) throw invalidArgument('mode', 'ndp needs the engine started with tier workers');
    let vector = r.vector;
    if (this.metric === 'cosine') {
      vector = vector.slice();
      normalizeRows(vector, dim);
    }
    return { vector, k: r.k, ef, rerank, rescoreAll: r.rescoreAll ?? false, exact: r.exact ?? false, mode, filter: null };
  }

  search(r: SearchRequest): Promise<SearchResponse> {
    if (this.refused) return Promise.reject(this.refused);
    let job: SearchJob;
    try {
      job = this.job(r);
    } catch (e) {
      return Promise.reject(e);
    }
    // Only a writable collection is ever laid out again, so only it keeps its load.
    if (!job.exact && this.live !== null) this.recent.record(job.vector);
    const ctl = { ...(r.timeoutMs !== undefined ? { timeoutMs: r.timeoutMs } : {}), ...(r.signal ? { signal: r.signal } : {}) };
    if (r.filter !== undefined) return this.searchWithFilter(job, r.filter, ctl, FILTERED_RETRIES, r.filterPlan);
    const live = this.live;
    if (live === null) return this.dispatcher.submit(job, ctl);
    if (this.index === null) {
      const answer = (hits: Array<{ id: number; distance: number }>): SearchResponse => ({
        hits,
        stats: statsView(new Float64Array(STAT_FIELDS)),
        mode: job.mode,
      });
      return job.exact ? exactFresh(live, job, r.signal).then(answer) : Promise.resolve(answer(live.fresh.search(job.vector, job.k, job.ef)));
    }
    // Base hits that are hidden (deleted or superseded) are dropped after the search: ask the base
    // for enough more that k usually survive. The merge happens when the base answers, in one
    // synchronous step, against the live state of that moment: a write applied meanwhile is seen
    // whole in both parts (its tombstone and its fresh copy), never half.
    const kBase = baseK(job.k, live.tombstones.size, this.index.meta.count);
    const baseJob = kBase === job.k ? job : { ...job, k: kBase, ef: Math.max(job.ef, kBase), rerank: job.rerank === 0 ? 0 : Math.max(job.rerank, kBase) };
    const generation = this.generation;
    return this.dispatcher.submit(baseJob, ctl).then(async (res) => {
      // A compaction swapped the base while this search was out: its hits are the old base's, which
      // the live state no longer describes. Ask again (the swap is rare; the search is short).
      if (generation !== this.generation) return this.search(r);
      // An exact fresh part takes turns of the event loop: the base hits are checked against the
      // state it ends in (no write landed during it). A walk's is in this same turn.
      let fresh: Array<{ id: number; distance: number }>;
      if (job.exact) {
        fresh = await exactFresh(live, job, r.signal);
        if (generation !== this.generation) return this.search(r);
      } else fresh = live.fresh.search(job.vector, job.k, job.ef);
      const hits = res.hits.filter((h) => live.baseLive(h.id));
      hits.push(...fresh);
      hits.sort((a, b) => a.distance - b.distance || a.id - b.id);
      if (hits.length > job.k) hits.length = job.k;
      return { hits, stats: res.stats, mode: res.mode };
    });
  }

  private searchWithFilter(job: SearchJob, filter: Filter, ctl: SearchControl, retries: number, forced?: SearchRequest['filterPlan']): Promise<SearchResponse> {
    // Overtaken every time (a write storm): the last try answers with what survives.
    return searchFiltered(this, job, filter, ctl, retries === 0, forced).then((res) => res ?? this.searchWithFilter(job, filter, ctl, retries - 1, forced));
  }

  /** Queues a validated search of the base (filtered-search.ts asks through this). */
  submitJob(job: SearchJob, ctl: SearchControl): Promise<SearchResponse> {
    return this.dispatcher.submit(job, ctl);
  }

  /**
   * Logs and applies points; resolves once they are durable and visible to search, with the write's
   * sequence number. `writeId` names the write across retries (behind a shared log, a write with the
   * same id is applied once). Written in steps of WRITE_STEP_POINTS (inSteps).
   */
  upsert(points: KeyedPoint[], writeId?: string): Promise<bigint> {
    return inSteps(points, WRITE_STEP_POINTS, writeId, (part, id) => this.upsertStep(part, id));
  }

  private upsertStep(points: KeyedPoint[], writeId?: string): Promise<bigint> {
    const live = this.writable();
    // Dimensions and values are the edge's to check (server/api/writes.ts); the copy is ours.
    const writes: PointWrite[] = points.map((p) => {
      // Stored as searched: unit-normalised for cosine, and never the caller's buffer.
      const vector = p.vector.slice();
      if (this.metric === 'cosine') normalizeRows(vector, this.dim);
      const uuid = typeof p.key === 'string' ? p.key : null;
      // Behind a shared log a new UUID is numbered when applied (-1 here), in log order, alike on
      // every replica; otherwise at once, so that two writes of it in flight agree.
      const id = uuid === null ? (p.key as number) : (live.idOfUuid(uuid, !live.replicated) ?? -1);
      return {
        id,
        uuid,
        vector,
        payload: p.payload,
        ...(p.sparse !== undefined ? { sparse: p.sparse } : {}),
        ...(p.secondary !== undefined ? { secondary: p.secondary } : {}),
      };
    });
    return this.written(live.upsert(writes, writeId));
  }

  /**
   * Replaces the given vectors of existing points (the dense one, sparse ones by name), keeping the
   * others and their payloads (Qdrant's update_vectors); a point that does not exist is a 404 and
   * nothing is written.
   */
  updateVectors(
    points: ReadonlyArray<{
      key: PointKey;
      vector?: Float32Array;
      sparse?: Readonly<Record<string, SparseVector>>;
      secondary?: Readonly<Record<string, Float32Array>>;
    }>,
    writeId?: string,
  ): Promise<bigint> {
    const live = this.writable();
    const writes: VectorsWrite[] = points.map((p) => {
      const id = this.resolveKey(p.key);
      if (id === null || !live.exists(id)) throw pointNotFound(this.name, String(p.key));
      const w: VectorsWrite = {
        id,
        ...(p.sparse !== undefined ? { sparse: p.sparse } : {}),
        ...(p.secondary !== undefined ? { secondary: p.secondary } : {}),
      };
      if (p.vector !== undefined) {
        // Stored as searched: unit-normalised for cosine, and never the caller's buffer.
        w.vector = p.vector.slice();
        if (this.metric === 'cosine') normalizeRows(w.vector, this.dim);
      }
      return w;
    });
    return this.written(live.updateVectors(writes, writeId));
  }

  /** Removes the named sparse and secondary vectors from the selected points (the tiered one cannot be: the edge refuses it). */
  deleteVectors(target: PointKey[] | PointSelector, names: readonly string[], writeId?: string): Promise<bigint> {
    const live = this.writable();
    return this.targets(target).then((ids) => this.written(live.deleteVectors(ids, names, writeId)));
  }

  /**
   * The best `k` points by the named sparse vector's score against `query` (exact, through its
   * inverted index), among those matching `filter`; only points sharing a dimension with the query.
   * It reads the postings over turns of the event loop, again while writes land during it (to the
   * column or to the payloads its filter tests), and after FILTERED_RETRIES such tries in one turn.
   */
  searchSparse(name: string, query: SparseVector, k: number, filter?: Filter, signal?: AbortSignal): Promise<SparseHit[]> {
    const column = (): SparseColumn | undefined => {
      if (this.refused) throw this.refused;
      return this.live?.sparse.get(name);
    };
    const accept = (): ((id: number) => boolean) | undefined => (filter === undefined ? undefined : this.payloads.matcher(filter));
    return untilUnmoved(
      async () => {
        const col = column();
        if (col === undefined) return [];
        await this.settle(filter);
        const version = this.payloads.version;
        const hits = await col.searchInTurns(query, k, accept(), signal !== undefined ? { signal } : {});
        return this.payloads.version === version && this.live?.sparse.get(name) === col ? hits : null;
      },
      () => column()?.search(query, k, accept()) ?? [],
    );
  }

  /**
   * The `k` nearest points by the named secondary dense vector, among those matching `filter`, in
   * its graph (or every point scored, `exact`); distances in the base index's convention.
   */
  async searchSecondary(
    name: string,
    query: Float32Array,
    k: number,
    o: { ef?: number; exact?: boolean; filter?: Filter; vectorField?: string; signal?: AbortSignal },
  ): Promise<{ hits: Array<{ id: number; distance: number }>; plan: DensePlan }> {
    if (this.refused) throw this.refused;
    const col = this.live?.secondary.get(name);
    if (col === undefined) return { hits: [], plan: 'graph' };
    checkQueryVector(query, col.dim, o.vectorField ?? 'vector');
    const run = this.named.runner(name, o.signal !== undefined ? { signal: o.signal } : {});
    for (let attempt = 1; ; attempt++) {
      // Past the retries, it answers with what it has.
      const final = attempt >= FILTERED_RETRIES;
      await this.settle(o.filter);
      const version = this.payloads.version;
      const filter = o.filter === undefined ? undefined : this.payloads.matches(o.filter);
      const r = await col.search(
        query,
        k,
        {
          ef: o.ef ?? this.s.defaultEf,
          exact: o.exact === true,
          ...(filter !== undefined ? { filter } : {}),
          ...(o.signal !== undefined ? { signal: o.signal } : {}),
        },
        run,
      );
      // A compaction or a write overtook the vector's base part while it was out (on the threads, or over turns).
      if (r.stale && !final) continue;
      if (o.filter === undefined || this.payloads.version === version) return { hits: r.hits, plan: r.plan };
      // A payload write while it searched: what no longer matches goes, and a search it left short runs again.
      const test = this.payloads.predicate(o.filter);
      const hits = r.hits.filter((h) => test(h.id));
      if (hits.length < r.hits.length && !final) continue;
      return { hits, plan: r.plan };
    }
  }

  /** A point's named secondary vector (unit-normalised for cosine), or null (none, or no such point). */
  secondaryVector(id: number, name: string): Float32Array | null {
    return this.live?.secondary.get(name)?.get(id) ?? null;
  }

  /** A point's score by its named sparse vector against `query` (as searchSparse scores it), or null when it has none. */
  sparseScore(id: number, name: string, query: SparseVector): number | null {
    return this.live?.sparse.get(name)?.score(id, query) ?? null;
  }

  /** A point's named sparse vector, or null (none, or no such point). */
  sparseVector(id: number, name: string): SparseVector | null {
    return this.live?.sparse.get(name)?.get(id) ?? null;
  }

  /** Deletes the selected points, in steps of PAYLOAD_STEP_POINTS (inSteps). */
  deletePoints(target: PointKey[] | PointSelector, writeId?: string): Promise<bigint> {
    const live = this.writable();
    return this.targets(target).then((all) => inSteps(all, PAYLOAD_STEP_POINTS, writeId, (ids, id) => this.written(live.delete(ids, id))));
  }

  /**
   * Sets payload on the selected points: merged into each (top-level keys replaced), or with
   * `overwrite` replacing it; with `key`, merged into the object at that key path instead (Qdrant's
   * set_payload `key`). A filter is resolved to ids when the write is taken; the points are written
   * in steps of PAYLOAD_STEP_POINTS (inSteps), as are the two below.
   */
  setPayload(target: PointKey[] | PointSelector, payload: Payload, overwrite: boolean, writeId?: string, key?: string): Promise<bigint> {
    const live = this.writable();
    return this.targets(target).then((all) => inSteps(all, PAYLOAD_STEP_POINTS, writeId, (ids, id) => live.setPayload(ids, payload, overwrite, id, key)));
  }

  /** Deletes the keys (key paths) from the selected points' payloads. */
  deletePayloadKeys(target: PointKey[] | PointSelector, keys: string[], writeId?: string): Promise<bigint> {
    const live = this.writable();
    return this.targets(target).then((all) => inSteps(all, PAYLOAD_STEP_POINTS, writeId, (ids, id) => live.deletePayload(ids, keys, id)));
  }

  /** Clears the selected points' payloads. */
  clearPayload(target: PointKey[] | PointSelector, writeId?: string): Promise<bigint> {
    const live = this.writable();
    return this.targets(target).then((all) => inSteps(all, PAYLOAD_STEP_POINTS, writeId, (ids, id) => live.deletePayload(ids, null, id)));
  }

  /** Deletes every point the filter matches when the write is taken. */
  deleteByFilter(filter: Filter, writeId?: string): Promise<bigint> {
    return this.deletePoints({ filter }, writeId);
  }

  /** Creates the payload index of `field` (a key path); resolves once it is durable and serving. */
  createPayloadIndex(field: string, params: PayloadIndexParams, writeId?: string): Promise<bigint> {
    return this.writable().payloadIndex(field, params, writeId);
  }

  /** Drops the payload index of `field`. */
  deletePayloadIndex(field: string, writeId?: string): Promise<bigint> {
    return this.writable().payloadIndex(field, null, writeId);
  }

  /** The payload indexes by key (Qdrant's payload_schema). */
  valuesPlacement(): ValuesPlacement {
    return this.payloads.valuesPlacement();
  }

  get valuesNode(): number | null {
    return this.s.valuesNode;
  }

  payloadSchema(): Record<string, PayloadSchemaEntry> {
    return this.payloads.schema();
  }

  /** Bytes of the payload values and of each payload index (with the planner's range bitsets over it). */
  payloadBytes(): CollectionInfo['payloadBytes'] {
    // Where the values' pages are is read now, not remembered from when their slabs were bound.
    this.payloads.verifyValues();
    const b = this.payloads.bytes();
    return { ...b, indexes: this.withPrefixes(b.indexes) };
  }

  /** DRAM of each payload index, with the planner's range bitsets over it: what a compaction sets aside from the budget. */
  payloadIndexBytes(): Record<string, number> {
    return this.withPrefixes(Object.fromEntries(this.payloads.indexBytes()));
  }

  /** Each field's index bytes plus its range prefix bitsets (FilterResolver). */
  private withPrefixes(indexes: Record<string, number>): Record<string, number> {
    for (const [field, n] of this.resolver.prefixBytes()) if (indexes[field] !== undefined) indexes[field] += n;
    return indexes;
  }

  /**
   * Qdrant's facet: the `limit` values of `key` held by the most points (matching `filter`, when
   * given), most first, ties by value; counts are exact.
   */
  facet(key: string, filter: Filter | undefined, limit: number): Array<{ value: FacetValue; count: number }> {
    const hits = this.payloads.facet(key, filter);
    hits.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return hits.slice(0, limit).map(([value, count]) => ({ value, count }));
  }

  /**
   * Qdrant's order_by: the first `limit` points matching `filter` by their values of a key with an
   * integer, float or datetime index (PointPayloads.orderBy); errors name `field`.
   */
  orderBy(o: OrderBy, limit: number, filter: Filter | undefined, field: string): Array<{ id: number; value: number }> {
    return this.payloads.orderBy(o, limit, filter, field);
  }

  /** Points matching `filter` (all live points without one), exactly. */
  countMatching(filter?: Filter): number {
    return filter === undefined ? this.count() : this.payloads.match(filter).rows.size;
  }

  /** The ids a write selects: listed ones that resolve, or those a filter matches once settled (settle). */
  private async targets(target: PointKey[] | PointSelector): Promise<number[]> {
    if (Array.isArray(target)) return this.resolveAll(target);
    if ('ids' in target) return this.resolveAll(target.ids);
    await this.settle(target.filter);
    return this.payloads.matchingIds(target.filter);
  }

  /**
   * A filter's exact rows worked out over turns of the event loop where part of it is checked point
   * by point (PointPayloads.matchSteps), so that the synchronous reads right after it (a count, a
   * page, a plan) find them rather than check every point in one step.
   */
  settle(filter: Filter | undefined, orderBy?: OrderBy): Promise<void> {
    return stepsInTurns(this.settleSteps(filter, orderBy), () => false).then(() => undefined);
  }

  /** settle() as steps, for a read that runs over turns itself (inTurns); with order_by, its key's pairs sorted too. */
  *settleSteps(filter: Filter | undefined, orderBy?: OrderBy): Generator<void, void, void> {
    if (orderBy !== undefined) yield* this.payloads.orderStepsOfKey(orderBy.key);
    if (filter !== undefined) yield* this.payloads.matchSteps(filter);
  }

  private written(p: Promise<bigint>): Promise<bigint> {
    return p.then((lsn) => {
      this.onWritten?.();
      return lsn;
    });
  }

  /** Resolves once this collection has applied its shared write log up to `seq` (read-your-writes). */
  waitForWriteSeq(seq: number): Promise<void> {
    return this.live?.waitForSeq(seq) ?? Promise.resolve();
  }

  /** The internal id of a point key (a UUID through the live store), or null when there is none. */
  resolveKey(key: PointKey): number | null {
    return typeof key === 'number' ? key : (this.live?.idOfUuid(key, false) ?? null);
  }

  private resolveAll(keys: PointKey[]): number[] {
    return keys.map((k) => this.resolveKey(k)).filter((id): id is number => id !== null);
  }

  /** The id users know a point by: its UUID, or the integer itself. */
  externalId(id: number): PointKey {
    return this.live?.uuidOf(id) ?? id;
  }

  /** A point's payload as `selector` asks (null: none, or `false`). */
  payload(id: number, selector: PayloadSelector = true): Payload | null {
    return this.live !== null ? this.live.payload(id, selector) : this.payloads.shown(id, selector);
  }

  /** The live store, or STRATA_READ_ONLY (no data directory) / the shutdown error. */
  writable(): LiveStore {
    if (this.refused) throw this.refused;
    if (this.live === null) throw readOnly(`collection ${this.name}`, 'no-data-dir', 'serve it with --data-dir to take writes', { collection: this.name });
    return this.live;
  }

  /**
   * Runs `submit` with the pump held, so that the searches it queues leave together: idle search
   * threads get a batch request's searches as one task each (up to `batch` queries a task) instead
   * of the first one or two alone and the rest after. Holds nest; the outermost one pumps.
   */
  together<T>(submit: () => T): T {
    return this.dispatcher.together(submit);
  }

  searchBatch(rs: SearchRequest[]): Promise<SearchResponse[]> {
    return this.together(() => Promise.all(rs.map((r) => this.search(r))));
  }

  count(): number {
    return this.live ? this.live.count() : (this.index?.meta.count ?? 0);
  }

  /** Whether the base index holds `id` (hidden or not). */
  baseHas(id: number): boolean {
    return this.lookup !== null && this.lookup.node(id) !== undefined;
  }

  /** The stored vector of a point (unit-normalised for cosine), or null. */
  getPoint(id: number): { id: number; vector: Float32Array } | null {
    const live = this.live;
    if (live) {
      const v = live.fresh.vector(id);
      if (v) return { id, vector: v.slice() };
      if (!live.baseLive(id)) return null;
    }
    const node = this.lookup?.node(id);
    if (node === undefined) return null;
    return { id, vector: this.lookup!.index.vectorOf(node).slice() };
  }

  /** Every live point's id (those matching the filter), ascending: what an exact scan of the collection visits. */
  ids(filter?: Filter): number[] {
    const all = Number.POSITIVE_INFINITY;
    return filter === undefined
      ? liveIdsFrom(this.lookup, this.live, Number.NEGATIVE_INFINITY, all)
      : Array.from(smallestFrom(this.payloads.matches(filter).ids(), Number.NEGATIVE_INFINITY, all));
  }

  /**
   * A page of ids in ascending order, from `offset` (an id) on: the base's live points and the fresh
   * ones; with `filter`, those matching. `next`: the id the next page starts at, or null.
   */
  scroll(offset: number | null, limit: number, filter?: Filter): { ids: number[]; next: number | null } {
    // One more than asked for: its id is the next page's offset.
    const from = offset ?? Number.NEGATIVE_INFINITY;
    const ids =
      filter === undefined
        ? liveIdsFrom(this.lookup, this.live, from, limit + 1)
        : Array.from(smallestFrom(this.payloads.matches(filter).ids(), from, limit + 1));
    const next = ids.length > limit ? ids.pop()! : null;
    return { ids, next };
  }

  /**
   * A read of many points (a page of them, their payloads and vectors) over turns of the event loop:
   * `steps` yields between its steps. It is asked again from the start when a write, a payload write
   * or a compaction lands during it (a page shows each write whole), and after FILTERED_RETRIES such
   * tries runs in one turn.
   */
  inTurns<T>(steps: () => Generator<void, T, void>): Promise<T> {
    const state = (): string => `${this.generation}/${this.live?.appliedLsn ?? 0n}/${this.payloads.version}`;
    return untilUnmoved(
      () => {
        const at = state();
        return stepsInTurns(steps(), () => {
          if (this.refused) throw this.refused;
          return state() !== at;
        });
      },
      () => stepsInOneTurn(steps()),
    );
  }

  /** Stops taking new searches (they fail with `e`); those already queued or running go on. */
  refuse(e: Error): void {
    this.refused = e;
  }

  /** Fails every search still queued or running with `e` (a running one's late answer is dropped). */
  abandon(e: StrataError): void {
    this.dispatcher.abandon(e);
    this.named.abandon(e);
  }

  get busy(): boolean {
    return this.dispatcher.depth > 0 || this.named.busy;
  }
}

/**
 * How many base hits to ask for so that k usually survive the hidden ones: with a fraction f of the
 * base hidden, about k / (1 - f) plus a few standard deviations; never more than k + hidden (all of
 * the hidden could be among them) nor MAX_K.
 */
export function baseK(k: number, hidden: number, baseCount: number): number {
  if (hidden === 0) return k;
  const f = Math.min(0.95, hidden / Math.max(1, baseCount));
  const want = Math.ceil(k / (1 - f) + 3 * Math.sqrt(k * f) + 1);
  return Math.min(MAX_K, k + hidden, Math.max(k, want));
}

/** The n smallest of `ids` from `from` on, ascending. */
/**
 * The fresh layer's exact k nearest: every point scored over turns of the event loop (a fresh layer
 * may hold a large share of its collection), again while writes land during it (a write seen half: its
 * tombstone and not yet its fresh copy), and after FILTERED_RETRIES such tries in one turn.
 */
function exactFresh(live: LiveStore, job: SearchJob, signal?: AbortSignal): Promise<Array<{ id: number; distance: number }>> {
  return untilUnmoved(
    async () => {
      const lsn = live.appliedLsn;
      const hits = await live.fresh.exactInTurns(job.vector, job.k, null, signal);
      return live.appliedLsn === lsn ? hits : null;
    },
    () => live.fresh.exact(job.vector, job.k),
  );
}

/**
 * A search over turns of the event loop (`inTurns`, null where a write overtook it) asked up to
 * FILTERED_RETRIES - 1 times, then `inOneTurn`, which no write can overtake.
 */
async function untilUnmoved<T>(inTurns: () => Promise<T | null>, inOneTurn: () => T): Promise<T> {
  for (let attempt = 1; attempt < FILTERED_RETRIES; attempt++) {
    const r = await inTurns();
    if (r !== null) return r;
  }
  return inOneTurn();
}
