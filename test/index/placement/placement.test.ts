import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../common/errors.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { profileGraph, sampleRows, predictedDramShare } from '../../../index/build/profile.js';
import { generateClustered } from '../../../index/generate/clustered.js';
import { bfsFromEntry } from '../../../index/placement/bfs.js';
import { nodeRecordBytes, parseBudget, placeNodes, PLACEMENT_POLICIES } from '../../../index/placement/placement.js';

const dim = 24;
const data = generateClustered({ count: 3000, dim, clusters: 12, seed: 3 }, 0);
const graph = buildGraph(data.base, dim, { metric: 'l2', m: 8, efConstruction: 60, seed: 5 });
const profile = profileGraph(graph, 'l2', sampleRows(data.base, dim, 300, 1), 10, 32);
const total = placeNodes(graph, { policy: 'id', budgetBytes: 0 }).totalBytes;

describe('placement', () => {
  it('produces a permutation of all nodes with the DRAM tier first, within budget, for every policy', () => {
    for (const policy of PLACEMENT_POLICIES) {
      const budget = Math.floor(total * 0.2);
      const p = placeNodes(graph, { policy, budgetBytes: budget, profile: profile.accesses, seed: 9 });
      const seen = new Uint8Array(graph.count);
      for (const v of p.order) seen[v]!++;
      expect(seen.every((c) => c === 1)).toBe(true);
      let bytes = 0;
      for (let i = 0; i < p.dramCount; i++) bytes += nodeRecordBytes(graph, graph.levels[p.order[i]!]!);
      expect(bytes).toBe(p.dramBytes);
      expect(bytes).toBeLessThanOrEqual(budget);
      // Filled: one more level-0 record would not fit.
      expect(budget - bytes).toBeLessThan(nodeRecordBytes(graph, 0) + nodeRecordBytes(graph, graph.maxLevel));
    }
  });

  it('puts everything in DRAM with a 100% budget and nothing with a zero budget', () => {
    expect(placeNodes(graph, { policy: 'hops', budgetBytes: total }).dramCount).toBe(graph.count);
    expect(placeNodes(graph, { policy: 'hops', budgetBytes: 0 }).dramCount).toBe(0);
  });

  it('hops: keeps upper-layer nodes in DRAM and fills the rest in BFS hop order from the entry', () => {
    const p = placeNodes(graph, { policy: 'hops', budgetBytes: Math.floor(total * 0.3) });
    const inDram = new Set(Array.from(p.order.subarray(0, p.dramCount)));
    for (let v = 0; v < graph.count; v++) if (graph.levels[v]! > 0) expect(inDram.has(v)).toBe(true);
    const { hops } = bfsFromEntry(graph);
    let maxIn = 0;
    let minOut = Infinity;
    for (let v = 0; v < graph.count; v++) {
      if (graph.levels[v]! > 0) continue;
      if (inDram.has(v)) maxIn = Math.max(maxIn, hops[v]!);
      else minOut = Math.min(minOut, hops[v]! < 0 ? Infinity : hops[v]!);
    }
    expect(maxIn).toBeLessThanOrEqual(minOut);
  });

  it('profile: every DRAM node was accessed at least as often as every CXL node', () => {
    const p = placeNodes(graph, { policy: 'profile', budgetBytes: Math.floor(total * 0.1), profile: profile.accesses });
    let minIn = Infinity;
    let maxOut = 0;
    for (let i = 0; i < graph.count; i++) {
      const a = profile.accesses[p.order[i]!]!;
      if (i < p.dramCount) minIn = Math.min(minIn, a);
      else maxOut = Math.max(maxOut, a);
    }
    expect(minIn).toBeGreaterThanOrEqual(maxOut);
  });

  it('profile placement predicts a higher DRAM share than id and random on the profiled queries', () => {
    const share = (policy: 'profile' | 'id' | 'random'): number => {
      const p = placeNodes(graph, { policy, budgetBytes: Math.floor(total * 0.1), profile: profile.accesses, seed: 2 });
      return predictedDramShare(profile, p.order, p.dramCount);
    };
    expect(share('profile')).toBeGreaterThan(share('id'));
    expect(share('profile')).toBeGreaterThan(share('random'));
  });

  it('lays each tier out in BFS order so the entry point comes first', () => {
    const p = placeNodes(graph, { policy: 'hops', budgetBytes: total });
    expect(p.order[0]).toBe(graph.entry);
  });

  it('refuses a profile placement without access counts, naming the option', () => {
    try {
      placeNodes(graph, { policy: 'profile', budgetBytes: 100 });
      expect.unreachable();
    } catch (e) {
      expect(isStrataError(e, 'STRATA_INVALID_ARGUMENT')).toBe(true);
      expect((e as Error).message).toMatch(/placement/);
    }
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
