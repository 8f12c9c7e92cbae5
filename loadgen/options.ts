// The load generator's parameters, their defaults and their bounds. Every run stops by itself: each
// step has a duration and a request limit, both capped, and the whole sweep is capped too.
import { invalidArgument } from '../common/errors.js';
import type { PgIterativeScan } from './clients/pgvector.js';
import { type LoopMode, PROTOCOLS, type Protocol } from './report.js';

/** Longest step, and longest sweep (steps x duration), in seconds. */
export const MAX_STEP_SECONDS = 600;
export const MAX_SWEEP_SECONDS = 4 * 3600;
export const MAX_REQUESTS_PER_STEP = 10_000_000;
export const MAX_CONCURRENCY = 1024;
export const MAX_RATE = 1_000_000;
/** Most queries per request: a Strata server's default batch limit (--max-batch). */
export const MAX_BATCH = 256;
/** pgvector's bound on hnsw.ef_search. */
export const PGVECTOR_MAX_EF = 1000;

export interface LoadgenOptions {
  /** REST base URL, e.g. http://127.0.0.1:6333, or with protocol pgvector a postgres:// URL (loopback unless allowRemote). */
  url: string;
  /** The collection (with protocol pgvector: the table). */
  collection: string;
  /** Query vectors (any format strata reads; HDF5: the `test` dataset). */
  queries: string;
  /** Use only the first n queries. */
  queriesLimit?: number;
  /** Ground-truth ids (.ivecs, .ibin, .hdf5 `neighbors`). */
  gt?: string;
  /** Base vectors to compute ground truth from when gt is absent. */
  base?: string;
  gtThreads?: number;
  gtCacheDir?: string;
  k?: number;
  /** Queries per request: 1 (default) sends single searches, more the protocol's batch request (at most MAX_BATCH). */
  batch?: number;
  ef?: number[];
  concurrency?: number[];
  /** Seconds per step. */
  durationS?: number;
  maxRequests?: number;
  /** Untimed requests per step before measuring (closed loop at the step's concurrency). */
  warmup?: number;
  protocol?: Protocol;
  /** host:port; default: the REST host on the default port of the protocol's gRPC API (common/ports.ts). */
  grpcUrl?: string;
  mode?: LoopMode;
  /** Open loop: requests per second across all connections (one step per rate). */
  rate?: number[];
  /** Open loop: most requests in flight. */
  maxInflight?: number;
  timeoutMs?: number;
  /** Every n-th query asks for the server's per-search cost (with_stats); 0: none (default 16). */
  statsEvery?: number;
  apiKey?: string;
  allowRemote?: boolean;
  label?: string;
  /** Filter families (filter-cases.ts): each is measured at every step, with exact filtered ground truth from base and payloads. */
  filters?: string;
  /** The base rows' payloads (JSON Lines, line i for row i): what the filters are judged on. */
  payloads?: string;
  /** With filters: measure the unfiltered search too, as the first family. */
  unfiltered?: boolean;
  /** pgvector: hnsw.iterative_scan (default relaxed_order with filters, pgvector's own default otherwise). */
  iterativeScan?: PgIterativeScan;
}

type Optional = 'queriesLimit' | 'gt' | 'base' | 'gtThreads' | 'gtCacheDir' | 'grpcUrl' | 'apiKey' | 'filters' | 'payloads' | 'iterativeScan';
export type ResolvedOptions = Required<Omit<LoadgenOptions, Optional | 'rate'>> & Pick<LoadgenOptions, Optional> & { rate: number[] | null };

function intList(field: string, v: readonly number[], min: number, max: number): number[] {
  if (v.length === 0) throw invalidArgument(field, 'needs at least one value');
  for (const x of v) if (!Number.isInteger(x) || x < min || x > max) throw invalidArgument(field, `values must be whole numbers in ${min}..${max}, got ${x}`);
  return [...v];
}

/**
 * The server's cost columns come from a sample of the queries: asking for them makes the server
 * build and send a stats block, which every answer would otherwise pay for.
 */
export const DEFAULT_STATS_EVERY = 16;

/**
 * Untimed requests before each step. The load generator's own code is cold when it starts, and an
 * open loop charges a slow client to the server: against an endpoint that answers ~20,000 requests/s,
 * 3,000/s offered from a fresh load generator gave p95 92–121 ms with no warm-up, ~5 ms after 500
 * requests, 2.6–3.9 ms after 1,000 and 1.3–1.6 ms after 2,000 (npm run bench -- loadgen;
 * docs/loadgen.md#warm-up).
 */
export const DEFAULT_WARMUP = 2000;

export function resolveOptions(o: LoadgenOptions): ResolvedOptions {
  const r: ResolvedOptions = {
    url: o.url,
    collection: o.collection,
    queries: o.queries,
    k: o.k ?? 10,
    batch: o.batch ?? 1,
    ef: intList('--ef', o.ef ?? [16, 32, 64, 128], 1, 10_000),
    concurrency: intList('--concurrency', o.concurrency ?? [1, 8, 32], 1, MAX_CONCURRENCY),
    durationS: o.durationS ?? 10,
    maxRequests: o.maxRequests ?? 1_000_000,
    warmup: o.warmup ?? DEFAULT_WARMUP,
    protocol: o.protocol ?? 'json',
    mode: o.mode ?? 'closed',
    rate: o.rate ? [...o.rate] : null,
    maxInflight: o.maxInflight ?? 1024,
    timeoutMs: o.timeoutMs ?? 10_000,
    statsEvery: o.statsEvery ?? DEFAULT_STATS_EVERY,
    allowRemote: o.allowRemote ?? false,
    label: o.label ?? '',
    unfiltered: o.unfiltered ?? false,
    ...(o.queriesLimit !== undefined ? { queriesLimit: o.queriesLimit } : {}),
    ...(o.gt !== undefined ? { gt: o.gt } : {}),
    ...(o.base !== undefined ? { base: o.base } : {}),
    ...(o.gtThreads !== undefined ? { gtThreads: o.gtThreads } : {}),
    ...(o.gtCacheDir !== undefined ? { gtCacheDir: o.gtCacheDir } : {}),
    ...(o.grpcUrl !== undefined ? { grpcUrl: o.grpcUrl } : {}),
    ...(o.apiKey !== undefined ? { apiKey: o.apiKey } : {}),
    ...(o.filters !== undefined ? { filters: o.filters } : {}),
    ...(o.payloads !== undefined ? { payloads: o.payloads } : {}),
    ...(o.iterativeScan !== undefined
      ? { iterativeScan: o.iterativeScan }
      : o.filters !== undefined && o.protocol === 'pgvector'
        ? { iterativeScan: 'relaxed_order' as const }
        : {}),
  };
  if (!r.collection) throw invalidArgument('--collection', 'is required');
  if (!Number.isInteger(r.k) || r.k < 1 || r.k > 10_000) throw invalidArgument('--k', `must be a whole number in 1..10000, got ${r.k}`);
  if (!Number.isInteger(r.batch) || r.batch < 1 || r.batch > MAX_BATCH)
    throw invalidArgument('--batch', `must be a whole number of queries per request in 1..${MAX_BATCH}, got ${r.batch}`);
  if (!(r.durationS > 0 && r.durationS <= MAX_STEP_SECONDS))
    throw invalidArgument('--duration', `must be in (0, ${MAX_STEP_SECONDS}] seconds, got ${r.durationS}`);
  if (!Number.isInteger(r.maxRequests) || r.maxRequests < 1 || r.maxRequests > MAX_REQUESTS_PER_STEP)
    throw invalidArgument('--max-requests', `must be a whole number in 1..${MAX_REQUESTS_PER_STEP}, got ${r.maxRequests}`);
  if (!Number.isInteger(r.warmup) || r.warmup < 0 || r.warmup > MAX_REQUESTS_PER_STEP)
    throw invalidArgument('--warmup', `must be a whole number in 0..${MAX_REQUESTS_PER_STEP}, got ${r.warmup}`);
  if (!(PROTOCOLS as readonly string[]).includes(r.protocol)) throw invalidArgument('--protocol', `must be one of ${PROTOCOLS.join(', ')}, got ${r.protocol}`);
  // pgvector refuses hnsw.ef_search above 1000 when a connection starts: every search of the step
  // would fail, so the sweep is refused before it begins.
  if (r.protocol === 'pgvector')
    for (const ef of r.ef) if (ef > PGVECTOR_MAX_EF) throw invalidArgument('--ef', `pgvector's hnsw.ef_search is at most ${PGVECTOR_MAX_EF}, got ${ef}`);
  if (r.mode !== 'closed' && r.mode !== 'open') throw invalidArgument('--mode', `must be closed or open, got ${String(r.mode)}`);
  if (r.mode === 'open') {
    if (r.rate === null || r.rate.length === 0) throw invalidArgument('--rate', 'the open loop needs a rate (requests per second, across all connections)');
    for (const x of r.rate) if (!(x > 0 && x <= MAX_RATE)) throw invalidArgument('--rate', `must be in (0, ${MAX_RATE}] requests per second, got ${x}`);
  } else if (r.rate !== null) throw invalidArgument('--rate', 'applies to --mode open only (a closed loop sends as fast as answers come)');
  if (!Number.isInteger(r.maxInflight) || r.maxInflight < 1 || r.maxInflight > 65_536)
    throw invalidArgument('--max-inflight', `must be a whole number in 1..65536, got ${r.maxInflight}`);
  if (!Number.isInteger(r.timeoutMs) || r.timeoutMs < 1 || r.timeoutMs > 600_000)
    throw invalidArgument('--timeout', `must be a whole number of ms in 1..600000, got ${r.timeoutMs}`);
  if (!Number.isInteger(r.statsEvery) || r.statsEvery < 0 || r.statsEvery > 1_000_000)
    throw invalidArgument('--stats-every', `must be a whole number in 0..1000000, got ${r.statsEvery}`);
  if (r.gt !== undefined && r.base !== undefined) throw invalidArgument('--gt', 'give --gt (ground truth ids) or --base (to compute them), not both');
  checkFilterOptions(r);
  const seconds = stepsOf(r).length * r.durationS;
  if (seconds > MAX_SWEEP_SECONDS)
    throw invalidArgument(
      '--duration',
      `the sweep would run ${stepsOf(r).length} steps x ${r.durationS} s = ${seconds} s, over the ${MAX_SWEEP_SECONDS} s cap: fewer values or shorter steps`,
    );
  return r;
}

function checkFilterOptions(r: ResolvedOptions): void {
  if (r.iterativeScan !== undefined && !['off', 'relaxed_order', 'strict_order'].includes(r.iterativeScan))
    throw invalidArgument('--iterative-scan', `must be off, relaxed_order or strict_order, got ${String(r.iterativeScan)}`);
  if (r.iterativeScan !== undefined && r.protocol !== 'pgvector') throw invalidArgument('--iterative-scan', 'is a pgvector setting (--protocol pgvector)');
  if (r.filters === undefined) {
    if (r.payloads !== undefined) throw invalidArgument('--payloads', 'applies with --filters only');
    if (r.unfiltered) throw invalidArgument('--unfiltered', 'applies with --filters only');
    return;
  }
  // Filtered ground truth is the load generator's own: it needs the vectors and payloads it judges.
  if (r.base === undefined) throw invalidArgument('--filters', 'needs --base (the base vectors): filtered ground truth is computed exactly');
  if (r.payloads === undefined) throw invalidArgument('--filters', "needs --payloads (the base rows' payloads, JSON Lines)");
  if (r.protocol === 'grpc' || r.protocol === 'qdrant-grpc')
    throw invalidArgument('--filters', 'filtered searches are sent over REST (json, msgpack) or to pgvector, not gRPC');
  if (r.batch !== 1) throw invalidArgument('--batch', 'filtered searches are sent one query a request (--batch 1)');
}

export interface StepPlan {
  ef: number;
  concurrency: number;
  rate: number | null;
}

/** The sweep, in order: ef outermost, then concurrency, then (open loop) rate. */
export function stepsOf(r: Pick<ResolvedOptions, 'ef' | 'concurrency' | 'rate' | 'mode'>): StepPlan[] {
  const rates = r.mode === 'open' && r.rate !== null ? r.rate : [null];
  return r.ef.flatMap((ef) => r.concurrency.flatMap((concurrency) => rates.map((rate) => ({ ef, concurrency, rate }))));
}
