// A search thread: runs query tasks (local or near-data) over the shared index memory of every
// collection. Contexts are built on the first task and kept; the thread claims its own set of
// near-data channels, so each search thread talks to the tier workers over its own channels.
import { workerData } from 'node:worker_threads';
import { move } from 'piscina';
import { throwsAcrossThreads } from '../../common/worker-errors.js';
import { TieredIndex } from '../../index/tiered/tiered-index.js';
import { setThreadAffinity } from '../../tiers/numa.js';
import { NdpRunner } from '../ndp/ndp-runner.js';
import { makeContext, runTask, type SearchContext } from '../run-task.js';
import { resultBuffer, taskFromBuffer } from '../task.js';
import type { SearchWorkerData } from './worker-data.js';

const data = workerData as SearchWorkerData;
let contexts: SearchContext[] | null = null;

function init(): SearchContext[] {
  const me = Atomics.add(new Int32Array(data.threadCounter), 0, 1);
  if (data.cpus !== null) {
    try {
      setThreadAffinity(data.cpus);
    } catch {
      // pinning is an optimisation; the thread searches correctly anywhere
    }
  }
  return data.collections.map((c) => {
    const index = TieredIndex.adopt(c.handle);
    const ndp = c.ndp
      ? new NdpRunner(
          index,
          { expanderOfSegment: c.ndp.expanderOfSegment, channels: c.ndp.channelsByThread[me]!, bell: new Int32Array(c.ndp.bell) },
          data.ndpOptions,
        )
      : null;
    return makeContext(index, data.searcherOptions, ndp);
  });
}

/** One task in, one result out, each a single transferred buffer (engine/task.ts). */
function search(buf: ArrayBuffer): ArrayBuffer {
  contexts ??= init();
  const task = taskFromBuffer(buf);
  return move(resultBuffer(runTask(contexts[task.collection]!, task))) as ArrayBuffer;
}

export default throwsAcrossThreads(search);
