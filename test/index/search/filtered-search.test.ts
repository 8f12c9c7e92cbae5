import { describe, expect, it } from 'vitest';
import { generateClustered } from '../../../datasets/index.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, graphUpperBytes, placeAndLayout } from '../../../index/build/place-and-layout.js';
import type { CodeKind } from '../../../index/codes/index.js';
import { FILTER_PLAN } from '../../../index/search/query-state.js';
import { type NodeFilter, Searcher } from '../../../index/search/searcher.js';
import { STAT } from '../../../index/search/stats.js';
import type { TieredIndex } from '../../../index/tiered/tiered-index.js';
import { handGraph } from '../../helpers/hand-graph.js';

const dim = 24;
const count = 4000;
const set = generateClustered({ count, dim, clusters: 16, seed: 5 }, 40);
const graph = buildGraph(set.base, dim, { metric: 'l2', m: 10, efConstruction: 80, seed: 3 });
/** Each row's cluster, as the generator drew it: the nearest of the points' mean per label is not needed, the row's block is. */
const cluster = (row: number): number => {
  // Rows nearest one another share a cluster: label by the nearest of 16 reference rows.
  let best = 0;
  let bd = Number.POSITIVE_INFINITY;
  for (let c = 0; c < 16; c++) {
    let d = 0;
    for (let j = 0; j < dim; j++) d += (set.base[row * dim + j]! - set.base[c * 250 * dim + j]!) ** 2;
    if (d < bd) {
      bd = d;
      best = c;
    }
  }
  return best;
};
const clusterOf = Int32Array.from({ length: count }, (_, r) => cluster(r));

function place(codes: CodeKind | 'none'): TieredIndex {
  return placeAndLayout(graph, 'l2', null, {
    budgetBytes: Math.max(graphUpperBytes(graph), Math.floor(graphFullPrecisionBytes(graph) * 0.35)),
    policy: 'hops',
    codes,
    seed: 9,
  }).index;
}

/** A bitset over the index's nodes of the rows `keep` selects. */
function bitsOver(index: TieredIndex, keep: (row: number) => boolean): { bits: Uint32Array; matched: number } {
  const bits = new Uint32Array(Math.ceil(index.meta.count / 32));
  let matched = 0;
  for (let node = 0; node < index.meta.count; node++) {
    if (!keep(index.labels[node]!)) continue;
    bits[node >>> 5]! |= 1 << (node & 31);
    matched++;
  }
  return { bits, matched };
}

/** The k nearest rows among those `keep` selects, by brute force over the raw vectors. */
function truth(q: Float32Array, k: number, keep: (row: number) => boolean): number[] {
  const all: Array<[number, number]> = [];
  for (let r = 0; r < count; r++) {
    if (!keep(r)) continue;
    let d = 0;
    for (let j = 0; j < dim; j++) d += (q[j]! - set.base[r * dim + j]!) ** 2;
    all.push([d, r]);
  }
  all.sort((a, b) => a[0] - b[0]);
  return all.slice(0, k).map(([, r]) => r);
}

const filters: Array<{ name: string; keep: (row: number) => boolean }> = [
  { name: '50% (every other row)', keep: (r) => r % 2 === 0 },
  { name: '10% (a hash of the row)', keep: (r) => (r * 2654435761) % 10 === 3 },
  { name: '1% (a hash of the row)', keep: (r) => (r * 2654435761) % 100 === 7 },
  { name: 'one cluster (correlated or not with the query)', keep: (r) => clusterOf[r] === 3 },
  { name: 'seven rows', keep: (r) => r % 571 === 0 },
];

describe('filtered search on the tiered index', () => {
  for (const codes of ['none', 'sq8'] as const) {
    const index = place(codes);
    const searcher = new Searcher(index);
    for (const f of filters) {
      for (const plan of [FILTER_PLAN.GRAPH, FILTER_PLAN.SCAN]) {
        it(`${codes} codes, ${plan === FILTER_PLAN.GRAPH ? 'graph walk' : 'scan'}, ${f.name}: answers only matches, never fewer than k of them, recall ≥ 0.95`, () => {
          const { bits, matched } = bitsOver(index, f.keep);
          const filter: NodeFilter = { bits, matched, plan };
          const k = 10;
          let hit = 0;
          let want = 0;
          for (let qi = 0; qi < 40; qi++) {
            const q = set.queries.subarray(qi * dim, (qi + 1) * dim);
            const r = searcher.search(q, k, 64, 40, true, filter);
            const rows = Array.from(r.ids, (n) => index.labels[n]!);
            for (const row of rows) expect(f.keep(row)).toBe(true);
            expect(rows.length).toBe(Math.min(k, matched));
            const t = truth(q, k, f.keep);
            want += t.length;
            hit += t.filter((row) => rows.includes(row)).length;
          }
          expect(hit / want).toBeGreaterThanOrEqual(0.95);
        });
      }
    }
    it(`${codes} codes: the scan reads no neighbour list and scores exactly the matching nodes`, () => {
      const { bits, matched } = bitsOver(index, filters[2]!.keep);
      const r = searcher.search(set.queries.subarray(0, dim), 10, 64, 40, true, { bits, matched, plan: FILTER_PLAN.SCAN });
      expect(r.stats[STAT.adjReadsDram]! + r.stats[STAT.adjReadsCxl]!).toBe(0);
      expect(r.stats[STAT.scanned]).toBe(matched);
    });
    it(`${codes} codes: exact search with a filter equals brute force over the matches`, () => {
      const keep = filters[1]!.keep;
      const { bits, matched } = bitsOver(index, keep);
      const q = set.queries.subarray(dim, 2 * dim);
      const r = searcher.exact(q, 10, { bits, matched, plan: FILTER_PLAN.SCAN });
      expect(Array.from(r.ids, (n) => index.labels[n]!)).toEqual(truth(q, 10, keep));
    });
  }
  it('a graph walk that cannot reach the matches (another component) finishes as a scan: k answers, the exact ones', () => {
    // Rows 0-9 and 10-19 are two chains with no link between them; the entry is row 0.
    const points = Array.from({ length: 20 }, (_, r) => [r, r % 3, 0, 0]);
    const lists = points.map((_, r) => (r < 10 ? [r - 1, r + 1].filter((x) => x >= 0 && x < 10) : [r - 1, r + 1].filter((x) => x >= 10 && x < 20)));
    const hand = placeAndLayout(handGraph(points, lists, 4), 'l2', null, { budgetBytes: 1 << 20, policy: 'hops', codes: 'none', seed: 1 }).index;
    const keep = (row: number) => row >= 10;
    const { bits, matched } = bitsOver(hand, keep);
    const s = new Searcher(hand, { fused: false });
    const q = Float32Array.of(12.2, 0, 0, 0);
    const r = s.search(q, 5, 8, 0, true, { bits, matched, plan: FILTER_PLAN.GRAPH });
    expect(r.stats[STAT.scanFallbacks]).toBe(1);
    expect(Array.from(r.ids, (n) => hand.labels[n]!).sort((a, b) => a - b)).toEqual([10, 11, 12, 13, 14]);
  });
});
