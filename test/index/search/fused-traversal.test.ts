import { describe, expect, it, vi } from 'vitest';
import { bruteForceKnn, generateClustered, generateEmbedding } from '../../../datasets/index.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, graphUpperBytes, placeAndLayout } from '../../../index/build/place-and-layout.js';
import type { CodeKind } from '../../../index/codes/index.js';
import { normalizeRows } from '../../../index/kernels/reference.js';
import { runBatch } from '../../../index/search/batch.js';
import { RESEED_MIN_SHARE, SEED_AFTER } from '../../../index/kernels/control-block.js';
import { FUSED_RUN } from '../../../index/search/fused-traversal.js';
import { FILTER_PLAN, PHASE, type QueryState } from '../../../index/search/query-state.js';
import { Traversal } from '../../../index/search/traversal.js';
import { type NodeFilter, Searcher } from '../../../index/search/searcher.js';
import { STAT, STAT_FIELDS } from '../../../index/search/stats.js';
import { laneLayout } from '../../../index/tiered/fused-region.js';
import type { TieredIndex } from '../../../index/tiered/tiered-index.js';
import { RUN_MIN_NODES } from '../../../index/tiered/value-runs.js';
import { costModel } from '../../../tiers/cost-model.js';
import { handGraph } from '../../helpers/hand-graph.js';
import type { Metric as StrataMetric } from '../../../common/metric.js';

type Metric = Extract<StrataMetric, 'l2' | 'cosine'>;

function makeSet(metric: Metric) {
  const dim = metric === 'l2' ? 32 : 40;
  const set = metric === 'l2' ? generateClustered({ count: 3000, dim, clusters: 12, seed: 21 }, 60) : generateEmbedding({ count: 3000, dim, seed: 22 }, 60);
  const base = set.base.slice();
  const queries = set.queries.slice();
  if (metric === 'cosine') {
    normalizeRows(base, dim);
    normalizeRows(queries, dim);
  }
  const graph = buildGraph(base, dim, { metric: metric === 'l2' ? 'l2' : 'ip', m: 10, efConstruction: 80, seed: 4 });
  return { dim, base, queries, graph, clusters: 'clusters' in set ? set.clusters : null };
}

const sets = { l2: makeSet('l2'), cosine: makeSet('cosine') };

function place(
  metric: Metric,
  share: number,
  codes: CodeKind | 'none',
  extra: { fusedLanes?: number; runValues?: number[]; runShare?: number; listCodes?: boolean } = {},
): TieredIndex {
  const { graph } = sets[metric];
  return placeAndLayout(graph, metric, null, {
    budgetBytes: Math.max(graphUpperBytes(graph), Math.floor(graphFullPrecisionBytes(graph) * share)),
    policy: 'hops',
    codes,
    seed: 9,
    ...extra,
  }).index;
}

/** Runs every query with the fused beam and with the JS beam (or both walks of a filter), side by side, and compares everything. */
function compare(index: TieredIndex, queries: Float32Array, opts: { ef: number; prefetch: boolean; inject?: boolean; filter?: NodeFilter; rerank?: number }) {
  const dim = index.meta.dim;
  const cost = costModel({ cxlExtraLatencyNs: 300 });
  const fused = new Searcher(index, { prefetch: opts.prefetch, cost, inject: opts.inject ?? false });
  const js = new Searcher(index, { prefetch: opts.prefetch, cost, inject: opts.inject ?? false, fused: false });
  try {
    expect(fused.fused).not.toBeNull();
    expect(js.fused).toBeNull();
    // Whether each query ran fused, and whether its walk was kept (false: overflowed, walked in JS).
    const runs = vi.spyOn(fused.fused!, 'run');
    // Whether each scan ran fused (false: the lane could not, and the JS steps scanned).
    const scans = vi.spyOn(fused.fused!, 'scan');
    const sumF = new Float64Array(STAT_FIELDS);
    const sumJ = new Float64Array(STAT_FIELDS);
    for (let i = 0; i < queries.length / dim; i++) {
      const q = queries.subarray(i * dim, (i + 1) * dim);
      const filter = opts.filter ?? null;
      const a = fused.search(q, 10, opts.ef, opts.rerank, true, filter);
      const b = js.search(q, 10, opts.ef, opts.rerank, true, filter);
      expect(Array.from(a.ids)).toEqual(Array.from(b.ids));
      expect(Array.from(a.distances)).toEqual(Array.from(b.distances));
      for (let j = 0; j < STAT_FIELDS; j++) {
        sumF[j]! += a.stats[j]!;
        sumJ[j]! += b.stats[j]!;
      }
    }
    // Counts are equal; modelled times are sums in another order, so equal to rounding. Measured
    // stall times differ by nature and are not compared.
    const counted = [
      STAT.hops,
      STAT.distances,
      STAT.adjReadsDram,
      STAT.adjReadsCxl,
      STAT.adjBytesDram,
      STAT.adjBytesCxl,
      STAT.prefetchHits,
      STAT.prefetchIssued,
      STAT.codeReadsDram,
      STAT.vecReadsDram,
      STAT.vecReadsCxl,
      STAT.vecBytesCxl,
      STAT.reranked,
      STAT.scanned,
      STAT.scanFallbacks,
      STAT.seededWalks,
      STAT.listCodeReads,
      STAT.listCodeBytes,
      STAT.listCodeSkipped,
    ];
    for (const j of counted) expect(sumF[j], `stat ${j}`).toBe(sumJ[j]);
    for (const j of [STAT.modelledNs, STAT.modelledDramOnlyNs, STAT.injectedNs])
      expect(sumF[j]! / Math.max(1, sumJ[j]!)).toBeCloseTo(sumJ[j]! / Math.max(1, sumJ[j]!), 9);
    return { fused: sumF, js: sumJ, runs: runs.mock.results.map((r) => r.value === FUSED_RUN.done), scans: scans.mock.results.map((r) => r.value as boolean) };
  } finally {
    fused.close();
    js.close();
  }
}

describe('fused traversal (one WASM call per query)', () => {
  it('returns the answers of the JS steps, distances and access counts for every code kind, metric and tier split', () => {
    for (const metric of ['l2', 'cosine'] as const) {
      for (const [codes, share] of [
        ['none', 0.05],
        ['none', 1],
        ['sq8', 0.3],
        ['rq3', 0.2],
        ['rq2', 0.2],
      ] as const) {
        const index = place(metric, share, codes);
        // The split cases put neighbour lists (and, without codes, vectors) on both tiers.
        if (share < 1) expect(index.adjacency.split).toBeLessThan(index.meta.count);
        const r = compare(index, sets[metric].queries, { ef: 48, prefetch: true });
        expect(r.fused[STAT.hops]).toBeGreaterThan(0);
        if (share < 1) expect(r.fused[STAT.adjReadsCxl]).toBeGreaterThan(0);
      }
    }
  });

  it('with list codes, leaves out the same neighbours as the JS steps and returns their answers and counts', () => {
    for (const metric of ['l2', 'cosine'] as const) {
      for (const [codes, share] of [
        ['none', 0.05],
        ['rq3', 0.2],
      ] as const) {
        const index = place(metric, share, codes, { listCodes: true });
        expect(index.listCodes).not.toBeNull();
        for (const prefetch of [true, false]) {
          const r = compare(index, sets[metric].queries, { ef: 48, prefetch, inject: true });
          expect(r.fused[STAT.listCodeSkipped]).toBeGreaterThan(0);
          expect(r.fused[STAT.listCodeReads]).toBeGreaterThan(0);
        }
      }
    }
  });

  it('agrees with the JS beam and the JS filtered walk on data full of exact ties (duplicate rows, small integer coordinates)', () => {
    // Equal distances are where heap order and strict comparisons show: both beams must break ties alike.
    const dim = 16;
    let seed = 7;
    const rnd = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 16;
    };
    const distinct = Float32Array.from({ length: 1000 * dim }, () => rnd() % 3);
    const base = new Float32Array(3000 * dim);
    for (let i = 0; i < 3000; i++) base.set(distinct.subarray((i % 1000) * dim, ((i % 1000) + 1) * dim), i * dim);
    const queries = Float32Array.from({ length: 40 * dim }, () => rnd() % 3);
    const graph = buildGraph(base, dim, { metric: 'l2', m: 8, efConstruction: 60, seed: 2 });
    for (const [codes, share] of [
      ['none', 0.1],
      ['sq8', 0.5],
    ] as const) {
      const index = placeAndLayout(graph, 'l2', null, {
        budgetBytes: Math.max(graphUpperBytes(graph), Math.floor(graphFullPrecisionBytes(graph) * share)),
        policy: 'hops',
        codes,
        seed: 3,
      }).index;
      compare(index, queries, { ef: 40, prefetch: true });
      // The filtered walk's heaps meet the same ties.
      compare(index, queries, { ef: 40, prefetch: true, filter: graphFilter(index, randomRows(0.3, 6)) });
    }
  });

  it('agrees with the JS beam without foreseeing, with injection, and at ef beyond the fused limit', () => {
    const index = place('l2', 0.2, 'rq3');
    compare(index, sets.l2.queries, { ef: 32, prefetch: false });
    compare(index, sets.l2.queries.subarray(0, 10 * sets.l2.dim), { ef: 32, prefetch: true, inject: true });
    // ef 5000 > FUSED_MAX_EF: the JS beam runs for both searchers.
    compare(index, sets.l2.queries.subarray(0, 4 * sets.l2.dim), { ef: 5000, prefetch: true });
  });

  it('clears the visited tags when their 8-bit epoch wraps', () => {
    // Query A, then 254 queries far from it (they re-tag only their own corner of the graph), then A
    // again: its 256th query reuses epoch 1, and A's nodes still carry the 1 of the first query
    // unless the wrap cleared the tags.
    const index = place('l2', 0.2, 'rq3');
    const { base, dim } = sets.l2;
    const a = base.subarray(0, dim);
    const queries = new Float32Array(257 * dim);
    queries.set(a, 0);
    for (let i = 1; i < 255; i++) queries.fill(1000, i * dim, (i + 1) * dim);
    queries.set(a, 255 * dim);
    queries.set(a, 256 * dim);
    compare(index, queries, { ef: 32, prefetch: true });
  });

  it('serves searchers beyond the lanes with the JS beam, and frees lanes on close', () => {
    const index = place('l2', 0.2, 'rq3', { fusedLanes: 1 });
    const a = new Searcher(index);
    const b = new Searcher(index);
    expect(a.fused).not.toBeNull();
    expect(b.fused).toBeNull();
    const dim = index.meta.dim;
    const q = sets.l2.queries.subarray(0, dim);
    expect(Array.from(a.search(q, 10, 40).ids)).toEqual(Array.from(b.search(q, 10, 40).ids));
    a.close();
    const c = new Searcher(index);
    expect(c.fused).not.toBeNull();
    c.close();
    b.close();
    const none = place('l2', 0.2, 'rq3', { fusedLanes: 0 });
    expect(none.fused).toBeNull();
    const s = new Searcher(none);
    expect(s.fused).toBeNull();
    s.close();
  });

  it('keeps each tier in its own huge-page-aligned range of the one region, counted once', () => {
    const index = place('l2', 0.2, 'rq3');
    const fused = index.fused!;
    const inRegion = [...index.adjacency.segments, ...index.codes!.segments];
    for (const s of inRegion) {
      expect(s.region.memory).toBe(fused.memory);
      expect(s.dataView().byteOffset % 4096).toBe(0);
      // A transparent huge page touched in one range must not reach into another before it is bound.
      expect(s.base % (2 << 20)).toBe(0);
    }
    // Ranges do not overlap, and the lanes come after them.
    const ranges = inRegion.map((s) => [s.base, s.base + s.layout.bytes] as const).sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBeGreaterThanOrEqual(ranges[i - 1]![1]);
    expect(fused.lanes.laneBase).toBeGreaterThanOrEqual(ranges[ranges.length - 1]![1]);
    // Resident bytes count the shared region once (not once per segment in it).
    const resident = index.residentBytes().reduce((a, b) => a + b, 0);
    const others = [...index.vectors.segments, ...index.labelStore.segments].reduce((a, s) => a + s.region.bytes, 0);
    const upper = index.tierBytes().byKind.upper[0] + index.tierBytes().byKind.pool[0];
    // Ranges, the upper layers, the promotion pool and lanes are counted, the untouched padding between ranges is not.
    const ranges2 = inRegion.reduce((a, s) => a + s.layout.bytes, 0) + fused.lanes.lanes * fused.lanes.laneBytes;
    expect(resident).toBe(ranges2 + others + upper);
    expect(resident).toBeLessThanOrEqual(fused.memory.buffer.byteLength + others + upper);
  });

  it('finds the true neighbours as well as the JS beam on an angular set (recall against brute force)', () => {
    const { base, queries, dim } = sets.cosine;
    const gt = bruteForceKnn(base, queries, dim, 10, 'ip');
    const index = place('cosine', 0.2, 'rq3');
    const r = runBatch(index, queries, { k: 10, ef: 64 });
    let hit = 0;
    for (let i = 0; i < queries.length / dim; i++) {
      const want = new Set(Array.from(gt.ids.subarray(i * 10, i * 10 + 10)));
      for (let j = 0; j < 10; j++) if (want.has(r.labels[i * 10 + j]!)) hit++;
    }
    expect(hit / ((queries.length / dim) * 10)).toBeGreaterThan(0.9);
  });
});

/** A GRAPH-plan filter over the index's nodes of the rows `keep` selects. */
function graphFilter(index: TieredIndex, keep: (row: number) => boolean, words = Math.ceil(index.meta.count / 32)): NodeFilter {
  const bits = new Uint32Array(words);
  let matched = 0;
  for (let node = 0; node < index.meta.count; node++) {
    if (!keep(index.labels[node]!)) continue;
    bits[node >>> 5]! |= 1 << (node & 31);
    matched++;
  }
  return { bits, matched, plan: FILTER_PLAN.GRAPH };
}

const bitCount = (w: number): number => {
  let n = 0;
  for (let x = w >>> 0; x !== 0; x &= x - 1) n++;
  return n;
};

/** Rows kept with probability p, by a seeded generator (the same rows for the same seed). */
function randomRows(p: number, seed: number): (row: number) => boolean {
  const keep = new Set<number>();
  let s = seed;
  for (let row = 0; row < 3000; row++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    if (s / 4294967296 < p) keep.add(row);
  }
  return (row) => keep.has(row);
}

/** Every base row, nearest base row `centre` first. */
function rowsNearest(metric: Metric, centre: number): number[] {
  const { base, dim } = sets[metric];
  const c = base.subarray(centre * dim, (centre + 1) * dim);
  const gap = (r: number): number => base.subarray(r * dim, (r + 1) * dim).reduce((s, x, j) => s + (x - c[j]!) ** 2, 0);
  return Array.from({ length: base.length / dim }, (_, r) => r).sort((a, b) => gap(a) - gap(b));
}

/** The base rows' vectors, one after another (queries at those rows). */
function rowVectors(metric: Metric, rows: readonly number[]): Float32Array {
  const { base, dim } = sets[metric];
  const out = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => out.set(base.subarray(r * dim, (r + 1) * dim), i * dim));
  return out;
}

/** The share p of rows nearest base row `centre`: matches packed in one region of the space. */
function nearRows(metric: Metric, centre: number, p: number): (row: number) => boolean {
  const { base, dim } = sets[metric];
  const c = base.subarray(centre * dim, (centre + 1) * dim);
  const d = Array.from({ length: base.length / dim }, (_, r) => {
    let s = 0;
    for (let j = 0; j < dim; j++) s += (base[r * dim + j]! - c[j]!) ** 2;
    return s;
  });
  const cut = [...d].sort((x, y) => x - y)[Math.floor(p * d.length)]!;
  return (row) => d[row]! < cut;
}

describe('fused filtered walk (the GRAPH plan in the same WASM call)', () => {
  it('returns the answers of the JS walk, its distances and access counts on random and clustered bitsets', () => {
    for (const metric of ['l2', 'cosine'] as const) {
      for (const [codes, share] of [
        ['none', 0.05],
        ['sq8', 0.3],
        ['rq3', 0.2],
      ] as const) {
        const index = place(metric, share, codes);
        const queries = sets[metric].queries.subarray(0, 30 * sets[metric].dim);
        for (const keep of [randomRows(0.5, 1), randomRows(0.2, 2), randomRows(0.05, 3), nearRows(metric, 17, 0.15)]) {
          const filter = graphFilter(index, keep);
          const r = compare(index, queries, { ef: 48, prefetch: true, filter });
          expect(r.runs).toEqual(r.runs.map(() => true));
          expect(r.runs.length).toBe(queries.length / sets[metric].dim);
          expect(r.fused[STAT.hops]).toBeGreaterThan(0);
          // The walk foresees as the beam does: most lists it expands were fetched a step ahead.
          expect(r.fused[STAT.prefetchHits]).toBeGreaterThan(r.fused[STAT.hops]! / 2);
          if (share < 1) expect(r.fused[STAT.adjReadsCxl]).toBeGreaterThan(0);
        }
      }
    }
  });

  it("widens the walk alike where the filter excludes the query's neighbourhood, and finds the nearest matches", () => {
    for (const metric of ['l2', 'cosine'] as const) {
      const index = place(metric, 0.3, 'sq8');
      const { base, dim } = sets[metric];
      // Queries at the base rows nearest the excluded region's centre: every entry's list is non-matching.
      const near = nearRows(metric, 17, 0.15);
      const inside = rowsNearest(metric, 17).slice(0, 12);
      const queries = rowVectors(metric, inside);
      const filter = graphFilter(index, (row) => !near(row));
      const ef = 10;
      const r = compare(index, queries, { ef, prefetch: true, filter });
      expect(r.runs).toEqual(r.runs.map(() => true));
      // Against brute force over the matching rows.
      const js = new Searcher(index, { fused: false });
      let hits = 0;
      for (let i = 0; i < inside.length; i++) {
        const q = queries.subarray(i * dim, (i + 1) * dim);
        const got = js.search(q, 10, ef, undefined, true, filter);
        const rows = new Set(Array.from(got.ids, (node) => index.labels[node]!));
        let best: Array<[number, number]> = [];
        for (let row = 0; row < base.length / dim; row++) {
          if (near(row)) continue;
          let d = 0;
          for (let j = 0; j < dim; j++) d += (base[row * dim + j]! - q[j]!) ** 2;
          best.push([d, row]);
        }
        best = best.sort((a, b) => a[0] - b[0]).slice(0, 10);
        hits += best.filter(([, row]) => rows.has(row)).length;
      }
      js.close();
      expect(hits / (10 * inside.length)).toBeGreaterThanOrEqual(0.88);
    }
  });

  it("seeds a walk whose filter leaves out the query's own cluster from level 1, and scores little of the cluster it steps around", () => {
    const index = place('l2', 0.3, 'sq8');
    const { dim, queries: all } = sets.l2;
    const clusters = sets.l2.clusters!;
    // The largest cluster, and the queries drawn from it.
    const sizes = new Map<number, number>();
    for (const c of clusters.base) sizes.set(c, (sizes.get(c) ?? 0) + 1);
    const own = [...sizes].sort((a, b) => b[1] - a[1])[0]![0];
    const picked = Array.from(clusters.queries.keys()).filter((q) => clusters.queries[q] === own);
    const queries = new Float32Array(picked.length * dim);
    picked.forEach((q, i) => queries.set(all.subarray(q * dim, (q + 1) * dim), i * dim));
    const filter = graphFilter(index, (row) => clusters.base[row] !== own);
    const gap = Array.from({ length: index.meta.count }, (_, node) => clusters.base[index.labels[node]!] === own);
    const gapNodes = gap.filter(Boolean).length;
    expect(picked.length).toBeGreaterThan(3);
    const r = compare(index, queries, { ef: 10, prefetch: true, filter });
    expect(r.fused[STAT.seededWalks]).toBeGreaterThan(picked.length / 2);
    // Which nodes of the query's cluster each walk scored (the JS steps, whose requests are visible).
    const apply = Traversal.prototype.apply;
    let ids: number[] = [];
    Traversal.prototype.apply = function (this: Traversal, st: QueryState): void {
      if (st.phase === PHASE.SEED || st.phase === PHASE.FILTERED) for (let j = 0; j < st.n; j++) ids.push(st.ids[j]!);
      apply.call(this, st);
    };
    const js = new Searcher(index, { fused: false });
    let seeded = 0;
    let hits = 0;
    try {
      for (let i = 0; i < picked.length; i++) {
        ids = [];
        const q = queries.subarray(i * dim, (i + 1) * dim);
        const got = js.search(q, 10, 10, undefined, true, filter);
        if (got.stats[STAT.seededWalks] !== 1) continue;
        seeded++;
        // A walk through the cluster scores it whole; one around it, its few level-1 nodes and its rim.
        const seen = new Set(ids.filter((node) => gap[node]));
        expect(seen.size, `query ${i}: ${seen.size} of the cluster's ${gapNodes} nodes`).toBeLessThan(gapNodes / 4);
        const truth = new Set(js.exact(q, 10, filter).ids);
        hits += Array.from(got.ids).filter((id) => truth.has(id)).length;
      }
    } finally {
      Traversal.prototype.apply = apply;
      js.close();
    }
    expect(seeded).toBe(r.js[STAT.seededWalks]);
    expect(hits / (10 * seeded)).toBeGreaterThanOrEqual(0.9);
  });

  it("turns a plain walk seeded, alike in both, once it meets the gap its entry did not show (the query's own cluster left out)", () => {
    const index = place('l2', 0.3, 'sq8');
    const { dim, queries: all } = sets.l2;
    const clusters = sets.l2.clusters!;
    const count = index.meta.count;
    // Counted on the JS steps: which queries started again seeded, and what each had expanded before.
    const reseed = (Traversal.prototype as unknown as { reseed: (st: QueryState) => void }).reseed;
    const before: number[] = [];
    (Traversal.prototype as unknown as { reseed: (st: QueryState) => void }).reseed = function (this: Traversal, st: QueryState): void {
      before.push(st.holeHops);
      reseed.call(this, st);
    };
    let reseeded = 0;
    let hits = 0;
    try {
      for (const own of new Set(clusters.queries)) {
        const keep = (row: number): boolean => clusters.base[row] !== own;
        const filter = graphFilter(index, keep);
        if (filter.matched < RESEED_MIN_SHARE * count) continue;
        const picked = Array.from(clusters.queries.keys()).filter((q) => clusters.queries[q] === own);
        const queries = new Float32Array(picked.length * dim);
        picked.forEach((q, i) => queries.set(all.subarray(q * dim, (q + 1) * dim), i * dim));
        // Both twins: the same answers, distances and counts (seeded walks among them).
        compare(index, queries, { ef: 10, prefetch: true, filter });
        const js = new Searcher(index, { fused: false });
        for (let i = 0; i < picked.length; i++) {
          const was = before.length;
          const q = queries.subarray(i * dim, (i + 1) * dim);
          const got = js.search(q, 10, 10, undefined, true, filter);
          const ids = Array.from(got.ids);
          const seededWalks = got.stats[STAT.seededWalks];
          const truth = new Set(js.exact(q, 10, filter).ids);
          if (before.length === was) continue;
          reseeded++;
          expect(seededWalks).toBe(1);
          hits += ids.filter((id) => truth.has(id)).length;
        }
        js.close();
      }
    } finally {
      (Traversal.prototype as unknown as { reseed: (st: QueryState) => void }).reseed = reseed;
    }
    expect(reseeded).toBeGreaterThan(0);
    // Each started again at the SEED_AFTER-th non-match nearer than every match, no sooner.
    for (const n of before) expect(n).toBe(SEED_AFTER);
    // The same queries walked plain to the end found 0.775 of their nearest matches here.
    expect(hits / (10 * reseeded)).toBeGreaterThanOrEqual(0.85);
  });

  it('scans alike where a GRAPH_OR_SCAN walk meets an entry scarce in matches, and walks alike where it does not', () => {
    for (const metric of ['l2', 'cosine'] as const) {
      const index = place(metric, 0.3, 'sq8');
      const near = nearRows(metric, 17, 0.4);
      const rows = rowsNearest(metric, 17);
      // Queries at the excluded region's centre (scarce entries), and far from it (matches all around).
      const picked = [...rows.slice(0, 8), ...rows.slice(-8)];
      const queries = rowVectors(metric, picked);
      const filter = { ...graphFilter(index, (row) => !near(row)), plan: FILTER_PLAN.GRAPH_OR_SCAN };
      const r = compare(index, queries, { ef: 10, prefetch: true, filter });
      // Every query ran fused; the scarce ones ended before walking and scanned, fused too.
      expect(r.runs.length).toBe(picked.length);
      expect(r.fused[STAT.scarceScans]).toBe(r.js[STAT.scarceScans]);
      expect(r.fused[STAT.scarceScans]).toBeGreaterThanOrEqual(4);
      expect(r.fused[STAT.scarceScans]).toBeLessThan(picked.length);
      expect(r.runs.filter((done) => !done).length).toBe(r.fused[STAT.scarceScans]);
      expect(r.scans).toEqual(Array(r.fused[STAT.scarceScans]).fill(true));
    }
  });

  it('runs the filtered walk fused only for the GRAPH plan, and matches the JS walk with injection and a padded or short bitset', () => {
    const index = place('l2', 0.2, 'rq3');
    const queries = sets.l2.queries.subarray(0, 10 * sets.l2.dim);
    const words = Math.ceil(index.meta.count / 32);
    const filter = graphFilter(index, randomRows(0.2, 4), words + 3);
    expect(compare(index, queries, { ef: 32, prefetch: false, inject: true, filter }).runs).toEqual(Array(10).fill(true));
    // A bitset that ends early: the nodes past its end do not match, fused or not.
    const short = filter.bits.slice(0, words >>> 1);
    const matched = short.reduce((a, w) => a + bitCount(w), 0);
    expect(compare(index, queries, { ef: 32, prefetch: true, filter: { bits: short, matched, plan: FILTER_PLAN.GRAPH } }).runs).toEqual(Array(10).fill(true));
    // The scan has its own call (fused scan, below); the two-hop walk stays JS steps: the same answers either way.
    expect(compare(index, queries, { ef: 32, prefetch: true, filter: { ...filter, plan: FILTER_PLAN.SCAN } }).runs).toEqual([]);
    const twoHop = compare(index, queries, { ef: 32, prefetch: true, filter: { ...filter, plan: FILTER_PLAN.TWO_HOP } });
    expect([...twoHop.runs, ...twoHop.scans]).toEqual([]);
  });

  it('walks in JS when the lanes have no frontier, and again in JS when the frontier overflows, with the same answers', () => {
    const index = place('cosine', 0.3, 'sq8');
    const lanes = index.fused!.lanes;
    const cap = lanes.frontierCap;
    // A frontier smaller than the walk needs (set before the searchers open their lanes): every
    // walk overflows and is walked by the JS steps.
    lanes.frontierCap = 8;
    try {
      const filter = graphFilter(index, randomRows(0.2, 5));
      const queries = sets.cosine.queries.subarray(0, 10 * sets.cosine.dim);
      expect(compare(index, queries, { ef: 48, prefetch: true, filter }).runs).toEqual(Array(10).fill(false));
      // Lanes planned without the filtered walk's room: it never runs fused.
      lanes.frontierCap = 0;
      expect(compare(index, queries, { ef: 48, prefetch: true, filter }).runs).toEqual([]);
      expect(laneLayout(index.meta.count, lanes.maxDegree, 1, 0, false).frontierCap).toBe(0);
    } finally {
      lanes.frontierCap = cap;
    }
  });
});

describe('fused scan (the SCAN plan in one WASM call)', () => {
  const scanFilter = (index: TieredIndex, keep: (row: number) => boolean): NodeFilter => ({ ...graphFilter(index, keep), plan: FILTER_PLAN.SCAN });

  it('keeps the matches of the JS scan: the same answers, distances and access counts for every code kind, metric and selectivity', () => {
    for (const metric of ['l2', 'cosine'] as const) {
      for (const [codes, share] of [
        ['none', 1],
        ['sq8', 0.3],
        ['rq4', 0.2],
        ['rq3', 0.2],
        ['rq2', 0.2],
      ] as const) {
        const index = place(metric, share, codes);
        const queries = sets[metric].queries.subarray(0, 20 * sets[metric].dim);
        for (const keep of [randomRows(0.5, 1), randomRows(0.05, 3), randomRows(0.004, 7), nearRows(metric, 17, 0.15)]) {
          const r = compare(index, queries, { ef: 48, prefetch: true, filter: scanFilter(index, keep) });
          expect(r.scans).toEqual(Array(20).fill(true));
          expect(r.fused[STAT.scanned]).toBeGreaterThan(0);
          expect(r.fused[STAT.adjReadsDram]! + r.fused[STAT.adjReadsCxl]!).toBe(0);
        }
      }
    }
  });

  it("reads value runs first and scores each match once: stale runs, overlapping runs and matches in no run keep the JS scan's answers", () => {
    for (const metric of ['l2', 'cosine'] as const) {
      for (const codes of ['sq8', 'rq3', 'rq2'] as const) {
        const index = place(metric, 0.6, codes, { runValues: [2000, 1200], runShare: 0.6 });
        const runs = index.valueRuns!;
        expect(runs).not.toBeNull();
        const filter = scanFilter(index, randomRows(0.4, 5));
        const n = index.meta.count;
        const has = (node: number): boolean => ((filter.bits[node >>> 5]! >>> (node & 31)) & 1) === 1;
        // Run a: every other node of the first 2400, matching or not (payloads written since it was
        // copied). Run b: the nodes from 1000 on, overlapping a. Odd matches below 1000 are in neither.
        const a = Uint32Array.from({ length: 1200 }, (_, i) => 2 * i);
        const b = Uint32Array.from({ length: n - 1000 }, (_, i) => 1000 + i);
        expect(a.filter(has).length).toBeLessThan(a.length);
        const ra = runs.runOf(`a-${metric}-${codes}`, () => a)!;
        const rb = runs.runOf(`b-${metric}-${codes}`, () => b)!;
        expect(rb.rows).toBeGreaterThanOrEqual(RUN_MIN_NODES);
        expect(Array.from({ length: 500 }, (_, i) => 2 * i + 1).some(has)).toBe(true);
        filter.runs = Uint32Array.of(2, ra.codesAt, ra.idsAt, ra.rows, rb.codesAt, rb.idsAt, rb.rows);
        const queries = sets[metric].queries.subarray(0, 20 * sets[metric].dim);
        for (const rerank of [undefined, 0]) {
          // The JS steps know no runs: the same answers, distances and counts (each match scored once).
          const r = compare(index, queries, { ef: 48, prefetch: true, rerank, filter });
          expect(r.scans).toEqual(Array(20).fill(true));
          expect(r.fused[STAT.scanned]).toBe(20 * filter.matched);
          // Every match in a run came from its run: the rest were scattered.
          const inRuns = new Set([...a, ...b].filter(has)).size;
          expect(r.fused[STAT.fromRuns]).toBe(20 * inRuns);
          expect(inRuns).toBeLessThan(filter.matched);
          expect(r.js[STAT.fromRuns]).toBe(0);
        }
      }
    }
  });

  it('breaks ties as the JS scan does (duplicate rows), and keeps a pool wider than k alike', () => {
    const dim = 16;
    let seed = 11;
    const rnd = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 16;
    };
    const distinct = Float32Array.from({ length: 300 * dim }, () => rnd() % 3);
    const base = new Float32Array(3000 * dim);
    for (let i = 0; i < 3000; i++) base.set(distinct.subarray((i % 300) * dim, ((i % 300) + 1) * dim), i * dim);
    const queries = Float32Array.from({ length: 30 * dim }, () => rnd() % 3);
    const graph = buildGraph(base, dim, { metric: 'l2', m: 8, efConstruction: 60, seed: 2 });
    for (const codes of ['none', 'sq8'] as const) {
      const index = placeAndLayout(graph, 'l2', null, { budgetBytes: 1 << 24, policy: 'hops', codes, seed: 3 }).index;
      for (const rerank of [undefined, 0, 200]) {
        const r = compare(index, queries, { ef: 40, prefetch: true, rerank, filter: scanFilter(index, randomRows(0.3, 6)) });
        expect(r.scans).toEqual(Array(30).fill(true));
      }
    }
  });

  it('scans with the JS steps where the lane cannot: a pool beyond its heap, no bitset room, vectors on two tiers', () => {
    const index = place('l2', 0.2, 'rq3');
    const queries = sets.l2.queries.subarray(0, 5 * sets.l2.dim);
    const filter = scanFilter(index, randomRows(0.2, 8));
    // A re-rank pool the lane's heap cannot hold.
    expect(compare(index, queries, { ef: 32, prefetch: true, rerank: index.fused!.lanes.beamCap + 5, filter }).scans).toEqual(Array(5).fill(false));
    // Vectors without codes, split over DRAM and CXL: the traversal records are two segments.
    const split = place('l2', 0.05, 'none');
    expect(compare(split, queries, { ef: 32, prefetch: true, filter: scanFilter(split, randomRows(0.2, 8)) }).scans).toEqual(Array(5).fill(false));
    // Lanes planned without the bitset's room (set before the searchers open their lanes).
    const lanes = index.fused!.lanes;
    const cap = lanes.frontierCap;
    lanes.frontierCap = 0;
    try {
      expect(compare(index, queries, { ef: 32, prefetch: true, filter }).scans).toEqual(Array(5).fill(false));
    } finally {
      lanes.frontierCap = cap;
    }
  });

  it('finishes a walk that cannot reach k matches with the fused scan, and answers the exact ones', () => {
    // Rows 0-9 and 10-19 are two chains with no link between them; the entry is row 0.
    const points = Array.from({ length: 20 }, (_, r) => [r, r % 3, 0, 0]);
    const lists = points.map((_, r) => (r < 10 ? [r - 1, r + 1].filter((x) => x >= 0 && x < 10) : [r - 1, r + 1].filter((x) => x >= 10 && x < 20)));
    const hand = placeAndLayout(handGraph(points, lists, 4), 'l2', null, { budgetBytes: 1 << 20, policy: 'hops', codes: 'none', seed: 1 }).index;
    const filter = graphFilter(hand, (row) => row >= 10);
    const s = new Searcher(hand);
    try {
      const scans = vi.spyOn(s.fused!, 'scan');
      const r = s.search(Float32Array.of(12.2, 0, 0, 0), 5, 8, 0, true, filter);
      expect(r.stats[STAT.scanFallbacks]).toBe(1);
      expect(scans.mock.results.map((x) => x.value)).toEqual([true]);
      expect(Array.from(r.ids, (n) => hand.labels[n]!).sort((a, b) => a - b)).toEqual([10, 11, 12, 13, 14]);
    } finally {
      s.close();
    }
  });
});
