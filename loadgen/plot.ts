// SVG plots of one or more reports, rendered by Vega-Lite + Vega in Node (renderer "none": no browser,
// no canvas). Top: recall@k vs QPS on a log axis with each label's Pareto front (ann-benchmarks'
// convention). Bottom, one panel per ef: latency percentiles vs load (concurrency in a closed loop,
// offered rate in an open one), one colour per label.
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { paretoFront } from './pareto.js';
import type { LoadgenReport } from './report.js';

export interface StepRow {
  label: string;
  ef: number;
  concurrency: number;
  load: number;
  recall: number | null;
  qps: number;
  front: boolean;
  tag: string;
}

export interface LatencyRow {
  label: string;
  ef: number;
  load: number;
  percentile: 'p50' | 'p95' | 'p99';
  ms: number;
}

/** Unique series names: a report's label, numbered when two reports share one. */
export function seriesLabels(reports: readonly LoadgenReport[]): string[] {
  const seen = new Map<string, number>();
  return reports.map((r) => {
    const n = (seen.get(r.label) ?? 0) + 1;
    seen.set(r.label, n);
    return n === 1 ? r.label : `${r.label} (${n})`;
  });
}

export function plotRows(reports: readonly LoadgenReport[]): { steps: StepRow[]; latency: LatencyRow[] } {
  const labels = seriesLabels(reports);
  const steps: StepRow[] = [];
  const latency: LatencyRow[] = [];
  reports.forEach((rep, i) => {
    const label = labels[i]!;
    const rows = rep.results.map(
      (r): StepRow => ({
        label,
        ef: r.ef,
        concurrency: r.concurrency,
        load: r.offeredRate ?? r.concurrency,
        recall: r.recall?.mean ?? null,
        qps: r.qps,
        front: false,
        tag: `ef${r.ef}`,
      }),
    );
    const withRecall = rows
      .map((r, j) => ({ j, recall: r.recall, qps: r.qps }))
      .filter((p): p is { j: number; recall: number; qps: number } => p.recall !== null && p.qps > 0);
    for (const k of paretoFront(withRecall)) rows[withRecall[k]!.j]!.front = true;
    steps.push(...rows);
    for (const r of rep.results) {
      if (r.ok === 0) continue;
      const load = r.offeredRate ?? r.concurrency;
      latency.push(
        { label, ef: r.ef, load, percentile: 'p50', ms: r.latencyMs.p50Ms },
        { label, ef: r.ef, load, percentile: 'p95', ms: r.latencyMs.p95Ms },
        { label, ef: r.ef, load, percentile: 'p99', ms: r.latencyMs.p99Ms },
      );
    }
  });
  return { steps, latency };
}

function loadTitle(reports: readonly LoadgenReport[]): string {
  const modes = new Set(reports.map((r) => r.parameters.mode));
  if (modes.size === 1 && modes.has('open')) return 'offered load (requests/s)';
  if (modes.size === 1) return 'concurrency (closed loop)';
  return 'concurrency (closed) or offered rate (open)';
}

export interface PlotOptions {
  title?: string;
}

export function plotSpec(reports: readonly LoadgenReport[], o: PlotOptions = {}): TopLevelSpec {
  const { steps, latency } = plotRows(reports);
  const k = reports[0]?.parameters.k ?? 10;
  const loads = latency.map((r) => r.load).filter((v) => v > 0);
  const logLoad = loads.length > 0 && Math.max(...loads) / Math.min(...loads) >= 4;
  // Series keep the order of the reports given (not alphabetical): "DRAM 100%, 25%, 10%" reads as a sweep.
  const color = {
    field: 'label',
    type: 'nominal',
    title: 'configuration',
    scale: { domain: seriesLabels(reports) },
    legend: { orient: 'bottom', columns: 1, labelLimit: 400 },
  } as const;
  // A recall axis needs at least two recall values (an open-loop sweep at one ef has one).
  const hasRecall = new Set(steps.filter((s) => s.recall !== null).map((s) => s.recall)).size >= 2;
  const efCount = new Set(latency.map((r) => r.ef)).size;
  const recallPanel = {
    title: `recall@${k} vs QPS (log), Pareto front per configuration`,
    width: 520,
    height: 300,
    data: { name: 'steps' },
    transform: [{ filter: 'datum.recall !== null && datum.qps > 0' }],
    layer: [
      {
        mark: { type: 'point', filled: true, size: 50, opacity: 0.55 },
        encoding: {
          x: { field: 'recall', type: 'quantitative', title: `recall@${k}`, scale: { zero: false } },
          y: { field: 'qps', type: 'quantitative', title: 'queries per second (log)', scale: { type: 'log' } },
          color,
          shape: { field: 'concurrency', type: 'nominal', title: 'concurrency' },
        },
      },
      {
        transform: [{ filter: 'datum.front' }],
        mark: { type: 'line', point: true, strokeWidth: 2 },
        encoding: {
          x: { field: 'recall', type: 'quantitative' },
          y: { field: 'qps', type: 'quantitative', scale: { type: 'log' } },
          color,
          order: { field: 'recall', type: 'quantitative' },
        },
      },
      {
        transform: [{ filter: 'datum.front' }],
        mark: { type: 'text', dy: -9, fontSize: 9 },
        encoding: {
          x: { field: 'recall', type: 'quantitative' },
          y: { field: 'qps', type: 'quantitative', scale: { type: 'log' } },
          text: { field: 'tag' },
          color,
        },
      },
    ],
  };
  const latencyPanel = {
    title: 'latency percentiles vs load (log), one panel per ef',
    data: { name: 'latency' },
    facet: { column: { field: 'ef', type: 'ordinal', title: 'ef', header: { labelFontSize: 11 } } },
    spec: {
      width: Math.max(150, Math.floor(560 / Math.max(1, efCount))),
      height: 200,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'load', type: 'quantitative', title: loadTitle(reports), scale: logLoad ? { type: 'log' } : { zero: false } },
        y: { field: 'ms', type: 'quantitative', title: 'latency (ms, log)', scale: { type: 'log' } },
        color,
        strokeDash: {
          field: 'percentile',
          type: 'nominal',
          title: 'percentile',
          sort: ['p50', 'p95', 'p99'],
          legend: { symbolType: 'stroke', symbolStrokeWidth: 2, encode: { symbols: { update: { stroke: { value: '#444' } } } } },
        },
        detail: { field: 'label' },
      },
    },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    ...(o.title !== undefined ? { title: { text: o.title, anchor: 'start', fontSize: 15, offset: 14 } } : {}),
    datasets: { steps: steps as unknown as Record<string, unknown>[], latency: latency as unknown as Record<string, unknown>[] },
    vconcat: hasRecall ? [recallPanel, latencyPanel] : [latencyPanel],
    config: { font: 'sans-serif', view: { stroke: '#ddd' } },
  } as TopLevelSpec;
}

/** The SVG text of the plot. */
export async function renderSvg(reports: readonly LoadgenReport[], o: PlotOptions = {}): Promise<string> {
  const vg = compile(plotSpec(reports, o)).spec;
  const view = new vega.View(vega.parse(vg), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
