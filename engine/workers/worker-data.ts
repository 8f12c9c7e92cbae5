// What search workers receive at start: shared handles of every collection and their near-data links.
import type { SearcherOptions } from '../../index/search/searcher.js';
import type { SharedIndexHandle } from '../../index/tiered/tiered-index.js';
import type { NdpOptions } from '../../index/search/near-data.js';

export interface CollectionLinks {
  handle: SharedIndexHandle;
  ndp: {
    expanderOfSegment: Int32Array;
    /** [thread][group][expander] */
    channelsByThread: SharedArrayBuffer[][][];
    bell: SharedArrayBuffer;
  } | null;
}

export interface SearchWorkerData {
  collections: CollectionLinks[];
  searcherOptions: Omit<SearcherOptions, 'trace'>;
  ndpOptions: NdpOptions;
  /** Shared counter: each worker takes the next thread number. */
  threadCounter: SharedArrayBuffer;
  /** The filter arena (engine/filter-arena.ts): filtered queries' bitsets. */
  filters: SharedArrayBuffer;
  /** CPUs of the DRAM tier's node, where search threads run; null: no pinning (no NUMA plan). */
  cpus: number[] | null;
}
