import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { profileGraph, sampleRows } from '../../../index/build/profile.js';
import { readDataset, readFvecsMatrix, readGroundTruth } from '../../../index/datasets/index.js';
import { generateClustered } from '../../../index/generate/clustered.js';
import { bruteForceKnn } from '../../../index/groundtruth.js';
import { placeNodes, PLACEMENT_POLICIES } from '../../../index/placement/placement.js';
import { runBatch } from '../../../index/search/batch.js';
import { recallAtK } from '../../../index/search/recall.js';
import { Searcher } from '../../../index/search/searcher.js';
import { layoutIndex } from '../../../index/tiered/layout.js';
import { costModel } from '../../../tiers/cost-model.js';

const SIFT = join(__dirname, '..', '..', '..', '..', 'shared', 'datasets', 'sift-128-euclidean-10k');

describe('tiered HNSW search', () => {
  const dim = 32;
  const set = generateClustered({ count: 4000, dim, clusters: 16, seed: 11 }, 100);
  const graph = buildGraph(set.base, dim, { metric: 'l2', m: 12, efConstruction: 100, seed: 3 });
  const total = placeNodes(graph, { policy: 'id', budgetBytes: 0 }).totalBytes;
  const profile = profileGraph(graph, 'l2', sampleRows(set.base, dim, 200, 4), 10, 64);
  const gt = bruteForceKnn(set.base, set.queries, dim, 10, 'l2');

  it('returns the same ids and distances whatever the placement policy, budget and segment size', () => {
    let reference: Float64Array | null = null;
    for (const policy of PLACEMENT_POLICIES) {
      for (const share of [0.05, 0.5, 1]) {
        for (const segmentBytes of [1 << 30, 96 * 1024]) {
          const p = placeNodes(graph, { policy, budgetBytes: Math.floor(total * share), profile: profile.accesses, seed: 5 });
          const idx = layoutIndex(graph, p, 'l2', null, { segmentBytes });
          if (segmentBytes < 1 << 20) expect(idx.segments.length).toBeGreaterThan(2);
          const r = runBatch(idx, set.queries, { k: 10, ef: 48 });
          if (reference === null) reference = r.labels;
          else expect(Array.from(r.labels)).toEqual(Array.from(reference));
        }
      }
    }
  });

  it('reaches recall@10 >= 0.95 at ef 64 on a clustered set (brute-force ground truth)', () => {
    const p = placeNodes(graph, { policy: 'profile', budgetBytes: Math.floor(total * 0.1), profile: profile.accesses });
    const idx = layoutIndex(graph, p, 'l2', null);
    const r = runBatch(idx, set.queries, { k: 10, ef: 64 });
    const rec = recallAtK({ k: 10, results: r.labels, resultDistances: r.distances, metric: 'l2', gtIds: gt.ids, gtDim: 10, gtDistances: gt.distances });
    expect(rec.mean).toBeGreaterThanOrEqual(0.95);
  });

  it('exact search equals brute force', () => {
    const p = placeNodes(graph, { policy: 'hops', budgetBytes: Math.floor(total * 0.2) });
    const idx = layoutIndex(graph, p, 'l2', null, { segmentBytes: 200 * 1024 });
    const r = runBatch(idx, set.queries, { k: 10, ef: 10, exact: true });
    const rec = recallAtK({ k: 10, results: r.labels, resultDistances: r.distances, metric: 'l2', gtIds: gt.ids, gtDim: 10, gtDistances: gt.distances });
    expect(rec.mean).toBe(1);
  });

  it('counts accesses per tier: all-DRAM has no CXL traffic, all-CXL has no level-0 DRAM traffic', () => {
    const dram = layoutIndex(graph, placeNodes(graph, { policy: 'hops', budgetBytes: total }), 'l2', null);
    const rd = runBatch(dram, set.queries, { k: 10, ef: 32 });
    expect(rd.stats.accesses.cxl).toBe(0);
    expect(rd.stats.dramShare).toBe(1);
    expect(rd.stats.modelledCxlExtraNs).toBe(0);
    const cxl = layoutIndex(graph, placeNodes(graph, { policy: 'hops', budgetBytes: 0 }), 'l2', null);
    const rc = runBatch(cxl, set.queries, { k: 10, ef: 32 });
    expect(rc.stats.vectorReads.dram).toBe(0);
    expect(rc.stats.neighbourListReads.cxl).toBeGreaterThan(0);
    // Upper-layer link lists always live in DRAM.
    expect(rc.stats.neighbourListReads.dram).toBeGreaterThan(0);
    expect(rc.stats.distances).toBe(rd.stats.distances);
    expect(rc.stats.bytes.cxl).toBe(rc.stats.vectorReads.cxl * dim * 4 + (rc.stats.bytes.cxl - rc.stats.vectorReads.cxl * dim * 4));
    expect(rc.stats.modelledMemoryNs).toBeGreaterThan(rd.stats.modelledMemoryNs);
  });

  it('models CXL extra time that grows with the configured latency, and injects exactly what it models', () => {
    const idx = layoutIndex(graph, placeNodes(graph, { policy: 'hops', budgetBytes: Math.floor(total * 0.1) }), 'l2', null);
    const lo = runBatch(idx, set.queries, { k: 10, ef: 32, cost: costModel({ cxlExtraLatencyNs: 50 }) });
    const hi = runBatch(idx, set.queries, { k: 10, ef: 32, cost: costModel({ cxlExtraLatencyNs: 400 }) });
    expect(hi.stats.modelledCxlExtraNs).toBeGreaterThan(lo.stats.modelledCxlExtraNs * 4);
    const inj = runBatch(idx, set.queries.subarray(0, 10 * dim), { k: 10, ef: 32, inject: true });
    expect(inj.stats.injectedNs).toBeCloseTo(inj.stats.modelledCxlExtraNs, 3);
    expect(lo.stats.injectedNs).toBe(0);
  });

  it('rejects a query of the wrong dimension and out-of-range k and ef, naming the field', () => {
    const idx = layoutIndex(graph, placeNodes(graph, { policy: 'hops', budgetBytes: total }), 'l2', null);
    const s = new Searcher(idx);
    try {
      expect(() => s.search(new Float32Array(dim + 1), 10, 10)).toThrow(/vector: expected 32 dimensions/);
      expect(() => s.search(new Float32Array(dim), 0, 10)).toThrow(/^k:/);
      expect(() => s.search(new Float32Array(dim), 10, 1e9)).toThrow(/^ef:/);
    } finally {
      s.close();
    }
  });

  it('returns neighbours sorted by distance with ties ordered by label', () => {
    // Duplicate vectors make exact ties.
    const base = new Float32Array(200 * 4);
    for (let i = 0; i < 200; i++) base.set([i % 10, 0, 0, 0], i * 4);
    const g = buildGraph(base, 4, { metric: 'l2', m: 8, efConstruction: 50, seed: 1 });
    const idx = layoutIndex(g, placeNodes(g, { policy: 'random', budgetBytes: 1e9, seed: 3 }), 'l2', null);
    const s = new Searcher(idx);
    const r = s.exact(Float32Array.of(3, 0, 0, 0), 25);
    s.close();
    const labels = Array.from(r.ids, (i) => idx.labels[i]!);
    for (let j = 1; j < labels.length; j++) {
      expect(r.distances[j]!).toBeGreaterThanOrEqual(r.distances[j - 1]!);
      if (r.distances[j] === r.distances[j - 1]) expect(labels[j]!).toBeGreaterThan(labels[j - 1]!);
    }
    expect(labels.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, j) => 3 + 10 * j));
  });
});

describe.skipIf(!existsSync(join(SIFT, 'base.fvecs')))('SIFT 10k (../shared)', () => {
  it('reaches recall@10 >= 0.95 at ef 64 with 10% DRAM, tie-aware against the shipped ground truth', async () => {
    const base = await readDataset(join(SIFT, 'base.fvecs'));
    const qs = await readDataset(join(SIFT, 'query.fvecs'));
    const gt = await readGroundTruth(join(SIFT, 'groundtruth.ivecs'));
    const gd = await readFvecsMatrix(join(SIFT, 'groundtruth_dist.fvecs'));
    const g = buildGraph(base.vectors, 128, { metric: 'l2', m: 16, efConstruction: 200, seed: 100 });
    const profile = profileGraph(g, 'l2', sampleRows(base.vectors, 128, 500, 1), 10, 64);
    const total = placeNodes(g, { policy: 'id', budgetBytes: 0 }).totalBytes;
    const idx = layoutIndex(g, placeNodes(g, { policy: 'profile', budgetBytes: total * 0.1, profile: profile.accesses }), 'l2', null);
    const r = runBatch(idx, qs.vectors, { k: 10, ef: 64 });
    const tie = recallAtK({ k: 10, results: r.labels, resultDistances: r.distances, metric: 'l2', gtIds: gt.data, gtDim: gt.dim, gtDistances: gd.data });
    const plain = recallAtK({ k: 10, results: r.labels, metric: 'l2', gtIds: gt.data, gtDim: gt.dim });
    expect(tie.tieAware).toBe(true);
    expect(tie.mean).toBeGreaterThanOrEqual(0.95);
    expect(plain.mean).toBeGreaterThanOrEqual(0.95);
  });
});
