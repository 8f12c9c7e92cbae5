// List codes laid out beside the neighbour lists (index/tiered/list-code-store.ts): where they lie,
// what the beam leaves out with them, and what it keeps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bruteForceKnn, generateEmbedding } from '../../../datasets/index.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../../../index/build/place-and-layout.js';
import { listCodeStride } from '../../../index/codes/list-codes.js';
import { type ManifestInfo, writeIndex } from '../../../index/format/write-index.js';
import { normalizeRows } from '../../../index/kernels/reference.js';
import { Searcher } from '../../../index/search/searcher.js';
import { STAT } from '../../../index/search/stats.js';
import { ListCodeStore } from '../../../index/tiered/list-code-store.js';
import { TieredIndex } from '../../../index/tiered/tiered-index.js';

const dim = 48;
const set = generateEmbedding({ count: 4000, dim, seed: 31 }, 80);
const base = set.base.slice();
const queries = set.queries.slice();
normalizeRows(base, dim);
normalizeRows(queries, dim);
const graph = buildGraph(base, dim, { metric: 'ip', m: 12, efConstruction: 80, seed: 6 });
const truth = bruteForceKnn(base, queries, dim, 10, 'cosine');
const nq = queries.length / dim;

function place(listCodes: boolean): TieredIndex {
  return placeAndLayout(graph, 'cosine', null, {
    budgetBytes: Math.floor(graphFullPrecisionBytes(graph) * 0.2),
    policy: 'hops',
    codes: 'rq3',
    seed: 2,
    listCodes,
  }).index;
}

/** recall@10 and the summed stats of every query at ef, on the fused beam. */
function run(index: TieredIndex, ef: number, open: Searcher | null = null): { recall: number; distances: number; skipped: number; lcBytes: number } {
  const s = open ?? new Searcher(index, {});
  let hits = 0;
  let distances = 0;
  let skipped = 0;
  let lcBytes = 0;
  try {
    for (let q = 0; q < nq; q++) {
      const r = s.search(queries.subarray(q * dim, (q + 1) * dim), 10, ef, 50, true);
      const want = new Set(Array.from(truth.ids.subarray(q * 10, q * 10 + 10)));
      for (const id of r.ids) if (want.has(index.labels[id]!)) hits++;
      distances += r.stats[STAT.distances]!;
      skipped += r.stats[STAT.listCodeSkipped]!;
      lcBytes += r.stats[STAT.listCodeBytes]!;
    }
  } finally {
    if (open === null) s.close();
  }
  return { recall: hits / (10 * nq), distances, skipped, lcBytes };
}

const plain = place(false);
const coded = place(true);

describe('list codes beside the neighbour lists', () => {
  it('lie in the CXL tier, one block of room a node, and are counted there', () => {
    const lc = coded.listCodes!;
    expect(lc).not.toBeNull();
    expect(lc.stride).toBe(listCodeStride(lc.subspaces, graph.maxM0));
    expect(lc.blocks.byteLength).toBe(graph.count * lc.stride);
    const { byKind } = coded.tierBytes();
    expect(byKind.listCodes).toEqual([0, graph.count * lc.stride]);
    expect(plain.tierBytes().byKind.listCodes).toEqual([0, 0]);
    // A CXL host binds the blocks with the tier's other ranges.
    expect(coded.fused).not.toBeNull();
    expect(coded.tiers[1]!.ranges.some((r) => r.buffer === lc.blocks.buffer && r.byteOffset === lc.blocks.byteOffset)).toBe(true);
    // Twice the estimate's error on unit vectors: well inside the distances' range of 2.
    expect(lc.margin).toBeGreaterThan(0);
    expect(lc.margin).toBeLessThan(0.5);
    // Blocks anywhere else are refused (the WASM beam reads the room, and the lanes' tables fit its
    // subspaces), as are list codes on an index that kept them no room.
    const refuse =
      (blocks: Uint8Array, stride = lc.stride) =>
      () =>
        coded.attachListCodes(new ListCodeStore(lc.book, stride, blocks, lc.margin));
    expect(refuse(new Uint8Array(lc.blocks.byteLength))).toThrow(/room the index kept/);
    expect(refuse(new Uint8Array(lc.blocks.buffer, lc.blocks.byteOffset - 64, lc.blocks.byteLength))).toThrow(/room the index kept/);
    expect(refuse(lc.blocks.subarray(0, lc.blocks.byteLength - lc.stride))).toThrow(/room the index kept/);
    expect(() => plain.attachListCodes(lc)).toThrow(/room the index kept/);
    coded.attachListCodes(lc);
  });

  it('reach a worker through share(): the adopted index leaves out the same neighbours', () => {
    const other = TieredIndex.adopt(coded.share());
    expect(other.listCodes?.margin).toBe(coded.listCodes!.margin);
    const a = run(coded, 48);
    const b = run(other, 48);
    expect(b).toEqual(a);
  });

  it('leave out most unvisited neighbours of a full beam at the recall of the beam without them', () => {
    for (const ef of [32, 64]) {
      const a = run(plain, ef);
      const b = run(coded, ef);
      expect(a.skipped).toBe(0);
      expect(b.skipped).toBeGreaterThan(0.3 * a.distances);
      expect(b.distances).toBeLessThan(0.7 * a.distances);
      expect(b.recall).toBeGreaterThanOrEqual(a.recall - 0.01);
      // Each hop of a full beam reads its list's block from the CXL tier.
      expect(b.lcBytes).toBeGreaterThan(0);
    }
  });

  it('lose recall without their margin: the margin is what keeps it, read afresh by an open searcher', () => {
    const lc = coded.listCodes!;
    // One searcher across the swap: its lane must take the store attached now, not the one it opened with.
    const s = new Searcher(coded, {});
    try {
      const withMargin = run(coded, 32, s);
      coded.attachListCodes(new ListCodeStore(lc.book, lc.stride, lc.blocks, 0));
      const without = run(coded, 32, s);
      expect(without.skipped).toBeGreaterThan(withMargin.skipped);
      expect(without.recall).toBeLessThan(withMargin.recall - 0.01);
    } finally {
      coded.attachListCodes(lc);
      s.close();
    }
  });

  it('are refused by the index writer, which has no format for them yet', () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-lc-'));
    try {
      const info: ManifestInfo = {
        name: 'lc',
        build: { source: null, m: 12, efConstruction: 80, seed: 6, seconds: 0, builder: 'test' },
        placement: { policy: 'hops', profileQueries: 0, predictedDramShare: null },
        plan: { dramBudgetBytes: 0, fullPrecisionBytes: graphFullPrecisionBytes(graph), reason: 'test' },
        graph: { unreachable: 0 },
      };
      expect(() => writeIndex(coded, join(dir, 'idx'), info)).toThrow(/list codes/);
      expect(() => writeIndex(plain, join(dir, 'idx'), info)).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
