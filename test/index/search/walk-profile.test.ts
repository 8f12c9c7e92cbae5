// The filtered walk's measured cost (index/search/walk-profile.ts): the same index and seed measure
// the same walk; a walk finds ef matches with more distances the fewer there are, and more at a
// wider beam; the planner's reading of it meets the measured points, grows with ef as the two beams
// measured (√ef below the narrower, or without the wider) and goes on past the ends.
import { describe, expect, it } from 'vitest';
import { generateClustered } from '../../../datasets/index.js';
import { buildGraph } from '../../../index/build/hnsw-build.js';
import { graphFullPrecisionBytes, placeAndLayout } from '../../../index/build/place-and-layout.js';
import { profileWalks, WALK_PROFILE, walkDistances } from '../../../index/search/walk-profile.js';

const dim = 16;
const set = generateClustered({ count: 3000, dim, clusters: 12, seed: 8 }, 40);
const graph = buildGraph(set.base, dim, { metric: 'l2', m: 8, efConstruction: 60, seed: 3 });
const index = placeAndLayout(graph, 'l2', null, { budgetBytes: Math.floor(graphFullPrecisionBytes(graph) * 0.3), policy: 'hops', codes: 'sq8', seed: 2 }).index;

describe('walk profile', () => {
  it('measures the same walk for the same index and seed, dearer as matches thin out', () => {
    const a = profileWalks(index, set.queries, 5)!;
    const b = profileWalks(index, set.queries, 5)!;
    expect(a).toEqual(b);
    expect(a.ef).toBe(WALK_PROFILE.ef);
    expect(a.selectivities).toEqual([...WALK_PROFILE.selectivities]);
    expect(a.wide?.ef).toBe(WALK_PROFILE.wideEf);
    // Never fewer at the wider beam; more where the matches outnumber it (here 60 at 2%: both exhaust them).
    a.distances.forEach((d, i) => expect(a.wide!.distances[i]!).toBeGreaterThanOrEqual(d));
    expect(a.wide!.distances[0]!).toBeGreaterThan(a.distances[0]!);
    // 2% of the points takes a walk several times longer than half of them.
    expect(a.distances[a.distances.length - 1]!).toBeGreaterThan(2 * a.distances[0]!);
    for (const d of a.distances) expect(d).toBeGreaterThan(0);
  });

  it('is left out for an index too small to need it', () => {
    const small = buildGraph(set.base.subarray(0, 500 * dim), dim, { metric: 'l2', m: 8, efConstruction: 40, seed: 3 });
    const placed = placeAndLayout(small, 'l2', null, { budgetBytes: 1 << 24, policy: 'hops', codes: 'none', seed: 2 }).index;
    expect(profileWalks(placed, set.queries, 5)).toBeNull();
  });

  it('reads the measured points back, scales them by √ef, and extends the end segments', () => {
    const p = { ef: 64, selectivities: [0.5, 0.2, 0.1, 0.05, 0.02], distances: [1000, 2000, 4000, 8000, 20000] };
    p.selectivities.forEach((s, i) => expect(walkDistances(p, s, 64)).toBeCloseTo(p.distances[i]!, 6));
    expect(walkDistances(p, 0.1, 256)).toBeCloseTo(8000, 6);
    // Between two points on log-log axes: 0.1 and 0.05 double the distances, so √2 at their geometric mean.
    expect(walkDistances(p, Math.sqrt(0.1 * 0.05), 64)).toBeCloseTo(4000 * Math.SQRT2, 6);
    // Past the ends along the end segments: fewer matches cost more, more cost less.
    expect(walkDistances(p, 0.01, 64)).toBeGreaterThan(20000);
    expect(walkDistances(p, 0.9, 64)).toBeLessThan(1000);
  });

  it('grows a walk with ef as its two beams measured at that share, and as √ef below the narrower', () => {
    const base = { ef: 64, selectivities: [0.5, 0.1], distances: [1000, 4000] };
    // Measured at 256 (four times 64): half the points grow as √ef, a tenth in proportion to ef.
    const p = { ...base, wide: { ef: 256, distances: [2000, 16000] } };
    expect(walkDistances(p, 0.5, 256)).toBeCloseTo(2000, 6);
    expect(walkDistances(p, 0.1, 256)).toBeCloseTo(16000, 6);
    expect(walkDistances(p, 0.1, 128)).toBeCloseTo(8000, 6);
    expect(walkDistances(p, 0.5, 128)).toBeCloseTo(1000 * Math.SQRT2, 6);
    // Between the shares, the growth of the interpolated points: √(0.5 · 0.1) grows as ef^0.75.
    const mid = Math.sqrt(0.5 * 0.1);
    expect(walkDistances(p, mid, 256)).toBeCloseTo(walkDistances(p, mid, 64) * 4 ** 0.75, 6);
    // Below the narrower beam, √ef whatever the wider measured; so too without a wider beam.
    expect(walkDistances(p, 0.1, 16)).toBeCloseTo(2000, 6);
    expect(walkDistances(base, 0.1, 256)).toBeCloseTo(8000, 6);
    // Growth is held within [0, 1]: a wider beam is never cheaper, nor dearer than in proportion.
    const odd = { ...base, wide: { ef: 256, distances: [500, 64000] } };
    expect(walkDistances(odd, 0.5, 256)).toBeCloseTo(1000, 6);
    expect(walkDistances(odd, 0.1, 256)).toBeCloseTo(16000, 6);
  });
});
