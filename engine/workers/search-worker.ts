// A search thread fed by piscina: runs query tasks (local or near-data) over the shared index memory
// of every collection. Contexts are built on the first task and kept (search-contexts.ts). Its twin
// fed by the shared-memory ring is ring-worker.ts.
import { workerData } from 'node:worker_threads';
import { move } from 'piscina';
import { throwsAcrossThreads } from '../../common/worker-errors.js';
import { runTask, type SearchContext } from '../run-task.js';
import { resultBuffer, taskFromBuffer } from '../task.js';
import { searchContexts } from './search-contexts.js';
import type { SearchWorkerData } from './worker-data.js';

const data = workerData as SearchWorkerData;
let contexts: SearchContext[] | null = null;

/** One task in, one result out, each a single transferred buffer (engine/task.ts). */
function search(buf: ArrayBuffer): ArrayBuffer {
  contexts ??= searchContexts(data);
  const task = taskFromBuffer(buf);
  return move(resultBuffer(runTask(contexts[task.collection]!, task))) as ArrayBuffer;
}

// Stopping (the pool closes, or a compaction replaced it): the searchers give back their query
// slots and traversal lanes, which live in the indexes' shared memory, not this thread's.
process.once('exit', () => {
  for (const c of contexts ?? []) {
    c.searcher.close();
    c.ndp?.close();
  }
});

export default throwsAcrossThreads(search);
