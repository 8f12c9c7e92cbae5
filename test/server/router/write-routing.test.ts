// Grouping a write's items by the shard their id hashes to (server/router/write-routing.ts).
import { describe, expect, it } from 'vitest';
import { shardOf } from '../../../index/build/build-shards.js';
import { groupByShard } from '../../../server/router/write-routing.js';

describe('groupByShard', () => {
  const ids = Array.from({ length: 40 }, (_, i) => i * 7 + 1);

  it('puts each item in the group of the shard its id hashes to, keeping their order', () => {
    const groups = groupByShard(ids, 3, (id) => id);
    for (const [shard, items] of groups) for (const id of items) expect(shardOf(id, 3)).toBe(shard);
    expect([...groups.values()].flat().sort((a, b) => a - b)).toEqual(ids);
    for (const items of groups.values()) expect(items).toEqual(ids.filter((id) => items.includes(id)));
  });

  it('leaves out items with a null id', () => {
    const groups = groupByShard([3, null, 5], 2, (id) => id);
    expect([...groups.values()].flat().sort()).toEqual([3, 5]);
  });
});
