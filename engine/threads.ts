// The engine's threads: the search threads (one shared-memory ring each, or searches inline on the
// calling thread) over every collection's base, replaced whole when a base changes, and for
// near-data execution the tier workers, one per CXL expander per collection. Also opens bases with
// the query slots and traversal lanes those threads need.
import { Piscina } from 'piscina';
import { invalidArgument, errorMessage } from '../common/errors.js';
import { fromWorker } from '../common/worker-errors.js';
import { type OpenedIndex, openIndex, openIndexInTurns } from '../index/open-index.js';
import type { AllocateOptions } from '../index/tiered/tiered-index.js';
import { NamedBase } from '../index/named/named-base.js';
import type { MemoryRequest } from '../index/tiered/memory-binding.js';
import type { CostModelParams } from '../tiers/cost-model.js';
import { readTopology } from '../tiers/topology.js';
import type { Collection } from './collection.js';
import { HybridExecutor, InlineExecutor, workerFile, type Executor } from './executor.js';
import { createChannel } from './ndp/channel.js';
import type { NdpOptions } from '../index/search/near-data.js';
import { NdpRunner } from './ndp/ndp-runner.js';
import { RingExecutor } from './ring-executor.js';
import { RING_HITS_PER_QUERY, ringShape } from './ring-protocol.js';
import { FilterArena } from './filter-arena.js';
import { makeContext, type SearchContext } from './run-task.js';
import type { EngineOptions } from './types.js';
import type { ServeArgs, ServeReport } from './workers/tier-worker.js';
import type { CollectionLinks, SearchWorkerData } from './workers/worker-data.js';

/** Task slots per search thread's ring: tasks beyond them wait in the executor. */
const RING_SLOTS = 4;

/** How long threads get to stop once the drain is over before they are terminated, ms. */
export const THREAD_STOP_GRACE_MS = 1000;

/** The engine options the threads are made from, defaults applied (Engine.open). */
export type ThreadSettings = Required<
  Pick<
    EngineOptions,
    | 'searchThreads'
    | 'inflightPerThread'
    | 'maxQueue'
    | 'mode'
    | 'ndp'
    | 'expanders'
    | 'inject'
    | 'prefetch'
    | 'pipeline'
    | 'defaultEf'
    | 'spin'
    | 'nearData'
    | 'valueRuns'
  >
>;

export interface ThreadResources {
  cost: CostModelParams;
  memory: MemoryRequest;
  /** Largest tier segment, bytes (absent: the loader's default). */
  segmentBytes?: number;
  /** EngineOptions.inlineEfBudget (0: every task to the search threads). */
  inlineEfBudget: number;
}

interface TierPool {
  pool: Piscina;
  done: Promise<ServeReport>;
  stop: Int32Array;
  /** The expander's doorbell, rung at shutdown so a sleeping worker sees the stop flag at once. */
  bell: Int32Array;
  expander: number;
}

const EMPTY_REPORT: ServeReport = { messages: 0, ids: 0, busyMs: 0, injectedNs: 0 };

/** Whether `p` settles within `ms` (it is left running either way). */
export function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    const settled = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    p.then(settled, settled);
  });
}

export class SearchThreads {
  /** Filtered searches' bitsets, shared with every search thread (kept across swaps: old threads may still read them). */
  readonly filters = new FilterArena();
  private executor: Executor = new InlineExecutor([]);
  private readonly tierPools: TierPool[] = [];
  private cpus: number[] | null = null;
  private readonly threads: number;
  private readonly ndpOptions: NdpOptions;
  private readonly searcherOptions: SearchWorkerData['searcherOptions'];

  constructor(
    private readonly s: ThreadSettings,
    private readonly r: ThreadResources,
  ) {
    this.threads = Math.max(1, s.searchThreads);
    this.ndpOptions = {
      inflight: s.inflightPerThread,
      pipeline: s.pipeline,
      prefetch: s.prefetch,
      inject: s.inject,
      cost: r.cost,
      model: s.nearData,
      spin: s.spin,
    };
    this.searcherOptions = { cost: r.cost, inject: s.inject, prefetch: s.prefetch };
  }

  /** Where tasks run now. */
  get current(): Executor {
    return this.executor;
  }

  /**
   * Whether the search threads can be replaced at run time (compactions, created collections):
   * local search only, since near-data tier workers hold channels per thread and collection, made
   * once at start.
   */
  get canSwap(): boolean {
    return !this.s.ndp;
  }

  /**
   * Opens a base with a query slot for every query in flight and a fused-traversal lane for every
   * searcher that may run at once: each search thread's local searcher and near-data runner, and
   * the main thread's (exact queries, searchThreads 0). `ndp`: the CXL tier gets at least one group
   * of segments per expander.
   */
  openBase(dir: string, ndp = false): OpenedIndex {
    return openIndex(dir, this.r.memory, this.allocation(ndp));
  }

  /** openBase over turns of the event loop: a base opened while the process serves. */
  openBaseInTurns(dir: string): Promise<OpenedIndex> {
    return openIndexInTurns(dir, this.r.memory, this.allocation(false));
  }

  private allocation(ndp: boolean): AllocateOptions {
    const s = this.s;
    return {
      slots: this.threads * s.inflightPerThread * (s.ndp ? 2 : 1) + 8,
      fusedLanes: 2 * this.threads + 2,
      ...(ndp ? { cxlSegments: s.expanders } : {}),
      ...(this.r.segmentBytes ? { segmentBytes: this.r.segmentBytes } : {}),
    };
  }

  /**
   * Opens a secondary vector's base (index/named/) as the threads' bases are opened, over turns of
   * the event loop: they search it from the next swap on; until then (and in near-data mode) a
   * local searcher of the main thread's.
   */
  async openNamed(dir: string): Promise<NamedBase> {
    return new NamedBase(await this.openBaseInTurns(dir), this.searcherOptions);
  }

  /** Starts the threads over the bases opened at start (and their tier workers, with ndp). */
  start(opened: OpenedIndex[]): void {
    const s = this.s;
    const groups = s.pipeline ? 2 : 1;
    const links: CollectionLinks[] = opened.map((oi) => {
      if (!s.ndp) return { handle: oi.index.share(), ndp: null };
      // Tier workers compute on the vectors of the CXL tier: one group of vector segments per expander.
      const segs = oi.index.vectors.segments;
      const cxlSegs = segs.map((seg, i) => (seg.tier === 1 ? i : -1)).filter((i) => i >= 0);
      const expanderOfSegment = new Int32Array(segs.length).fill(-1);
      cxlSegs.forEach((seg, j) => (expanderOfSegment[seg] = Math.floor((j * s.expanders) / Math.max(1, cxlSegs.length))));
      const perExpander = Math.ceil(Math.max(1, cxlSegs.length) / s.expanders);
      const maxEntries = s.inflightPerThread * perExpander + 4;
      const channelsByThread = Array.from({ length: this.threads }, () =>
        Array.from({ length: groups }, () => Array.from({ length: s.expanders }, () => createChannel(maxEntries))),
      );
      return { handle: oi.index.share(), ndp: { expanderOfSegment, channelsByThread, bell: new SharedArrayBuffer(4 * s.expanders) } };
    });
    // On a real NUMA plan, threads run on the CPUs of the DRAM tier's node (the CXL node has none).
    const plan = opened[0]?.memory;
    this.cpus = plan && plan.mode === 'numa' && plan.nodes[0] !== null ? (readTopology().nodes.find((n) => n.id === plan.nodes[0])?.cpus ?? null) : null;
    links.forEach((l, ci) => {
      if (l.ndp) this.startTierWorkers(l, opened[ci]!);
    });
    this.executor = this.executorOver(
      links,
      opened.map((oi) => oi.index.meta.dim),
      () =>
        opened.map((oi, ci) => {
          const l = links[ci]!;
          const ndp = l.ndp
            ? new NdpRunner(
                oi.index,
                { expanderOfSegment: l.ndp.expanderOfSegment, channels: l.ndp.channelsByThread[0]!, bell: new Int32Array(l.ndp.bell) },
                this.ndpOptions,
              )
            : null;
          return makeContext(oi.index, this.searcherOptions, ndp, this.filters.buffer);
        }),
    );
  }

  /** Tier workers of one collection: one per expander, each serving every search thread's channels. */
  private startTierWorkers(l: CollectionLinks, oi: OpenedIndex): void {
    const ndp = l.ndp!;
    for (let e = 0; e < this.s.expanders; e++) {
      const stop = new Int32Array(new SharedArrayBuffer(4));
      const pool = new Piscina({ filename: workerFile('tier-worker.js'), minThreads: 1, maxThreads: 1, idleTimeout: 2 ** 31 - 1 });
      const args: ServeArgs = {
        handle: l.handle,
        expander: e,
        channels: ndp.channelsByThread.flatMap((byGroup) => byGroup.map((byExp) => byExp[e]!)),
        bell: ndp.bell,
        stop: stop.buffer as SharedArrayBuffer,
        node: oi.index.tiers[1]!.binding.node,
        spin: this.s.spin,
        cpus: this.cpus,
      };
      const done = (pool.run(args) as Promise<ServeReport>).catch((err: unknown) => {
        throw fromWorker(err, 'tier worker');
      });
      done.catch(() => {});
      this.tierPools.push({ pool, done, stop, bell: new Int32Array(ndp.bell), expander: e });
    }
  }

  /** Search threads (or the inline executor) over these links; `inline` makes the inline contexts. */
  private executorOver(all: CollectionLinks[], dims: number[], inline: () => SearchContext[]): Executor {
    const s = this.s;
    if (s.searchThreads === 0) return new InlineExecutor(inline());
    const data: SearchWorkerData = {
      collections: all,
      searcherOptions: this.searcherOptions,
      ndpOptions: this.ndpOptions,
      threadCounter: new SharedArrayBuffer(4),
      filters: this.filters.buffer,
      cpus: this.cpus,
    };
    const ring = new RingExecutor(s.searchThreads, data, ringShape(RING_SLOTS, s.inflightPerThread, Math.max(1, ...dims), RING_HITS_PER_QUERY));
    // The inline contexts of near-data mode would share thread 0's channels: cheap tasks stay local-only.
    const budget = this.r.inlineEfBudget;
    return budget > 0 && !s.ndp ? new HybridExecutor(new InlineExecutor(inline()), ring, budget) : ring;
  }

  /**
   * Replaces the search threads by threads over every collection's current base (after a swap),
   * each collection told its new number; the old threads finish the tasks they hold and stop.
   */
  swap(collections: Collection[]): void {
    if (!this.canSwap) throw invalidArgument('mode', 'bases cannot join near-data search threads after start (their tier channels are made once)');
    const bases = collections.filter((c) => c.base !== null);
    // Each collection's base, then every secondary vector's base, each a context of its own.
    const named = bases.flatMap((c) => c.namedBases().map((n) => ({ c, ...n })));
    const indexes = [...bases.map((c) => c.base!.index), ...named.map((n) => n.base.opened.index)];
    const next = this.executorOver(
      indexes.map((index) => ({ handle: index.share(), ndp: null })),
      indexes.map((index) => index.meta.dim),
      () => indexes.map((index) => makeContext(index, this.searcherOptions, null, this.filters.buffer)),
    );
    const old = this.executor;
    this.executor = next;
    bases.forEach((c, id) => c.useExecutor(next, id));
    named.forEach((n, j) => n.c.useNamedExecutor(n.name, n.base, next, bases.length + j));
    for (const c of collections) if (c.base === null) c.useExecutor(next, -1);
    old.close().catch((e: unknown) => process.emitWarning(`old search threads did not stop cleanly: ${errorMessage(e)}`));
  }

  /**
   * Stops the search threads (terminated when `late`, or when they do not stop within
   * THREAD_STOP_GRACE_MS) and tells the tier workers to stop.
   */
  async stop(late: boolean): Promise<void> {
    // A thread still holding a task after the deadline may never return it: terminate rather than wait.
    if (late || !(await settlesWithin(this.executor.close(), THREAD_STOP_GRACE_MS))) await this.executor.destroy();
    for (const t of this.tierPools) {
      Atomics.store(t.stop, 0, 1);
      Atomics.add(t.bell, t.expander, 1);
      Atomics.notify(t.bell, t.expander);
    }
  }

  /** The tier workers' reports once they stopped (after stop()); one that does not stop is destroyed. */
  tierReports(): Promise<ServeReport[]> {
    return Promise.all(
      this.tierPools.map(async (t) => {
        const stopped = await settlesWithin(t.done, THREAD_STOP_GRACE_MS);
        const report = stopped ? await t.done.catch(() => EMPTY_REPORT) : EMPTY_REPORT;
        await (stopped ? t.pool.close() : t.pool.destroy());
        return report;
      }),
    );
  }
}
