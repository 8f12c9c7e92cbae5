// The JSON report: enough to reproduce and compare a run — the machine, package versions, every
// parameter, what the server said about the collection, and one result per (ef, concurrency, rate).
import { readFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { StrataError, errorMessage } from '../common/errors.js';
import { projectRoot } from '../common/paths.js';
import type { GroundTruthInfo } from './ground-truth.js';
import type { LatencySummary } from './latency.js';
import type { StopReason } from './loops.js';
import type { TargetInfo } from './probe.js';
import type { RecallSummary } from './recall.js';
import type { CostMeans } from './recorder.js';

export const REPORT_SCHEMA = 'strata-loadgen/1';

/** The load generator's protocols: Strata's REST (JSON, MessagePack), Strata's gRPC (strata.v1), Qdrant's gRPC (the official client), pgvector. */
export const PROTOCOLS = ['json', 'msgpack', 'grpc', 'qdrant-grpc', 'pgvector'] as const;
export type Protocol = (typeof PROTOCOLS)[number];
export type LoopMode = 'closed' | 'open';

/** What a filtered step measured beyond an unfiltered one: its family and the answers' completeness. */
export interface FamilyResult {
  family: string;
  kind: string;
  /** Mean share of the base rows a query's filter matches. */
  selectivity: number;
  /** Fewest rows any query's filter matches. */
  matchedMin: number;
  /** Queries whose filter matches fewer than k rows (judged on the rows they match). */
  queriesMatchingFewerThanK: number;
  /** Queries answered with fewer than k points while at least k match. */
  shortAnswers: number;
  /** The plans the server reported (answers that asked for stats), by name. */
  plans: Record<string, number>;
}

export interface StepResult {
  /** With --filters: the step's filter family. */
  filter?: FamilyResult;
  ef: number;
  /** Closed loop: workers; open loop: connections (REST) the load is spread over. */
  concurrency: number;
  mode: LoopMode;
  /** Open loop: requests per second the timetable offered; null in closed loop. */
  offeredRate: number | null;
  /** Seconds from the first send to the last answer. */
  seconds: number;
  /** That window on the wall clock (ms since the epoch), so a tool measuring the server meanwhile can take the same span (absent in reports written before it was added). */
  window?: { fromEpochMs: number; toEpochMs: number };
  /** Requests sent (with --batch n, each carries n queries). */
  sent: number;
  /** Queries answered. */
  ok: number;
  /** Queries that failed (a failed batch counts each of its queries). */
  failed: number;
  /** Queries answered per second. */
  qps: number;
  /** Requests answered (successfully or not) per second: compare with offeredRate. */
  achievedRate: number;
  recall: RecallSummary | null;
  /** From the send (closed loop) or the intended send time (open loop) to the whole answer. */
  latencyMs: LatencySummary;
  /** Open loop: from the actual send; its gap to latencyMs is queueing in the client. */
  serviceLatencyMs: LatencySummary | null;
  /** Failed queries by HTTP status, gRPC code name or transport error. */
  errors: Record<string, number>;
  /** One message per status in `errors`. */
  errorExamples: Record<string, string>;
  /** Means of Strata's per-query `strata` stats over the successful answers; null if none carried them. */
  strata: CostMeans | null;
  stoppedBy: StopReason;
  /** Open loop: requests due but never sent (client backlog at the drain deadline). */
  unsent: number | null;
  /** HdrHistogram of latencyMs in µs, compressed base64 (HdrHistogram's own encoding). */
  histogram: string;
}

export interface Machine {
  os: { platform: string; release: string; arch: string };
  cpus: { count: number; model: string };
  memoryBytes: number;
  node: string;
}

export interface ReportParameters {
  url: string;
  grpcUrl: string | null;
  collection: string;
  queries: string;
  queryCount: number;
  gt: string | null;
  base: string | null;
  k: number;
  /** Queries per request (1: single searches; absent in reports written before it was added). */
  batch?: number;
  ef: number[];
  concurrency: number[];
  rate: number[] | null;
  durationS: number;
  maxRequests: number;
  warmup: number;
  protocol: Protocol;
  mode: LoopMode;
  maxInflight: number;
  timeoutMs: number;
  /** Whether a key was sent (never the key). */
  apiKey: boolean;
  allowRemote: boolean;
  /** With --filters: the cases file, the payloads and pgvector's iterative scan. */
  filters?: string;
  payloads?: string | null;
  iterativeScan?: string | null;
}

export interface LoadgenReport {
  schema: typeof REPORT_SCHEMA;
  label: string;
  startedAt: string;
  finishedAt: string;
  machine: Machine;
  packages: Record<string, string | null>;
  parameters: ReportParameters;
  target: TargetInfo;
  groundTruth: GroundTruthInfo | null;
  results: StepResult[];
}

export function machineInfo(): Machine {
  const c = cpus();
  return {
    os: { platform: platform(), release: release(), arch: arch() },
    cpus: { count: availableParallelism(), model: c[0]?.model.trim() ?? 'unknown' },
    memoryBytes: totalmem(),
    node: process.version,
  };
}

const PACKAGES = ['undici', '@grpc/grpc-js', '@grpc/proto-loader', 'msgpackr', 'hdr-histogram-js', 'vega', 'vega-lite'] as const;

export function packageVersions(): Record<string, string | null> {
  const version = (file: string): string | null => {
    try {
      return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? null;
    } catch {
      return null;
    }
  };
  const root = projectRoot();
  const out: Record<string, string | null> = { strata: version(join(root, 'package.json')) };
  for (const p of PACKAGES) out[p] = version(join(root, 'node_modules', p, 'package.json'));
  return out;
}

/** A report read back from disk, checked enough to plot it. */
export function parseReport(text: string, file: string): LoadgenReport {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new StrataError('STRATA_INVALID_ARGUMENT', `${file}: not JSON (${errorMessage(e)})`, { field: 'reports', file });
  }
  const r = v as Partial<LoadgenReport> | null;
  if (r === null || typeof r !== 'object' || r.schema !== REPORT_SCHEMA || !Array.isArray(r.results)) {
    throw new StrataError('STRATA_INVALID_ARGUMENT', `${file}: not a strata loadgen report (expected "schema": "${REPORT_SCHEMA}" and a results list)`, {
      field: 'reports',
      file,
    });
  }
  return r as LoadgenReport;
}
