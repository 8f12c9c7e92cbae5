// The server's options and its documented limits (docs/api.md#limits). Limits are explicit because
// the defaults of the libraries underneath are small and their errors cryptic (fastify: 1 MiB body,
// gRPC: 4 MiB message). Authentication fails closed: an empty key is an error, and a server on a
// non-loopback address needs a key unless the caller opts out explicitly.
import { BlockList, isIP } from 'node:net';
import { invalidArgument } from '../common/errors.js';
import { DEFAULT_GRPC_PORT, DEFAULT_QDRANT_GRPC_PORT, DEFAULT_REST_PORT } from '../common/ports.js';
import { MAX_EF, MAX_K } from '../engine/public.js';

/** Largest request body (REST) or message (gRPC): 32 MiB holds ~60k 128-d float32 vectors in MessagePack. */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;
/** Most searches in one batch request (REST search/batch, gRPC SearchBatch). */
export const DEFAULT_MAX_BATCH = 256;
/** Largest `limit` (+ `offset`), `hnsw_ef`, and number of ids or points in one request. */
export const MAX_LIMIT = MAX_K;
export const MAX_HNSW_EF = MAX_EF;
export const MAX_IDS = MAX_K;
/** Key paths in one with_payload selector (or one delete-payload `keys` list). */
export const MAX_SELECTOR_KEYS = 1024;
/**
 * Largest answer one request may ask for, counted as points × (POINT_BYTES + 4 × dim with vectors)
 * before any search runs (server/api/answer-size.ts). 32 MiB holds ~58k 128-d vectors with their
 * points; it keeps a small request from growing an answer of gigabytes.
 */
export const DEFAULT_ANSWER_LIMIT = 32 * 1024 * 1024;
/** Largest per-request deadline, seconds (`?timeout=` and gRPC timeout_ms). */
export const MAX_TIMEOUT_SECONDS = 3600;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServerOptions {
  /** Interface to listen on (default 127.0.0.1: only this host). */
  host?: string;
  /** REST port (default DEFAULT_REST_PORT; 0 picks a free one). */
  port?: number;
  /** Port of Strata's gRPC API, strata.v1 (default DEFAULT_GRPC_PORT; 0 picks a free one; null: not served). */
  grpcPort?: number | null;
  /**
   * Port of Qdrant's own gRPC API (qdrant.Qdrant, qdrant.Collections, qdrant.Points) for Qdrant's
   * clients (default DEFAULT_QDRANT_GRPC_PORT; 0 picks a free one; null: not served).
   */
  qdrantGrpcPort?: number | null;
  /**
   * When set, every request but the health endpoints (/livez, /healthz, /readyz and the gRPC health
   * service) must carry this key. An empty string is an error, never "no key".
   */
  apiKey?: string;
  /** Serve a non-loopback host without an API key (refused otherwise). */
  insecureNoAuth?: boolean;
  bodyLimit?: number;
  /** Largest answer per request, bytes as counted by answer-size.ts (default DEFAULT_ANSWER_LIMIT). */
  answerLimit?: number;
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
  qdrantGrpcPort: number | null;
  apiKey: string | null;
  bodyLimit: number;
  answerLimit: number;
  maxBatch: number;
  logLevel: LogLevel;
  grpcDrainMs: number;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether `host` only takes connections from this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  const family = isIP(h);
  return family !== 0 && LOOPBACK.check(h, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Refuses an empty key (it would read as "no key" and open the port) and a host other machines
 * reach with no key, unless insecureNoAuth: the one rule for serve and the router. `hostField` names
 * the host in the error (the CLI's flag).
 */
export function checkExposure(host: string, apiKey: string | null | undefined, insecureNoAuth: boolean, hostField = 'host'): void {
  if (apiKey !== undefined && apiKey !== null && apiKey.trim() === '')
    throw invalidArgument('apiKey', 'is empty: give a non-empty key, or none to serve without authentication');
  if ((apiKey === undefined || apiKey === null) && !isLoopback(host) && !insecureNoAuth) {
    throw invalidArgument(
      hostField,
      `${host} takes connections from other machines and no API key is set: set one (--api-key or STRATA_API_KEY), bind 127.0.0.1, or pass --insecure-no-auth to serve without authentication`,
    );
  }
}

export function resolveOptions(o: ServerOptions): ResolvedOptions {
  const host = o.host ?? '127.0.0.1';
  checkExposure(host, o.apiKey, o.insecureNoAuth === true);
  return {
    host,
    port: o.port ?? DEFAULT_REST_PORT,
    grpcPort: o.grpcPort === undefined ? DEFAULT_GRPC_PORT : o.grpcPort,
    qdrantGrpcPort: o.qdrantGrpcPort === undefined ? DEFAULT_QDRANT_GRPC_PORT : o.qdrantGrpcPort,
    apiKey: o.apiKey ?? null,
    bodyLimit: o.bodyLimit ?? DEFAULT_BODY_LIMIT,
    answerLimit: o.answerLimit ?? DEFAULT_ANSWER_LIMIT,
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
