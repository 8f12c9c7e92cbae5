// One collection: a loaded index (the base) and, when it is writable, its live store (the fresh
// layer, tombstones and payloads behind a write-ahead log); a collection created over the API has
// only the live store until it is compacted. Admission (bounded queue, deadlines, cancellation),
// batching of base searches into tasks for the search threads, the merge of base and fresh answers,
// and the point API.
import { invalidArgument, type StrataError, readOnly } from '../common/errors.js';
import { Slots } from '../common/slots.js';
import type { Metric } from '../index/kernels/kernels.js';
import type { KeyedPoint, LiveStore, Payload, PointKey, PointWrite } from '../storage/live-store.js';
import type { OpenedIndex } from '../index/open-index.js';
import { normalizeRows } from '../index/kernels/reference.js';
import { checkEf, checkK, checkQueryVector, checkRerank, defaultRerank, MAX_K } from '../index/search/bounds.js';
import { addStats, type SearchStats, STAT_FIELDS, statsView } from '../index/search/stats.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { Executor } from './executor.js';
import { AdmissionQueue, type Pending } from './queue.js';
import { allocTask } from './task.js';
import type { CollectionHealth, CollectionInfo, ExecutionMode, SearchHit, SearchRequest, SearchResponse, TierInfo } from './types.js';

interface Job {
  vector: Float32Array;
  k: number;
  ef: number;
  rerank: number;
  rescoreAll: boolean;
  exact: boolean;
  mode: ExecutionMode;
}

/**
 * Task slots a search thread is given: one running and one waiting behind it, so that a thread
 * finishing a task finds the next one without a round trip to the event loop.
 */
export const TASKS_PER_THREAD = 2;

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
}

/**
 * A search's answer; its stats object is built only if read (most answers do not carry it: with_stats).
 * A class, not an object literal with a getter: built as such a literal (fresh accessors each time),
 * answers and their result buffers outlived the scavenges, and ~40% of what the engine allocated
 * was promoted to the old space (test/engine/young-garbage.test.ts; 0.05% as a class).
 */
class Answer implements SearchResponse {
  private view: SearchStats | null = null;
  constructor(
    readonly hits: SearchHit[],
    private readonly st: Float64Array,
    readonly mode: ExecutionMode,
  ) {}
  get stats(): SearchStats {
    this.view ??= statsView(this.st);
    return this.view;
  }
}

/** The shape of a collection without a base index (created over the API). */
export interface LiveShape {
  dim: number;
  metric: Metric;
  m: number;
  efConstruction: number;
}

export class Collection {
  readonly name: string;
  /** The base index, or null for a collection created over the API and not yet compacted. */
  index: TieredIndex | null;
  /** Served from an index directory given at start (strata build), not created over the API. */
  readonly fromIndexDir: boolean;
  /** Bumped when a compaction swaps in a new base: a search that straddles it runs again. */
  generation = 0;
  /** The compaction running now, if any (engine.ts). */
  compacting: Promise<unknown> | null = null;
  /** Compactions done since start, for metrics. */
  compactions = 0;
  /** Called after each acknowledged write (the engine's compaction trigger). */
  onWritten: (() => void) | null = null;
  /**
   * The live query load: the last RECENT_QUERIES query vectors searched (as searched: normalised for
   * cosine), in a ring. A compaction profiles its new layout with them, so the hottest neighbour
   * lists of the load that is actually coming in go to DRAM.
   */
  private recent: Float32Array | null = null;
  private recentNext = 0;
  private recentCount = 0;
  readonly dim: number;
  readonly metric: Metric;
  /** The writable part, or null (read-only: served without a data directory). */
  live: LiveStore | null = null;
  private readonly queue: AdmissionQueue<Job, SearchResponse>;
  private tasksInFlight = 0;
  private tasksDispatched = 0;
  /** Open together() calls: while any is, queued searches wait for the last of its searches. */
  private holds = 0;
  private byLabel: Map<number, number> | null = null;
  private sorted: Int32Array | null = null;
  /** Summed per-query counters of every answered search (for metrics). */
  readonly totals = new Float64Array(STAT_FIELDS);
  searches = 0;
  /** Set when the engine closes: new searches fail with it at once. */
  private refused: Error | null = null;
  /** Requests handed to the executor and not yet answered, per task (Slots: see common/slots.ts). */
  private readonly running = new Slots<Array<Pending<Job, SearchResponse>>>();

  constructor(
    private opened: OpenedIndex | null,
    private executor: Executor,
    private readonly s: CollectionSettings,
    readonly shape: LiveShape | null = null,
  ) {
    this.name = s.name;
    this.index = opened?.index ?? null;
    this.fromIndexDir = shape === null;
    const meta = opened?.index.meta ?? shape;
    if (!meta) throw new Error('a collection needs a base index or a shape');
    this.dim = meta.dim;
    this.metric = meta.metric;
    this.queue = new AdmissionQueue<Job, SearchResponse>(s.maxQueue, () => this.pump());
  }

  private record(v: Float32Array): void {
    this.recent ??= new Float32Array(RECENT_QUERIES * this.dim);
    this.recent.set(v, this.recentNext * this.dim);
    this.recentNext = (this.recentNext + 1) % RECENT_QUERIES;
    this.recentCount = Math.min(RECENT_QUERIES, this.recentCount + 1);
  }

  /** The recorded live queries (a copy, oldest first), count × dim. */
  recentQueries(): Float32Array {
    const n = this.recentCount;
    const out = new Float32Array(n * this.dim);
    const recent = this.recent;
    if (recent === null) return out;
    const first = n < RECENT_QUERIES ? 0 : this.recentNext;
    for (let i = 0; i < n; i++) {
      const r = (first + i) % RECENT_QUERIES;
      out.set(recent.subarray(r * this.dim, (r + 1) * this.dim), i * this.dim);
    }
    return out;
  }

  /** The opened base (manifest, memory plan), or null. */
  get base(): OpenedIndex | null {
    return this.opened;
  }

  /** Where base searches run from now on, and this collection's number among its contexts. */
  useExecutor(executor: Executor, id: number): void {
    this.executor = executor;
    this.s.id = id;
  }

  /**
   * Swaps in a new base (a compaction's; synchronous, with the live store's rebase): caches of the
   * old one go, and searches that were out on it run again.
   */
  rebase(opened: OpenedIndex): void {
    this.opened = opened;
    this.index = opened.index;
    this.byLabel = null;
    this.sorted = null;
    this.generation++;
  }

  /**
   * The live points, copied: the base's unhidden nodes and the fresh points named (a compaction's
   * cut). Cosine vectors are stored normalised already.
   */
  livePoints(freshIds: readonly number[]): { vectors: Float32Array; ids: Float64Array } {
    const live = this.live;
    const index = this.index;
    const dim = this.dim;
    const baseNodes: number[] = [];
    if (index !== null) {
      const labels = index.labels;
      for (let n = 0; n < labels.length; n++) if (live === null || live.baseLive(labels[n]!)) baseNodes.push(n);
    }
    const freshLive = live === null ? [] : freshIds.filter((id) => live.fresh.has(id));
    const count = baseNodes.length + freshLive.length;
    const vectors = new Float32Array(new SharedArrayBuffer(count * dim * 4));
    const ids = new Float64Array(new SharedArrayBuffer(count * 8));
    baseNodes.forEach((n, i) => {
      vectors.set(index!.vectorOf(n), i * dim);
      ids[i] = index!.labels[n]!;
    });
    freshLive.forEach((id, j) => {
      vectors.set(live!.fresh.vector(id)!, (baseNodes.length + j) * dim);
      ids[baseNodes.length + j] = id;
    });
    return { vectors, ids };
  }

  get queueDepth(): number {
    return this.queue.depth;
  }

  /** The admission queue's counters, and the tasks its searches left in (queries per task = completed / tasks). */
  get queueStats(): { depth: number; waiting: number; rejected: number; completed: number; failed: number; tasks: number } {
    const q = this.queue;
    return { depth: q.depth, waiting: q.waitingCount, rejected: q.rejected, completed: q.completed, failed: q.failed, tasks: this.tasksDispatched };
  }

  /**
   * What state the collection serves in: red once it takes no searches (the engine is closing),
   * yellow while a tier is not where the memory plan put it (a NUMA bind fell back to emulation, or
   * pages found on another node), green otherwise.
   */
  health(): CollectionHealth {
    if (this.refused) return { status: 'red', reasons: ['shutting down: new searches are refused'] };
    const reasons: string[] = [];
    // Qdrant shows an optimizing collection yellow: here, the fresh graph being rebuilt.
    if (this.live?.fresh.rebuilding) reasons.push('optimizing: rebuilding the fresh graph (its deleted points outnumbered the live ones)');
    if (this.compacting) reasons.push('optimizing: compacting the fresh points and deletes into a new tiered index');
    const refusal = this.live?.writeRefusal;
    if (refusal) reasons.push(`writes refused: ${refusal.message}`);
    const behind = this.live?.catchingUp;
    if (behind) reasons.push(`catching up with the shared write log: applied ${behind.at} of ${behind.to}`);
    if (this.index === null || this.opened === null) return { status: reasons.length > 0 ? 'yellow' : 'green', reasons };
    for (const t of this.index.tiers) {
      const wanted = this.opened.memory.nodes[t.index] ?? null;
      const b = t.binding;
      if (wanted !== null && b.mode !== 'numa') reasons.push(`${t.kind} tier: planned on node ${wanted}, running ${b.mode}: ${b.note}`);
      else if ((b.pagesElsewhere ?? 0) > 0) reasons.push(`${t.kind} tier: ${b.pagesElsewhere} of ${b.pages} pages are not on node ${b.node}`);
    }
    return { status: reasons.length > 0 ? 'yellow' : 'green', reasons };
  }

  info(): CollectionInfo {
    const l = this.live;
    const live = l
      ? { fresh: l.fresh.size, hidden: l.tombstones.size, appliedLsn: Number(l.appliedLsn), writeLogSeq: l.replicated ? l.sharedSeq : null }
      : null;
    if (this.index === null || this.opened === null) {
      const shape = this.shape!;
      const count = this.count();
      return {
        name: this.name,
        health: this.health(),
        segments: 0,
        dim: this.dim,
        metric: this.metric,
        count,
        indexed: count,
        tiers: [],
        placement: { policy: 'none', dramBudgetBytes: 0, predictedDramShare: null, promotionPool: null },
        code: null,
        build: { m: shape.m, efConstruction: shape.efConstruction, source: null },
        memory: { mode: 'emulated', reason: 'no base index yet: every point is in the fresh layer, in DRAM' },
        live,
      };
    }
    const index = this.index;
    const m = this.opened.manifest;
    const resident = index.residentBytes();
    const count = this.count();
    return {
      name: this.name,
      health: this.health(),
      segments: index.tiers.reduce((a, t) => a + t.segments.length, 0),
      dim: m.dim,
      metric: m.metric,
      count,
      indexed: count - m.graph.unreachable,
      tiers: index.tiers.map((t, i) => ({
        kind: t.kind,
        nodes: i === 0 ? index.plan.adjacencyInDram : m.count - index.plan.adjacencyInDram,
        holds: holdsOf(index, i),
        bytes: m.tiers[i]?.bytes ?? 0,
        residentBytes: resident[i] ?? 0,
        binding: t.binding,
      })),
      placement: {
        policy: m.placement.policy,
        dramBudgetBytes: m.plan.dramBudgetBytes,
        predictedDramShare: m.placement.predictedDramShare,
        promotionPool: index.pool ? { slots: index.pool.layout.slots, tenants: index.pool.tenants().length, moves: index.pool.moves } : null,
      },
      code: m.plan.code ? { kind: m.plan.code.kind, bytesPerVector: m.plan.code.stride } : null,
      build: { m: m.build.m, efConstruction: m.build.efConstruction, source: m.build.source },
      memory: { mode: this.opened.memory.mode, reason: this.opened.memory.reason },
      live,
    };
  }

  /** Validates a request; errors name the field. */
  private job(r: SearchRequest): Job {
    const dim = this.dim;
    if (!(r.vector instanceof Float32Array)) throw invalidArgument('vector', 'must be an array of numbers');
    checkQueryVector(r.vector, dim, 'vector');
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
    return { vector, k: r.k, ef, rerank, rescoreAll: r.rescoreAll ?? false, exact: r.exact ?? false, mode };
  }

  search(r: SearchRequest): Promise<SearchResponse> {
    if (this.refused) return Promise.reject(this.refused);
    let job: Job;
    try {
      job = this.job(r);
    } catch (e) {
      return Promise.reject(e);
    }
    // Only a writable collection is ever laid out again, so only it keeps its load.
    if (!job.exact && this.live !== null) this.record(job.vector);
    const ctl = { ...(r.timeoutMs !== undefined ? { timeoutMs: r.timeoutMs } : {}), ...(r.signal ? { signal: r.signal } : {}) };
    const live = this.live;
    if (live === null) return this.queue.submit(job, ctl);
    if (this.index === null) return Promise.resolve({ hits: freshHits(live, job), stats: statsView(new Float64Array(STAT_FIELDS)), mode: job.mode });
    // Base hits that are hidden (deleted or superseded) are dropped after the search: ask the base
    // for enough more that k usually survive. The merge happens when the base answers, in one
    // synchronous step, against the live state of that moment: a write applied meanwhile is seen
    // whole in both parts (its tombstone and its fresh copy), never half.
    const kBase = baseK(job.k, live.tombstones.size, this.index.meta.count);
    const baseJob = kBase === job.k ? job : { ...job, k: kBase, ef: Math.max(job.ef, kBase), rerank: job.rerank === 0 ? 0 : Math.max(job.rerank, kBase) };
    const generation = this.generation;
    return this.queue.submit(baseJob, ctl).then((res) => {
      // A compaction swapped the base while this search was out: its hits are the old base's, which
      // the live state no longer describes. Ask again (the swap is rare; the search is short).
      if (generation !== this.generation) return this.search(r);
      const hits = res.hits.filter((h) => live.baseLive(h.id));
      hits.push(...freshHits(live, job));
      hits.sort((a, b) => a.distance - b.distance || a.id - b.id);
      if (hits.length > job.k) hits.length = job.k;
      return { hits, stats: res.stats, mode: res.mode };
    });
  }

  /**
   * Logs and applies an upsert; resolves once it is durable and visible to search. `writeId` names
   * the write across retries (behind a shared log, a write with the same id is applied once).
   */
  upsert(points: KeyedPoint[], writeId?: string): Promise<bigint> {
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
      return { id, uuid, vector, payload: p.payload };
    });
    return this.written(live.upsert(writes, writeId));
  }

  deletePoints(keys: PointKey[], writeId?: string): Promise<bigint> {
    return this.written(this.writable().delete(this.resolveAll(keys), writeId));
  }

  setPayload(keys: PointKey[], payload: Payload, overwrite: boolean, writeId?: string): Promise<bigint> {
    return this.writable().setPayload(this.resolveAll(keys), payload, overwrite, writeId);
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

  payload(id: number): Payload | null {
    return this.live?.payload(id) ?? null;
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
    this.holds++;
    try {
      return submit();
    } finally {
      this.holds--;
      this.pump();
    }
  }

  searchBatch(rs: SearchRequest[]): Promise<SearchResponse[]> {
    return this.together(() => Promise.all(rs.map((r) => this.search(r))));
  }

  private pump(): void {
    if (this.holds > 0) return;
    while (this.tasksInFlight < this.s.maxTasks && this.queue.waitingCount > 0) {
      // Searches waiting are shared out over the idle threads (a batch arriving at idle threads runs on
      // all of them), up to `batch` a task; a busy engine has at most one free slot and fills it.
      const idleThreads = Math.max(1, Math.floor((this.s.maxTasks - this.tasksInFlight) / TASKS_PER_THREAD));
      const share = Math.ceil(this.queue.waitingCount / idleThreads);
      let mode: ExecutionMode | null = null;
      const taken = this.queue.take(Math.min(this.s.batch, share), (j) => {
        mode ??= j.mode;
        return j.mode === mode;
      });
      if (taken.length === 0) return;
      this.dispatch(taken, mode!);
    }
  }

  private dispatch(taken: Array<Pending<Job, SearchResponse>>, mode: ExecutionMode): void {
    const dim = this.dim;
    const n = taken.length;
    const task = allocTask(this.s.id, mode, dim, n);
    taken.forEach((p, i) => {
      task.vectors.set(p.item.vector, i * dim);
      task.k[i] = p.item.k;
      task.ef[i] = p.item.ef;
      task.rerank[i] = p.item.rerank;
      task.prune[i] = p.item.rescoreAll ? 0 : 1;
      task.exact[i] = p.item.exact ? 1 : 0;
    });
    this.tasksInFlight++;
    this.tasksDispatched++;
    const slot = this.running.add(taken);
    let released = false;
    // Free the capacity before answering: a caller that submits again as soon as it has its answer
    // must find room (with maxQueue 1, a closed loop of one client must never see STRATA_OVERLOADED).
    const release = (): void => {
      if (released) return;
      released = true;
      this.running.remove(slot);
      this.tasksInFlight--;
      this.queue.release(n);
    };
    this.executor
      .run(task)
      .then(
        (res) => {
          release();
          taken.forEach((p, i) => {
            const hits = [];
            for (let j = 0; j < p.item.k; j++) {
              const id = res.labels[i * res.kMax + j]!;
              if (id < 0) break;
              hits.push({ id, distance: res.distances[i * res.kMax + j]! });
            }
            const st = res.stats.subarray(i * STAT_FIELDS, (i + 1) * STAT_FIELDS);
            if (!p.settled) {
              addStats(this.totals, st);
              this.searches++;
            }
            p.resolve(new Answer(hits, st, mode));
          });
        },
        (e: Error) => {
          release();
          for (const p of taken) p.reject(e);
        },
      )
      .finally(() => {
        release();
        this.pump();
      });
  }

  count(): number {
    return this.live ? this.live.count() : (this.index?.meta.count ?? 0);
  }

  private labelMap(index: TieredIndex): Map<number, number> {
    if (this.byLabel === null) {
      const m = new Map<number, number>();
      const labels = index.labels;
      for (let i = 0; i < labels.length; i++) m.set(labels[i]!, i);
      this.byLabel = m;
    }
    return this.byLabel;
  }

  /** Whether the base index holds `id` (hidden or not). */
  baseHas(id: number): boolean {
    return this.index !== null && this.labelMap(this.index).has(id);
  }

  /** The stored vector of a point (unit-normalised for cosine), or null. */
  getPoint(id: number): { id: number; vector: Float32Array } | null {
    const live = this.live;
    if (live) {
      const v = live.fresh.vector(id);
      if (v) return { id, vector: v.slice() };
      if (!live.baseLive(id)) return null;
    }
    if (this.index === null) return null;
    const node = this.labelMap(this.index).get(id);
    if (node === undefined) return null;
    return { id, vector: this.index.vectorOf(node).slice() };
  }

  /** Points in ascending id order, from `offset` (an id) on: the base's live ones and the fresh ones. */
  scroll(offset: number | null, limit: number): { points: Array<{ id: number; vector: Float32Array }>; next: number | null } {
    const from = offset ?? Number.NEGATIVE_INFINITY;
    const live = this.live;
    const fresh = live ? live.fresh.ids() : [];
    const labels = this.index?.labels ?? null;
    const order = this.baseOrder();
    let f = lowerBound(fresh.length, (i) => fresh[i]!, from);
    let b = labels === null ? 0 : lowerBound(order.length, (i) => labels[order[i]!]!, from);
    const ids: number[] = [];
    // One more than asked for: its id is the next page's offset.
    while (ids.length <= limit) {
      let bi = Number.POSITIVE_INFINITY;
      while (labels !== null && b < order.length) {
        const id = labels[order[b]!]!;
        if (live === null || live.baseLive(id)) {
          bi = id;
          break;
        }
        b++;
      }
      const fi = f < fresh.length ? fresh[f]! : Number.POSITIVE_INFINITY;
      if (bi === Number.POSITIVE_INFINITY && fi === Number.POSITIVE_INFINITY) break;
      // A base id with a fresh copy is hidden, so the two never hold the same live id.
      if (bi < fi) {
        ids.push(bi);
        b++;
      } else {
        ids.push(fi);
        f++;
      }
    }
    const next = ids.length > limit ? ids.pop()! : null;
    return { points: ids.map((id) => this.getPoint(id)!), next };
  }

  /** The base's node numbers in ascending label order (computed once: the base is immutable). */
  private baseOrder(): Int32Array {
    if (this.sorted === null) {
      const labels = this.index?.labels ?? new Float64Array(0);
      this.sorted = Int32Array.from({ length: labels.length }, (_, i) => i).sort((a, b) => labels[a]! - labels[b]!);
    }
    return this.sorted;
  }

  /** Stops taking new searches (they fail with `e`); those already queued or running go on. */
  refuse(e: Error): void {
    this.refused = e;
  }

  /** Fails every search still queued or running with `e` (a running one's late answer is dropped). */
  abandon(e: StrataError): void {
    this.queue.drainWaiting(e);
    for (const taken of this.running.values()) for (const p of taken) p.reject(e);
  }

  get busy(): boolean {
    return this.queue.depth > 0;
  }
}

/** Query vectors a collection keeps of its live load (the profile of its next layout). */
export const RECENT_QUERIES = 1000;

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

function freshHits(live: LiveStore, job: Job): Array<{ id: number; distance: number }> {
  return job.exact ? live.fresh.exact(job.vector, job.k) : live.fresh.search(job.vector, job.k, job.ef);
}

/** First i in 0..n whose value at(i) (ascending in i) is at least x. */
function lowerBound(n: number, at: (i: number) => number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
/** Nodes whose records of each kind live in tier i. */
function holdsOf(index: TieredIndex, i: number): TierInfo['holds'] {
  const n = index.meta.count;
  const inTier = (dramCount: number): number => (i === 0 ? dramCount : n - dramCount);
  return {
    neighbourLists: inTier(index.plan.adjacencyInDram),
    vectors: inTier(index.plan.vectorsInDram),
    codes: index.codes ? inTier(n) : 0,
    labels: inTier(0),
  };
}
