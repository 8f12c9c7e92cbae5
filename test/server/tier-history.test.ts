// The tier history (server/tier-history.ts): per collection, the difference of the engine's
// cumulative counters between two samples, as searches, DRAM share of reads and bytes per second;
// the server's search latencies of the second as QPS, p50 and p99; at most HISTORY_SAMPLES kept.
import { describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../engine/public.js';
import { STAT, STAT_FIELDS } from '../../index/search/stats.js';
import { HISTORY_SAMPLES, TierHistory } from '../../server/tier-history.js';

function fakeEngine() {
  const totals = new Float64Array(STAT_FIELDS);
  const state = { searches: 0, totals, poolMoves: 0 };
  const engine = {
    metrics: () => ({ collections: [{ name: 'c', searches: state.searches, totals: state.totals, poolMoves: state.poolMoves, queue: {} }] }),
  } as unknown as Engine;
  return { engine, state };
}

describe('tier history', () => {
  it('turns counter differences into a sample: searches, DRAM share of reads, bytes per second, latency percentiles', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const { engine, state } = fakeEngine();
      const h = new TierHistory(engine);
      h.sample();
      expect(h.of('c')).toEqual([]);
      state.searches = 5;
      state.totals[STAT.adjReadsDram] = 20;
      state.totals[STAT.codeReadsDram] = 10;
      state.totals[STAT.vecReadsCxl] = 10;
      state.totals[STAT.adjBytesCxl] = 3000;
      state.totals[STAT.vecBytesCxl] = 1000;
      state.totals[STAT.codeBytesDram] = 500;
      state.poolMoves = 7;
      for (let ms = 1; ms <= 100; ms++) h.request(ms / 1000);
      vi.setSystemTime(1_002_000);
      h.sample();
      const [s] = h.of('c');
      expect(s).toEqual({ at: 1_002_000, searches: 5, dramShare: 0.75, dramBytesPerS: 250, cxlBytesPerS: 2000, poolMoves: 7, qps: 50, p50Ms: 51, p99Ms: 100 });
      // A second with nothing: no reads, no latency.
      vi.setSystemTime(1_003_000);
      h.sample();
      expect(h.of('c')[1]).toMatchObject({ searches: 0, dramShare: null, poolMoves: 0, qps: 0, p50Ms: null, p99Ms: null });
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes its baseline when started: the searches of the first second are in the first sample', () => {
    const { engine, state } = fakeEngine();
    state.searches = 100;
    const h = new TierHistory(engine);
    h.start();
    h.stop();
    state.searches = 103;
    h.sample();
    expect(h.of('c').map((x) => x.searches)).toEqual([3]);
  });

  it(`keeps the last ${HISTORY_SAMPLES} samples`, () => {
    const { engine, state } = fakeEngine();
    const h = new TierHistory(engine);
    for (let i = 0; i <= HISTORY_SAMPLES + 5; i++) {
      state.searches = i;
      h.sample();
    }
    const samples = h.of('c');
    expect(samples).toHaveLength(HISTORY_SAMPLES);
    expect(samples.every((s) => s.searches === 1)).toBe(true);
  });
});
