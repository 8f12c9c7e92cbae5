// Live re-tiering, two ways on two timers: by compaction, when the share of neighbour-list reads a
// collection serves from DRAM fell well below its share after its last layout (the query load
// moved; the compaction lays it out again profiled with the recorded queries), and in place, by
// rounds of each base's promotion pool (index/tiered/list-pool.ts) between compactions.
import { errorMessage } from '../common/errors.js';
import { STAT } from '../index/search/stats.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { Collection } from './collection.js';

/** Default of OpenEngineOptions.retierDrop, and the searches a share is measured over. */
export const DEFAULT_RETIER_DROP = 0.05;
export const RETIER_WINDOW = 2000;
/** Default of OpenEngineOptions.poolRoundMs, and the searches a round needs (fewer: counts are noise). */
export const DEFAULT_POOL_ROUND_MS = 1000;
export const POOL_ROUND_SEARCHES = 200;

/** How often the DRAM shares are checked, ms. */
const RETIER_CHECK_MS = 1000;

/** Share of neighbour-list reads served from DRAM in a stats total (1 when there were none). */
export function listDramShare(totals: Float64Array): number {
  const d = totals[STAT.adjReadsDram]!;
  const c = totals[STAT.adjReadsCxl]!;
  return d + c > 0 ? d / (d + c) : 1;
}

/** What re-tiering needs of the engine. */
export interface RetieringHost {
  isClosing(): boolean;
  collections(): Collection[];
  /** Starts a compaction (re-tiering by compaction). */
  compact(name: string): Promise<unknown>;
}

export interface RetieringOptions {
  /** Drop of the neighbour-list DRAM share that re-tiers a collection (0: never). */
  retierDrop: number;
  /** Period of the promotion pools' rounds, ms (0: none). */
  poolRoundMs: number;
  /** Whether collections are writable (re-tiering by compaction needs a data directory). */
  writable: boolean;
}

export class Retiering {
  /** Per collection: the searches and stats totals at the start of its current window, and its share after the last layout. */
  private readonly shares = new Map<Collection, { generation: number; searches: number; totals: Float64Array; baseline: number | null }>();
  /** Per collection: the base its pool rounds ran on, and its search count at the last round. */
  private readonly poolRounds = new Map<Collection, { index: TieredIndex; searches: number }>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly host: RetieringHost,
    private readonly o: RetieringOptions,
  ) {
    if (o.poolRoundMs > 0) this.timers.push(setInterval(() => this.poolRound(), o.poolRoundMs));
    if (o.writable && o.retierDrop > 0) this.timers.push(setInterval(() => this.retierCheck(), RETIER_CHECK_MS));
    for (const t of this.timers) t.unref();
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
  }

  /**
   * Each live collection's neighbour-list DRAM share is measured over windows of RETIER_WINDOW
   * searches; the first window after a layout sets its baseline, and a later window retierDrop
   * below it starts a compaction.
   */
  retierCheck(): void {
    const drop = this.o.retierDrop;
    if (this.host.isClosing() || drop <= 0) return;
    for (const c of this.host.collections()) {
      if (c.live === null || c.index === null || c.compacting !== null) continue;
      let w = this.shares.get(c);
      if (w === undefined || w.generation !== c.generation) {
        w = { generation: c.generation, searches: c.searches, totals: c.totals.slice(), baseline: null };
        this.shares.set(c, w);
        continue;
      }
      if (c.searches - w.searches < RETIER_WINDOW) continue;
      const window = c.totals.map((v, i) => v - w!.totals[i]!);
      const share = listDramShare(window);
      w.searches = c.searches;
      w.totals = c.totals.slice();
      if (w.baseline === null) w.baseline = share;
      else if (share < w.baseline - drop) {
        const name = c.name;
        this.host.compact(name).catch((e: unknown) => process.emitWarning(`re-tiering compaction of ${name} failed: ${errorMessage(e)}`));
      }
    }
  }

  /**
   * A round of each collection's promotion pool (ListPool.rebalance) once it served
   * POOL_ROUND_SEARCHES searches since the last one; a round whose refills wait for running
   * traversals finishes on a later tick. Runs on the main thread, beside searches on every thread:
   * a round reads the counters, swaps table entries and copies a few lists (no search waits).
   */
  poolRound(): Array<{ collection: string; promoted: number; demoted: number }> {
    const out: Array<{ collection: string; promoted: number; demoted: number }> = [];
    if (this.host.isClosing()) return out;
    for (const c of this.host.collections()) {
      const index = c.index;
      const pool = index?.pool;
      if (!index || !pool) continue;
      const last = this.poolRounds.get(c);
      if (last === undefined || last.index !== index) {
        // A new base (a compaction): its pool starts from the placement; count from here.
        this.poolRounds.set(c, { index, searches: c.searches });
        continue;
      }
      if (c.searches - last.searches < POOL_ROUND_SEARCHES) {
        const promoted = pool.refill();
        if (promoted > 0) out.push({ collection: c.name, promoted, demoted: 0 });
        continue;
      }
      const r = pool.rebalance();
      last.searches = c.searches;
      out.push({ collection: c.name, promoted: r.promoted, demoted: r.demoted });
    }
    return out;
  }
}
