// Placement and the DRAM budget planner: each policy's ranking, the renumbering that makes the hot
// nodes an id prefix (BFS order inside each group), and the planner's byte arithmetic (codes first,
// then neighbour lists, then vectors; whole records without a code), recomputed here by hand.
import { runBytes } from '../../../index/tiered/value-runs.js';
import { describe, expect, it } from 'vitest';
import { graphFullPrecisionBytes } from '../../../index/build/place-and-layout.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { profileGraph, sampleRows, predictedDramShare } from '../../../index/build/profile.js';
import { CODE_KINDS, type CodeKind, codeCentroids, codeDims, codeHeadBytes, codeRowBytes, MIN_CENTROIDS, trainCodec } from '../../../index/codes/index.js';
import { generateClustered } from '../../../datasets/index.js';
import { bfsFromEntry } from '../../../index/placement/bfs.js';
import { orderNodes, parseBudget, PLACEMENT_POLICIES, type PlacementPolicy, rankNodes } from '../../../index/placement/placement.js';
import { CODE_PREFERENCE, fullPrecisionBytes, planBudget, type PlannerInput, upperLayersBytesFor } from '../../../index/placement/planner.js';
import { expectStrataError } from '../../helpers/temp.js';

const dim = 24;
const data = generateClustered({ count: 3000, dim, clusters: 12, seed: 3 }, 0);
const graph = buildGraph(data.base, dim, { metric: 'l2', m: 8, efConstruction: 60, seed: 5 });
const profile = profileGraph(graph, 'l2', sampleRows(data.base, dim, 300, 1), 10, 32);
const bfs = bfsFromEntry(graph);
/** Position of each node in BFS order from the entry (unreachable nodes last, in id order). */
const bfsPos = new Uint32Array(graph.count);
bfs.order.forEach((v, i) => (bfsPos[v] = i));
const upperNodes = Array.from(graph.levels).filter((l) => l > 0).length;

function expectPermutation(order: Uint32Array, n: number): void {
  expect(order.length).toBe(n);
  const seen = new Uint8Array(n);
  for (const v of order) seen[v]!++;
  expect(seen.every((c) => c === 1)).toBe(true);
}

describe('rankNodes', () => {
  it('ranks every node exactly once, for every policy', () => {
    for (const policy of PLACEMENT_POLICIES) expectPermutation(rankNodes(graph, policy, profile.accesses, 9), graph.count);
  });

  it('hops: upper-layer nodes first, highest level first, then level-0 nodes in BFS hop order from the entry', () => {
    const prio = rankNodes(graph, 'hops');
    expect(prio[0]).toBe(graph.entry);
    // Levels never rise along the ranking, so every upper-layer node precedes every level-0 node.
    for (let i = 1; i < prio.length; i++) expect(graph.levels[prio[i]!]!).toBeLessThanOrEqual(graph.levels[prio[i - 1]!]!);
    expect(graph.levels[prio[upperNodes - 1]!]).toBeGreaterThan(0);
    expect(graph.levels[prio[upperNodes]!]).toBe(0);
    // Inside a level, BFS order: hop counts never fall (unreachable nodes, hop -1, come last).
    const hop = (v: number): number => (bfs.hops[v]! < 0 ? Infinity : bfs.hops[v]!);
    for (let i = 1; i < prio.length; i++) {
      const [a, b] = [prio[i - 1]!, prio[i]!];
      if (graph.levels[a] === graph.levels[b]) expect(hop(b)).toBeGreaterThanOrEqual(hop(a));
    }
  });

  it('profile: the most expanded nodes first, then untouched nodes in BFS order', () => {
    const prio = rankNodes(graph, 'profile', profile.accesses);
    const a = (i: number): number => profile.accesses[prio[i]!]!;
    const touched = profile.accesses.filter((x) => x > 0).length;
    expect(touched).toBeGreaterThan(0);
    expect(touched).toBeLessThan(graph.count);
    for (let i = 1; i < touched; i++) expect(a(i)).toBeLessThanOrEqual(a(i - 1));
    expect(a(touched - 1)).toBeGreaterThan(0);
    for (let i = touched; i < prio.length; i++) expect(a(i)).toBe(0);
    for (let i = touched + 1; i < prio.length; i++) expect(bfsPos[prio[i]!]!).toBeGreaterThan(bfsPos[prio[i - 1]!]!);
  });

  it('id: node ids in order; random: a seeded shuffle', () => {
    expect(Array.from(rankNodes(graph, 'id'))).toEqual(Array.from({ length: graph.count }, (_, i) => i));
    const r1 = Array.from(rankNodes(graph, 'random', undefined, 4));
    expect(Array.from(rankNodes(graph, 'random', undefined, 4))).toEqual(r1);
    expect(Array.from(rankNodes(graph, 'random', undefined, 5))).not.toEqual(r1);
    // Not merely the id order: most nodes move.
    expect(r1.filter((v, i) => v === i).length).toBeLessThan(graph.count / 10);
  });

  it('refuses a profile ranking without access counts for every node, naming the option', () => {
    for (const counts of [undefined, new Float64Array(graph.count - 1)]) {
      const e = expectStrataError(() => rankNodes(graph, 'profile', counts), 'STRATA_INVALID_ARGUMENT');
      expect(e.message).toMatch(/^placement: .*profile/);
    }
    const e = expectStrataError(() => rankNodes(graph, 'psychic' as PlacementPolicy), 'STRATA_INVALID_ARGUMENT');
    expect(e.message).toContain('psychic');
  });
});

describe('orderNodes', () => {
  it('gives the hot prefix of the ranking ids [0, hot), each group in BFS order, for every policy and split', () => {
    for (const policy of PLACEMENT_POLICIES) {
      const prio = rankNodes(graph, policy, profile.accesses, 9);
      for (const hot of [0, 1, 450, graph.count - 1, graph.count]) {
        const { order, unreachable } = orderNodes(graph, prio, hot);
        expectPermutation(order, graph.count);
        expect(unreachable).toBe(graph.count - bfs.reachable);
        expect(new Set(order.subarray(0, hot))).toEqual(new Set(prio.subarray(0, hot)));
        for (let i = 1; i < graph.count; i++) if (i !== hot) expect(bfsPos[order[i]!]!).toBeGreaterThan(bfsPos[order[i - 1]!]!);
      }
    }
  });

  it('with every node hot is the BFS order itself: the entry point first', () => {
    const { order } = orderNodes(graph, rankNodes(graph, 'random', undefined, 3), graph.count);
    expect(order[0]).toBe(graph.entry);
    expect(Array.from(order)).toEqual(Array.from(bfs.order));
  });

  it('hops: upper-layer nodes are hot before any level-0 node, and hot level-0 nodes are nearer the entry than cold ones', () => {
    const hot = upperNodes + 700;
    const { order } = orderNodes(graph, rankNodes(graph, 'hops'), hot);
    const inDram = new Set(Array.from(order.subarray(0, hot)));
    for (let v = 0; v < graph.count; v++) if (graph.levels[v]! > 0) expect(inDram.has(v)).toBe(true);
    let maxIn = 0;
    let minOut = Infinity;
    for (let v = 0; v < graph.count; v++) {
      if (graph.levels[v]! > 0) continue;
      if (inDram.has(v)) maxIn = Math.max(maxIn, bfs.hops[v]!);
      else minOut = Math.min(minOut, bfs.hops[v]! < 0 ? Infinity : bfs.hops[v]!);
    }
    expect(maxIn).toBeLessThanOrEqual(minOut);
  });

  it('profile: every hot node was expanded at least as often as every cold node', () => {
    const hot = 300;
    const { order } = orderNodes(graph, rankNodes(graph, 'profile', profile.accesses), hot);
    let minIn = Infinity;
    let maxOut = 0;
    for (let i = 0; i < graph.count; i++) {
      const a = profile.accesses[order[i]!]!;
      if (i < hot) minIn = Math.min(minIn, a);
      else maxOut = Math.max(maxOut, a);
    }
    expect(minIn).toBeGreaterThanOrEqual(maxOut);
  });

  it('profile placement predicts a higher DRAM share than id and random on the profiled queries', () => {
    const hot = 300;
    const share = (policy: 'profile' | 'id' | 'random'): number =>
      predictedDramShare(profile, orderNodes(graph, rankNodes(graph, policy, profile.accesses, 2), hot).order, hot);
    expect(share('profile')).toBeGreaterThan(share('id'));
    expect(share('profile')).toBeGreaterThan(share('random'));
  });
});

describe('planBudget', () => {
  const n = graph.count;
  const upperBytes = upperLayersBytesFor(graph.levels, graph.maxM);
  const ADJ = 4 * (1 + graph.maxM0);
  const VEC = 4 * dim;
  const LABEL = 8;
  /** Row bytes by hand, as sq8.ts and rq.ts lay rows out: dims padded to 16; sq8 a byte a dim (+ f32 norm for l2); rq a scale, l2 norm, bit planes, centroid id. */
  const rowBytes = (kind: CodeKind, metric: 'l2' | 'ip'): number => {
    const dims = Math.ceil(dim / 16) * 16;
    const norm = metric === 'l2' ? 4 : 0;
    return kind === 'sq8' ? dims + norm : 4 + norm + ({ rq4: 4, rq3: 3, rq2: 2 }[kind] * dims) / 8 + 2;
  };
  const input = (budgetBytes: number, codes: PlannerInput['codes'], metric: 'l2' | 'ip' = 'l2'): PlannerInput => ({
    count: n,
    dim,
    metric,
    maxM0: graph.maxM0,
    upperBytes,
    budgetBytes,
    codes,
  });
  const full = graphFullPrecisionBytes(graph);
  /** DRAM a code takes: its rows and its parameters (rq's centroids and signs), with its default centroids. */
  const need = (kind: CodeKind, metric: 'l2' | 'ip' = 'l2'): number => n * rowBytes(kind, metric) + codeHeadBytes(kind, n, dim);
  /** The least DRAM a code is planned with: its centroids cut to MIN_CENTROIDS. */
  const minNeed = (kind: CodeKind): number => n * rowBytes(kind, 'l2') + codeHeadBytes(kind, n, dim, Math.min(MIN_CENTROIDS, codeCentroids(kind, n)));
  /** rq2 row bytes for an l2 code of `d` dimensions (padded to 16). */
  const rowBytes2 = (d: number): number => 4 + 4 + (2 * Math.ceil(d / 16) * 16) / 8 + 2;

  it('counts the upper layers as 9 bytes per upper node plus their link blocks, and the full-precision index as every record plus them', () => {
    let words = 0;
    for (let v = 0; v < n; v++) words += graph.levels[v]! * (1 + graph.maxM);
    expect(upperBytes).toBe(9 * upperNodes + 4 * words);
    expect(full).toBe(n * (VEC + ADJ + LABEL) + upperBytes);
    expect(fullPrecisionBytes({ count: n, dim, maxM0: graph.maxM0, upperBytes })).toBe(full);
  });

  it('sq8, rq4, rq3 and rq2 rows take the bytes the trained codes take, for l2 and ip', () => {
    expect(rowBytes('sq8', 'l2')).toBe(36);
    expect(rowBytes('rq4', 'l2')).toBe(26);
    expect(rowBytes('rq3', 'l2')).toBe(22);
    expect(rowBytes('rq2', 'l2')).toBe(18);
    for (const metric of ['l2', 'ip'] as const) {
      for (const kind of CODE_KINDS) {
        const p = planBudget(input(full, kind, metric));
        expect([p.code, p.codeRowBytes, p.dram.codes]).toEqual([kind, rowBytes(kind, metric), need(kind, metric)]);
        // The planner's arithmetic is what the encoder really writes: rows and parameters.
        const codec = trainCodec(kind, data.base, dim, metric, { seed: 1 });
        expect(codec.spec.stride).toBe(rowBytes(kind, metric));
        expect(codeHeadBytes(kind, n, dim)).toBe(codec.headBytes);
      }
    }
  });

  it('sets the payload indexes aside in DRAM before the lists, and says when they overspend the budget', () => {
    const budget = Math.floor(full * 0.3);
    const flat = planBudget(input(budget, 'rq3'));
    const indexes = 50 * ADJ;
    const p = planBudget({ ...input(budget, 'rq3'), payloadIndexBytes: indexes });
    expect(p.dram.payloadIndexes).toBe(indexes);
    expect(p.dram.total).toBeLessThanOrEqual(budget);
    // The bytes come out of the lists the budget buys (flat has no pool here: poolShare is unset).
    expect(flat.adjacencyInDram - p.adjacencyInDram).toBe(50);
    expect(p.reason).toContain(`${indexes} bytes of payload indexes`);
    // Indexes larger than what the upper layers leave: everything else in CXL, and the plan says by how much they overspend.
    const over = planBudget({ ...input(upperBytes + 10, 'auto'), payloadIndexBytes: 11 });
    expect([over.code, over.adjacencyInDram, over.vectorsInDram]).toEqual([null, 0, 0]);
    expect(over.reason).toContain('11 bytes of payload indexes set aside first, 1 over the budget');
  });

  it('gives value runs their rows (records and ids) before the lists, up to their share of the budget', () => {
    const budget = Math.floor(full * 0.3);
    const flat = planBudget(input(budget, 'rq3'));
    const row = rowBytes('rq3', 'l2');
    const p = planBudget({ ...input(budget, 'rq3'), runValues: [64] });
    expect(p.dram.runs).toBe(runBytes(64, row));
    expect(p.dram.total).toBeLessThanOrEqual(budget);
    expect(flat.adjacencyInDram - p.adjacencyInDram).toBe(Math.ceil((p.dram.runs - (budget - flat.dram.total)) / ADJ));
    expect(p.reason).toContain(`${p.dram.runs} bytes of value runs`);
    // A run larger than the share: none (a run is whole or not at all).
    expect(planBudget({ ...input(budget, 'rq3'), runValues: [64], runShare: (runBytes(64, row) - 1) / budget }).dram.runs).toBe(0);
    // No code, or no values: none.
    expect(planBudget({ ...input(budget, 'none'), runValues: [64] }).dram.runs).toBe(0);
    expect(planBudget(input(budget, 'rq3')).dram.runs).toBe(0);
  });

  it('gives the promotion pool its share of the list budget, its table and counters inside the budget', () => {
    let pooled = 0;
    for (const share of [0.1, 0.15, 0.2, 0.3, 0.5, 0.8]) {
      const budget = Math.floor(full * share);
      if (upperBytes + need('rq3') > budget) continue;
      const flat = planBudget(input(budget, 'rq3'));
      const p = planBudget({ ...input(budget, 'rq3'), poolShare: 0.25 });
      expect(p.code).toBe(flat.code);
      expect(p.dram.total, `at ${share}`).toBeLessThanOrEqual(budget);
      if (flat.adjacencyInDram === n) {
        // Every list already in DRAM: nothing to promote.
        expect(p.poolLists).toBe(0);
        continue;
      }
      expect(p.poolLists, `at ${share}`).toBeGreaterThan(0);
      expect(p.adjacencyInDram + p.poolLists).toBeLessThan(n);
      // Each slot costs its list, two table entries and its tenant's id (counts live in the CXL records).
      expect(p.dram.pool).toBe(p.poolLists * (ADJ + 20));
      // About a quarter of what the lists had, and the lists in DRAM (prefix + pool) a little fewer than without a pool.
      const lists = flat.dram.adjacency;
      expect(p.poolLists * ADJ).toBeLessThanOrEqual(0.25 * lists);
      expect(p.adjacencyInDram + p.poolLists).toBeLessThanOrEqual(flat.adjacencyInDram);
      expect(p.adjacencyInDram + p.poolLists).toBeGreaterThan(0.7 * flat.adjacencyInDram);
      pooled++;
    }
    expect(pooled).toBeGreaterThan(1);
  });

  it('honours every budget: DRAM total within it, every record counted once, neighbour lists before vectors', () => {
    for (const share of [0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8, 1]) {
      const budget = Math.floor(full * share);
      for (const codes of ['auto', ...CODE_KINDS] as const) {
        // A forced code needs its rows (budgets below are refused, tested below); auto, at worst
        // whole records, needs the upper layers only.
        const needed = upperBytes + (codes === 'auto' ? 0 : minNeed(codes));
        if (needed > budget) continue;
        const p = planBudget(input(budget, codes));
        const codeDram = p.code ? n * p.codeRowBytes + codeHeadBytes(p.code, n, dim, p.codeCentroids) : 0;
        expect(p.dram.total, `${codes} at ${share}`).toBeLessThanOrEqual(budget);
        expect(p.dram).toEqual({
          upper: upperBytes,
          payloadIndexes: 0,
          codes: codeDram,
          runs: 0,
          adjacency: p.adjacencyInDram * ADJ,
          pool: 0,
          vectors: p.vectorsInDram * VEC,
          total: upperBytes + codeDram + p.adjacencyInDram * ADJ + p.vectorsInDram * VEC,
        });
        expect(p.cxl).toEqual({
          adjacency: (n - p.adjacencyInDram) * ADJ,
          vectors: (n - p.vectorsInDram) * VEC,
          labels: n * LABEL,
          total: (n - p.adjacencyInDram) * ADJ + (n - p.vectorsInDram) * VEC + n * LABEL,
        });
        expect(p.fullPrecisionBytes).toBe(full);
        // Filled: the next unit would not fit: a whole record without a code; with one a
        // neighbour list, or once they all fit a vector.
        const left = budget - p.dram.total;
        if (p.code === null) {
          expect(p.vectorsInDram).toBe(p.adjacencyInDram);
          if (p.adjacencyInDram < n) expect(left).toBeLessThan(ADJ + VEC);
        } else if (p.adjacencyInDram < n) {
          expect(p.vectorsInDram).toBe(0);
          expect(left).toBeLessThan(ADJ);
        } else if (p.vectorsInDram < n) expect(left).toBeLessThan(VEC);
      }
    }
  });

  it('auto picks the most precise code whose rows fit after the upper layers', () => {
    const seen = new Set<string>();
    for (let share = 0.04; share <= 1; share += 0.01) {
      const budget = Math.floor(full * share);
      const fits = (k: CodeKind): boolean => upperBytes + minNeed(k) <= budget;
      const expected = CODE_PREFERENCE.find(fits);
      if (expected === undefined) continue;
      const p = planBudget(input(budget, 'auto'));
      expect(p.code, `share ${share.toFixed(2)}`).toBe(expected);
      expect(p.reason).toContain(expected);
      seen.add(expected);
    }
    // The sweep crossed every code's threshold, so each choice was exercised.
    expect([...seen].sort()).toEqual([...CODE_KINDS].sort());
    // At the exact threshold sq8 fits; a byte less and it is rq4.
    const sq8Need = upperBytes + need('sq8');
    expect(planBudget(input(sq8Need, 'auto')).code).toBe('sq8');
    expect(planBudget(input(sq8Need - 1, 'auto')).code).toBe('rq4');
  });

  it('widens rq2/rq3 padding to 64 dimensions (at most a fifth more) only when those rows fit, and trains the code it planned', () => {
    expect([codeDims('rq3', 100, true), codeDims('rq3', 100, false), codeDims('rq2', 100, true)]).toEqual([128, 112, 128]);
    // A 32-d vector would double, a 200-d one grow by 23%: they keep the narrow padding; rq4 and sq8 always do.
    expect([codeDims('rq3', 32, true), codeDims('rq3', 200, true), codeDims('rq4', 100, true), codeDims('sq8', 100, true)]).toEqual([32, 208, 112, 112]);
    const big = { count: 1000, dim: 100, metric: 'ip' as const, maxM0: 32, upperBytes: 5000, codes: 'rq3' as const };
    const narrowRows = 1000 * codeRowBytes('rq3', 100, 'ip') + codeHeadBytes('rq3', 1000, 100);
    const wideRows = 1000 * codeRowBytes('rq3', 100, 'ip', true) + codeHeadBytes('rq3', 1000, 100);
    expect(wideRows - narrowRows).toBe(1000 * ((3 * 16) / 8));
    const atWide = planBudget({ ...big, budgetBytes: 5000 + wideRows });
    expect([atWide.codeDims, atWide.codeRowBytes, atWide.adjacencyInDram]).toEqual([128, codeRowBytes('rq3', 100, 'ip', true), 0]);
    const belowWide = planBudget({ ...big, budgetBytes: 5000 + wideRows - 1 });
    expect([belowWide.codeDims, belowWide.codeRowBytes]).toEqual([112, codeRowBytes('rq3', 100, 'ip')]);
    expect(belowWide.dram.total).toBeLessThanOrEqual(5000 + wideRows - 1);
    const vectors = new Float32Array(300 * 100).map((_, i) => Math.sin(i * 0.37));
    const codec = trainCodec('rq3', vectors, 100, 'ip', { seed: 1, dims: atWide.codeDims });
    expect([codec.spec.dims, codec.spec.stride]).toEqual([128, atWide.codeRowBytes]);
  });

  it("cuts an rq code's centroids (halving, down to MIN_CENTROIDS) when its default count's would not fit beside its rows, and trains that many", () => {
    const big = { count: 20_000, dim: 128, metric: 'l2' as const, maxM0: 32, upperBytes: 10_000, codes: 'rq3' as const };
    const rows = 20_000 * codeRowBytes('rq3', 128, 'l2');
    const full = codeCentroids('rq3', 20_000);
    expect(full).toBe(256);
    const at = (budgetBytes: number) => planBudget({ ...big, budgetBytes });
    // Room for every default centroid: the default.
    expect(at(10_000 + rows + codeHeadBytes('rq3', 20_000, 128)).codeCentroids).toBe(256);
    // A byte short of the default's parameters: half as many; and so on down to the floor.
    for (const [room, want] of [
      [codeHeadBytes('rq3', 20_000, 128, 256) - 1, 128],
      [codeHeadBytes('rq3', 20_000, 128, 64), 64],
      [codeHeadBytes('rq3', 20_000, 128, 32) - 1, MIN_CENTROIDS],
    ] as const) {
      const p = at(10_000 + rows + room);
      expect(p.codeCentroids, `room ${room}`).toBe(want);
      expect(p.dram.codes).toBe(rows + codeHeadBytes('rq3', 20_000, 128, want));
      expect(p.dram.total).toBeLessThanOrEqual(10_000 + rows + room);
    }
    // Not even MIN_CENTROIDS' parameters: a forced rq3 is refused naming what it needs.
    const floor = 10_000 + rows + codeHeadBytes('rq3', 20_000, 128, MIN_CENTROIDS);
    expect(expectStrataError(() => at(floor - 1), 'STRATA_DRAM_BUDGET').message).toContain(`needs ${floor} bytes`);
    // The code trained on the plan has the planned centroids.
    const vectors = new Float32Array(3000 * 16).map((_, i) => Math.sin(i * 0.91) + (i % 7));
    expect(trainCodec('rq3', vectors, 16, 'l2', { seed: 1, centroids: 16 }).spec.centroids).toBe(16);
    expect(trainCodec('rq3', vectors, 16, 'l2', { seed: 1 }).spec.centroids).toBe(codeCentroids('rq3', 3000));
  });

  it('auto falls back to whole records without a code, naming the bytes rq2 would need, when even rq2 does not fit', () => {
    const rq2Rows = minNeed('rq2');
    expect(planBudget(input(upperBytes + rq2Rows, 'auto')).code).toBe('rq2');
    for (const budget of [upperBytes + rq2Rows - 1, upperBytes + 10 * (ADJ + VEC) + 5]) {
      const p = planBudget(input(budget, 'auto'));
      const whole = Math.floor((budget - upperBytes) / (ADJ + VEC));
      expect([p.code, p.codeRowBytes, p.adjacencyInDram, p.vectorsInDram]).toEqual([null, 0, whole, whole]);
      expect(p.dram.total).toBeLessThanOrEqual(budget);
      expect(p.reason).toContain(`even rq2 (${rq2Rows} bytes) does not fit the ${budget - upperBytes} bytes left after the upper layers`);
    }
  });

  it('refuses, naming the bytes needed and the budget, a forced code that does not fit', () => {
    for (const kind of CODE_KINDS) {
      const needed = upperBytes + minNeed(kind);
      expect(planBudget(input(needed, kind)).code).toBe(kind);
      const e = expectStrataError(() => planBudget(input(needed - 1, kind)), 'STRATA_DRAM_BUDGET');
      expect(e.message).toContain(`--codes ${kind} needs ${needed} bytes`);
      expect(e.message).toContain(`the budget is ${needed - 1}`);
      expect(e.details['needed']).toBe(needed);
    }
  });

  it('gives a code asked for that misses the budget what whenCodeMisses says: another picked as auto would, or kept over the budget', () => {
    for (const kind of CODE_KINDS) {
      const needed = upperBytes + minNeed(kind);
      expect(planBudget({ ...input(needed, kind), whenCodeMisses: 'pick' }).code).toBe(kind);
      const p = planBudget({ ...input(needed - 1, kind), whenCodeMisses: 'pick' });
      const auto = planBudget(input(needed - 1, 'auto'));
      expect(p.code).toBe(auto.code);
      expect(p.code).not.toBe(kind);
      expect(p.reason).toContain(`(${kind}, the code asked for, no longer fits)`);
      const kept = planBudget({ ...input(needed - 1, kind), whenCodeMisses: 'overspend' });
      expect(kept.code).toBe(kind);
      expect(kept.reason).toContain(`${kind}: as asked, 1 bytes over the budget`);
      // Nothing else goes to DRAM beside a code kept over the budget.
      expect([kept.dram.adjacency, kept.dram.pool, kept.dram.vectors, kept.dram.runs]).toEqual([0, 0, 0, 0]);
    }
    // Payload indexes set aside first can be what pushes it out.
    const sq8 = upperBytes + minNeed('sq8');
    expect(planBudget({ ...input(sq8, 'sq8'), whenCodeMisses: 'pick', payloadIndexBytes: 1 }).code).toBe('rq4');
  });

  it('with codes none places whole records (neighbour list and vector together) of the first nodes', () => {
    for (const share of [0.1, 0.3, 0.7, 1]) {
      const budget = Math.max(upperBytes, Math.floor(full * share));
      const p = planBudget(input(budget, 'none'));
      const whole = Math.min(n, Math.floor((budget - upperBytes) / (ADJ + VEC)));
      expect([p.code, p.codeRowBytes, p.dram.codes]).toEqual([null, 0, 0]);
      expect([p.adjacencyInDram, p.vectorsInDram]).toEqual([whole, whole]);
      expect(p.dram.total).toBeLessThanOrEqual(budget);
      expect(p.reason).toMatch(/whole records/);
    }
    expect(planBudget(input(full, 'none')).adjacencyInDram).toBe(n);
    expect(planBudget(input(upperBytes, 'none')).adjacencyInDram).toBe(0);
  });

  it('auto keeps full precision (no code) when the whole index fits the budget', () => {
    for (const budget of [full, full + 1000]) {
      const p = planBudget(input(budget, 'auto'));
      expect([p.code, p.adjacencyInDram, p.vectorsInDram]).toEqual([null, n, n]);
      expect(p.reason).toContain('fits the budget at full precision');
    }
    expect(planBudget(input(full - 1, 'auto')).code).not.toBeNull();
  });

  it('refuses a budget below the upper layers, which always stay in DRAM, in every code mode', () => {
    for (const codes of ['none', 'auto', ...CODE_KINDS] as const) {
      const e = expectStrataError(() => planBudget(input(upperBytes - 1, codes)), 'STRATA_DRAM_BUDGET');
      expect(e.message).toContain(`below the ${upperBytes} bytes of the upper layers`);
      expect(e.details['needed']).toBe(upperBytes);
    }
  });

  it('with a code fills neighbour lists first, and vectors only once every neighbour list is in DRAM', () => {
    const allLists = upperBytes + need('rq4') + n * ADJ;
    const p1 = planBudget(input(allLists - 1, 'rq4'));
    expect([p1.adjacencyInDram, p1.vectorsInDram]).toEqual([n - 1, 0]);
    const p2 = planBudget(input(allLists + 10 * VEC, 'rq4'));
    expect([p2.adjacencyInDram, p2.vectorsInDram]).toEqual([n, 10]);
    // Vectors smaller than a neighbour list (dim 8: 32 bytes against 68): the bytes a list cannot
    // use still go to no vector while any list is in CXL.
    const narrow: PlannerInput = { count: 1000, dim: 8, metric: 'l2', maxM0: 16, upperBytes: 500, budgetBytes: 0, codes: 'rq2' };
    const lists = 500 + 1000 * (rowBytes2(8) + ADJ) + codeHeadBytes('rq2', 1000, 8);
    const p3 = planBudget({ ...narrow, budgetBytes: lists - ADJ + 40 });
    expect([p3.adjacencyInDram, p3.vectorsInDram]).toEqual([999, 0]);
    const p4 = planBudget({ ...narrow, budgetBytes: lists + 40 });
    expect([p4.adjacencyInDram, p4.vectorsInDram]).toEqual([1000, 1]);
  });
});

describe('DRAM budget parsing', () => {
  it('reads bytes, binary and decimal units, and percentages of the index', () => {
    expect(parseBudget('1048576', 1e9)).toBe(1048576);
    expect(parseBudget('64MiB', 1e9)).toBe(64 * 1024 * 1024);
    expect(parseBudget('2GB', 1e12)).toBe(2e9);
    expect(parseBudget('1.5k', 1e9)).toBe(1536);
    expect(parseBudget('10%', 5000)).toBe(500);
  });

  it('rejects malformed budgets and more than 100% with STRATA_DRAM_BUDGET', () => {
    for (const bad of ['ten', '-5', '120%', '5 parsecs']) {
      expect(() => parseBudget(bad, 1000)).toThrowError(expect.objectContaining({ code: 'STRATA_DRAM_BUDGET' }) as Error);
    }
  });
});
