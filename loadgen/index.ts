// Public surface of the load generator: the CLI commands (loadgen, plot) and tests import from here.
export { runLoadgen, type RunHooks } from './run.js';
export {
  DEFAULT_STATS_EVERY,
  DEFAULT_WARMUP,
  MAX_BATCH,
  resolveOptions,
  stepsOf,
  MAX_STEP_SECONDS,
  MAX_SWEEP_SECONDS,
  MAX_REQUESTS_PER_STEP,
  type LoadgenOptions,
  type ResolvedOptions,
  type StepPlan,
} from './options.js';
export {
  REPORT_SCHEMA,
  PROTOCOLS,
  parseReport,
  type LoadgenReport,
  type StepResult,
  type Protocol,
  type LoopMode,
  type Machine,
  type ReportParameters,
} from './report.js';
export { renderSvg, plotSpec, plotRows, type PlotOptions } from './plot.js';
export { formatTable, stepLine } from './table.js';
export { progressSink, silentProgress, type ProgressSink } from './progress.js';
export { realClock, type Clock } from './clock.js';
export type { TargetInfo } from './probe.js';
export type { GroundTruthInfo } from './ground-truth.js';
export type { RecallSummary } from './recall.js';
export type { LatencySummary } from './latency.js';
export type { CostMeans } from './recorder.js';
