// What the router refuses of a search-like body, naming the field (a field the router would answer
// wrongly is never dropped): a query whose shard answers do not merge by score, and `with_stats`.
import { invalidArgument } from '../../common/errors.js';
import { type Fields, isAbsent, isPlainObject } from '../api/fields.js';

const ASK_SHARDS = 'through the router only nearest queries (a vector or a point id, or {"nearest": either}) are served: ask the shard servers';

/** A vector: a list of numbers, or (in MessagePack) a Float32Array, or a sparse one ({indices, values}). */
const isVector = (v: unknown): boolean => Array.isArray(v) || ArrayBuffer.isView(v) || (isPlainObject(v) && 'indices' in v && 'values' in v);
/** A point id: an integer or a UUID string. */
export const isPointId = (v: unknown): v is number | string => typeof v === 'number' || typeof v === 'string';

/**
 * The queries the router's one-round path merges by score: a nearest one, by a vector (dense or
 * sparse) or a point id (the route puts the point's stored vector in its place: examples.ts,
 * queryById). Anything else reaching it is refused, naming the field (under `at`, a batch member's
 * path): the query route's other kinds are taken before (query-kinds.ts), and grouped queries take
 * none of them.
 */
export function nearestOnly(b: Fields, at = ''): void {
  if (!isAbsent(b['prefetch'])) throw invalidArgument(`${at}prefetch`, ASK_SHARDS);
  const q = b['query'];
  const taken = (v: unknown): boolean => isVector(v) || isPointId(v);
  if (isAbsent(q) || taken(q)) return;
  if (typeof q === 'object') {
    const keys = Object.keys(q);
    if (keys.length === 1 && keys[0] === 'nearest' && taken((q as Fields)['nearest'])) return;
    throw invalidArgument(`${at}query.${keys.find((k) => k !== 'nearest') ?? 'nearest'}`, ASK_SHARDS);
  }
  throw invalidArgument(`${at}query`, ASK_SHARDS);
}

/**
 * `with_stats: true` on the routes that refuse it: each shard's stats describe its own search, and
 * they do not add up to one search's.
 */
export function noStats(b: Fields, at = ''): void {
  if (b['with_stats'] === true)
    throw invalidArgument(`${at}with_stats`, "the shards' stats do not add up to one search's: leave with_stats out through the router, or ask a shard server");
}
