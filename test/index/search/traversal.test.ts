// The answer's order (sortByDistanceThenLabel in traversal.ts): by distance, ties by external label,
// and with k below the pool's size the best k come first, in that order, the pool kept whole.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../common/random.js';
import { sortByDistanceThenLabel } from '../../../index/search/traversal.js';

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
