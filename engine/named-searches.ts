// A collection's secondary vectors on the search threads: each vector's tiered base joins the
// threads at each swap (engine/threads.ts) as a context of its own, with a dispatcher of its own
// (admission, batching), and a vector's search sends its base's part there, its bitset of nodes in
// the filter arena, as the collection's own filtered searches do. A base the threads do not hold
// (none yet, or near-data mode, whose threads are made once) is searched on the main thread.
import type { DenseHit } from '../index/fresh/dense-column.js';
import type { BaseQuery, NamedBase } from '../index/named/named-base.js';
import type { BaseRunner } from '../index/named/named-column.js';
import { defaultRerank } from '../index/search/bounds.js';
import { Dispatcher, type QueueStats } from './dispatch.js';
import type { Executor } from './executor.js';
import { filterWords, type FilterArena } from './filter-arena.js';
import type { SearchControl } from './filtered-search.js';

export interface NamedSearchSettings {
  maxQueue: number;
  batch: number;
  maxTasks: number;
  filters: FilterArena;
}

interface OnThreads {
  base: NamedBase;
  dispatcher: Dispatcher;
}

export class NamedSearches {
  /** The base of each vector the threads hold now, and its dispatcher. */
  private readonly byName = new Map<string, OnThreads>();

  constructor(private readonly s: NamedSearchSettings) {}

  /** The threads now hold `base` (vector `name`'s) as context `id` of `executor`. */
  use(name: string, base: NamedBase, executor: Executor, id: number): void {
    const known = this.byName.get(name);
    if (known !== undefined) {
      // A vector keeps its size: its dispatcher (and the searches queued there) goes on.
      known.base = base;
      known.dispatcher.useExecutor(executor, id);
      return;
    }
    const dim = base.opened.index.meta.dim;
    this.byName.set(name, {
      base,
      dispatcher: new Dispatcher({ dim, maxQueue: this.s.maxQueue, batch: this.s.batch, maxTasks: this.s.maxTasks }, executor, id),
    });
  }

  /** The threads hold no base of the collection any more (it lost its base, or the threads went). */
  clear(): void {
    this.byName.clear();
  }

  /**
   * Forgets every vector but `names` (those with a base now): a vector whose base a compaction
   * dropped would otherwise keep its dispatcher, bound to threads that are gone, and its closed base.
   * One with searches still queued or out stays until they end (a shutdown drains and abandons
   * them through it); a later swap forgets it.
   */
  keepOnly(names: ReadonlySet<string>): void {
    for (const [name, on] of this.byName) if (!names.has(name) && on.dispatcher.depth === 0) this.byName.delete(name);
  }

  /** How vector `name`'s base part of a search runs: on the threads when they hold that base, else here. */
  runner(name: string, ctl: SearchControl): BaseRunner {
    return (base, query, signal) => {
      const on = this.byName.get(name);
      return on !== undefined && on.base === base ? this.onThreads(on, query, ctl) : base.run(query, signal);
    };
  }

  private async onThreads(on: OnThreads, b: BaseQuery, ctl: SearchControl): Promise<DenseHit[]> {
    if (b.k === 0) return [];
    const arena = this.s.filters;
    let at = -1;
    if (b.bits !== null) {
      // The bitset, then an empty runs block and an empty link block (filter-arena.ts's layout).
      at = arena.alloc(filterWords(on.base.count, 0, 0));
      arena.words.set(b.bits, at);
    }
    try {
      const job = {
        vector: b.q,
        k: b.k,
        ef: Math.max(b.ef, b.k),
        rerank: defaultRerank(b.k),
        rescoreAll: false,
        exact: b.exact,
        mode: 'local' as const,
        filter: at < 0 ? null : { at, matched: b.matched, plan: b.plan },
      };
      return (await on.dispatcher.submit(job, ctl)).hits;
    } finally {
      if (at >= 0) arena.release(at);
    }
  }

  /** Each vector's dispatcher's counters (searches sent to the threads), by name. */
  stats(): Record<string, QueueStats> {
    return Object.fromEntries([...this.byName].map(([name, on]) => [name, on.dispatcher.stats]));
  }

  /** Whether any vector's searches are queued or out on the threads (a shutdown drains them). */
  get busy(): boolean {
    for (const on of this.byName.values()) if (on.dispatcher.depth > 0) return true;
    return false;
  }

  /** Fails every search queued or out on the threads with `e`. */
  abandon(e: Error): void {
    for (const on of this.byName.values()) on.dispatcher.abandon(e);
  }
}
