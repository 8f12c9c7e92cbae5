// Grouped searches over the shards (search, query and recommend groups). Every shard answers its best
// `limit` groups, and merged by their best hit those are the right groups: a group among the best
// `limit` of all is among the best `limit` of the shard holding its best hit. But a group's other
// hits may lie on a shard where it did not rank: a shard that answered `limit` groups without it may
// hold some. So each such shard is asked, in one batch, for its best `group_size` hits of every
// group it left out (the same search, filtered to the group's value of group_by), and those hits
// merge into the groups: the answer is one server's over all the points.
import { type Fields, optionalInt } from '../api/fields.js';
import { MAX_LIMIT } from '../options.js';
import { andFilters } from './and-filters.js';
import { collectionPath } from './collection-paths.js';
import { type Group, groupKey, type Hit, mergeGroups } from './merge.js';
import type { RouterContext } from './route-context.js';
import { resultOf } from './shard-calls.js';
import { searchedBy } from './score-order.js';

/** Searches in one fill batch: well under any shard's --max-batch (default 256) that a deployment would set. */
const FILL_BATCH = 16;

export interface GroupedSearch {
  name: string;
  /** The grouped route below the collection (`/points/search/groups`). */
  path: string;
  /** The batch route of the same searches ungrouped (`/points/search/batch`), to fill groups in. */
  batchPath: string;
  /** The body every shard gets. */
  body: Fields;
  /** A member of the batch route's answer as its hits. */
  hitsOf: (member: unknown) => Hit[];
}

/** The grouped search's body as one plain search of a group's best `groupSize` hits. */
export function groupSearch(body: Fields, id: Group['id'], groupSize: number): Fields {
  const { group_by, group_size: _size, limit: _limit, with_lookup: _lookup, ...rest } = body;
  return { ...rest, limit: groupSize, filter: andFilters(rest['filter'], { must: [{ key: group_by, match: { value: id } }] }) };
}

export async function groupsOverShards(ctx: RouterContext, g: GroupedSearch): Promise<{ groups: Group[]; missing: number[] }> {
  const { calls, scoreOrder } = ctx;
  const { answers, missing } = await calls.fanOut('POST', collectionPath(g.name, g.path), g.body);
  // Every shard took the body: its window is read here only now, so a bad one is the shards' 400.
  const groupSize = optionalInt(g.body['group_size'], 'group_size', 1, MAX_LIMIT) ?? 3;
  const limit = optionalInt(g.body['limit'], 'limit', 1, MAX_LIMIT) ?? 10;
  const higher = await scoreOrder.higherIsBetter(g.name, searchedBy(g.body));
  const answered = Array.from({ length: ctx.shards.count }, (_, s) => s).filter((s) => !missing.includes(s));
  const lists = answers.map((a) => resultOf<{ groups: Group[] }>(a).groups);
  const groups = mergeGroups(lists, higher, limit, groupSize);
  const fills = await Promise.all(
    answered.map(async (shard, k): Promise<Group[]> => {
      const own = lists[k] ?? [];
      // Fewer than `limit` groups: the shard opened a group for every point it matched, so it holds
      // no point of the groups it left out.
      if (own.length < limit) return [];
      const has = new Set(own.map((x) => groupKey(x.id)));
      const left = groups.filter((x) => !has.has(groupKey(x.id)));
      if (left.length === 0) return [];
      const chunks = Array.from({ length: Math.ceil(left.length / FILL_BATCH) }, (_, c) => left.slice(c * FILL_BATCH, (c + 1) * FILL_BATCH));
      const filled = await Promise.all(
        chunks.map(async (chunk) => {
          const a = await calls.one(shard, 'POST', collectionPath(g.name, g.batchPath), { searches: chunk.map((x) => groupSearch(g.body, x.id, groupSize)) });
          return resultOf<unknown[]>(a).map((member, i) => ({ id: chunk[i]!.id, hits: g.hitsOf(member) }));
        }),
      );
      return filled.flat();
    }),
  );
  return { groups: fills.some((f) => f.length > 0) ? mergeGroups([groups], higher, limit, groupSize, fills) : groups, missing };
}
