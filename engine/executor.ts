// Where query tasks run: the interface every executor keeps, the inline executor (on the calling
// thread: tests, CLI) and the hybrid one (cheap tasks inline, the rest on the search threads of
// ring-executor.ts). All run the same runTask; the collection does not know which it talks to.
import { join } from 'node:path';
import { projectRoot } from '../common/paths.js';
import { runTask, type SearchContext } from './run-task.js';
import type { QueryTask, TaskResult } from './task.js';

export interface Executor {
  readonly threads: number;
  run(task: QueryTask): Promise<TaskResult>;
  /** Busy time of the search threads so far, ms (utilisation = busy / (threads × wall)). */
  busyMs(): number;
  /** Stops the threads once their tasks are done. */
  close(): Promise<void>;
  /** Terminates the threads now: tasks still running fail (a stuck search cannot hold up shutdown). */
  destroy(): Promise<void>;
  /** Tasks run on the calling thread though search threads exist (HybridExecutor only). */
  readonly inlineTasks?: number;
}

export function workerFile(name: string): string {
  return join(projectRoot(), 'dist', 'engine', 'workers', name);
}

export class InlineExecutor implements Executor {
  readonly threads = 0;
  private busy = 0;
  constructor(private readonly contexts: SearchContext[]) {}
  run(task: QueryTask): Promise<TaskResult> {
    // Yield to the event loop first, so that queued I/O and timers interleave with searches.
    return new Promise((resolve, reject) => {
      setImmediate(() => {
        try {
          const r = runTask(this.contexts[task.collection]!, task);
          this.busy += r.busyMs;
          resolve(r);
        } catch (e) {
          reject(e as Error);
        }
      });
    });
  }
  busyMs(): number {
    return this.busy;
  }
  async close(): Promise<void> {
    for (const c of this.contexts) {
      c.searcher.close();
      c.ndp?.close();
    }
  }
  destroy(): Promise<void> {
    return this.close();
  }
}

/**
 * The event-loop budget of one inline task, as the sum of its queries' beam widths (max(ef, k)): a
 * search's cost grows with its beam (~1.5–2 µs per unit at 100–128 dimensions here), so 1,024 keeps a
 * task near 2 ms, far below a health probe's patience, while a query at the default ef runs inline whole.
 */
export const INLINE_EF_BUDGET = 1024;

/**
 * Whether a task is cheap enough to run on the event loop: no exact (brute-force) query, and the
 * beams it searches within budget — a query's beam is max(ef, k) wide (traversal.ts), and its
 * re-rank pool is cut from that beam.
 */
export function cheapTask(task: QueryTask, efBudget: number): boolean {
  let sum = 0;
  for (let i = 0; i < task.ef.length; i++) {
    if (task.exact[i] !== 0) return false;
    sum += Math.max(task.ef[i]!, task.k[i]!);
  }
  return sum <= efBudget;
}

/**
 * For one effective CPU, where a search thread only takes turns with the event loop on the same CPU
 * and the hand-off is pure cost: cheap tasks (cheapTask) run inline, the rest on the search threads,
 * so that no long search holds the event loop. Counts the tasks it ran inline.
 */
export class HybridExecutor implements Executor {
  readonly threads: number;
  inlineTasks = 0;
  constructor(
    private readonly inline: InlineExecutor,
    private readonly pool: Executor,
    private readonly efBudget: number,
  ) {
    this.threads = pool.threads;
  }
  run(task: QueryTask): Promise<TaskResult> {
    if (cheapTask(task, this.efBudget)) {
      this.inlineTasks++;
      return this.inline.run(task);
    }
    return this.pool.run(task);
  }
  /** The search threads' busy time only (the interface's meaning); inline tasks ran on the event loop. */
  busyMs(): number {
    return this.pool.busyMs();
  }
  async close(): Promise<void> {
    await Promise.all([this.inline.close(), this.pool.close()]);
  }
  async destroy(): Promise<void> {
    await Promise.all([this.inline.destroy(), this.pool.destroy()]);
  }
}
