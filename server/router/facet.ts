// A facet over the shards, exact. Every shard answers its first MAX_FACET_LIMIT values by count;
// one that lists that many may hold more, and a value it left out may hold up to its last count
// there. So the values whose counts could still reach the top `limit` are counted exactly on the
// shards that left them out (a second facet, filtered to those values), and a value no shard listed
// could reach at most the sum of those shards' last counts: if the top's last count does not beat
// that, the answer could be wrong, and it is refused, naming `key`.
import { invalidArgument } from '../../common/errors.js';
import type { Fields } from '../api/fields.js';
import { MAX_FACET_LIMIT } from '../api/requests.js';
import { andFilters } from './and-filters.js';
import { collectionPath } from './collection-paths.js';
import { type FacetHit, facetKey, mergeFacets } from './merge.js';
import type { RouterContext } from './route-context.js';
import { resultOf } from './shard-calls.js';
import type { ShardAnswer } from './shard-set.js';

const hitsOf = (a: ShardAnswer): FacetHit[] => resultOf<{ hits: FacetHit[] }>(a).hits;

export async function facetOverShards(ctx: RouterContext, name: string, b: Fields, limit: number): Promise<{ hits: FacetHit[]; missing: number[] }> {
  const path = collectionPath(name, '/facet');
  const { answers, missing } = await ctx.calls.fanOut('POST', path, { ...b, limit: MAX_FACET_LIMIT });
  const lists = answers.map(hitsOf);
  const cut = lists.map((l) => l.length >= MAX_FACET_LIMIT);
  if (!cut.includes(true)) return { hits: mergeFacets(lists, limit), missing };
  const shards = Array.from({ length: ctx.shards.count }, (_, s) => s).filter((s) => !missing.includes(s));
  // The most a value a shard left out holds there: its last count (0 where it listed every value).
  const floor = lists.map((l, k) => (cut[k] ? l[l.length - 1]!.count : 0));
  const listed = lists.map((l) => new Set(l.map((h) => facetKey(h.value))));
  const known = mergeFacets(lists, Number.POSITIVE_INFINITY);
  const bar = known[Math.min(limit, known.length) - 1]!.count;
  const most = (h: FacetHit): number => h.count + floor.reduce((n, f, k) => n + (listed[k]!.has(facetKey(h.value)) ? 0 : f), 0);
  const candidates = known.filter((h) => most(h) >= bar);
  const exact = new Map(candidates.map((h) => [facetKey(h.value), { ...h }]));
  await Promise.all(
    lists.map(async (_, k) => {
      const left = candidates.filter((h) => cut[k] && !listed[k]!.has(facetKey(h.value))).map((h) => h.value);
      if (left.length === 0) return;
      if (left.length > MAX_FACET_LIMIT) throw tooWide(b);
      const only = { key: b['key'], match: { any: left } };
      const a = await ctx.calls.one(shards[k]!, 'POST', path, {
        ...b,
        filter: andFilters(b['filter'], { must: [only] }),
        limit: left.length,
      });
      for (const h of hitsOf(a)) exact.get(facetKey(h.value))!.count += h.count;
    }),
  );
  const top = mergeFacets([[...exact.values()]], limit);
  // A value no shard listed holds at most the shards' last counts added up.
  const unseen = floor.reduce((n, f) => n + f, 0);
  if (top.length < limit || top[top.length - 1]!.count <= unseen) throw tooWide(b);
  return { hits: top, missing };
}

function tooWide(b: Fields): Error {
  return invalidArgument(
    'key',
    `${JSON.stringify(String(b['key']).slice(0, 64))} has more than ${MAX_FACET_LIMIT} values on a shard, too evenly counted for the router to find the top ones exactly: ask the shard servers, or facet with a filter`,
  );
}
