// The planner's choice at its thresholds: no match → none; matches up to the crossover → the scan
// of codes; up to SCARCE_SCAN times it → the graph walk, or the scan where the walk's entry is scarce
// in matches; beyond → the graph walk; and the answer reports the plan that ran with the estimated
// and the actual cardinality. Each plan returns only matches, k of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClustered } from '../../datasets/index.js';
import { Engine } from '../../engine/engine.js';
import { choosePlan, LINK_COVER_SLACK, profiledScanLimit, SCAN_CODE_COST, SCARCE_MIN_EF, SCARCE_SCAN, scanLimit } from '../../engine/filter-plan.js';
import type { FilterWalkEntry } from '../../index/format/manifest.js';
import { walkDistances } from '../../index/search/walk-profile.js';
import { RUN_CODE_COST } from '../../index/tiered/value-runs.js';
import { PLAN_NAMES } from '../../engine/types.js';
import { FILTER_PLAN } from '../../index/search/query-state.js';
import { parseFilter } from '../../index/filter/parse.js';
import { buildModelBase } from '../helpers/seeded-vectors.js';
import { makeTempDir } from '../helpers/temp.js';

const DIM = 8;
const N = 2000;
const tmp = makeTempDir('strata-filter-plan-');
const set = generateClustered({ count: N, dim: DIM, clusters: 8, seed: 11 }, 1);
let engine: Engine;

beforeAll(async () => {
  const built = await buildModelBase(tmp, set.base, DIM);
  engine = await Engine.open([{ dir: built, name: 'b' }], { searchThreads: 1, memory: { mode: 'emulate' }, dataDir: tmp.path('data') });
  const c = engine.collection('b');
  for (let from = 0; from < N; from += 500)
    await c.upsert(
      Array.from({ length: 500 }, (_, j) => ({ key: from + j, vector: set.base.slice((from + j) * DIM, (from + j + 1) * DIM), payload: { i: from + j } })),
    );
  await engine.compact('b');
  await c.createPayloadIndex('i', { type: 'integer' });
}, 60_000);
afterAll(async () => {
  await engine.close();
  tmp.cleanup();
});

const below = (t: number) => parseFilter({ must: [{ key: 'i', range: { lt: t } }] });

describe('the filtered-search planner', () => {
  it("scans up to the crossover its base's measured walk gives, walks the graph beyond, and searches nothing when none match", async () => {
    const c = engine.collection('b');
    const ef = 16;
    const meta = c.index!.meta;
    // The compaction measured the walk (its manifest's plan.filterWalk).
    expect(c.walkProfile).not.toBeNull();
    const crossover = profiledScanLimit(c.walkProfile!, ef, meta.count);
    expect(crossover).toBeGreaterThan(10);
    expect(crossover).toBeLessThan(N);
    const q = set.base.slice(0, DIM);
    const cases: Array<[number, string]> = [
      [crossover, 'scan'],
      [crossover + 1, 'graph'],
      [0, 'none'],
    ];
    for (const [t, plan] of cases) {
      const r = await c.search({ vector: q, k: 10, ef, filter: below(t) });
      expect(r.filter?.plan, `${t} matching`).toBe(plan);
      expect(r.filter?.matched).toBe(t);
      expect(r.filter?.base).toBe(t);
      expect(r.filter?.residual).toBe(false);
      // The integer index knows the range's size within its bounds.
      expect(r.filter!.estimated.min).toBeLessThanOrEqual(t);
      expect(r.filter!.estimated.max).toBeGreaterThanOrEqual(t);
      expect(r.hits.length).toBe(Math.min(10, t));
      for (const h of r.hits) expect(h.id).toBeLessThan(t);
    }
  });

  it('takes the graph-or-links plan past the scan wherever filter links cover the matches closely, and never below it', () => {
    const c = engine.collection('b');
    const ef = 16;
    const walk = c.walkProfile!;
    const limit = profiledScanLimit(walk, ef, c.index!.meta.count);
    const many = SCARCE_SCAN * profiledScanLimit(walk, SCARCE_MIN_EF, c.index!.meta.count) + 1;
    expect(choosePlan(many, c.index!, ef, undefined, walk, 0, many)).toBe(FILTER_PLAN.GRAPH_OR_SCAN);
    expect(choosePlan(many, c.index!, ef, undefined, walk, 0, LINK_COVER_SLACK * many)).toBe(FILTER_PLAN.GRAPH_OR_SCAN);
    // A cover holding many more points than match: its walk would cross them, so no links.
    expect(choosePlan(many, c.index!, ef, undefined, walk, 0, LINK_COVER_SLACK * many + 1)).toBe(FILTER_PLAN.GRAPH);
    expect(choosePlan(limit, c.index!, ef, undefined, walk, 0, limit)).toBe(FILTER_PLAN.SCAN);
    // Asked for, the links' walk runs only with a cover; without, the graph walk.
    expect(choosePlan(limit, c.index!, ef, 'linked', walk, 0, limit)).toBe(FILTER_PLAN.LINKED);
    expect(choosePlan(limit, c.index!, ef, 'linked', walk, 0, 0)).toBe(FILTER_PLAN.GRAPH);
  });

  it('between the crossover and SCARCE_SCAN times it, scans where the entry is scarce in matches, and walks where it is not', async () => {
    const c = engine.collection('b');
    const meta = c.index!.meta;
    const ef = 16;
    const walk = c.walkProfile!;
    const limit = profiledScanLimit(walk, ef, meta.count);
    // The band is reckoned at SCARCE_MIN_EF at least: a narrow beam's crossing costs as much.
    const band = profiledScanLimit(walk, SCARCE_MIN_EF, meta.count);
    expect(band).toBeGreaterThan(limit);
    expect(choosePlan(limit, c.index!, ef, undefined, walk)).toBe(FILTER_PLAN.SCAN);
    expect(choosePlan(limit + 1, c.index!, ef, undefined, walk)).toBe(FILTER_PLAN.GRAPH_OR_SCAN);
    expect(choosePlan(SCARCE_SCAN * band, c.index!, ef, undefined, walk)).toBe(FILTER_PLAN.GRAPH_OR_SCAN);
    expect(choosePlan(SCARCE_SCAN * band + 1, c.index!, ef, undefined, walk)).toBe(FILTER_PLAN.GRAPH);
    // A wider beam than SCARCE_MIN_EF reckons the band at its own ef.
    const wide = 4 * SCARCE_MIN_EF;
    const wideLimit = profiledScanLimit(walk, wide, meta.count);
    expect(wideLimit).toBeGreaterThan(band);
    expect(choosePlan(SCARCE_SCAN * wideLimit, c.index!, wide, undefined, walk)).toBe(FILTER_PLAN.GRAPH_OR_SCAN);
    expect(choosePlan(SCARCE_SCAN * wideLimit + 1, c.index!, wide, undefined, walk)).toBe(FILTER_PLAN.GRAPH);
    expect(choosePlan(limit, c.index!, ef, 'graph', walk)).toBe(FILTER_PLAN.GRAPH);
    // Every point but the quarter nearest the query: the walk's entry and its list are all excluded.
    const q = set.base.slice(DIM * 3, DIM * 4);
    const gap = (r: number): number => set.base.subarray(r * DIM, (r + 1) * DIM).reduce((s, x, j) => s + (x - q[j]!) ** 2, 0);
    const nearest = Array.from({ length: N }, (_, r) => r).sort((a, b) => gap(a) - gap(b));
    const far = parseFilter({ must_not: [{ has_id: nearest.slice(0, N / 4) }] });
    const matched = N - N / 4;
    expect(matched).toBeGreaterThan(limit);
    expect(matched).toBeLessThanOrEqual(SCARCE_SCAN * limit);
    const r = await c.search({ vector: q, k: 10, ef, filter: far });
    const exact = await c.search({ vector: q, k: 10, exact: true, filter: far });
    expect(r.filter?.plan).toBe('scan');
    expect(r.filter?.matched).toBe(matched);
    expect(r.stats.scarceScans).toBe(1);
    expect(r.hits.map((h) => h.id)).toEqual(exact.hits.map((h) => h.id));
    // As many matches spread evenly: the entry shows them as common as anywhere, and the walk runs.
    const even = parseFilter({ must_not: [{ has_id: Array.from({ length: N / 4 }, (_, j) => 4 * j + 1) }] });
    const w = await c.search({ vector: q, k: 10, ef, filter: even });
    expect(w.filter?.plan).toBe('graph');
    expect(w.filter?.matched).toBe(matched);
    expect(w.stats.scarceScans).toBe(0);
  });

  it('scans where its walk costs more than scoring the matches: more of a graph whose walk is dear, by the formula without a measured walk', () => {
    const c = engine.collection('b');
    const nodes = 100_000;
    const index = { meta: { ...c.index!.meta, count: nodes, maxM0: 32 } } as unknown as NonNullable<typeof c.index>;
    const at = (distances: number[]): FilterWalkEntry => ({ ef: 64, selectivities: [0.5, 0.2, 0.1, 0.05, 0.02], distances });
    // Walks like the clustered set's (twice the unfiltered search at 10%) and like GloVe's (six times).
    const cheap = at([1193, 1400, 1757, 3000, 6000]);
    const dear = at([2639, 5000, 9332, 16000, 30000]);
    const tenth = nodes / 10;
    expect(choosePlan(tenth, index, 64, undefined, cheap)).not.toBe(FILTER_PLAN.SCAN);
    expect(choosePlan(tenth, index, 64, undefined, dear)).toBe(FILTER_PLAN.SCAN);
    expect(profiledScanLimit(dear, 64, nodes)).toBeGreaterThan(profiledScanLimit(cheap, 64, nodes));
    // The limit is where the scan's cost meets the walk's: one more match and the walk is cheaper.
    const limit = profiledScanLimit(dear, 64, nodes);
    expect(SCAN_CODE_COST * limit).toBeLessThanOrEqual(walkDistances(dear, limit / nodes, 64));
    expect(SCAN_CODE_COST * (limit + 1)).toBeGreaterThan(walkDistances(dear, (limit + 1) / nodes, 64));
    expect(choosePlan(limit, index, 64, undefined, dear)).toBe(FILTER_PLAN.SCAN);
    expect(choosePlan(limit + 1, index, 64, undefined, dear)).not.toBe(FILTER_PLAN.SCAN);
    // Matches read from value runs cost RUN_CODE_COST of one read where it lies: a covered filter
    // scans that many more.
    const covered = Math.floor(limit / RUN_CODE_COST);
    expect(choosePlan(covered, index, 64, undefined, dear, covered)).toBe(FILTER_PLAN.SCAN);
    expect(choosePlan(covered + 2, index, 64, undefined, dear, covered + 2)).not.toBe(FILTER_PLAN.SCAN);
    expect(choosePlan(covered, index, 64, undefined, dear, 0)).not.toBe(FILTER_PLAN.SCAN);
    // Partly covered: 100 matches over the limit, paid for by the runs' saving on just enough of them.
    const enough = 100 / (1 - RUN_CODE_COST);
    expect(choosePlan(limit + 100, index, 64, undefined, dear, enough)).toBe(FILTER_PLAN.SCAN);
    expect(choosePlan(limit + 100, index, 64, undefined, dear, enough - 2)).not.toBe(FILTER_PLAN.SCAN);
    // A wider beam walks further: the scan takes more.
    expect(profiledScanLimit(dear, 256, nodes)).toBeGreaterThan(limit);
    // Without a measured walk, the formula.
    expect(choosePlan(scanLimit(64, 32, nodes), index, 64, undefined, null)).toBe(FILTER_PLAN.SCAN);
    expect(choosePlan(scanLimit(64, 32, nodes) + 1, index, 64, undefined, null)).not.toBe(FILTER_PLAN.SCAN);
  });

  it('scans a larger share as the beam widens, but less than in proportion to ef (the walk grows about as √ef)', () => {
    const a = scanLimit(64, 32, 100_000);
    const b = scanLimit(512, 32, 100_000);
    expect(b).toBeGreaterThan(a);
    expect(b / a).toBeLessThan(Math.sqrt(512 / 64));
  });

  it('reports each plan by the name its FILTER_PLAN number has', () => {
    for (const [key, plan] of Object.entries(FILTER_PLAN)) if (plan !== FILTER_PLAN.GRAPH_OR_SCAN) expect(PLAN_NAMES[plan]).toBe(key.toLowerCase());
    expect(PLAN_NAMES).toHaveLength(FILTER_PLAN.GRAPH_OR_SCAN);
  });

  it('runs the plan a request names, each returning only matches, k of them, the scan exactly', async () => {
    const c = engine.collection('b');
    const q = set.base.slice(DIM * 5, DIM * 6);
    const f = below(900);
    const exact = await c.search({ vector: q, k: 10, exact: true, filter: f });
    for (const plan of ['scan', 'graph', 'two_hop'] as const) {
      const r = await c.search({ vector: q, k: 10, ef: 32, filter: f, filterPlan: plan });
      expect(r.filter?.plan).toBe(plan);
      expect(r.hits.length).toBe(10);
      for (const h of r.hits) expect(h.id).toBeLessThan(900);
      if (plan === 'scan') expect(r.hits.map((h) => h.id)).toEqual(exact.hits.map((h) => h.id));
    }
  });

  it('checks a condition no index answers per point, and says so', async () => {
    const c = engine.collection('b');
    const f = parseFilter({ must: [{ key: 'i', range: { lt: 50 } }, { is_empty: { key: 'missing' } }] });
    const r = await c.search({ vector: set.base.slice(0, DIM), k: 10, filter: f });
    expect(r.filter?.residual).toBe(true);
    expect(r.filter?.matched).toBe(50);
  });
});
