// A short time series of each collection's tier statistics and the server's search latency, one
// sample a second (GET /collections/{c}/tiers/history, what the dashboard's live page draws): the
// searches answered, the share of their reads served from DRAM, DRAM and CXL bytes read per second,
// the promotion pool's churn,
// and over all collections the search requests per second with their p50 and p99. Built from the
// engine's cumulative counters (engine.metrics()) and the latencies the server observes, so the
// search path does no work for it.
import { type Engine, STAT } from '../engine/public.js';

export interface TierSample {
  /** End of the second, ms since the epoch. */
  at: number;
  searches: number;
  /** Reads (neighbour lists, vectors, codes) served from DRAM over all reads; null with no reads. */
  dramShare: number | null;
  dramBytesPerS: number;
  cxlBytesPerS: number;
  /** Lists moved into the promotion pool in the second (its churn). */
  poolMoves: number;
  /** All collections: search requests answered, and their latency percentiles (null with none). */
  qps: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

/** A sample as the API answers it (GET /collections/{c}/tiers/history). */
export interface TierSampleView {
  at: number;
  searches: number;
  dram_share: number | null;
  dram_bytes_per_s: number;
  cxl_bytes_per_s: number;
  pool_moves: number;
  qps: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

/** The history as the API answers it. */
export interface TierHistoryView {
  period_ms: number;
  samples: TierSampleView[];
  hottest_lists: Array<{ point: number | string; reads: number }>;
}

/** A sample in the API's shape. */
export function sampleView(x: TierSample): TierSampleView {
  return {
    at: x.at,
    searches: x.searches,
    dram_share: x.dramShare,
    dram_bytes_per_s: x.dramBytesPerS,
    cxl_bytes_per_s: x.cxlBytesPerS,
    pool_moves: x.poolMoves,
    qps: x.qps,
    p50_ms: x.p50Ms,
    p99_ms: x.p99Ms,
  };
}

/** Seconds of history kept. */
export const HISTORY_SAMPLES = 300;

const DRAM_READS = [STAT.adjReadsDram, STAT.vecReadsDram, STAT.codeReadsDram];
const CXL_READS = [STAT.adjReadsCxl, STAT.vecReadsCxl, STAT.codeReadsCxl];
const DRAM_BYTES = [STAT.adjBytesDram, STAT.vecBytesDram, STAT.codeBytesDram];
const CXL_BYTES = [STAT.adjBytesCxl, STAT.vecBytesCxl, STAT.codeBytesCxl];

const sum = (t: ArrayLike<number>, at: readonly number[]): number => at.reduce((a, i) => a + (t[i] ?? 0), 0);

function percentile(sorted: Float64Array, q: number): number | null {
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export class TierHistory {
  private readonly samples = new Map<string, TierSample[]>();
  private readonly last = new Map<string, { searches: number; totals: Float64Array; poolMoves: number }>();
  private latencies: number[] = [];
  private lastAt = Date.now();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly engine: Engine,
    readonly periodMs = 1000,
  ) {}

  start(): void {
    if (this.timer) return;
    // The baseline now: searches answered before the first tick belong to the first sample.
    this.sample();
    this.timer = setInterval(() => this.sample(), this.periodMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A search request answered in `seconds` (any protocol). */
  request(seconds: number): void {
    // Bounded: past a second's worth at a high rate, a sample of them is as good for percentiles.
    if (this.latencies.length < 200_000) this.latencies.push(seconds * 1000);
  }

  /** The collection's samples, oldest first (empty before its first second). */
  of(collection: string): readonly TierSample[] {
    return this.samples.get(collection) ?? [];
  }

  /** Takes one sample of every collection (the timer calls it; tests may too). */
  sample(): void {
    const now = Date.now();
    const seconds = Math.max(1e-3, (now - this.lastAt) / 1000);
    this.lastAt = now;
    const lat = Float64Array.from(this.latencies).sort();
    this.latencies = [];
    const server = { qps: lat.length / seconds, p50Ms: percentile(lat, 0.5), p99Ms: percentile(lat, 0.99) };
    const seen = new Set<string>();
    for (const c of this.engine.metrics().collections) {
      seen.add(c.name);
      const before = this.last.get(c.name);
      const totals = Float64Array.from(c.totals);
      this.last.set(c.name, { searches: c.searches, totals, poolMoves: c.poolMoves });
      if (before === undefined) continue;
      const d = (at: readonly number[]): number => Math.max(0, sum(totals, at) - sum(before.totals, at));
      const dram = d(DRAM_READS);
      const cxl = d(CXL_READS);
      const list = this.samples.get(c.name) ?? [];
      list.push({
        at: now,
        searches: Math.max(0, c.searches - before.searches),
        dramShare: dram + cxl > 0 ? dram / (dram + cxl) : null,
        dramBytesPerS: d(DRAM_BYTES) / seconds,
        cxlBytesPerS: d(CXL_BYTES) / seconds,
        poolMoves: Math.max(0, c.poolMoves - before.poolMoves),
        ...server,
      });
      if (list.length > HISTORY_SAMPLES) list.splice(0, list.length - HISTORY_SAMPLES);
      this.samples.set(c.name, list);
    }
    for (const name of [...this.samples.keys()]) if (!seen.has(name)) this.samples.delete(name);
    for (const name of [...this.last.keys()]) if (!seen.has(name)) this.last.delete(name);
  }
}
