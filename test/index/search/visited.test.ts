import { describe, expect, it } from 'vitest';
import { DenseVisited, VisitedSet } from '../../../index/search/visited.js';

// Both sets answer the same sequence the same way: a node is new once per query, and a cleared set
// forgets everything, however many queries have run (generation wrap-around included).
describe.each([
  ['VisitedSet (hash, near-data)', () => new VisitedSet(16)],
  ['DenseVisited (tags, local)', () => new DenseVisited(5000)],
])('%s', (_name, make) => {
  it('reports a node new once per query, and forgets all on clear, across 70 000 queries', () => {
    const s = make();
    const seen = new Set<number>();
    let wrong = 0;
    let x = 12345;
    for (let q = 0; q < 70_000; q++) {
      s.clear();
      seen.clear();
      // Enough adds in some queries to make the hash set grow past its initial capacity.
      const adds = q % 997 === 0 ? 3000 : 6;
      for (let j = 0; j < adds; j++) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        const v = x % 5000;
        if (s.add(v) === seen.has(v)) wrong++;
        seen.add(v);
      }
      if (q % 9973 === 0) for (let v = 0; v < 5000; v++) if (s.has(v) !== seen.has(v)) wrong++;
    }
    expect(wrong).toBe(0);
  });
});
