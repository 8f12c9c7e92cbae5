// A whole load-generator run: check the target, read the queries and the ground truth, then for each
// (ef, concurrency[, rate]) step open a client, warm up, apply load, and turn what was recorded into
// a result. Returns the report; printing and writing files is the caller's (the CLI's) job.
import { readDataset, readPayloadLines } from '../datasets/index.js';
import { grpcClient } from './clients/grpc.js';
import { qdrantGrpcClient } from './clients/qdrant-grpc.js';
import { pgvectorClient } from './clients/pgvector.js';
import { restClient } from './clients/rest.js';
import { requestCount, type SearchClient } from './clients/types.js';
import { realClock, type Clock } from './clock.js';
import { type FilterFamilyCase, readFilterCases } from './filter-cases.js';
import { type FilteredTruth, filteredGroundTruth } from './filtered-truth.js';
import { invalidArgument } from '../common/errors.js';
import { dimensionMismatch, endpointDown } from './errors.js';
import { groundTruthFromBase, groundTruthFromFile, type LoadedGroundTruth } from './ground-truth.js';
import { runClosed, runOpen, type LoopOutcome } from './loops.js';
import { MAX_SWEEP_SECONDS, resolveOptions, stepsOf, type LoadgenOptions, type ResolvedOptions, type StepPlan } from './options.js';
import { filterSql } from './pg-where.js';
import { probeGrpc, probeRest, type TargetInfo } from './probe.js';
import { probePgvector } from './probe-pgvector.js';
import { silentProgress, type ProgressSink, type StepKey } from './progress.js';
import { recallOfAnswers, recallOfFilteredAnswers } from './recall.js';
import { StepRecorder } from './recorder.js';
import { type FamilyResult, machineInfo, packageVersions, REPORT_SCHEMA, type LoadgenReport, type StepResult } from './report.js';
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
  /** With --filters: the families, each measured at every step. */
  families: PreparedFamily[] | null;
}

interface PreparedFamily {
  case: FilterFamilyCase;
  truth: FilteredTruth;
  /** pgvector: each query's WHERE (absent for the unfiltered family). */
  wheres?: string[];
  /** Mean share of the base a query's filter matches. */
  selectivity: number;
  baseCount: number;
}

/** The families with their exact ground truth (and, for pgvector, their SQL), or null without --filters. */
async function prepareFamilies(
  o: ResolvedOptions,
  queries: Float32Array,
  dim: number,
  queryCount: number,
  target: TargetInfo,
  log: (l: string) => void,
): Promise<PreparedFamily[] | null> {
  if (o.filters === undefined) return null;
  const cases = readFilterCases(o.filters, queryCount, o.unfiltered);
  const seconds = stepsOf(o).length * cases.families.length * o.durationS;
  if (seconds > MAX_SWEEP_SECONDS)
    throw invalidArgument(
      '--duration',
      `${cases.families.length} families x ${stepsOf(o).length} steps x ${o.durationS} s = ${seconds} s, over the ${MAX_SWEEP_SECONDS} s cap`,
    );
  const base = await readDataset(o.base!);
  if (base.dim !== dim) throw dimensionMismatch(base.file, base.dim, o.collection, dim);
  const payloads = readPayloadLines(o.payloads!, base.count);
  log(`filtered ground truth: ${cases.families.length} families x ${queryCount} queries over ${base.count} x ${dim}`);
  const truths = filteredGroundTruth({
    base: base.vectors,
    payloads,
    queries,
    dim,
    k: o.k,
    distance: target.distance,
    families: cases.families.map((f) => f.parsed),
    keys: cases.families.map((f) => f.json),
    ...(base.ids ? { rowIds: base.ids } : {}),
  });
  return cases.families.map((c, i) => {
    const truth = truths[i]!;
    let sum = 0;
    for (const m of truth.matched) sum += m;
    const pg = o.protocol === 'pgvector' && c.parsed.some((f) => f !== null);
    return {
      case: c,
      truth,
      baseCount: base.count,
      selectivity: sum / Math.max(1, truth.matched.length) / base.count,
      ...(pg
        ? { wheres: c.parsed.map((f, q) => (f === null ? 'TRUE' : filterSql(f, { fields: cases.fields, idColumn: 'id' }, `family "${c.name}" filters[${q}]`))) }
        : {}),
    };
  });
}

async function prepare(options: LoadgenOptions, log: (l: string) => void): Promise<Prepared> {
  const o = resolveOptions(options);
  const pgt = o.protocol === 'pgvector' ? pgTarget(o.url, o.allowRemote) : null;
  const rest = pgt === null ? restTarget(o.url, o.allowRemote) : null;
  const grpc = rest !== null && (o.protocol === 'grpc' || o.protocol === 'qdrant-grpc') ? grpcTarget(o.grpcUrl, rest, o.allowRemote, o.protocol) : null;
  const target = pgt !== null ? await probePgvector(pgt, o.collection) : await probeRest(rest!.origin, o.collection, o.apiKey);
  if (grpc !== null && o.protocol === 'grpc') await probeGrpc(grpc, o.collection, o.apiKey);
  const isHdf5 = /\.(hdf5|h5)$/i.test(o.queries);
  const qs = await readDataset(o.queries, { ...(o.queriesLimit !== undefined ? { limit: o.queriesLimit } : {}), ...(isHdf5 ? { hdf5Dataset: 'test' } : {}) });
  if (qs.dim !== target.dim) throw dimensionMismatch(qs.file, qs.dim, o.collection, target.dim);
  let truth: LoadedGroundTruth | null = null;
  if (o.filters !== undefined) {
    // the families carry their own ground truth
  } else if (o.gt !== undefined) truth = await groundTruthFromFile(o.gt, target.distance, qs.count, o.k);
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
  const families = await prepareFamilies(o, qs.vectors, qs.dim, qs.count, target, log);
  return { o, origin: pgt?.display ?? rest!.origin, grpc, pg: pgt, target, queries: qs.vectors, dim: qs.dim, queryCount: qs.count, truth, families };
}

/** What should be answering at the target, for the messages that say nothing does. */
const serverName = (p: Prepared): string => (p.pg !== null ? 'PostgreSQL' : '`strata serve`');

function clientFor(p: Prepared, step: StepPlan, clock: Clock, family: PreparedFamily | null): SearchClient {
  const common = {
    connections: step.concurrency,
    k: p.o.k,
    ef: step.ef,
    timeoutMs: p.o.timeoutMs,
    statsEvery: p.o.statsEvery,
    batch: p.o.batch,
    now: () => clock.now(),
    ...(p.o.apiKey !== undefined ? { apiKey: p.o.apiKey } : {}),
    ...(family !== null ? { filters: family.case.json } : {}),
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
      ...(family?.wheres !== undefined ? { wheres: family.wheres } : {}),
      ...(p.o.iterativeScan !== undefined ? { iterativeScan: p.o.iterativeScan } : {}),
    });
  if (protocol === 'grpc') return grpcClient({ ...common, target: p.grpc!, collection: p.o.collection, queries: p.queries, dim: p.dim });
  if (protocol === 'qdrant-grpc') return qdrantGrpcClient({ ...common, target: p.grpc!, collection: p.o.collection, queries: p.queries, dim: p.dim });
  return restClient({ ...common, origin: p.origin, collection: p.o.collection, encoding: protocol, queries: p.queries, dim: p.dim });
}

function familyResult(p: Prepared, f: PreparedFamily, rec: StepRecorder): { recall: StepResult['recall']; filter: FamilyResult } {
  const r = recallOfFilteredAnswers(f.truth.gt, f.truth.matched, p.o.k, rec.firstIds, rec.firstScores);
  let fewer = 0;
  for (const m of f.truth.matched) if (m < p.o.k) fewer++;
  return {
    recall: r.recall,
    filter: {
      family: f.case.name,
      kind: f.case.kind,
      selectivity: f.selectivity,
      matchedMin: f.truth.matched.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY),
      queriesMatchingFewerThanK: fewer,
      shortAnswers: r.shortAnswers,
      plans: Object.fromEntries(rec.plans),
    },
  };
}

function resultOf(p: Prepared, step: StepPlan, rec: StepRecorder, out: LoopOutcome, clock: Clock, family: PreparedFamily | null): StepResult {
  const seconds = Math.max(1e-9, (out.endMs - out.startMs) / 1000);
  const filtered = family !== null ? familyResult(p, family, rec) : null;
  return {
    ...(filtered !== null ? { filter: filtered.filter } : {}),
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
    recall: filtered !== null ? filtered.recall : p.truth ? recallOfAnswers(p.truth.gt, p.o.k, rec.firstIds, rec.firstScores) : null,
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

async function runStep(p: Prepared, step: StepPlan, key: StepKey, clock: Clock, progress: ProgressSink, family: PreparedFamily | null): Promise<StepResult> {
  const client = clientFor(p, step, clock, family);
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
    return resultOf(p, step, rec, out, clock, family);
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
  const families = p.families ?? [null];
  const steps = families.flatMap((family) => stepsOf(p.o).map((step) => ({ family, step })));
  const results: StepResult[] = [];
  try {
    for (const [index, { family, step }] of steps.entries()) {
      const key: StepKey = { index, of: steps.length, ...step };
      const r = await runStep(p, step, key, clock, progress, family);
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
      ...(o.filters !== undefined ? { filters: o.filters, payloads: o.payloads ?? null, iterativeScan: o.iterativeScan ?? null } : {}),
    },
    target: p.target,
    groundTruth: p.truth?.info ?? null,
    results,
  };
}
