// How the shards' answers to one request become one answer: hits merged by score, collections by
// name, views and compactions added up, points put back in request or id order, writes folded into
// one acknowledgement. Pure functions of the shards' results.
import type { TierHistoryView, TierSampleView } from '../tier-history.js';
import type { QdrantCollectionView, ValuesTierView } from '../api/collection-view.js';
import type { PayloadSchemaView } from '../api/payload-index.js';
import type { CompactionView } from '../api/writes.js';

export interface Hit {
  id: number;
  score: number;
  [k: string]: unknown;
}

/** Best hit first (the larger or the smaller score), a tie to the lower id. */
const hitOrder =
  (higherIsBetter: boolean) =>
  (a: Hit, b: Hit): number =>
    (higherIsBetter ? b.score - a.score : a.score - b.score) || a.id - b.id;

/** The best `limit` hits after `offset`, over every shard's list; ties go to the lower id. */
export function mergeHits(lists: Hit[][], higherIsBetter: boolean, offset: number, limit: number): Hit[] {
  const all = lists.flat();
  all.sort(hitOrder(higherIsBetter));
  return all.slice(offset, offset + limit);
}

/** A group of a grouped search: its value of `group_by` (a keyword or an integer) and its hits. */
export interface Group {
  id: string | number;
  hits: Hit[];
}

/** A group's identity: a keyword "1" and an integer 1 are different groups. */
export const groupKey = (id: Group['id']): string => `${typeof id}:${String(id)}`;

/**
 * Groups as one server groups them, from the shards' lists (`lists`, each in its shard's order) and
 * hits filled in for some of them (`fills`): the hits of groups with the same id merged, each
 * group's best `groupSize` kept, and the best `limit` groups by their best hit. The server opens
 * groups in the order of their hits, so two groups whose best hit is the same point (a point with
 * several values of group_by) come in the order the shard holding that point listed them; one it
 * did not list (its own groups filled up first) comes after.
 */
export function mergeGroups(lists: Group[][], higherIsBetter: boolean, limit: number, groupSize: number, fills: Group[][] = []): Group[] {
  const order = hitOrder(higherIsBetter);
  interface Ranked {
    hit: Hit;
    /** The group's place in the list the hit came from (fills: unranked). */
    place: number;
  }
  const byKey = new Map<string, { id: Group['id']; hits: Ranked[] }>();
  const add = (list: Group[], ranked: boolean): void =>
    list.forEach((g, place) => {
      const hits = g.hits.map((hit) => ({ hit, place: ranked ? place : Number.POSITIVE_INFINITY }));
      const seen = byKey.get(groupKey(g.id));
      if (seen) seen.hits.push(...hits);
      else byKey.set(groupKey(g.id), { id: g.id, hits });
    });
  for (const list of lists) add(list, true);
  for (const list of fills) add(list, false);
  const groups = [...byKey.values()]
    .filter((g) => g.hits.length > 0)
    .map((g) => ({ id: g.id, hits: g.hits.sort((a, b) => order(a.hit, b.hit)).slice(0, groupSize) }));
  const placeOrder = (a: number, b: number): number => (a === b ? 0 : a < b ? -1 : 1);
  groups.sort((a, b) => order(a.hits[0]!.hit, b.hits[0]!.hit) || placeOrder(a.hits[0]!.place, b.hits[0]!.place));
  return groups.slice(0, limit).map((g) => ({ id: g.id, hits: g.hits.map((h) => h.hit) }));
}

/** Every collection name any shard has, once. */
export function mergeCollectionNames(lists: Array<{ collections: Array<{ name: string }> }>): { collections: Array<{ name: string }> } {
  const names = new Set<string>();
  for (const l of lists) for (const c of l.collections) names.add(c.name);
  return { collections: [...names].map((name) => ({ name })) };
}

const STATUS_RANK: Record<string, number> = { green: 0, yellow: 1, red: 2 };

/** One collection's view over its shards: the first shard's config, the worst status, the counts added up. */
export function mergeCollectionViews(views: QdrantCollectionView[], shardCount: number, missing: number[]): Record<string, unknown> {
  const worst = views.reduce<string>((w, v) => ((STATUS_RANK[v.status] ?? 2) > (STATUS_RANK[w] ?? 2) ? v.status : w), 'green');
  const sum = (k: 'points_count' | 'indexed_vectors_count' | 'segments_count'): number => views.reduce((s, v) => s + (v[k] ?? 0), 0);
  return {
    ...views[0],
    status: missing.length > 0 ? 'red' : worst,
    points_count: sum('points_count'),
    indexed_vectors_count: sum('indexed_vectors_count'),
    segments_count: sum('segments_count'),
    payload_schema: mergePayloadSchemas(views.map((v) => v.payload_schema ?? {})),
    ...(views[0] !== undefined ? { strata: { ...views[0].strata, payload: mergePayloadBytes(views.map((v) => v.strata.payload)) } } : {}),
    router: { shards: shardCount, missing_shards: missing },
  };
}

/** Each indexed key once (the first shard's schema), with the points indexed on every shard added up. */
export function mergePayloadSchemas(schemas: Array<Record<string, PayloadSchemaView>>): Record<string, PayloadSchemaView> {
  const out = new Map<string, PayloadSchemaView>();
  for (const schema of schemas)
    for (const [key, e] of Object.entries(schema)) {
      const seen = out.get(key);
      out.set(key, seen ? { ...seen, points: seen.points + e.points } : { ...e });
    }
  return Object.fromEntries(out);
}

/** The shards' payload bytes added up: values, rows and each index by key path. */
export function mergePayloadBytes(parts: Array<QdrantCollectionView['strata']['payload']>): QdrantCollectionView['strata']['payload'] {
  const index_bytes: Record<string, number> = {};
  let values_bytes = 0;
  let rows_bytes = 0;
  for (const p of parts) {
    values_bytes += p.values_bytes;
    rows_bytes += p.rows_bytes;
    for (const [key, bytes] of Object.entries(p.index_bytes)) index_bytes[key] = (index_bytes[key] ?? 0) + bytes;
  }
  return { values_bytes, values_tier: mergeValuesTier(parts.map((p) => p.values_tier)), rows_bytes, index_bytes };
}

/** The shards' value tiers as one: bound to a node only when every shard's is bound to that node; page counts added up (null when any shard has none). */
function mergeValuesTier(tiers: ValuesTierView[]): ValuesTierView {
  const first = tiers[0];
  const same = first !== undefined && first.mode === 'numa' && tiers.every((t) => t.mode === 'numa' && t.node === first.node);
  const sum = (f: (t: ValuesTierView) => number | null): number | null =>
    tiers.reduce<number | null>((a, t) => (a === null || f(t) === null ? null : a + f(t)!), 0);
  return {
    tier: 'cxl',
    mode: same ? 'numa' : 'emulated',
    node: same ? first.node : null,
    slabs: tiers.reduce((a, t) => a + t.slabs, 0),
    pages: same ? sum((t) => t.pages) : null,
    pages_on_node: same ? sum((t) => t.pages_on_node) : null,
    pages_elsewhere: same ? sum((t) => t.pages_elsewhere) : null,
  };
}

/**
 * Every replica compacts its own copy: the answer adds the shards up (a shard's figures are its
 * first replica's: the replicas hold the same points) and takes the longest time.
 */
export function mergeCompactions(byShard: CompactionView[][]): CompactionView {
  const firsts = byShard.map((s) => s[0]!);
  const sum = (k: 'points' | 'fresh_before' | 'hidden_before' | 'fresh_after' | 'hidden_after'): number => firsts.reduce((a, s) => a + s[k], 0);
  return {
    compacted: firsts.some((s) => s.compacted),
    points: sum('points'),
    seconds: Math.max(...byShard.flat().map((s) => s.seconds)),
    fresh_before: sum('fresh_before'),
    hidden_before: sum('hidden_before'),
    fresh_after: sum('fresh_after'),
    hidden_after: sum('hidden_after'),
  };
}

/** The points found, in request order, each existing id once (as a single server answers). */
export function pointsInRequestOrder(ids: ReadonlyArray<number | null>, lists: Array<Array<{ id: number }>>): unknown[] {
  const byId = new Map<number, unknown>();
  for (const l of lists) for (const p of l) byId.set(Number(p.id), p);
  const seen = new Set<number>();
  const out: unknown[] = [];
  for (const id of ids) {
    if (id === null || seen.has(id) || !byId.has(id)) continue;
    seen.add(id);
    out.push(byId.get(id));
  }
  return out;
}

export interface ScrollPage {
  points: Array<{ id: number }>;
  next_page_offset: number | null;
}

/** The first `limit` points by id over every shard's page, and where the next page starts. */
export function mergeScrollPages(pages: ScrollPage[], limit: number): ScrollPage {
  const points = pages.flatMap((p) => p.points).sort((x, y) => Number(x.id) - Number(y.id));
  // The next page starts at the first id not returned: the (limit+1)-th merged id, or the
  // smallest next offset a shard gave.
  const nexts = pages.map((p) => p.next_page_offset).filter((n): n is number => n !== null);
  const next = points.length > limit ? Number(points[limit]!.id) : nexts.length > 0 ? Math.min(...nexts) : null;
  return { points: points.slice(0, limit), next_page_offset: next };
}

export interface WriteResult {
  operation_id: number;
  status: string;
}

/** The shards' answers to one write as one: the highest operation id, and their status. */
export function mergeWriteResults(results: WriteResult[]): WriteResult {
  return { operation_id: Math.max(0, ...results.map((x) => x.operation_id)), status: results[0]?.status ?? 'completed' };
}

/** Memory by part and tier (GET /collections/{c}/memory) over the shards: each part's bytes summed. */
export function mergeMemory(parts: Array<{ parts: Array<{ part: string; dram: number; cxl: number }> }>): {
  parts: Array<{ part: string; dram: number; cxl: number }>;
  total: { dram: number; cxl: number };
} {
  const by = new Map<string, { part: string; dram: number; cxl: number }>();
  for (const m of parts)
    for (const p of m.parts) {
      const q = by.get(p.part) ?? { part: p.part, dram: 0, cxl: 0 };
      q.dram += p.dram;
      q.cxl += p.cxl;
      by.set(p.part, q);
    }
  const list = [...by.values()];
  return { parts: list, total: { dram: list.reduce((a, p) => a + p.dram, 0), cxl: list.reduce((a, p) => a + p.cxl, 0) } };
}

/**
 * Tier histories over the shards, second by second (each shard samples on its own clock: samples
 * meet in the second they end in): searches, bytes, pool moves and QPS summed, the DRAM share
 * weighted by searches, and the latency percentiles the worst shard's (a bound, not the router's
 * own). The hottest lists: every shard's, most read first.
 */
export function mergeHistories(histories: TierHistoryView[]): TierHistoryView {
  const seconds = new Map<number, TierSampleView[]>();
  for (const h of histories) for (const s of h.samples) seconds.set(Math.round(s.at / 1000), [...(seconds.get(Math.round(s.at / 1000)) ?? []), s]);
  const max = (xs: Array<number | null>): number | null => xs.reduce<number | null>((a, x) => (x === null ? a : a === null ? x : Math.max(a, x)), null);
  const samples = [...seconds.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([second, ss]) => {
      const searches = ss.reduce((a, s) => a + s.searches, 0);
      const shared = ss.filter((s) => s.dram_share !== null);
      const weight = shared.reduce((a, s) => a + s.searches, 0);
      return {
        at: second * 1000,
        searches,
        dram_share: shared.length === 0 ? null : weight > 0 ? shared.reduce((a, s) => a + s.dram_share! * s.searches, 0) / weight : shared[0]!.dram_share,
        dram_bytes_per_s: ss.reduce((a, s) => a + s.dram_bytes_per_s, 0),
        cxl_bytes_per_s: ss.reduce((a, s) => a + s.cxl_bytes_per_s, 0),
        pool_moves: ss.reduce((a, s) => a + s.pool_moves, 0),
        qps: ss.reduce((a, s) => a + s.qps, 0),
        p50_ms: max(ss.map((s) => s.p50_ms)),
        p99_ms: max(ss.map((s) => s.p99_ms)),
      };
    });
  const hottest = histories.flatMap((h) => h.hottest_lists).sort((a, b) => b.reads - a.reads);
  return { period_ms: histories[0]?.period_ms ?? 1000, samples, hottest_lists: hottest.slice(0, 10) };
}

export interface FacetHit {
  value: string | number | boolean;
  count: number;
}

/** A facet value's identity: a keyword "1" and an integer 1 are different values. */
export const facetKey = (v: FacetHit['value']): string => `${typeof v}:${String(v)}`;

/**
 * The `limit` values held by the most points over every shard's facet (counts added up), most first,
 * ties by value, as one server orders them. Exact when each shard answered all its values.
 */
export function mergeFacets(lists: FacetHit[][], limit: number): FacetHit[] {
  const counts = new Map<string, FacetHit>();
  for (const h of lists.flat()) {
    const k = facetKey(h.value);
    const seen = counts.get(k);
    if (seen) seen.count += h.count;
    else counts.set(k, { value: h.value, count: h.count });
  }
  const all = [...counts.values()];
  all.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return all.slice(0, limit);
}

export interface AliasView {
  alias_name: string;
  collection_name: string;
}

/** Every alias any shard lists, once, by name (the router creates each on every shard). */
export function mergeAliases(lists: AliasView[][]): AliasView[] {
  const byName = new Map<string, AliasView>();
  for (const a of lists.flat()) if (!byName.has(a.alias_name)) byName.set(a.alias_name, a);
  return [...byName.values()].sort((a, b) => (a.alias_name < b.alias_name ? -1 : a.alias_name > b.alias_name ? 1 : 0));
}
