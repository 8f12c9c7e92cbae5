// A search thread's near-data runner: binds its links to the tier workers (the shared-memory
// channels and their doorbell, made by the engine) to the near-data driver, which runs the queries
// beside the traversal it drives (index/search/near-data.ts).
import { NearDataDriver, type NdpOptions } from '../../index/search/near-data.js';
import type { TieredIndex } from '../../index/tiered/tiered-index.js';
import type { QueryTask, TaskResult } from '../task.js';
import { ChannelClient } from './channel.js';

export interface NdpLinks {
  /** Expander of each segment of the vector store; -1 for segments this thread computes (DRAM). */
  expanderOfSegment: Int32Array;
  /** channels[group][expander]. */
  channels: SharedArrayBuffer[][];
  bell: Int32Array;
}

export class NdpRunner {
  private readonly driver: NearDataDriver;

  constructor(index: TieredIndex, links: NdpLinks, opts: NdpOptions) {
    const channels = links.channels.map((group) => group.map((sab, e) => new ChannelClient(sab, links.bell, e)));
    this.driver = new NearDataDriver(index, links.expanderOfSegment, channels, opts);
  }

  run(task: QueryTask, out: TaskResult): void {
    this.driver.run(task, out);
  }

  close(): void {
    this.driver.close();
  }
}
