// Strata's single error registry. Every error Strata throws on purpose is a StrataError with a
// stable code from ERROR_CODES; docs/errors.md lists the same codes (a test keeps them in sync).
// Codes are stable API: callers branch on `code`, never on message text.

export const ERROR_CODES = {
  STRATA_INVALID_ARGUMENT: 'An argument or option is missing, malformed or out of range.',
  STRATA_DATASET_FORMAT: 'A dataset file is truncated, malformed or not of the expected format.',
  STRATA_DATASET_VALUE: 'A dataset holds a value that cannot be indexed (NaN, Infinity, bad id).',
  STRATA_DATASET_DIMENSION: 'Rows of a dataset, or a dataset and an index, disagree on dimension.',
  STRATA_INDEX_EXISTS: 'The output path exists already: --force replaces an index directory there, never anything else (a file, other files, the input).',
  STRATA_INDEX_NOT_FOUND: 'No index (manifest) at the given path.',
  STRATA_INDEX_CORRUPT: 'An index file fails its checksum, magic number, size or graph invariants.',
  STRATA_INDEX_VERSION: 'An index file has a format version this build cannot read.',
  STRATA_DRAM_BUDGET: 'The DRAM budget cannot be satisfied (too small or malformed).',
  STRATA_NUMA_UNAVAILABLE: 'NUMA placement was asked for but the host or build cannot provide it.',
  STRATA_NUMA_BIND: 'Binding memory to a NUMA node failed (no such node, no permission, ...).',
  STRATA_KERNEL: 'The distance kernels could not be loaded.',
  STRATA_COLLECTION_NOT_FOUND: 'No collection (loaded index) of that name.',
  STRATA_COLLECTION_EXISTS: 'A collection of that name exists already: delete it first, or pick another name.',
  STRATA_OVERLOADED: 'The engine queue is full: the request was rejected at once instead of queued.',
  STRATA_DEADLINE_EXCEEDED: 'The request did not finish before its deadline.',
  STRATA_CANCELLED: 'The request was cancelled by its caller.',
  STRATA_SHUTTING_DOWN: 'The server is shutting down: it takes no new requests, and fails those left at the drain deadline.',
  STRATA_WORKER_FAILED: 'A worker thread failed while serving the request.',
  STRATA_UNREACHABLE: 'Nothing answers at the given address (connection refused, reset or timed out).',
  STRATA_POINT_NOT_FOUND: 'No point with that id in the collection.',
  STRATA_ALIAS_NOT_FOUND: 'No collection alias of that name.',
  STRATA_SNAPSHOT_NOT_FOUND: 'No snapshot of that name for the collection.',
  STRATA_UNAUTHENTICATED: 'The request carries no valid API key.',
  STRATA_READ_ONLY:
    'The collection or operation takes no writes: the server runs without a data directory (--data-dir), or the collection was built offline and cannot be deleted over the API.',
  STRATA_PAYLOAD_TOO_LARGE: 'A request body, message or batch, or the answer it asks for, exceeds the server limit.',
  STRATA_UNSUPPORTED_MEDIA_TYPE: 'The request body has a content type the server does not read.',
  STRATA_ROUTE_NOT_FOUND: 'No such endpoint.',
  STRATA_NOT_IMPLEMENTED: "Qdrant's API has this operation, but Strata does not run it: the message says why and what to use instead.",
  STRATA_STORAGE: 'Writing to the data directory failed (disk full, read-only file system, no permission): the write was not acknowledged.',
  STRATA_WRITE_LOG:
    "The shared write log a shard's replicas follow (NATS JetStream) did not store the write, or did not deliver it back to this replica in time: it was not acknowledged; retry it (an upsert or delete of the same ids is idempotent).",
  STRATA_INTERNAL: 'An unexpected failure inside the server (a bug): see the server log.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export type ErrorDetails = Readonly<Record<string, string | number | boolean | null | undefined>>;

export class StrataError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StrataError';
    this.code = code;
    this.details = details;
  }
}

export function isStrataError(e: unknown, code?: ErrorCode): e is StrataError {
  return e instanceof StrataError && (code === undefined || e.code === code);
}

export function invalidArgument(field: string, message: string, details: ErrorDetails = {}): StrataError {
  return new StrataError('STRATA_INVALID_ARGUMENT', `${field}: ${message}`, { field, ...details });
}

/** Longest piece of user input an error message quotes (names, ids, header values). */
export const MAX_ECHO = 64;

/**
 * User input quoted for an error message, cut to `max` characters: a message must never carry a
 * request's bulk (gRPC sends it in the grpc-message header, which HTTP/2 caps).
 */
export function quoted(s: string, max = MAX_ECHO): string {
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}

/**
 * The path of member `k` of `field` for an error message (`filter.must`): a key of the request's
 * own making past MAX_ECHO characters is quoted and cut, like any echoed input.
 */
/** 404: the collection holds no point of that id (as the request spelled it). */
export function pointNotFound(collection: string, id: string): StrataError {
  return new StrataError('STRATA_POINT_NOT_FOUND', `no point with id ${quoted(id)} in collection ${quoted(collection)}`, {
    collection,
    id: id.slice(0, 64),
  });
}

/** STRATA_NOT_IMPLEMENTED: "<operation> is not run by Strata: <why>". */
export function notImplemented(operation: string, why: string): StrataError {
  return new StrataError('STRATA_NOT_IMPLEMENTED', `${operation} is not run by Strata: ${why}`, { operation });
}

export function memberField(field: string, k: string): string {
  return `${field}.${k.length > MAX_ECHO ? quoted(k) : k}`;
}

/** The message of anything thrown: an Error's own, anything else as a string. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Why something takes no writes: the reasons STRATA_READ_ONLY names. */
const READ_ONLY_REASONS = {
  'no-data-dir': 'no --data-dir',
  'index-dir': 'served from an index directory, built offline',
  unsupported: 'not a write Strata takes',
  'unreplicated-writes': 'several replicas and no shared write log',
} as const;

export type ReadOnlyReason = keyof typeof READ_ONLY_REASONS;

/**
 * STRATA_READ_ONLY in its one wording: "<subject> takes no writes (<reason>): <what to do>". Details
 * carry `allow` where a REST answer lists the methods the path does take.
 */
export function readOnly(subject: string, reason: ReadOnlyReason, remedy: string, details: ErrorDetails = {}): StrataError {
  return new StrataError('STRATA_READ_ONLY', `${subject} takes no writes (${READ_ONLY_REASONS[reason]}): ${remedy}`, details);
}
