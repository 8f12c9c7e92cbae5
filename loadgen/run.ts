// A whole load-generator run: check the target, read the queries and the ground truth, then for each
// (ef, concurrency[, rate]) step open a client, warm up, apply load, and turn what was recorded into
// a result. Returns the report; printing and writing files is the caller's (the CLI's) job.
import { readDataset } from '../datasets/index.js';
import { grpcClient } from './clients/grpc.js';
import { pgvectorClient } from './clients/pgvector.js';
import { restClient } from './clients/rest.js';
import { requestCount, type SearchClient } from './clients/types.js';
import { realClock, type Clock } from './clock.js';
import { dimensionMismatch, endpointDown } from './errors.js';
import { groundTruthFromBase, groundTruthFromFile, type LoadedGroundTruth } from './ground-truth.js';
import { runClosed, runOpen, type LoopOutcome } from './loops.js';
import { resolveOptions, stepsOf, type LoadgenOptions, type ResolvedOptions, type StepPlan } from './options.js';
import { probeGrpc, probeRest, type TargetInfo } from './probe.js';
import { probePgvector } from './probe-pgvector.js';
import { silentProgress, type ProgressSink, type StepKey } from './progress.js';
import { recallOfAnswers } from './recall.js';
import { StepRecorder } from './recorder.js';
import { machineInfo, packageVersions, REPORT_SCHEMA, type LoadgenReport, type StepResult } from './report.js';
import { stepLine } from './table.js';
import { grpcTarget, type PgTarget, pgTarget, restTarget } from './target.js';

export interface RunHooks {
  clock?: Clock;
  progress?: ProgressSink;
  /** Notes on stderr (ground truth, target). */
  log?: (line: string) => void;
}

interface Prepared {
  o: ResolvedOptions;
  /** Where the load goes, for messages (a pgvector URL without its credentials). */
  origin: string;
  grpc: string | null;
  pg: PgTarget | null;
  target: TargetInfo;
  queries: Float32Array;
  dim: number;
  queryCount: number;
  truth: LoadedGroundTruth | null;
}

async function prepare(options: LoadgenOptions, log: (l: string) => void): Promise<Prepared> {
  const o = resolveOptions(options);
  const pgt = o.protocol === 'pgvector' ? pgTarget(o.url, o.allowRemote) : null;
  const rest = pgt === null ? restTarget(o.url, o.allowRemote) : null;
  const grpc = rest !== null && o.protocol === 'grpc' ? grpcTarget(o.grpcUrl, rest, o.allowRemote) : null;
  const target = pgt !== null ? await probePgvector(pgt, o.collection) : await probeRest(rest!.origin, o.collection, o.apiKey);
  if (grpc !== null) await probeGrpc(grpc, o.collection, o.apiKey);
  const isHdf5 = /\.(hdf5|h5)$/i.test(o.queries);
  const qs = await readDataset(o.queries, { ...(o.queriesLimit !== undefined ? { limit: o.queriesLimit } : {}), ...(isHdf5 ? { hdf5Dataset: 'test' } : {}) });
  if (qs.dim !== target.dim) throw dimensionMismatch(qs.file, qs.dim, o.collection, target.dim);
  let truth: LoadedGroundTruth | null = null;
  if (o.gt !== undefined) truth = await groundTruthFromFile(o.gt, target.distance, qs.count, o.k);
  else if (o.base !== undefined) {
    truth = await groundTruthFromBase({
      baseFile: o.base,
      queriesFile: o.queries,
      queries: qs.vectors,
      dim: qs.dim,
      k: o.k,
      distance: target.distance,
      log,
      ...(o.gtThreads !== undefined ? { threads: o.gtThreads } : {}),
      ...(o.gtCacheDir !== undefined ? { cacheDir: o.gtCacheDir } : {}),
    });
  }
  if (truth?.info.note) log(`recall: ${truth.info.note}`);
  return { o, origin: pgt?.display ?? rest!.origin, grpc, pg: pgt, target, queries: qs.vectors, dim: qs.dim, queryCount: qs.count, truth };
}

/** What should be answering at the target, for the messages that say nothing does. */
const serverName = (p: Prepared): string => (p.pg !== null ? 'PostgreSQL' : '`strata serve`');

function clientFor(p: Prepared, step: StepPlan, clock: Clock): SearchClient {
  const common = {
    connections: step.concurrency,
    k: p.o.k,
    ef: step.ef,
    timeoutMs: p.o.timeoutMs,
    statsEvery: p.o.statsEvery,
    batch: p.o.batch,
    now: () => clock.now(),
    ...(p.o.apiKey !== undefined ? { apiKey: p.o.apiKey } : {}),
  };
  const protocol = p.o.protocol;
  if (protocol === 'pgvector')
    return pgvectorClient({
      ...common,
      connectionString: p.pg!.connectionString,
      table: p.o.collection,
      distance: p.target.distance,
      queries: p.queries,
      dim: p.dim,
    });
  if (protocol === 'grpc') return grpcClient({ ...common, target: p.grpc!, collection: p.o.collection, queries: p.queries, dim: p.dim });
  return restClient({ ...common, origin: p.origin, collection: p.o.collection, encoding: protocol, queries: p.queries, dim: p.dim });
}

function resultOf(p: Prepared, step: StepPlan, rec: StepRecorder, out: LoopOutcome, clock: Clock): StepResult {
  const seconds = Math.max(1e-9, (out.endMs - out.startMs) / 1000);
  return {
    ef: step.ef,
    concurrency: step.concurrency,
    mode: p.o.mode,
    offeredRate: step.rate,
    seconds,
    window: { fromEpochMs: clock.epochMs(out.startMs), toEpochMs: clock.epochMs(out.endMs) },
    sent: out.sent,
    ok: rec.ok,
    failed: rec.failed,
    qps: rec.ok / seconds,
    // Requests answered: ok and failed count queries (a batch's each), unsent counts requests.
    achievedRate: ((rec.ok + rec.failed) / p.o.batch - (out.unsent ?? 0)) / seconds,
    recall: p.truth ? recallOfAnswers(p.truth.gt, p.o.k, rec.firstIds, rec.firstScores) : null,
    latencyMs: rec.latency.summary(),
    serviceLatencyMs: p.o.mode === 'open' ? rec.service.summary() : null,
    errors: rec.errorCounts(),
    errorExamples: rec.errorMessages(),
    strata: rec.costMeans(),
    stoppedBy: out.stoppedBy,
    unsent: out.unsent ?? null,
    histogram: rec.latency.encoded(),
  };
}

async function runStep(p: Prepared, step: StepPlan, key: StepKey, clock: Clock, progress: ProgressSink): Promise<StepResult> {
  const client = clientFor(p, step, clock);
  let sent = 0;
  const search = (r: number): ReturnType<SearchClient['search']> => {
    sent++;
    return client.search(r);
  };
  const base = { clock, requestCount: requestCount(p.queryCount, p.o.batch), durationMs: p.o.durationS * 1000 };
  const rec = new StepRecorder(p.queryCount, p.o.batch);
  let timer: NodeJS.Timeout | null = null;
  try {
    if (p.o.warmup > 0) {
      progress.step(key, 'warmup');
      const warm = new StepRecorder(p.queryCount, p.o.batch);
      const w = await runClosed({ ...base, search: (q) => client.search(q), recorder: warm, maxRequests: p.o.warmup }, step.concurrency);
      warm.destroy();
      if (w.stoppedBy === 'endpoint-down') throw endpointDown('--url', p.grpc ?? p.origin, new Error('connections failed during warm-up'), serverName(p));
    }
    progress.step(key, 'measure');
    const t0 = clock.now();
    timer = setInterval(() => {
      const el = (clock.now() - t0) / 1000;
      progress.tick(key, {
        elapsedS: el,
        sent,
        ok: rec.ok,
        failed: rec.failed,
        qps: el > 0 ? rec.ok / el : 0,
        p99Ms: rec.latency.count > 0 ? rec.latency.summary().p99Ms : 0,
      });
    }, 250);
    timer.unref();
    const loop = { ...base, search, recorder: rec, maxRequests: p.o.maxRequests };
    const out =
      step.rate === null
        ? await runClosed(loop, step.concurrency)
        : await runOpen({ ...loop, rate: step.rate, maxInflight: p.o.maxInflight, drainMs: p.o.timeoutMs });
    if (out.stoppedBy === 'endpoint-down') {
      const [status, message] = Object.entries(rec.errorMessages())[0] ?? ['?', ''];
      throw endpointDown(p.o.protocol === 'grpc' ? '--grpc-url' : '--url', p.grpc ?? p.origin, new Error(`${status}: ${message}`), serverName(p));
    }
    return resultOf(p, step, rec, out, clock);
  } finally {
    if (timer) clearInterval(timer);
    rec.destroy();
    await client.close();
  }
}

/** Runs the sweep and returns the report. Throws a StrataError if the target is unusable. */
export async function runLoadgen(options: LoadgenOptions, hooks: RunHooks = {}): Promise<LoadgenReport> {
  const clock = hooks.clock ?? realClock;
  const progress = hooks.progress ?? silentProgress;
  const log = hooks.log ?? ((): void => {});
  const startedAt = new Date().toISOString();
  const p = await prepare(options, log);
  const steps = stepsOf(p.o);
  const results: StepResult[] = [];
  try {
    for (const [index, step] of steps.entries()) {
      const key: StepKey = { index, of: steps.length, ...step };
      const r = await runStep(p, step, key, clock, progress);
      results.push(r);
      progress.done(key, stepLine(r));
    }
  } finally {
    progress.stop();
  }
  const o = p.o;
  return {
    schema: REPORT_SCHEMA,
    label: o.label || `${o.collection} ${o.protocol} ${o.mode}`,
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineInfo(),
    packages: packageVersions(),
    parameters: {
      url: p.origin,
      grpcUrl: p.grpc,
      collection: o.collection,
      queries: o.queries,
      queryCount: p.queryCount,
      gt: o.gt ?? null,
      base: o.base ?? null,
      k: o.k,
      batch: o.batch,
      ef: o.ef,
      concurrency: o.concurrency,
      rate: o.rate,
      durationS: o.durationS,
      maxRequests: o.maxRequests,
      warmup: o.warmup,
      protocol: o.protocol,
      mode: o.mode,
      maxInflight: o.maxInflight,
      timeoutMs: o.timeoutMs,
      apiKey: o.apiKey !== undefined,
      allowRemote: o.allowRemote,
    },
    target: p.target,
    groundTruth: p.truth?.info ?? null,
    results,
  };
}
