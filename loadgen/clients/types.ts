// What every protocol client gives the run loops: one request per call, carrying one query or a batch
// of them (`--batch`), answered with each query's ids and scores (for recall) and Strata's per-query
// cost when the server sent it, or a failure keyed by what the protocol reports (HTTP status, gRPC
// code name, or the transport error).

/** Strata's per-query cost (the answer's `strata` field), as the server reports it. */
export interface QueryCost {
  hops: number;
  distanceComputations: number;
  accessesDram: number;
  accessesCxl: number;
  bytesDram: number;
  bytesCxl: number;
  modelledMemoryNs: number;
  modelledCxlExtraNs: number;
  injectedNs: number;
}

/** One query's answer. */
export interface QueryAnswer {
  ids: Float64Array;
  scores: Float64Array;
  cost: QueryCost | null;
  /** A filtered search's plan as the server's stats name it (`scan`, `graph`, `none`), when it sent them. */
  plan?: string;
}

export interface SearchOk {
  ok: true;
  /** When the whole answer had arrived (the clock's milliseconds), before decoding it. */
  at: number;
  /** One per query of the request (requestQueries), in order. */
  answers: QueryAnswer[];
}

export interface SearchFailed {
  ok: false;
  at: number;
  /** "429", "503" (HTTP), "UNAVAILABLE" (gRPC), "ECONNREFUSED", "timeout" (transport). */
  status: string;
  /** No answer at all (the connection failed): many of these in a row mean the endpoint is down. */
  transport: boolean;
  message: string;
}

export type SearchAnswer = SearchOk | SearchFailed;

export interface SearchClient {
  /** Request `r` (0 ≤ r < requestCount): its queries are requestQueries(r, …). Never rejects. */
  search(r: number): Promise<SearchAnswer>;
  close(): Promise<void>;
}

export interface ClientOptions {
  /** Connections (REST) the client may open; gRPC multiplexes over one HTTP/2 channel. */
  connections: number;
  k: number;
  ef: number;
  /** Per-request limit; past it the request fails with status "timeout". */
  timeoutMs: number;
  apiKey?: string;
  now: () => number;
  /** Every n-th query asks for the server's cost (with_stats); 0: none. Asking costs the server, so it samples. */
  statsEvery: number;
  /** Queries per request: 1 sends single searches, more the protocol's batch request. */
  batch: number;
  /** Per query, the filter to send (Qdrant's REST JSON; null: none); absent: no filters. */
  filters?: ReadonlyArray<Readonly<Record<string, unknown>> | null>;
}

/** Requests in one pass over the queries: the last one wraps around to the first queries. */
export const requestCount = (queryCount: number, batch: number): number => Math.ceil(queryCount / batch);

/** The queries request r carries: `batch` consecutive ones from r × batch, wrapping around. */
export function requestQueries(r: number, queryCount: number, batch: number): number[] {
  const out = new Array<number>(batch);
  for (let j = 0; j < batch; j++) out[j] = (r * batch + j) % queryCount;
  return out;
}

/** What a client reports when an answer is not the list(s) of points it asked for. */
export const noResultLists = (batch: number): string => (batch === 1 ? 'answer has no result list' : `answer has no ${batch} result lists`);

/** Each request's queries, for a client that prepares its request bodies once per step. */
export const allRequests = (queryCount: number, batch: number): number[][] =>
  Array.from({ length: requestCount(queryCount, batch) }, (_, r) => requestQueries(r, queryCount, batch));

/** Whether query q asks for the server's cost. */
export const asksStats = (o: ClientOptions, q: number): boolean => o.statsEvery > 0 && q % o.statsEvery === 0;

/** A transport error's short name: its errno code when there is one. */
export function transportStatus(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') {
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
    return code;
  }
  return e instanceof Error ? e.name : 'error';
}

/** The `strata` object of a REST answer (snake_case) or gRPC message, defensively read. */
export function costFrom(s: unknown): QueryCost | null {
  if (typeof s !== 'object' || s === null) return null;
  const o = s as Record<string, unknown>;
  const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const tier = (v: unknown, t: 'dram' | 'cxl'): number => (typeof v === 'object' && v !== null ? num((v as Record<string, unknown>)[t]) : 0);
  if (typeof o['distance_computations'] !== 'number') return null;
  return {
    hops: num(o['hops']),
    distanceComputations: num(o['distance_computations']),
    accessesDram: tier(o['accesses'], 'dram'),
    accessesCxl: tier(o['accesses'], 'cxl'),
    bytesDram: tier(o['bytes'], 'dram'),
    bytesCxl: tier(o['bytes'], 'cxl'),
    modelledMemoryNs: num(o['modelled_memory_ns']),
    modelledCxlExtraNs: num(o['modelled_cxl_extra_ns']),
    injectedNs: num(o['injected_ns']),
  };
}

/** The plan of a filtered search in the `strata` stats (`filter.plan`), if the server reported one. */
export function planFrom(s: unknown): string | undefined {
  const f = typeof s === 'object' && s !== null ? (s as Record<string, unknown>)['filter'] : undefined;
  const plan = typeof f === 'object' && f !== null ? (f as Record<string, unknown>)['plan'] : undefined;
  return typeof plan === 'string' ? plan : undefined;
}

/** ids and scores of a list of scored points ({id, score}); a malformed point reads as id -1. */
export function hitsFrom(points: unknown): Pick<QueryAnswer, 'ids' | 'scores'> | null {
  if (!Array.isArray(points)) return null;
  const ids = new Float64Array(points.length);
  const scores = new Float64Array(points.length);
  for (let i = 0; i < points.length; i++) {
    const p = points[i] as { id?: unknown; score?: unknown } | null;
    ids[i] = typeof p?.id === 'number' ? p.id : -1;
    scores[i] = typeof p?.score === 'number' ? p.score : NaN;
  }
  return { ids, scores };
}
