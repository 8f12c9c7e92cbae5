// Writes go to the shard each id hashes to (the shard map's function, shardOf): the ids grouped by
// shard (write-parts.ts cuts each body into its shards' parts), one call per shard, and the write
// acknowledged only when every shard's part is.
import { randomUUID } from 'node:crypto';
import { readOnly } from '../../common/errors.js';
import { shardOf } from '../../engine/public.js';
import { WRITE_ID_HEADER, WRITE_SEQ_HEADER } from '../api/writes.js';
import type { WriteResult } from './merge.js';
import type { RouterContext } from './route-context.js';
import { resultOf } from './shard-calls.js';
import { collectionPath } from './collection-paths.js';

/** Items grouped by the shard their id hashes to (items with a null id, which never match, left out). */
export function groupByShard<T>(items: readonly T[], shardCount: number, idOf: (item: T, i: number) => number | null): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  items.forEach((item, i) => {
    const id = idOf(item, i);
    if (id === null) return;
    const s = shardOf(id, shardCount);
    const g = groups.get(s);
    if (g) g.push(item);
    else groups.set(s, [item]);
  });
  return groups;
}

export interface RoutedWrite {
  name: string;
  method: 'PUT' | 'POST' | 'DELETE';
  /** The path below the collection, with its query string. */
  path: string;
  wait: boolean;
  /** Each shard's part of the write, by shard. */
  bodies: ReadonlyMap<number, unknown>;
}

/** The log sequence of a write's acknowledgement: its operation_id. */
const sequenceOfResult = (r: unknown): number => (r as WriteResult).operation_id;

/**
 * Sends each shard its part; resolves with every shard's acknowledgement, by shard. `sequenceOf`
 * reads the log sequence out of an acknowledgement (a write's operation_id by default).
 */
export async function routeWrites<R = WriteResult>(
  ctx: RouterContext,
  w: RoutedWrite,
  sequenceOf: (r: R) => number = sequenceOfResult,
): Promise<Map<number, R>> {
  const { shards, calls } = ctx;
  const replicated = ctx.options.replicatedWrites === true;
  for (const shard of w.bodies.keys()) {
    if (shards.replicas(shard).length > 1 && !replicated)
      throw readOnly(
        `shard ${shard}`,
        'unreplicated-writes',
        `a write would reach one of its ${shards.replicas(shard).length} replicas only; start the shard servers with --write-log and the router with --replicated-writes`,
        { allow: '' },
      );
  }
  const results = await Promise.all(
    [...w.bodies.entries()].map(async ([shard, body]): Promise<[number, R]> => {
      // One id per write and shard, the same on a failover or hedged retry: behind a shared write
      // log the copy is dropped, so a write retried on another replica is applied once.
      const headers = replicated ? { [WRITE_ID_HEADER]: randomUUID() } : undefined;
      const result = resultOf<R>(await calls.one(shard, w.method, collectionPath(w.name, w.path), body, headers));
      // wait=true: read-your-writes through the router, whichever replica the next read reaches.
      // Every replica is asked to answer once it has applied the log up to the write's sequence
      // (its operation_id); one that is down or slow is skipped (restarted, it catches up from
      // the log, but may answer reads before it has: docs/api.md).
      const seq = sequenceOf(result);
      if (headers !== undefined && w.wait && shards.replicas(shard).length > 1 && seq > 0)
        await shards.everyReplica(shard, 'GET', collectionPath(w.name), { [WRITE_SEQ_HEADER]: String(seq) });
      return [shard, result];
    }),
  );
  return new Map(results);
}
