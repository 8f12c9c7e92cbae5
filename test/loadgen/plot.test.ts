import { describe, expect, it } from 'vitest';
import { plotRows, renderSvg } from '../../loadgen/plot.js';
import { REPORT_SCHEMA, parseReport, type LoadgenReport, type StepResult } from '../../loadgen/report.js';
import { xmlElements } from './svg.js';

function step(ef: number, concurrency: number, recall: number, qps: number): StepResult {
  const lat = { count: 100, meanMs: 1, p50Ms: (concurrency / qps) * 1000, p95Ms: 2, p99Ms: 3, p999Ms: 4, maxMs: 5 };
  return {
    ef,
    concurrency,
    mode: 'closed',
    offeredRate: null,
    seconds: 1,
    sent: 100,
    ok: 100,
    failed: 0,
    qps,
    achievedRate: qps,
    recall: { mean: recall, p5: recall - 0.1, p50: recall, min: recall - 0.2, queries: 100, tieAware: true, duplicates: 0 },
    latencyMs: lat,
    serviceLatencyMs: null,
    errors: {},
    errorExamples: {},
    strata: null,
    stoppedBy: 'duration',
    unsent: null,
    histogram: '',
  };
}

function report(label: string, speed: number): LoadgenReport {
  const results = [16, 32, 64, 128].flatMap((ef, i) => [1, 8].map((c) => step(ef, c, 0.8 + i * 0.05, (speed * c ** 0.5) / (i + 1))));
  return {
    schema: REPORT_SCHEMA,
    label,
    startedAt: '',
    finishedAt: '',
    machine: { os: { platform: 'linux', release: '', arch: 'x64' }, cpus: { count: 2, model: '' }, memoryBytes: 0, node: 'v20' },
    packages: {},
    target: { collection: 'c', dim: 8, distance: 'Euclid', points: 10, server: { title: null, version: null }, strata: null },
    groundTruth: null,
    results,
    parameters: {
      url: 'http://127.0.0.1:1',
      grpcUrl: null,
      collection: 'c',
      queries: 'q',
      queryCount: 100,
      gt: null,
      base: null,
      k: 10,
      ef: [16, 32, 64, 128],
      concurrency: [1, 8],
      rate: null,
      durationS: 1,
      maxRequests: 100,
      warmup: 0,
      protocol: 'json',
      mode: 'closed',
      maxInflight: 1,
      timeoutMs: 1,
      apiKey: false,
      allowRemote: false,
    },
  };
}

describe('plots', () => {
  it("marks each label's Pareto front among its steps", () => {
    const { steps } = plotRows([report('a', 1000)]);
    // at each ef, concurrency 8 beats concurrency 1 (same recall, more QPS): only c = 8 is on the front
    expect(steps.filter((s) => s.front).map((s) => [s.ef, s.concurrency])).toEqual([
      [16, 8],
      [32, 8],
      [64, 8],
      [128, 8],
    ]);
  });

  it('numbers reports that share a label so that each stays its own series', () => {
    const { steps } = plotRows([report('same', 1000), report('same', 500)]);
    expect(new Set(steps.map((s) => s.label))).toEqual(new Set(['same', 'same (2)']));
  });

  it('renders a well-formed SVG with one series per report and both panels', async () => {
    const svg = await renderSvg([report('DRAM 100%', 4000), report('DRAM 10%', 2500)], { title: 'two budgets' });
    const names = xmlElements(svg);
    expect(names[0]).toBe('svg');
    expect(names.filter((n) => n === 'path').length).toBeGreaterThan(10);
    expect(svg).toContain('>DRAM 100%<');
    expect(svg).toContain('>DRAM 10%<');
    expect(svg).toContain('recall@10 vs QPS');
    expect(svg).toContain('latency percentiles vs load');
    expect(svg).toContain('>two budgets<');
    expect(svg.length).toBeLessThan(300_000);
  });

  it('plots latency alone when no report has recall, or a single recall value', async () => {
    const r = report('no gt', 1000);
    r.results = r.results.map((s) => ({ ...s, recall: null }));
    const svg = await renderSvg([r]);
    xmlElements(svg);
    expect(svg).not.toContain('recall@10 vs QPS');
    expect(svg).toContain('latency percentiles vs load');
    const one = report('one ef', 1000);
    one.results = one.results.filter((s) => s.ef === 64);
    expect(await renderSvg([one])).not.toContain('recall@10 vs QPS');
  });

  it('refuses a file that is not a load generator report, naming it', () => {
    expect(() => parseReport('{"results": []}', 'x.json')).toThrow(/x\.json: not a strata loadgen report/);
    expect(() => parseReport('nope', 'y.json')).toThrow(/y\.json: not JSON/);
  });
});
