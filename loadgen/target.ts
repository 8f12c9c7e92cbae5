// Where the load goes. Only loopback addresses are accepted unless the caller opts out with
// --allow-remote: a load generator pointed at the wrong host is a denial of service, and this
// workplace allows traffic to 127.0.0.0/8 and ::1 only.
import { isIP } from 'node:net';
import { invalidArgument } from '../common/errors.js';
import { DEFAULT_GRPC_PORT, DEFAULT_QDRANT_GRPC_PORT } from '../common/ports.js';

export interface RestTarget {
  /** Origin without a trailing slash, e.g. http://127.0.0.1:6333 */
  origin: string;
  hostname: string;
}

/** 127.0.0.0/8, ::1 and the name localhost (which resolves to one of them). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.split('.')[0] === '127';
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
}

function refuseRemote(field: string, given: string, hostname: string): never {
  throw invalidArgument(
    field,
    `${hostname} in "${given}" is not a loopback address (127.0.0.0/8, ::1, localhost); pass --allow-remote to send load elsewhere`,
    { reason: 'remote', address: given },
  );
}

/** --url: an http(s) origin (a path after it is refused rather than silently dropped). */
export function restTarget(url: string, allowRemote: boolean): RestTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalidArgument('--url', `"${url}" is not a URL (expected e.g. http://127.0.0.1:6333)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalidArgument('--url', `"${url}" must start with http:// or https://`);
  if (u.pathname !== '/' && u.pathname !== '')
    throw invalidArgument('--url', `"${url}" has a path (${u.pathname}): give the server's base URL, e.g. http://127.0.0.1:6333`);
  if (!allowRemote && !isLoopbackHost(u.hostname)) refuseRemote('--url', url, u.hostname);
  return { origin: u.origin, hostname: u.hostname };
}

/**
 * --grpc-url: host:port. The default is the REST host on the default port of the protocol's API:
 * Qdrant's gRPC API for qdrant-grpc, Strata's strata.v1 for grpc.
 */
export function grpcTarget(target: string | undefined, rest: RestTarget, allowRemote: boolean, protocol: 'grpc' | 'qdrant-grpc'): string {
  const t = target ?? `${rest.hostname}:${protocol === 'qdrant-grpc' ? DEFAULT_QDRANT_GRPC_PORT : DEFAULT_GRPC_PORT}`;
  let u: URL;
  try {
    u = new URL(`http://${t}`);
  } catch {
    throw invalidArgument('--grpc-url', `"${t}" is not host:port (expected e.g. 127.0.0.1:6335)`);
  }
  if (u.port === '' || u.pathname !== '/') throw invalidArgument('--grpc-url', `"${t}" is not host:port (expected e.g. 127.0.0.1:6335)`);
  if (!allowRemote && !isLoopbackHost(u.hostname)) refuseRemote('--grpc-url', t, u.hostname);
  return u.host;
}

export interface PgTarget {
  /** The connection string as given (credentials included: it only goes to the driver). */
  connectionString: string;
  /** host:port/database, for messages and reports (no credentials). */
  display: string;
}

/**
 * --url for --protocol pgvector: postgres://[user[:password]@]host[:port]/database. A socket
 * directory as host (?host=/run/postgresql) is local by definition.
 */
export function pgTarget(url: string, allowRemote: boolean): PgTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalidArgument('--url', `"${url}" is not a URL (expected e.g. postgres://postgres@127.0.0.1:5432/postgres)`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
    throw invalidArgument('--url', `"${url}" must start with postgres:// for --protocol pgvector`);
  const socketDir = u.searchParams.get('host');
  const local = socketDir !== null ? socketDir.startsWith('/') : isLoopbackHost(u.hostname);
  if (!allowRemote && !local) refuseRemote('--url', url, socketDir ?? u.hostname);
  const where = socketDir ?? `${u.hostname}:${u.port || '5432'}`;
  return { connectionString: url, display: `${where}${u.pathname}` };
}
