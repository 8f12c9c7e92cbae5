import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { LatencyRecorder } from '../../loadgen/latency.js';

describe('latency percentiles (HDR histogram)', () => {
  it('reports p50/p95/p99/p99.9/max of 1..1000 ms within the histogram precision (0.1%)', () => {
    const r = new LatencyRecorder();
    // shuffled order: percentiles must not depend on arrival order
    for (let i = 0; i < 1000; i++) r.record(((i * 379) % 1000) + 1);
    const s = r.summary();
    expect(s.count).toBe(1000);
    expect(Math.abs(s.p50Ms - 500) / 500).toBeLessThan(1e-3);
    expect(Math.abs(s.p95Ms - 950) / 950).toBeLessThan(1e-3);
    expect(Math.abs(s.p99Ms - 990) / 990).toBeLessThan(1e-3);
    expect(Math.abs(s.p999Ms - 999) / 999).toBeLessThan(1e-3);
    expect(Math.abs(s.maxMs - 1000) / 1000).toBeLessThan(1e-3);
    expect(Math.abs(s.meanMs - 500.5) / 500.5).toBeLessThan(1e-3);
    r.destroy();
  });

  it('never reports a percentile above the largest value recorded', () => {
    const r = new LatencyRecorder();
    for (let i = 0; i < 10; i++) r.record(13.641);
    const s = r.summary();
    expect(s.p999Ms).toBeLessThanOrEqual(s.maxMs);
    expect(s.p50Ms).toBeLessThanOrEqual(s.maxMs);
    r.destroy();
  });

  it('keeps sub-millisecond latencies (µs resolution) and clamps zero to 1 µs', () => {
    const r = new LatencyRecorder();
    r.record(0.25);
    r.record(0);
    const s = r.summary();
    expect(s.maxMs).toBeCloseTo(0.25, 3);
    expect(s.p50Ms).toBeCloseTo(0.001, 4);
    r.destroy();
  });

  it('reports zeros, not NaN, when nothing was recorded', () => {
    const r = new LatencyRecorder();
    expect(r.summary()).toEqual({ count: 0, meanMs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, p999Ms: 0, maxMs: 0 });
    r.destroy();
  });

  it('encodes the histogram so that it decodes to the same counts', () => {
    const r = new LatencyRecorder();
    for (let i = 1; i <= 100; i++) r.record(i / 10);
    const back = hdr.decodeFromCompressedBase64(r.encoded());
    expect(back.totalCount).toBe(100);
    expect(Math.abs(back.maxValue - 10_000) / 10_000).toBeLessThan(1e-3);
    r.destroy();
  });
});
