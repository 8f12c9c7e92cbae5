// The server's options and its documented limits (docs/api.md#limits). Limits are explicit because
// the defaults of the libraries underneath are small and their errors cryptic (fastify: 1 MiB body,
// gRPC: 4 MiB message).
import { MAX_EF, MAX_K } from '../index/search/searcher.js';

/** Largest request body (REST) or message (gRPC): 32 MiB holds ~60k 128-d float32 vectors in MessagePack. */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;
/** Most searches in one batch request (REST search/batch, gRPC SearchBatch). */
export const DEFAULT_MAX_BATCH = 256;
/** Largest `limit` (+ `offset`), `hnsw_ef`, and number of ids or points in one request. */
export const MAX_LIMIT = MAX_K;
export const MAX_HNSW_EF = MAX_EF;
export const MAX_IDS = MAX_K;
/** Largest per-request deadline, seconds (`?timeout=` and gRPC timeout_ms). */
export const MAX_TIMEOUT_SECONDS = 3600;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface ServerOptions {
  /** Interface to listen on (default 127.0.0.1: only this host). */
  host?: string;
  /** REST port (default 6333; 0 picks a free one). */
  port?: number;
  /** gRPC port (default 6334; 0 picks a free one; null disables gRPC). */
  grpcPort?: number | null;
  /** When set, every request but /livez (and the gRPC health service) must carry this key. */
  apiKey?: string;
  bodyLimit?: number;
  maxBatch?: number;
  /** Structured logs (pino) at this level; 'silent' (tests) logs nothing. Default info. */
  logLevel?: LogLevel;
  /** Grace period for in-flight gRPC calls at close before they are cancelled, ms. */
  grpcDrainMs?: number;
}

export interface ResolvedOptions {
  host: string;
  port: number;
  grpcPort: number | null;
  apiKey: string | null;
  bodyLimit: number;
  maxBatch: number;
  logLevel: LogLevel;
  grpcDrainMs: number;
}

export function resolveOptions(o: ServerOptions): ResolvedOptions {
  return {
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 6333,
    grpcPort: o.grpcPort === undefined ? 6334 : o.grpcPort,
    apiKey: o.apiKey !== undefined && o.apiKey !== '' ? o.apiKey : null,
    bodyLimit: o.bodyLimit ?? DEFAULT_BODY_LIMIT,
    maxBatch: o.maxBatch ?? DEFAULT_MAX_BATCH,
    logLevel: o.logLevel ?? 'info',
    grpcDrainMs: o.grpcDrainMs ?? 5000,
  };
}

/** "32 MiB", "512 KiB", "100 bytes": how limits are spelt in messages. */
export function formatBytes(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  if (n >= 1 << 10 && n % (1 << 10) === 0) return `${n / (1 << 10)} KiB`;
  return `${n} bytes`;
}
