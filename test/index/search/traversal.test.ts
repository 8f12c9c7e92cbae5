// The answer's order (sortByDistanceThenLabel in traversal.ts): by distance, ties by external label,
// and with k below the pool's size the best k come first, in that order, the pool kept whole. The
// re-rank's pool from a walk's matches (nearestFirst): their r nearest, ascending.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { MaxHeap } from '../../../index/search/heaps.js';
import { nearestFirst, sortByDistanceThenLabel } from '../../../index/search/traversal.js';

describe('sortByDistanceThenLabel', () => {
  it('puts the best k first in (distance, label) order, for every k, on pools full of ties', () => {
    const rnd = mulberry32(17);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(rnd() * 40);
      const labels = Float64Array.from({ length: n }, (_, i) => (i * 7919) % 1009);
      const ids = Int32Array.from({ length: n }, (_, i) => i);
      // Few distinct distances: many exact ties, broken by label.
      const d = Float64Array.from({ length: n }, () => Math.floor(rnd() * 6));
      const want = Array.from(ids).sort((a, b) => d[a]! - d[b]! || labels[a]! - labels[b]!);
      const dist = new Map(Array.from(ids, (id) => [id, d[id]!]));
      const k = 1 + Math.floor(rnd() * n);
      const gotIds = ids.slice();
      const gotD = d.slice();
      sortByDistanceThenLabel(gotIds, gotD, n, labels, k);
      expect(Array.from(gotIds.subarray(0, k))).toEqual(want.slice(0, k));
      // Still a permutation of the pool, each id with its own distance.
      expect(Array.from(gotIds).sort((a, b) => a - b)).toEqual(Array.from(ids));
      for (let j = 0; j < n; j++) expect(gotD[j]).toBe(dist.get(gotIds[j]!));
    }
  });
});

describe('nearestFirst', () => {
  it("takes a matches heap's r nearest, ascending, as popping it whole would, on heaps full of ties", () => {
    const rnd = mulberry32(29);
    for (let trial = 0; trial < 300; trial++) {
      const n = 2 + Math.floor(rnd() * 300);
      const heap = new MaxHeap(n + 1);
      // Few distinct distances in some trials (exact ties across the cut), all distinct in others.
      const spread = trial % 2 === 0 ? 7 : 1e6;
      for (let id = 0; id < n; id++) heap.push(Math.floor(rnd() * spread), id);
      const r = 1 + Math.floor(rnd() * (n - 1));
      const entries = Array.from({ length: n }, (_, j) => [heap.d[j]!, heap.i[j]!] as const);
      const ids = new Int32Array(n);
      const d = new Float64Array(n);
      nearestFirst(heap, r, ids, d, new Float64Array(n));
      const want = entries.map(([dist]) => dist).sort((a, b) => a - b);
      expect(Array.from(d.subarray(0, r))).toEqual(want.slice(0, r));
      // Every id placed once, with its own distance.
      const of = new Map(entries.map(([dist, id]) => [id, dist]));
      expect(new Set(ids.subarray(0, r)).size).toBe(r);
      for (let j = 0; j < r; j++) expect(of.get(ids[j]!)).toBe(d[j]);
    }
  });
});
