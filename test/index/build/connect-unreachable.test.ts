import { describe, expect, it } from 'vitest';
import { generateClustered } from '../../../datasets/index.js';
import { connectUnreachable } from '../../../index/build/connect-unreachable.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../../../index/build/place-and-layout.js';
import type { GraphImage } from '../../../index/graph/graph-image.js';
import { bfsFromEntry } from '../../../index/placement/bfs.js';
import { Searcher } from '../../../index/search/searcher.js';
import { handGraph, listOf } from '../../helpers/hand-graph.js';

const tinyGraph = (points: number[][], lists: number[][]): GraphImage => handGraph(points, lists, 3);
const degree = (g: GraphImage, u: number): number => g.level0[u * (1 + g.maxM0)]!;

describe('linking in the nodes the entry cannot reach', () => {
  it('links each unreachable group once, from the nearest reachable node with a free slot', () => {
    // 0 → 1 → 2 → 0 reachable; 0's list is full. Group {3, 4} points out (3 → 0, 4 → 1) but nothing
    // points in; 5 alone points to 2.
    const g = tinyGraph(
      [
        [0, 0],
        [10, 0],
        [10, 10],
        [1, 1],
        [2, 2],
        [9, 9],
      ],
      [[1, 2, 1], [2], [0], [4, 0], [3, 1], [2]],
    );
    const r = connectUnreachable(g, 'l2');
    expect(r).toEqual({ unreachableBefore: 3, linksAdded: 2, unreachableAfter: 0 });
    expect(bfsFromEntry(g).reachable).toBe(6);
    // 3's own reachable neighbour 0 is full: the scan finds 1 (squared distance 82, 2 is at 162);
    // 5's own neighbour 2 has room.
    expect(listOf(g, 1)).toEqual([2, 3]);
    expect(listOf(g, 2)).toEqual([0, 5]);
    for (let u = 0; u < g.count; u++) expect(degree(g, u)).toBeLessThanOrEqual(g.maxM0);
  });

  it('leaves a graph that reaches everything as it was', () => {
    const g = tinyGraph(
      [
        [0, 0],
        [1, 0],
      ],
      [[1], [0]],
    );
    const before = g.level0.slice();
    expect(connectUnreachable(g, 'l2')).toEqual({ unreachableBefore: 0, linksAdded: 0, unreachableAfter: 0 });
    expect(g.level0).toEqual(before);
  });

  it('says what stays unreachable when no reachable node has a free slot', () => {
    const g = tinyGraph(
      [
        [0, 0],
        [1, 0],
        [5, 5],
      ],
      [[1, 1, 1], [0, 0, 0], [0]],
    );
    expect(connectUnreachable(g, 'l2')).toEqual({ unreachableBefore: 1, linksAdded: 0, unreachableAfter: 1 });
  });

  it('makes a point whose in-links were all cut findable by its own vector again', () => {
    const dim = 8;
    const set = generateClustered({ count: 1500, dim, clusters: 6, seed: 3 }, 1);
    const g = buildGraph(set.base, dim, { metric: 'l2', m: 6, efConstruction: 40, seed: 100 });
    // Cut every level-0 link into one point (not the entry, not in an upper layer).
    let lost = -1;
    for (let u = 0; u < g.count && lost < 0; u++) if (u !== g.entry && g.levels[u] === 0) lost = u;
    const stride = 1 + g.maxM0;
    for (let u = 0; u < g.count; u++) {
      const kept = listOf(g, u).filter((v) => v !== lost);
      g.level0[u * stride] = kept.length;
      kept.forEach((v, j) => (g.level0[u * stride + 1 + j] = v));
    }
    const findsLost = (): boolean => {
      const placed = placeAndLayout(g, 'l2', null, { budgetBytes: graphFullPrecisionBytes(g), policy: 'hops', codes: 'none', seed: 1 });
      const s = new Searcher(placed.index);
      try {
        const row = g.rows[lost]!;
        const r = s.search(set.base.subarray(row * dim, (row + 1) * dim), 1, 64, 0);
        return placed.index.labels[r.ids[0]!] === row;
      } finally {
        s.close();
      }
    };
    expect(findsLost()).toBe(false);
    const r = connectUnreachable(g, 'l2');
    expect(r.unreachableBefore).toBeGreaterThanOrEqual(1);
    expect(r.unreachableAfter).toBe(0);
    expect(findsLost()).toBe(true);
  });
});
