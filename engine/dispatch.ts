// A collection's base searches on their way to the search threads: admission (the bounded queue,
// deadlines, cancellation), the batching of waiting searches into tasks, and the answers coming
// back. The collection decides what to search; this module only decides when and in which task.
import { Slots } from '../common/slots.js';
import { addStats, type SearchStats, STAT_FIELDS, statsView } from '../index/search/stats.js';
import type { Executor } from './executor.js';
import { AdmissionQueue, type Pending } from './queue.js';
import { allocTask } from './task.js';
import type { ExecutionMode, SearchHit, SearchResponse } from './types.js';

/** A validated search (Collection.job), as the base is asked it. */
export interface SearchJob {
  vector: Float32Array;
  k: number;
  ef: number;
  rerank: number;
  rescoreAll: boolean;
  exact: boolean;
  mode: ExecutionMode;
  /** A filtered search's bitset in the filter arena, its matching base nodes and its plan (FILTER_PLAN); null: no filter. */
  filter: { at: number; matched: number; plan: number } | null;
}

/**
 * Task slots a search thread is given: one running and one waiting behind it, so that a thread
 * finishing a task finds the next one without a round trip to the event loop.
 */
export const TASKS_PER_THREAD = 2;

export interface DispatchSettings {
  dim: number;
  maxQueue: number;
  /** Most searches in one task. */
  batch: number;
  /** Most tasks out at once. */
  maxTasks: number;
}

/** The admission queue's counters, and the tasks its searches left in (queries per task = completed / tasks). */
export interface QueueStats {
  depth: number;
  waiting: number;
  rejected: number;
  completed: number;
  failed: number;
  tasks: number;
}

/**
 * A search's answer; its stats object is built only if read (most answers do not carry it: with_stats).
 * A class, not an object literal with a getter: built as such a literal (fresh accessors each time),
 * answers and their result buffers outlived the scavenges, and most of what the engine allocated
 * was promoted to the old space (test/engine/young-garbage.test.ts).
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

export class Dispatcher {
  private readonly queue: AdmissionQueue<SearchJob, SearchResponse>;
  private tasksInFlight = 0;
  private tasksDispatched = 0;
  /** Open together() calls: while any is, queued searches wait for the last of its searches. */
  private holds = 0;
  /** Requests handed to the executor and not yet answered, per task (Slots: see common/slots.ts). */
  private readonly running = new Slots<Array<Pending<SearchJob, SearchResponse>>>();
  /** Summed per-query counters of every answered search (for metrics). */
  readonly totals = new Float64Array(STAT_FIELDS);
  searches = 0;

  constructor(
    private readonly s: DispatchSettings,
    private executor: Executor,
    /** The collection's number among the executor's contexts (-1: no base index). */
    private id: number,
  ) {
    this.queue = new AdmissionQueue<SearchJob, SearchResponse>(s.maxQueue, () => this.pump());
  }

  /** Where tasks run from now on, and the collection's number among its contexts. */
  useExecutor(executor: Executor, id: number): void {
    this.executor = executor;
    this.id = id;
  }

  submit(job: SearchJob, ctl: { timeoutMs?: number; signal?: AbortSignal }): Promise<SearchResponse> {
    return this.queue.submit(job, ctl);
  }

  get depth(): number {
    return this.queue.depth;
  }

  get stats(): QueueStats {
    const q = this.queue;
    return { depth: q.depth, waiting: q.waitingCount, rejected: q.rejected, completed: q.completed, failed: q.failed, tasks: this.tasksDispatched };
  }

  /** Runs `submit` with the pump held (Collection.together); holds nest, the outermost one pumps. */
  together<T>(submit: () => T): T {
    this.holds++;
    try {
      return submit();
    } finally {
      this.holds--;
      this.pump();
    }
  }

  /** Fails every search still queued or running with `e` (a running one's late answer is dropped). */
  abandon(e: Error): void {
    this.queue.drainWaiting(e);
    for (const taken of this.running.values()) for (const p of taken) p.reject(e);
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

  private dispatch(taken: Array<Pending<SearchJob, SearchResponse>>, mode: ExecutionMode): void {
    const dim = this.s.dim;
    const n = taken.length;
    const task = allocTask(this.id, mode, dim, n);
    taken.forEach((p, i) => {
      task.vectors.set(p.item.vector, i * dim);
      task.k[i] = p.item.k;
      task.ef[i] = p.item.ef;
      task.rerank[i] = p.item.rerank;
      task.prune[i] = p.item.rescoreAll ? 0 : 1;
      task.exact[i] = p.item.exact ? 1 : 0;
      const f = p.item.filter;
      if (f !== null) {
        task.filterAt[i] = f.at;
        task.matched[i] = f.matched;
        task.plan[i] = f.plan;
      }
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
}
