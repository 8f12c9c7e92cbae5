// What every search thread builds once: the contexts of every collection over the shared index
// memory, its own near-data channels, and its place on the DRAM node's CPUs.
import { TieredIndex } from '../../index/tiered/tiered-index.js';
import { setThreadAffinity } from '../../tiers/numa.js';
import { NdpRunner } from '../ndp/ndp-runner.js';
import { makeContext, type SearchContext } from '../run-task.js';
import type { SearchWorkerData } from './worker-data.js';

export function searchContexts(data: SearchWorkerData): SearchContext[] {
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
    return makeContext(index, data.searcherOptions, ndp, data.filters);
  });
}
