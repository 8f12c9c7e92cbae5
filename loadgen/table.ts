// The human-readable end of a run: one line per finished step (progress) and a table of all steps.
import type { LoadgenReport, StepResult } from './report.js';

const f = (v: number, digits: number): string => (Number.isFinite(v) ? v.toFixed(digits) : '-');

function errorsText(r: StepResult): string {
  const e = Object.entries(r.errors);
  return e.length === 0 ? '0' : e.map(([s, n]) => `${s}:${n}`).join(' ');
}

/** A share as a percentage with the digits a small one needs (0.1%, not 0%). */
const selectivity = (s: number): string => `${f(100 * s, s >= 0.1 ? 0 : s >= 0.01 ? 1 : 2)}%`;

const plansText = (plans: Record<string, number>): string =>
  Object.entries(plans)
    .map(([k, n]) => `${k}:${n}`)
    .join(' ') || '-';

export function stepLine(r: StepResult): string {
  const load = r.offeredRate !== null ? `rate ${r.offeredRate}/s (achieved ${f(r.achievedRate, 0)}/s)` : `c ${r.concurrency}`;
  const recall = r.recall ? ` recall ${f(r.recall.mean, 4)}` : '';
  const fam = r.filter ? `${r.filter.family} (${selectivity(r.filter.selectivity)}, short ${r.filter.shortAnswers}) ` : '';
  return `${fam}ef ${r.ef} ${load}:${recall} qps ${f(r.qps, 0)} p50 ${f(r.latencyMs.p50Ms, 2)} ms p99 ${f(r.latencyMs.p99Ms, 2)} ms errors ${errorsText(r)}`;
}

/** A markdown table (readable as text, pasteable into docs). */
export function formatTable(report: LoadgenReport): string {
  const open = report.parameters.mode === 'open';
  const filtered = report.results.some((r) => r.filter !== undefined);
  const head = [
    ...(filtered ? ['family', 'selectivity'] : []),
    'ef',
    open ? 'conn' : 'conc',
    ...(open ? ['offered/s', 'achieved/s'] : []),
    'recall',
    'p5',
    'min',
    'QPS',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'p99.9 ms',
    'max ms',
    'errors',
    'dist/q',
    'DRAM share',
    'CXL KB/q',
    'mem µs/q',
    ...(filtered ? ['short', 'plans'] : []),
  ];
  const rows = report.results.map((r) => [
    ...(filtered ? [r.filter?.family ?? '-', r.filter ? selectivity(r.filter.selectivity) : '-'] : []),
    String(r.ef),
    String(r.concurrency),
    ...(open ? [String(r.offeredRate ?? '-'), f(r.achievedRate, 0)] : []),
    r.recall ? f(r.recall.mean, 4) : '-',
    r.recall ? f(r.recall.p5, 2) : '-',
    r.recall ? f(r.recall.min, 2) : '-',
    f(r.qps, 0),
    f(r.latencyMs.p50Ms, 2),
    f(r.latencyMs.p95Ms, 2),
    f(r.latencyMs.p99Ms, 2),
    f(r.latencyMs.p999Ms, 2),
    f(r.latencyMs.maxMs, 2),
    errorsText(r),
    r.strata ? f(r.strata.distanceComputations, 0) : '-',
    r.strata ? `${f(100 * r.strata.dramShare, 1)}%` : '-',
    r.strata ? f(r.strata.bytesCxl / 1024, 1) : '-',
    r.strata ? f(r.strata.modelledMemoryNs / 1000, 1) : '-',
    ...(filtered ? [String(r.filter?.shortAnswers ?? '-'), r.filter ? plansText(r.filter.plans) : '-'] : []),
  ]);
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return (
    [
      `${report.label} — ${report.parameters.protocol}, ${report.parameters.mode} loop, k ${report.parameters.k}, ${report.parameters.queryCount} queries${(report.parameters.batch ?? 1) > 1 ? ` (${report.parameters.batch} a request; QPS in queries, latency per request)` : ''}, ${report.target.dim}-d ${report.target.distance}`,
      line(head),
      line(head.map(() => '---')),
      ...rows.map(line),
    ].join('\n') + '\n'
  );
}
