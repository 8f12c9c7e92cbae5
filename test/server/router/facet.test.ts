// The router's exact facet (server/router/facet.ts) over hand-made shard answers: each shard holds
// a table of value counts, lists its first MAX_FACET_LIMIT by count (ties by value), and counts the
// values a filter names when asked again.
import { describe, expect, it } from 'vitest';
import { MAX_FACET_LIMIT } from '../../../server/api/requests.js';
import { facetOverShards } from '../../../server/router/facet.js';
import type { RouterContext } from '../../../server/router/route-context.js';

type Counts = Map<number, number>;

/** A shard's facet answer over its counts: the `limit` values held most, ties by value; only `only` when given. */
function answerOf(counts: Counts, limit: number, only?: readonly number[]) {
  const rows = [...counts].filter(([v]) => only === undefined || only.includes(v)).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return { status: 200, body: { result: { hits: rows.slice(0, limit).map(([value, count]) => ({ value, count })) } } };
}

/** A router context whose shards answer from `shards`, counting the calls each gets. */
function fakeContext(shards: Counts[]): { ctx: RouterContext; calls: number[] } {
  const calls = shards.map(() => 0);
  const ctx = {
    shards: { count: shards.length },
    calls: {
      fanOut: async (_m: string, _p: string, body: { limit: number }) => {
        shards.forEach((_, s) => calls[s]!++);
        return { answers: shards.map((c) => answerOf(c, body.limit)), missing: [] };
      },
      one: async (shard: number, _m: string, _p: string, body: { limit: number; filter: { must: Array<{ match?: { any: number[] } }> } }) => {
        calls[shard]!++;
        const any = body.filter.must.find((c) => c.match !== undefined)!.match!.any;
        return answerOf(shards[shard]!, body.limit, any);
      },
    },
  } as unknown as RouterContext;
  return { ctx, calls };
}

/** Counts with `n` values held once each, from `from` on. */
const singles = (from: number, n: number): Counts => new Map(Array.from({ length: n }, (_, i) => [from + i, 1]));

describe('facetOverShards', () => {
  it('adds up the counts, once each shard listed every value it holds', async () => {
    const { ctx, calls } = fakeContext([
      new Map([
        [1, 5],
        [2, 3],
      ]),
      new Map([
        [2, 4],
        [3, 1],
      ]),
    ]);
    const r = await facetOverShards(ctx, 'c', { key: 'k' }, 2);
    expect(r.hits).toEqual([
      { value: 2, count: 7 },
      { value: 1, count: 5 },
    ]);
    expect(calls).toEqual([1, 1]);
  });

  it('asks again, for the values that could reach the top, a shard that left them out, and counts them exactly', async () => {
    // Shard 1 holds more values than it lists; value 9e6 (4 there, ranked past its list among
    // values held 4 times) is held 10 times on shard 0: listed alone it would count 10, not 14.
    const many = new Map([...singles(0, MAX_FACET_LIMIT + 5)].map(([v]) => [v, 4]));
    many.set(9e6, 4);
    const { ctx, calls } = fakeContext([new Map([[9e6, 10]]), many]);
    const r = await facetOverShards(ctx, 'c', { key: 'k' }, 1);
    expect(r.hits).toEqual([{ value: 9e6, count: 14 }]);
    expect(calls).toEqual([1, 2]);
  });

  it('refuses, naming the key, a top that a value no shard listed could still tie', async () => {
    // The top value holds 5; a value both cut shards left out could hold 3 + 3.
    const a = new Map([...singles(0, MAX_FACET_LIMIT + 5)].map(([v]) => [v, 3]));
    const b = new Map([...singles(MAX_FACET_LIMIT * 2, MAX_FACET_LIMIT + 5)].map(([v]) => [v, 3]));
    a.set(-1, 5);
    const { ctx } = fakeContext([a, b]);
    await expect(facetOverShards(ctx, 'c', { key: 'k' }, 1)).rejects.toThrow(/^key: "k" has more than 10000 values on a shard/);
  });

  it('refuses, naming the key, when more values than one facet lists could still reach the top', async () => {
    const { ctx } = fakeContext([singles(0, MAX_FACET_LIMIT + 5), singles(MAX_FACET_LIMIT * 2, MAX_FACET_LIMIT + 5)]);
    await expect(facetOverShards(ctx, 'c', { key: 'k' }, 10)).rejects.toThrow(/^key: "k" has more than 10000 values on a shard/);
  });
});
