// One loaded index as a collection: admission (bounded queue, deadlines, cancellation), batching of
// requests into tasks for the search threads, and the read-only point API.
import { invalidArgument, type StrataError } from '../common/errors.js';
import type { OpenedIndex } from '../index/open-index.js';
import { normalizeRows } from '../index/kernels/reference.js';
import { DEFAULT_RERANK_FACTOR, MAX_EF, MAX_K } from '../index/search/searcher.js';
import { addStats, type SearchStats, STAT_FIELDS, statsView } from '../index/search/stats.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { Executor } from './executor.js';
import { AdmissionQueue, type Pending } from './queue.js';
import { allocTask } from './task.js';
import type { CollectionHealth, CollectionInfo, ExecutionMode, SearchRequest, SearchResponse, TierInfo } from './types.js';

/** Largest finite float32. */
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * The largest magnitude a query element may have in a `dim`-dimensional collection. Distances are
 * summed in float32: with every |q_i| and |x_i| at most this, (q_i - x_i)^2 summed over dim terms
 * and q·x both stay below FLOAT32_MAX, so no distance overflows to Infinity or NaN (which would rank
 * nothing and serialise as a null score). Stored vectors are far below it in any real data set.
 */
export function maxQueryMagnitude(dim: number): number {
  return Math.sqrt(FLOAT32_MAX / (4 * dim));
}

/** Throws STRATA_INVALID_ARGUMENT naming `field` unless every element is finite and within maxQueryMagnitude. */
export function checkQueryVector(v: Float32Array, dim: number, field: string): void {
  const bound = maxQueryMagnitude(dim);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (Math.abs(x) <= bound) continue;
    if (!Number.isFinite(x)) throw invalidArgument(field, `element ${i} is not a finite float32 number (${String(x)})`);
    throw invalidArgument(
      field,
      `element ${i} is ${x.toPrecision(3)}, beyond ±${bound.toPrecision(3)}: the largest magnitude a ${dim}-d query can have before its distances overflow float32`,
      { limit: bound },
    );
  }
}

interface Job {
  vector: Float32Array;
  k: number;
  ef: number;
  rerank: number;
  rescoreAll: boolean;
  exact: boolean;
  mode: ExecutionMode;
}

export interface CollectionSettings {
  id: number;
  name: string;
  maxQueue: number;
  batch: number;
  maxTasks: number;
  defaultMode: ExecutionMode;
  ndpAvailable: boolean;
  defaultEf: number;
}

export class Collection {
  readonly name: string;
  readonly index: TieredIndex;
  private readonly queue: AdmissionQueue<Job, SearchResponse>;
  private tasksInFlight = 0;
  private byLabel: Map<number, number> | null = null;
  private sorted: Int32Array | null = null;
  /** Summed per-query counters of every answered search (for metrics). */
  readonly totals = new Float64Array(STAT_FIELDS);
  searches = 0;
  /** Set when the engine closes: new searches fail with it at once. */
  private refused: Error | null = null;
  /** Requests handed to the executor and not yet answered, per task. */
  private readonly running = new Set<Array<Pending<Job, SearchResponse>>>();

  constructor(
    private readonly opened: OpenedIndex,
    private readonly executor: Executor,
    private readonly s: CollectionSettings,
  ) {
    this.name = s.name;
    this.index = opened.index;
    this.queue = new AdmissionQueue<Job, SearchResponse>(s.maxQueue, () => this.pump());
  }

  get queueDepth(): number {
    return this.queue.depth;
  }

  get queueStats(): { depth: number; waiting: number; rejected: number; completed: number; failed: number } {
    const q = this.queue;
    return { depth: q.depth, waiting: q.waitingCount, rejected: q.rejected, completed: q.completed, failed: q.failed };
  }

  /**
   * What state the collection serves in: red once it takes no searches (the engine is closing),
   * yellow while a tier is not where the memory plan put it (a NUMA bind fell back to emulation, or
   * pages found on another node), green otherwise.
   */
  health(): CollectionHealth {
    if (this.refused) return { status: 'red', reasons: ['shutting down: new searches are refused'] };
    const reasons: string[] = [];
    for (const t of this.index.tiers) {
      const wanted = this.opened.memory.nodes[t.index] ?? null;
      const b = t.binding;
      if (wanted !== null && b.mode !== 'numa') reasons.push(`${t.kind} tier: planned on node ${wanted}, running ${b.mode}: ${b.note}`);
      else if ((b.pagesElsewhere ?? 0) > 0) reasons.push(`${t.kind} tier: ${b.pagesElsewhere} of ${b.pages} pages are not on node ${b.node}`);
    }
    return { status: reasons.length > 0 ? 'yellow' : 'green', reasons };
  }

  info(): CollectionInfo {
    const m = this.opened.manifest;
    const resident = this.index.residentBytes();
    return {
      name: this.name,
      health: this.health(),
      segments: this.index.tiers.reduce((a, t) => a + t.segments.length, 0),
      dim: m.dim,
      metric: m.metric,
      count: m.count,
      indexed: m.count - m.graph.unreachable,
      tiers: this.index.tiers.map((t, i) => ({
        kind: t.kind,
        nodes: i === 0 ? this.index.plan.adjacencyInDram : m.count - this.index.plan.adjacencyInDram,
        holds: holdsOf(this.index, i),
        bytes: m.tiers[i]?.bytes ?? 0,
        residentBytes: resident[i] ?? 0,
        binding: t.binding,
      })),
      placement: { policy: m.placement.policy, dramBudgetBytes: m.plan.dramBudgetBytes, predictedDramShare: m.placement.predictedDramShare },
      code: m.plan.code ? { kind: m.plan.code.kind, bytesPerVector: m.plan.code.stride } : null,
      build: { m: m.build.m, efConstruction: m.build.efConstruction, source: m.build.source },
      memory: { mode: this.opened.memory.mode, reason: this.opened.memory.reason },
    };
  }

  /** Validates a request; errors name the field. */
  private job(r: SearchRequest): Job {
    const dim = this.index.meta.dim;
    if (!(r.vector instanceof Float32Array)) throw invalidArgument('vector', 'must be an array of numbers');
    if (r.vector.length !== dim) throw invalidArgument('vector', `expected ${dim} dimensions, got ${r.vector.length}`);
    checkQueryVector(r.vector, dim, 'vector');
    if (!Number.isInteger(r.k) || r.k < 1 || r.k > MAX_K) throw invalidArgument('limit', `must be an integer in 1..${MAX_K}, got ${r.k}`);
    const ef = r.ef ?? Math.max(this.s.defaultEf, r.k);
    if (!Number.isInteger(ef) || ef < 1 || ef > MAX_EF) throw invalidArgument('ef', `must be an integer in 1..${MAX_EF}, got ${ef}`);
    const rerank = r.rerank ?? DEFAULT_RERANK_FACTOR * r.k;
    if (!Number.isInteger(rerank) || (rerank !== 0 && (rerank < r.k || rerank > MAX_RERANK)))
      throw invalidArgument('rerank', `must be 0 (no re-rank) or an integer in limit..${MAX_RERANK} (${r.k}..${MAX_RERANK}), got ${rerank}`);
    const mode = r.mode ?? this.s.defaultMode;
    if (mode !== 'local' && mode !== 'ndp') throw invalidArgument('mode', `must be local or ndp, got ${String(mode)}`);
    if (mode === 'ndp' && !this.s.ndpAvailable) throw invalidArgument('mode', 'ndp needs the engine started with tier workers');
    let vector = r.vector;
    if (this.index.meta.metric === 'cosine') {
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
    return this.queue.submit(job, { ...(r.timeoutMs !== undefined ? { timeoutMs: r.timeoutMs } : {}), ...(r.signal ? { signal: r.signal } : {}) });
  }

  searchBatch(rs: SearchRequest[]): Promise<SearchResponse[]> {
    return Promise.all(rs.map((r) => this.search(r)));
  }

  private pump(): void {
    while (this.tasksInFlight < this.s.maxTasks && this.queue.waitingCount > 0) {
      let mode: ExecutionMode | null = null;
      const taken = this.queue.take(this.s.batch, (j) => {
        mode ??= j.mode;
        return j.mode === mode;
      });
      if (taken.length === 0) return;
      this.dispatch(taken, mode!);
    }
  }

  private dispatch(taken: Array<Pending<Job, SearchResponse>>, mode: ExecutionMode): void {
    const dim = this.index.meta.dim;
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
    this.running.add(taken);
    let released = false;
    // Free the capacity before answering: a caller that submits again as soon as it has its answer
    // must find room (with maxQueue 1, a closed loop of one client must never see STRATA_OVERLOADED).
    const release = (): void => {
      if (released) return;
      released = true;
      this.running.delete(taken);
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
            // The stats object is built only if read: most answers do not carry it (with_stats).
            let view: SearchStats | null = null;
            p.resolve({
              hits,
              get stats(): SearchStats {
                view ??= statsView(st);
                return view;
              },
              mode,
            });
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
    return this.index.meta.count;
  }

  private labelMap(): Map<number, number> {
    if (this.byLabel === null) {
      const m = new Map<number, number>();
      const labels = this.index.labels;
      for (let i = 0; i < labels.length; i++) m.set(labels[i]!, i);
      this.byLabel = m;
    }
    return this.byLabel;
  }

  /** The stored vector of a point (unit-normalised for cosine), or null. */
  getPoint(id: number): { id: number; vector: Float32Array } | null {
    const node = this.labelMap().get(id);
    if (node === undefined) return null;
    return { id, vector: this.index.vectorOf(node).slice() };
  }

  /** Points in ascending id order, from `offset` (an id) on. */
  scroll(offset: number | null, limit: number): { points: Array<{ id: number; vector: Float32Array }>; next: number | null } {
    if (this.sorted === null) {
      const labels = this.index.labels;
      this.sorted = Int32Array.from({ length: labels.length }, (_, i) => i).sort((a, b) => labels[a]! - labels[b]!);
    }
    const labels = this.index.labels;
    const order = this.sorted;
    let lo = 0;
    let hi = order.length;
    if (offset !== null) {
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (labels[order[mid]!]! < offset) lo = mid + 1;
        else hi = mid;
      }
    } else hi = order.length;
    const points = [];
    let i = lo;
    for (; i < order.length && points.length < limit; i++) points.push({ id: labels[order[i]!]!, vector: this.index.vectorOf(order[i]!).slice() });
    return { points, next: i < order.length ? labels[order[i]!]! : null };
  }

  /** Stops taking new searches (they fail with `e`); those already queued or running go on. */
  refuse(e: Error): void {
    this.refused = e;
  }

  /** Fails every search still queued or running with `e` (a running one's late answer is dropped). */
  abandon(e: StrataError): void {
    this.queue.drainWaiting(e);
    for (const taken of this.running) for (const p of taken) p.reject(e);
  }

  get busy(): boolean {
    return this.queue.depth > 0;
  }
}

/** Largest re-rank pool a request may ask for. */
export const MAX_RERANK = MAX_EF;

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
