// The load generator's failures, each a StrataError with a stable code from the one registry
// (common/errors.ts), so the CLI prints `strata: error CODE: message` and exits 2 like every command.
// Messages say what was tried and what to do next: these are the errors a user meets first.
import { StrataError } from '../common/errors.js';

/**
 * Nothing answers at the address (refused, reset, DNS, timeout). The registry has no code for an
 * unreachable peer yet: STRATA_INVALID_ARGUMENT with `reason: 'unreachable'` marks it until one is
 * added (it needs a row in server/errors.ts's STATUS_OF as well, outside the load generator).
 */
export function endpointDown(what: string, address: string, cause: unknown, server = '`strata serve`'): StrataError {
  const why = cause instanceof Error ? ((cause as Error & { code?: string }).code ?? cause.message) : String(cause);
  return new StrataError(
    'STRATA_UNREACHABLE',
    `${what}: nothing answers at ${address} (${why}): is ${server} running there?`,
    { field: what, reason: 'unreachable', address },
    { cause },
  );
}

export function collectionMissing(collection: string, address: string, available: readonly string[] | null): StrataError {
  const list = available === null ? '' : available.length === 0 ? ' (the server has no collections)' : ` (the server has: ${available.join(', ')})`;
  return new StrataError('STRATA_COLLECTION_NOT_FOUND', `--collection: no collection "${collection}" at ${address}${list}`, {
    field: 'collection',
    collection,
    address,
  });
}

export function dimensionMismatch(file: string, found: number, collection: string, expected: number): StrataError {
  return new StrataError('STRATA_DATASET_DIMENSION', `${file}: queries have ${found} dimensions, collection "${collection}" has ${expected}`, {
    file,
    expected,
    found,
    collection,
  });
}

export function unexpectedAnswer(address: string, status: number | string, body: string): StrataError {
  return new StrataError('STRATA_INVALID_ARGUMENT', `--url: unexpected answer ${status} from ${address}: ${body.slice(0, 200)}`, {
    field: 'url',
    reason: 'unexpected-answer',
    address,
    status: String(status),
  });
}

export function unauthenticated(address: string): StrataError {
  return new StrataError('STRATA_UNAUTHENTICATED', `${address} wants an API key: pass --api-key (or set STRATA_API_KEY)`, { address });
}

/** --protocol pgvector: the database answers but cannot serve the search the load generator would send. */
export function pgvectorUnusable(address: string, reason: string, message: string): StrataError {
  return new StrataError('STRATA_INVALID_ARGUMENT', `--url ${address}: ${message}`, { field: 'url', reason, address });
}
