import { describe, expect, it } from 'vitest';
import { generateClustered } from '../../../datasets/index.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../../../index/build/place-and-layout.js';
import { Searcher } from '../../../index/search/searcher.js';
import { STAT } from '../../../index/search/stats.js';
import { CONTROL, DEGREE_MASK } from '../../../index/kernels/control-block.js';
import { COUNT_EVERY, type ListPool } from '../../../index/tiered/list-pool.js';
import type { TieredIndex } from '../../../index/tiered/tiered-index.js';
import { costModel } from '../../../tiers/cost-model.js';

const N = 4000;
const D = 16;
const set = generateClustered({ count: N, dim: D, clusters: 20, seed: 41 }, 1);
const graph = buildGraph(set.base, D, { metric: 'l2', m: 8, efConstruction: 60, seed: 5 });

function place(extra: { fusedLanes?: number } = {}): TieredIndex {
  return placeAndLayout(graph, 'l2', null, {
    budgetBytes: Math.floor(graphFullPrecisionBytes(graph) * 0.25),
    policy: 'hops',
    codes: 'rq3',
    poolShare: 0.3,
    seed: 3,
    ...extra,
  }).index;
}

/** Rows of the base nearest to one corner of the space: a load that visits one region of the graph. */
function regionLoad(sign: number, count: number): Float32Array {
  const u = Array.from({ length: D }, (_, j) => sign * Math.cos(j * 1.3 + 0.2));
  const rows = Array.from({ length: N }, (_, i) => i).sort(
    (a, b) =>
      set.base.subarray(b * D, (b + 1) * D).reduce((s, x, j) => s + x * u[j]!, 0) - set.base.subarray(a * D, (a + 1) * D).reduce((s, x, j) => s + x * u[j]!, 0),
  );
  const q = new Float32Array(count * D);
  for (let k = 0; k < count; k++) q.set(set.base.subarray(rows[k % 400]! * D, (rows[k % 400]! + 1) * D), k * D);
  return q;
}

/** The pool's invariants: table and tenants agree, and every tenant's slot holds its home list. */
function checkPool(index: TieredIndex, pool: ListPool): void {
  const tenants = new Set(pool.tenants());
  const split = index.adjacency.split;
  const slots = new Set<number>();
  for (let v = split; v < index.meta.count; v++) {
    expect(pool.has(v), `node ${v}`).toBe(tenants.has(v));
    if (!tenants.has(v)) continue;
    const s = pool.slotOf(v);
    expect(slots.has(s)).toBe(false);
    slots.add(s);
    const w = pool.layout.words;
    const home = index.neighbourBlock(v);
    // The same list; the count words' high halves are each copy's own access counter.
    const copy = Array.from(pool.slotList(s));
    const orig = Array.from(home.seg.u32.subarray(home.at, home.at + w));
    copy[0] = copy[0]! & DEGREE_MASK;
    orig[0] = orig[0]! & DEGREE_MASK;
    expect(copy).toEqual(orig);
  }
}

function listShare(index: TieredIndex, queries: Float32Array): { share: number; answers: string[] } {
  const s = new Searcher(index, { prefetch: true, cost: costModel({}) });
  try {
    let dram = 0;
    let cxl = 0;
    const answers: string[] = [];
    for (let k = 0; k < queries.length / D; k++) {
      const r = s.search(queries.subarray(k * D, (k + 1) * D), 10, 32);
      dram += r.stats[STAT.adjReadsDram]!;
      cxl += r.stats[STAT.adjReadsCxl]!;
      answers.push(`${Array.from(r.ids).join(',')}|${Array.from(r.distances).join(',')}`);
    }
    return { share: dram / (dram + cxl), answers };
  } finally {
    s.close();
  }
}

/** Rounds under a load: the load counted, a round picks and a second refills (no traversal runs between). */
function tune(index: TieredIndex, load: Float32Array, rounds: number): void {
  const pool = index.pool!;
  for (let r = 0; r < rounds; r++) {
    listShare(index, load);
    pool.rebalance();
    pool.rebalance();
    checkPool(index, pool);
  }
}

describe('promotion pool (live re-tiering in place)', () => {
  it("starts with the placement's next hottest lists, its table and tenants in agreement", () => {
    const index = place();
    const pool = index.pool!;
    expect(pool).not.toBeNull();
    expect(pool.layout.slots).toBe(index.plan.poolLists);
    const split = index.adjacency.split;
    expect(pool.tenants().sort((a, b) => a - b)).toEqual(Array.from({ length: pool.layout.slots }, (_, i) => split + i));
    checkPool(index, pool);
  });

  it('moves the lists a shifted load visits most into DRAM, answers unchanged, table intact after many rounds', () => {
    const index = place();
    const pool = index.pool!;
    const B = regionLoad(1, 800);
    const before = listShare(index, B);
    tune(index, B, 4);
    const after = listShare(index, B);
    expect(pool.moves).toBeGreaterThan(0);
    expect(after.share).toBeGreaterThan(before.share + 0.05);
    expect(after.answers).toEqual(before.answers);
    // Then the load moves to the opposite region: the pool follows it.
    const A = regionLoad(-1, 800);
    const staticA = listShare(index, A);
    tune(index, A, 4);
    const tunedA = listShare(index, A);
    expect(tunedA.share).toBeGreaterThan(staticA.share + 0.05);
    expect(tunedA.answers).toEqual(staticA.answers);
  });

  it('counts and serves pool lists alike in the WASM traversal and the JS steps', () => {
    const index = place();
    const pool = index.pool!;
    const B = regionLoad(1, 300);
    listShare(index, B);
    pool.rebalance();
    pool.rebalance();
    const fused = new Searcher(index, { prefetch: true, cost: costModel({}) });
    const js = new Searcher(index, { prefetch: true, cost: costModel({}), fused: false });
    const split = index.adjacency.split;
    const allCounts = (): number[] => Array.from({ length: N - split }, (_, i) => pool.countOf(split + i));
    try {
      expect(fused.fused).not.toBeNull();
      for (let k = 0; k < 100; k++) {
        const q = B.subarray(k * D, (k + 1) * D);
        pool.clearCounts();
        const a = fused.search(q, 10, 32);
        const countsA = allCounts();
        pool.clearCounts();
        const b = js.search(q, 10, 32);
        expect(Array.from(a.ids)).toEqual(Array.from(b.ids));
        expect(a.stats[STAT.adjReadsDram]).toBe(b.stats[STAT.adjReadsDram]);
        expect(a.stats[STAT.adjReadsCxl]).toBe(b.stats[STAT.adjReadsCxl]);
        expect(allCounts()).toEqual(countsA);
        if (k % COUNT_EVERY === 0) expect(countsA.some((c) => c > 0)).toBe(true);
        else expect(countsA.every((c) => c === 0)).toBe(true);
      }
    } finally {
      fused.close();
      js.close();
    }
  });

  it('refills no slot while a traversal that could have looked up its old tenant is still running', () => {
    const index = place();
    const pool = index.pool!;
    const fused = index.fused!;
    const gens = new Int32Array(fused.memory.buffer);
    const genAt = (fused.lanes.laneBase + 1 * fused.lanes.laneBytes + CONTROL.gen) >>> 2;
    // Lists outside the pool made the hottest; lane 1 is mid-traversal (odd generation).
    const split = index.adjacency.split;
    const outside = Array.from({ length: 50 }, (_, i) => split + pool.layout.slots + 10 * i).filter((v) => v < N);
    for (const v of outside) for (let k = 0; k < 200; k++) pool.count(v);
    const slotBytes = (s: number): number[] =>
      Array.from(new Uint32Array(fused.memory.buffer, pool.layout.listsAt + s * 4 * pool.layout.words, pool.layout.words));
    const victims = pool.tenants();
    const contents = new Map(victims.map((v) => [v, slotBytes(pool.slotOf(v))]));
    const slotsOf = new Map(victims.map((v) => [v, pool.slotOf(v)]));
    Atomics.store(gens, genAt, 7);
    const first = pool.rebalance();
    expect(first.demoted).toBe(outside.length);
    expect(first.waiting).toBe(true);
    const gone = victims.filter((v) => !pool.has(v));
    expect(gone.length).toBe(outside.length);
    // Still running: nothing copied in, the old tenants' slots untouched.
    expect(pool.rebalance().waiting).toBe(true);
    expect(pool.refill()).toBe(-1);
    for (const v of gone) expect(slotBytes(slotsOf.get(v)!)).toEqual(contents.get(v));
    for (const v of outside) expect(pool.has(v)).toBe(false);
    // The traversal ended: the refills go in.
    Atomics.store(gens, genAt, 8);
    expect(pool.refill()).toBe(outside.length);
    for (const v of outside) expect(pool.has(v)).toBe(true);
    checkPool(index, pool);
  });

  it('reads at most maxScan CXL records a round, and across rounds still finds the hot lists anywhere in the range', () => {
    const index = place();
    const pool = index.pool!;
    const split = index.adjacency.split;
    const slots = pool.layout.slots;
    // Hot lists spread over the whole CXL range, outside the pool's first tenants.
    const hot = Array.from({ length: 20 }, (_, i) => split + slots + Math.floor(((N - split - slots - 1) * i) / 19));
    pool.clearCounts();
    for (const v of hot) for (let k = 0; k < 100; k++) pool.count(v);
    const scan = 300;
    const rounds = Math.ceil((N - split) / scan);
    // A round that scanned only the start of the range cannot have seen the hot lists at its end.
    pool.rebalance({ maxScan: scan });
    expect(pool.refill()).toBeLessThan(hot.length);
    for (let r = 1; r <= rounds; r++) {
      pool.rebalance({ maxScan: scan });
      pool.refill();
    }
    for (const v of hot) expect(pool.has(v), `node ${v}`).toBe(true);
    checkPool(index, pool);
  });

  it('serves pool tenants from DRAM in the JS steps too when the index has no fused region', () => {
    const index = place({ fusedLanes: 0 });
    expect(index.fused).toBeNull();
    const pool = index.pool!;
    expect(pool).not.toBeNull();
    const B = regionLoad(1, 600);
    const before = listShare(index, B);
    tune(index, B, 3);
    const after = listShare(index, B);
    expect(after.share).toBeGreaterThan(before.share + 0.05);
    expect(after.answers).toEqual(before.answers);
  });
});
