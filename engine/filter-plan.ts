// The filtered-search planner. A filter is answered exactly, over rows, by the payload indexes (and a
// per-point check of what no index answers: storage/point-payloads.ts); the matching rows become a
// bitset over the base index's nodes in the shared filter arena, which the search threads check
// before reading anything of a node from CXL, and a list of fresh-layer ids. The plan per query:
//
// - none:  no point matches; nothing is searched.
// - scan:  few base nodes match: score only their compact codes (DRAM) and re-rank the best from
//          the full vectors. Its cost is the matches; it never walks the graph, so a filter that
//          cuts the graph into pieces cannot hurt it.
// - graph: many match: the level-0 walk through every node, answers only from matches. Its cost
//          grows as ef × degree / selectivity (it steps over non-matches to reach matches).
// - graph_or_scan: more match than the scan takes, but not many more: the walk, unless its entry (the
//          node the upper layers led to, and its list) shows the matches scarce near the query
//          (index/search/walk-ef.ts), then the scan. A filter anti-correlated with the query leaves
//          the walk far to travel, widened, through non-matches: measured, the scan was cheaper for
//          those queries up to about SCARCE_SCAN × the scan's limit (at SCARCE_MIN_EF at least), the
//          walk beyond.
// - linked: the walk on matches only, through the matching part of each list and the filter links
//          of the payload-index blocks covering the filter (index/filter-links/, hnsw_config.payload_m).
//          A GRAPH_OR_SCAN query takes it where its entry shows the matches scarce (at half their
//          share, not the scan's thirty-second: walk-ef.ts LINK_SCARCE), and a closely covered
//          filter always gets GRAPH_OR_SCAN past the scan, whatever its share.
// - two_hop: ACORN's walk on matches only, bridging gaps through non-matching nodes' lists. Never
//          chosen: at equal recall it lost to one of the other two at every selectivity measured
//          (docs/benchmarks.md); a request may still ask for it (SearchRequest.filterPlan).
//
// The crossover is where the two costs meet: the scan scores `matched` codes, each SCAN_CODE_COST of
// a walk distance; the walk's distances are what the build measured on this graph at a few
// selectivities and two beam widths (index/search/walk-profile.ts), grown with ef as measured above
// the narrower and as √ef below it: profiledScanLimit. A base built without that measure takes the
// formula it replaced, the walk's distances growing as degree / selectivity: the scan while
// matched² ≤ SCAN_FACTOR × √ef × degree × nodes (scanLimit).
// Answers are cached per filter while the payloads and the base stay as they are (repeated filters
// — a tenant, a category — are what users send).
import type { FilterWalkEntry } from '../index/format/manifest.js';
import { walkDistances } from '../index/search/walk-profile.js';
import type { Filter } from '../index/filter/ast.js';
import { stepsInTurns } from '../common/turns.js';
import { filterKey } from '../index/filter/to-json.js';
import { FILTER_PLAN } from '../index/search/query-state.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import type { PointPayloads } from '../storage/point-payloads.js';
import { bitsetWords, type FilterArena, filterWords, writeLinks } from './filter-arena.js';
import { type LinkCover, linkCover } from '../index/filter-links/link-cover.js';
import type { ValueRun } from '../index/tiered/value-runs.js';
import { payloadNodes, runsFor, writeRuns } from './filter-runs.js';
import { RUN_CODE_COST } from '../index/tiered/value-runs.js';
import { bitsOf, forEachBit, popcount } from '../index/payload-index/dense-bits.js';
import { type FilterPlan, PLAN_NAMES } from './types.js';
import { RangePrefix } from '../index/payload-index/range-prefix.js';
import type { RangePairs } from '../index/payload-index/sorted-values.js';

/**
 * Scales the scan's side of the crossover for a base with no measured walk (scanLimit): on GloVe-100k
 * at ef 64 the scan stayed cheaper up to about a fifth of the points, and on the clustered set at
 * ef 512 the walk was four times cheaper than the scan at half of them.
 */
export const SCAN_FACTOR = 16;

/** The most matching base nodes the planner scans rather than walks, at beam width ef, for an index with no walk profile. */
export function scanLimit(ef: number, degree: number, nodes: number): number {
  return Math.floor(Math.sqrt(SCAN_FACTOR * Math.sqrt(ef) * degree * nodes));
}

/**
 * A code the fused scan scores, in walk distances: measured 20–30 ns a code against 50–90 ns a
 * distance of the fused walk (its list reads, visited set and heaps) on GloVe and the clustered set
 * (docs/benchmarks-filter-plans.md).
 */
export const SCAN_CODE_COST = 0.35;

/**
 * The most matching nodes the scan takes, by the index's measured walk (walk-profile.ts): the largest
 * count whose scan costs no more than the walk at that share of the nodes. The walk's cost falls as
 * matches grow and the scan's rises, so a binary search finds it.
 */
export function profiledScanLimit(p: FilterWalkEntry, ef: number, nodes: number): number {
  let lo = 0;
  let hi = nodes;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (SCAN_CODE_COST * mid <= walkDistances(p, mid / nodes, ef)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Up to this many times scanLimit, a walk whose entry is scarce in matches scans instead, set by
 * measurement (docs/benchmarks-filter-plans.md): on GloVe-100k "rank < 50%" (2.5× the limit at ef
 * 64) the scan took 0.7× the walk's time for such queries; on the clustered set "NOT own cluster"
 * (4.9×) 2.8× its time.
 */
export const SCARCE_SCAN = 3;

/**
 * The beam width the SCARCE_SCAN band is reckoned at, at least. A walk whose entry is scarce in
 * matches must cross the region the filter leaves out before its ef counts, and the crossing costs
 * nearly as much at a narrow beam as at this one, where SCARCE_SCAN was measured: on GloVe-100k's
 * "rank < 50%" the plain walk computed 9,307 distances a query at ef 10 and 15,690 at ef 32, where
 * an even filter of as many ("tag 50%") computed 696 and 1,553. Reckoned at the query's ef, the
 * band narrowed with it, and the narrow beams got the plain walk: 1.7 ms at ef 32 where the band's
 * plan took 1.2 ms at ef 64, for less recall (docs/benchmarks-filter-plans.md).
 */
export const SCARCE_MIN_EF = 64;

/** Ranges spanning at least this many pairs take the prefix bitsets (fewer are set bit by bit, as cheaply). */
const PREFIX_FROM = 4096;

/**
 * Filters whose answers are kept, at most, and the share of the filter arena their bitsets may hold:
 * a family of filters that differ per query (a user, a pair of categories) is resolved again on
 * every miss, at the cost of a pass over its matches on the event loop.
 */
export const CACHED_FILTERS = 4096;
export const CACHE_ARENA_SHARE = 1 / 8;

/** A filter's answer for one state of the payloads and the base: held until released. */
export interface ResolvedFilter {
  /** Word offset of the base nodes' bitset in the arena, or -1 (no base, or no base node matches). */
  readonly at: number;
  readonly baseMatched: number;
  /** Matching points served by the fresh layer, ascending: isFreshMatch tests an id against them. */
  readonly freshIds: Float64Array;
  readonly estimate: FilterPlan['estimated'];
  readonly residual: boolean;
  /** Rows of the value runs its scan reads first (index/tiered/value-runs.ts), 0: none. */
  readonly runRows: number;
  /** Points of the filter-link blocks covering it (index/filter-links/link-cover.ts), 0: no cover. */
  readonly coverPoints: number;
}

interface Cached {
  version: number;
  generation: number;
  resolved: ResolvedFilter;
}

/**
 * The plan for a filter matching `baseMatched` nodes of a base of `index` at beam width ef (or the one
 * asked for), by the base's measured walk when its manifest has one. Matches the scan reads from
 * value runs (up to `runRows` of them) count at RUN_CODE_COST of one read where it lies.
 */
export function choosePlan(
  baseMatched: number,
  index: TieredIndex,
  ef: number,
  forced?: FilterPlan['plan'],
  walk?: FilterWalkEntry | null,
  runRows = 0,
  coverPoints = 0,
): number {
  if (baseMatched === 0) return FILTER_PLAN.NONE;
  if (forced === 'linked') return coverPoints > 0 ? FILTER_PLAN.LINKED : FILTER_PLAN.GRAPH;
  if (forced !== undefined && forced !== 'none') return PLAN_NAMES.indexOf(forced);
  const n = index.meta.count;
  const limit = walk ? profiledScanLimit(walk, ef, n) : scanLimit(ef, index.meta.maxM0, n);
  const cost = baseMatched - (1 - RUN_CODE_COST) * Math.min(baseMatched, runRows);
  if (cost <= limit) return FILTER_PLAN.SCAN;
  // With filter links covering the matches closely, a walk whose entry is scarce in matches takes
  // them (traversal.ts), whatever the share: the scan would score every match, the walk travel
  // through the non-matches to reach them.
  if (coverPoints > 0 && coverPoints <= LINK_COVER_SLACK * baseMatched) return FILTER_PLAN.GRAPH_OR_SCAN;
  const bandEf = Math.max(ef, SCARCE_MIN_EF);
  const band = bandEf === ef ? limit : walk ? profiledScanLimit(walk, bandEf, n) : scanLimit(bandEf, index.meta.maxM0, n);
  return cost <= SCARCE_SCAN * band ? FILTER_PLAN.GRAPH_OR_SCAN : FILTER_PLAN.GRAPH;
}

/**
 * Whether a point of the fresh layer matched the filter when it was resolved: the fresh graph's walk
 * asks this of each point it meets, and a binary search of the sorted ids answers it without asking
 * the payload indexes again (for a filter no index answers, every row).
 */
export function isFreshMatch(r: ResolvedFilter, id: number): boolean {
  const ids = r.freshIds;
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < ids.length && ids[lo] === id;
}

/**
 * The most points a filter's link cover may hold per match for its walk to take the links: beyond
 * it the walk would cross more of the cover's non-matching points than the links save.
 */
export const LINK_COVER_SLACK = 2;

export class FilterResolver {
  private readonly cache = new Map<string, Cached>();
  /** Arena words the cached answers hold. */
  private cachedWords = 0;
  /** Per range-filtered field, its prefix bitsets and the state they were built for. */
  /** Per range-filtered field, the state of its index and nodes last seen, and its prefix bitsets once asked twice for that state. */
  private readonly prefixes = new Map<string, { ids: Uint32Array; placement: number; nodes: number; prefix: RangePrefix | null }>();

  /** @param valueRuns whether scans read value runs (index/tiered/value-runs.ts) where the base has them */
  constructor(
    private readonly arena: FilterArena,
    private readonly valueRuns = true,
  ) {}

  /** The cached answer of `key`, while the payloads and the base are those it was made for; else null. */
  private cached(key: string, payloads: PointPayloads, generation: number): Cached | null {
    const hit = this.cache.get(key);
    return hit !== undefined && hit.version === payloads.version && hit.generation === generation ? hit : null;
  }

  /**
   * Readies what resolve() will compute unless it has it cached: the filter's rows worked out over
   * turns of the event loop where part of it is checked point by point (PointPayloads.matchSteps),
   * and the pairs of the range indexes it reads sorted over turns where many writes left them to sort
   * afresh. A single range condition is then resolved from its sorted pairs. Resolves with the
   * filter's cache key, for resolve().
   */
  async settle(filter: Filter, payloads: PointPayloads, generation: number): Promise<string> {
    const key = filterKey(filter);
    if (this.cached(key, payloads, generation) !== null) return key;
    await stepsInTurns(payloads.orderStepsFor(filter), () => false);
    if (payloads.rangeRows(filter) === null) await stepsInTurns(payloads.matchSteps(filter), () => false);
    return key;
  }

  /**
   * The filter's answer now, held once for the caller (release it when the search is answered).
   * `generation` names the base; `index` null: the collection has no base yet.
   */
  resolve(filter: Filter, payloads: PointPayloads, index: TieredIndex | null, generation: number, key = filterKey(filter)): ResolvedFilter {
    const hit = this.cached(key, payloads, generation);
    if (hit !== null) {
      // Most recently used last.
      this.cache.delete(key);
      this.cache.set(key, hit);
      this.hold(hit.resolved);
      return hit.resolved;
    }
    const stale = this.cache.get(key);
    if (stale !== undefined) this.drop(key, stale);
    const resolved = this.compute(filter, payloads, index);
    this.cache.set(key, { version: payloads.version, generation, resolved });
    this.cachedWords += this.wordsOf(resolved);
    this.hold(resolved);
    const wordCap = CACHE_ARENA_SHARE * this.arena.words.length;
    while (this.cache.size > 1 && (this.cache.size > CACHED_FILTERS || this.cachedWords > wordCap)) {
      const [oldest, entry] = this.cache.entries().next().value as [string, Cached];
      this.drop(oldest, entry);
    }
    return resolved;
  }

  release(r: ResolvedFilter): void {
    if (r.at >= 0) this.arena.release(r.at);
  }

  /** DRAM of each field's prefix bitsets. */
  prefixBytes(): Map<string, number> {
    return new Map([...this.prefixes].map(([field, p]) => [field, p.prefix?.bytes() ?? 0]));
  }

  /** Forgets every cached answer (the collection is dropped). */
  clear(): void {
    for (const [key, entry] of [...this.cache]) this.drop(key, entry);
    this.prefixes.clear();
  }

  private wordsOf(r: ResolvedFilter): number {
    return r.at >= 0 ? this.arena.lengthOf(r.at) : 0;
  }

  private hold(r: ResolvedFilter): void {
    if (r.at >= 0) this.arena.retain(r.at);
  }

  private drop(key: string, entry: Cached): void {
    this.cache.delete(key);
    this.cachedWords -= this.wordsOf(entry.resolved);
    this.release(entry.resolved);
  }

  /** Arena words for a bitset, making room by dropping this collection's least recently used answers. */
  private alloc(words: number): number {
    for (;;) {
      try {
        return this.arena.alloc(words);
      } catch (e) {
        const oldest = this.cache.entries().next();
        if (oldest.done === true) throw e;
        this.drop(oldest.value[0], oldest.value[1]);
      }
    }
  }

  private compute(filter: Filter, payloads: PointPayloads, index: TieredIndex | null): ResolvedFilter {
    const range = payloads.rangeRows(filter);
    if (range !== null) return this.computeRange(filter, range, payloads, index);
    const m = payloads.match(filter);
    const estimate = { min: m.estimate.min, exp: m.estimate.exp, max: m.estimate.max };
    const nodes = payloads.nodeOfRow;
    const fresh: number[] = [];
    // The rows as a dense bitset: one native call, where asking roaring for the ids costs more than
    // everything else here for a filter matching many points.
    const rows = bitsOf(m.rows, payloads.rowCount);
    let baseMatched = 0;
    let at = -1;
    const words = this.arena.words;
    const runs = this.valueRuns && index !== null && m.rows.size > 0 ? runsFor(filter, index, payloadNodes(payloads)) : [];
    const cover = index?.links && m.rows.size > 0 ? linkCover(filter, index.links.blocks) : null;
    if (index !== null && m.rows.size > 0) at = this.alloc(filterWords(index.meta.count, runs.length, cover?.blocks.length ?? 0));
    forEachBit(rows, (row) => {
      const node = nodes[row]!;
      if (node < 0) fresh.push(payloads.idOfRow(row));
      else if (at >= 0) {
        words[at + (node >>> 5)]! |= 1 << (node & 31);
        baseMatched++;
      }
    });
    if (at >= 0 && baseMatched === 0) {
      this.arena.release(at);
      at = -1;
    }
    if (at >= 0) this.writeTail(at, index!.meta.count, runs, cover);
    const runRows = at >= 0 ? runs.reduce((a, r) => a + r.rows, 0) : 0;
    const freshIds = Float64Array.from(fresh).sort();
    return { at, baseMatched, freshIds, estimate, residual: m.residual, runRows, coverPoints: at >= 0 ? (cover?.points ?? 0) : 0 };
  }

  /**
   * compute's answer for one range on a numeric index, from the index's rows in value order: the
   * general path would scatter them into a row bitset, round-trip it through roaring and scatter it
   * again into nodes, and a wide range, different in every query, paid that on the main thread each
   * time. A wide range of a one-value field takes the prefix bitsets (range-prefix.ts) instead, from
   * the second search on the same state of its index (prefixOf); any other sets its nodes' bits one
   * by one, each row once however many of its values are in range.
   */
  private computeRange(
    filter: Filter,
    r: { field: string; pairs: RangePairs; estimate: FilterPlan['estimated'] },
    payloads: PointPayloads,
    index: TieredIndex | null,
  ): ResolvedFilter {
    const { ids, from, to, single } = r.pairs;
    const estimate = { min: r.estimate.min, exp: r.estimate.exp, max: r.estimate.max };
    const nodes = payloads.nodeOfRow;
    const words = this.arena.words;
    const count = index?.meta.count ?? 0;
    const cover = index?.links && to > from ? linkCover(filter, index.links.blocks) : null;
    const at = index !== null && to > from ? this.alloc(filterWords(count, 0, cover?.blocks.length ?? 0)) : -1;
    let freshRows: number[];
    const prefix = at >= 0 && single && to - from >= PREFIX_FROM ? this.prefixOf(r.field, ids, payloads, count) : null;
    if (prefix !== null) {
      prefix.fill(from, to, words, at);
      freshRows = prefix.freshRows(from, to).sort((a, b) => a - b);
    } else {
      const fresh = new Set<number>();
      for (let i = from; i < to; i++) {
        const row = ids[i]!;
        const node = nodes[row]!;
        if (node < 0) fresh.add(row);
        else if (at >= 0) words[at + (node >>> 5)]! |= 1 << (node & 31);
      }
      freshRows = [...fresh].sort((a, b) => a - b);
    }
    let baseMatched = 0;
    if (at >= 0) for (let w = at, end = at + bitsetWords(count); w < end; w++) baseMatched += popcount(words[w]!);
    const freshIds = Float64Array.from(freshRows, (row) => payloads.idOfRow(row)).sort();
    if (at >= 0 && baseMatched === 0) {
      this.arena.release(at);
      return { at: -1, baseMatched, freshIds, estimate, residual: false, runRows: 0, coverPoints: 0 };
    }
    if (at >= 0) this.writeTail(at, count, [], cover);
    return { at, baseMatched, freshIds, estimate, residual: false, runRows: 0, coverPoints: at >= 0 ? (cover?.points ?? 0) : 0 };
  }

  /** What follows a filter's bitset at `at`: its value runs, then the link blocks covering it. */
  private writeTail(at: number, nodes: number, runs: readonly ValueRun[], cover: LinkCover | null): void {
    const words = this.arena.words;
    writeRuns(words, at + bitsetWords(nodes), runs);
    writeLinks(words, at, nodes, cover?.blocks ?? []);
  }

  /**
   * The field's prefix bitsets for this state of its index and of the nodes: null the first time a
   * state is seen (the caller sets the range's nodes one by one), built the second. A build reads
   * every pair, a range only its own: where a write lands between range searches, each search would
   * pay a build and use it once.
   */
  private prefixOf(field: string, ids: Uint32Array, payloads: PointPayloads, nodes: number): RangePrefix | null {
    const had = this.prefixes.get(field);
    const same = had !== undefined && had.ids === ids && had.placement === payloads.placement && had.nodes === nodes;
    if (!same) {
      this.prefixes.set(field, { ids, placement: payloads.placement, nodes, prefix: null });
      return null;
    }
    had.prefix ??= new RangePrefix(ids, payloads.nodeOfRow, nodes);
    return had.prefix;
  }
}
