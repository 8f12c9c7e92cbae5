// Prometheus metrics (/metrics): request counts and latencies by route and status (REST) or method
// and code (gRPC), observed as requests finish; and the engine's own counters (search cost, per-tier
// accesses and bytes, queues, thread utilisation), read from engine.metrics() at scrape time so the
// search path does no metrics work of its own. One registry per server, so that several servers in
// one process (tests) do not collide. The latencies of search requests also feed the tier history
// (tier-history.ts).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type Engine, STAT } from '../engine/public.js';
import { TierHistory } from './tier-history.js';

/** The requests the tier history counts as searches: REST routes and gRPC methods that search. */
const SEARCH_ROUTE = /\/points\/(search|query|recommend|discover)/;
const SEARCH_RPC = /\/(Search|Query|Recommend|Discover)/;

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  private readonly httpLatency: Histogram<'route' | 'method' | 'status'>;
  private readonly grpcRequests: Counter<'method' | 'code'>;
  private readonly grpcLatency: Histogram<'method' | 'code'>;
  private readonly children = new Map<string, { observe(seconds: number): void }>();
  /** Each collection's tier statistics and the search latency, a sample a second (started by the app). */
  readonly history: TierHistory;

  constructor(engine: Engine) {
    this.history = new TierHistory(engine);
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: 'strata_http_requests_total',
      help: 'REST requests answered, by route, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.httpLatency = new Histogram({
      name: 'strata_http_request_duration_seconds',
      help: 'REST request latency, by route, method and status.',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.grpcRequests = new Counter({
      name: 'strata_grpc_requests_total',
      help: 'gRPC calls answered, by method and status code.',
      labelNames: ['method', 'code'],
      registers,
    });
    this.grpcLatency = new Histogram({
      name: 'strata_grpc_request_duration_seconds',
      help: 'gRPC call latency, by method and status code.',
      labelNames: ['method', 'code'],
      buckets: LATENCY_BUCKETS,
      registers,
    });

    // Engine counters are cumulative already: each scrape copies them (reset + inc keeps the
    // Prometheus counter type, which rate() relies on).
    const fromEngine = (name: string, help: string, read: (c: ReturnType<Engine['metrics']>['collections'][number]) => number): void => {
      new Counter({
        name,
        help,
        labelNames: ['collection'],
        registers,
        collect() {
          this.reset();
          for (const c of engine.metrics().collections) this.inc({ collection: c.name }, read(c));
        },
      });
    };
    const perTier = (name: string, help: string, dram: number[], cxl: number[]): void => {
      new Counter({
        name,
        help,
        labelNames: ['collection', 'tier'],
        registers,
        collect() {
          this.reset();
          const sum = (t: Float64Array, fields: number[]): number => fields.reduce((a, f) => a + t[f]!, 0);
          for (const c of engine.metrics().collections) {
            this.inc({ collection: c.name, tier: 'dram' }, sum(c.totals, dram));
            this.inc({ collection: c.name, tier: 'cxl' }, sum(c.totals, cxl));
          }
        },
      });
    };
    fromEngine('strata_searches_total', 'Searches answered by the engine.', (c) => c.searches);
    fromEngine('strata_search_distance_computations_total', 'Distance computations of answered searches.', (c) => c.totals[STAT.distances]!);
    fromEngine('strata_search_hops_total', 'Graph hops (nodes expanded) of answered searches.', (c) => c.totals[STAT.hops]!);
    fromEngine(
      'strata_search_modelled_memory_seconds_total',
      'Memory time of answered searches under the CXL cost model.',
      (c) => c.totals[STAT.modelledNs]! / 1e9,
    );
    fromEngine('strata_queue_rejected_total', 'Searches rejected at once because the queue was full (STRATA_OVERLOADED, HTTP 429).', (c) => c.queue.rejected);
    fromEngine('strata_queue_failed_total', 'Admitted searches that failed (deadline, cancellation, shutdown, worker failure).', (c) => c.queue.failed);
    fromEngine(
      'strata_search_tasks_total',
      "Tasks the searches reached the search threads in (each carries up to the engine's per-thread batch, 16 by default): searches per task is the batching.",
      (c) => c.queue.tasks,
    );
    perTier(
      'strata_tier_accesses_total',
      'Neighbour-list and vector reads of answered searches, per tier.',
      [STAT.adjReadsDram, STAT.vecReadsDram],
      [STAT.adjReadsCxl, STAT.vecReadsCxl],
    );
    perTier(
      'strata_tier_bytes_total',
      'Bytes read by answered searches, per tier.',
      [STAT.adjBytesDram, STAT.vecBytesDram],
      [STAT.adjBytesCxl, STAT.vecBytesCxl],
    );

    new Gauge({
      name: 'strata_dram_hit_share',
      help: 'Share of all accesses so far served by the DRAM tier.',
      labelNames: ['collection'],
      registers,
      collect() {
        for (const c of engine.metrics().collections) {
          const t = c.totals;
          const d = t[STAT.adjReadsDram]! + t[STAT.vecReadsDram]!;
          const x = t[STAT.adjReadsCxl]! + t[STAT.vecReadsCxl]!;
          this.set({ collection: c.name }, d + x > 0 ? d / (d + x) : 1);
        }
      },
    });
    new Gauge({
      name: 'strata_queue_depth',
      help: 'Searches waiting or running, per collection.',
      labelNames: ['collection'],
      registers,
      collect() {
        for (const c of engine.metrics().collections) this.set({ collection: c.name }, c.queue.depth);
      },
    });
    // Live collections (with --data-dir): the fresh layer, the hidden base points, the log.
    const live = (name: string, help: string, read: (l: NonNullable<ReturnType<Engine['collections']>[number]['live']>) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['collection'],
        registers,
        collect() {
          this.reset();
          for (const c of engine.collections()) if (c.live) this.set({ collection: c.name }, read(c.live));
        },
      });
    };
    live('strata_live_fresh_points', 'Points in the fresh layer (written while serving, not yet compacted).', (l) => l.fresh.size);
    live('strata_live_hidden_base_points', 'Base-index points hidden by a delete or a newer copy.', (l) => l.tombstones.size);
    live('strata_live_applied_operation_id', 'Sequence number of the last write applied.', (l) => Number(l.appliedLsn));
    live('strata_live_fresh_graph_rebuilds', 'Background rebuilds of the fresh graph (deleted nodes had outnumbered live ones).', (l) => l.fresh.rebuilds);
    new Gauge({
      name: 'strata_live_compactions',
      help: 'Compactions of the collection into a new tiered base since start, and (compacting) whether one runs now.',
      labelNames: ['collection', 'state'],
      registers,
      collect() {
        this.reset();
        for (const c of engine.collections()) {
          if (!c.live) continue;
          this.set({ collection: c.name, state: 'done' }, c.compactions);
          this.set({ collection: c.name, state: 'compacting' }, c.compacting ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'strata_search_threads',
      help: 'Search threads (0: searches run on the main thread).',
      registers,
      collect() {
        this.set(engine.metrics().searchThreads);
      },
    });
    new Gauge({
      name: 'strata_search_inline_tasks_total',
      help: 'Search tasks run on the main thread though search threads exist (strata serve --inline auto on one effective CPU).',
      registers,
      collect() {
        this.set(engine.metrics().inlineTasks);
      },
    });
    new Gauge({
      name: 'strata_search_thread_utilisation',
      help: 'Busy time of the search threads / (threads x uptime).',
      registers,
      collect() {
        this.set(engine.metrics().searchUtilisation);
      },
    });
  }

  observeHttp(route: string, method: string, status: number, seconds: number): void {
    if (SEARCH_ROUTE.test(route)) this.history.request(seconds);
    this.child(`h ${route} ${method} ${status}`, () => {
      const labels = { route, method, status: String(status) };
      return { count: this.httpRequests.labels(labels), latency: this.httpLatency.labels(labels) };
    }).observe(seconds);
  }

  observeGrpc(method: string, code: string, seconds: number): void {
    if (SEARCH_RPC.test(method)) this.history.request(seconds);
    this.child(`g ${method} ${code}`, () => ({
      count: this.grpcRequests.labels({ method, code }),
      latency: this.grpcLatency.labels({ method, code }),
    })).observe(seconds);
  }

  /**
   * The labelled children of a (counter, histogram) pair, looked up once per label set: prom-client
   * hashes the label object on every inc/observe otherwise, a cost paid on every request. Label sets
   * are few (routes × methods × statuses), so the cache stays small.
   */
  private child(key: string, make: () => { count: { inc(): void }; latency: { observe(v: number): void } }): { observe(seconds: number): void } {
    let c = this.children.get(key);
    if (c === undefined) {
      const { count, latency } = make();
      c = {
        observe: (seconds: number) => {
          count.inc();
          latency.observe(seconds);
        },
      };
      this.children.set(key, c);
    }
    return c;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
