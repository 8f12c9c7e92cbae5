// Latency percentiles from an HDR histogram: values are recorded in microseconds with 3 significant
// digits (0.1% resolution) from 1 µs to an hour, so p99.9 and max stay exact enough whatever the
// spread, in constant memory however many requests a step sends.
import * as hdr from 'hdr-histogram-js';

export const MAX_TRACKABLE_US = 3_600_000_000;

export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
}

export class LatencyRecorder {
  private readonly h: hdr.Histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: MAX_TRACKABLE_US,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });

  /** Records one latency given in milliseconds (clamped to 1 µs .. 1 h). */
  record(ms: number): void {
    const us = Math.min(MAX_TRACKABLE_US, Math.max(1, Math.round(ms * 1000)));
    this.h.recordValue(us);
  }

  get count(): number {
    return this.h.totalCount;
  }

  summary(): LatencySummary {
    // HDR answers a percentile with the top of its bucket, which can pass the largest value recorded.
    const at = (p: number): number => (this.h.totalCount === 0 ? 0 : Math.min(this.h.getValueAtPercentile(p), this.h.maxValue) / 1000);
    return {
      count: this.h.totalCount,
      meanMs: this.h.totalCount === 0 ? 0 : this.h.mean / 1000,
      p50Ms: at(50),
      p95Ms: at(95),
      p99Ms: at(99),
      p999Ms: at(99.9),
      maxMs: this.h.totalCount === 0 ? 0 : this.h.maxValue / 1000,
    };
  }

  /** Compressed, base64 HdrHistogram encoding: lets a report be re-analysed or merged later. */
  encoded(): string {
    return hdr.encodeIntoCompressedBase64(this.h);
  }

  destroy(): void {
    this.h.destroy();
  }
}
