// What the router refuses of a search-like body, naming the field (a field the router would answer
// wrongly is never dropped): a query whose shard answers do not merge by score, and `with_stats`.
import { invalidArgument } from '../../common/errors.js';
import { type Fields, isAbsent } from '../api/fields.js';

const ASK_SHARDS = 'through the router only nearest-vector queries (a vector, or {"nearest": vector}) are served: ask the shard servers';

/** A vector: a list of numbers, or (in MessagePack) a Float32Array. */
const isVector = (v: unknown): boolean => Array.isArray(v) || ArrayBuffer.isView(v);

/**
 * The queries whose per-shard answers merge by score into one server's answer. A point id lives on
 * one shard, fusion and MMR scores depend on the other candidates, and order_by answers are not
 * ordered by score: merged here they would be wrong, so they are refused, naming the field (under
 * `at`, a batch member's path).
 */
export function nearestOnly(b: Fields, at = ''): void {
  if (!isAbsent(b['prefetch'])) throw invalidArgument(`${at}prefetch`, ASK_SHARDS);
  const q = b['query'];
  if (isAbsent(q) || isVector(q)) return;
  if (typeof q === 'object') {
    const keys = Object.keys(q);
    if (keys.length === 1 && keys[0] === 'nearest' && isVector((q as Fields)['nearest'])) return;
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
