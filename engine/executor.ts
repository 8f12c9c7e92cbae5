// Where query tasks run: on the calling thread (inline: tests, CLI) or on a piscina pool of search
// threads. Both run the same runTask; the collection does not know which it talks to.
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { projectRoot } from '../common/paths.js';
import { fromWorker } from '../common/worker-errors.js';
import { runTask, type SearchContext } from './run-task.js';
import { type QueryTask, resultFromBuffer, type TaskResult, taskBuffer } from './task.js';
import type { SearchWorkerData } from './workers/worker-data.js';

export interface Executor {
  readonly threads: number;
  run(task: QueryTask): Promise<TaskResult>;
  /** Busy time of the search threads so far, ms (utilisation = busy / (threads × wall)). */
  busyMs(): number;
  /** Stops the threads once their tasks are done. */
  close(): Promise<void>;
  /** Terminates the threads now: tasks still running fail (a stuck search cannot hold up shutdown). */
  destroy(): Promise<void>;
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

export class PoolExecutor implements Executor {
  private readonly pool: Piscina;
  private busy = 0;
  constructor(
    readonly threads: number,
    data: SearchWorkerData,
  ) {
    this.pool = new Piscina({
      filename: workerFile('search-worker.js'),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 2 ** 31 - 1,
      workerData: data,
    });
  }
  async run(task: QueryTask): Promise<TaskResult> {
    try {
      const buf = taskBuffer(task);
      const r = resultFromBuffer((await this.pool.run(buf, { transferList: [buf] })) as ArrayBuffer);
      this.busy += r.busyMs;
      return r;
    } catch (e) {
      // The search worker sends StrataErrors across whole (common/worker-errors.ts); anything else
      // thrown there, or by piscina itself, is the thread failing.
      throw fromWorker(e, 'search thread');
    }
  }
  busyMs(): number {
    return this.busy;
  }
  async close(): Promise<void> {
    await this.pool.close();
  }
  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}
