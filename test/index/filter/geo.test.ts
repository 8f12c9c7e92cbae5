// Geometry with Qdrant's rules: haversine metres, open radius and box, antimeridian boxes, polygons
// with holes whose rings are outside.
import { describe, expect, it } from 'vitest';
import { haversineMetres, inBoundingBox, inPolygon, ringPosition } from '../../../index/filter/geo.js';

const ring = (pts: [number, number][]) => ({ points: pts.map(([lon, lat]) => ({ lon, lat })) });

describe('geo', () => {
  it('measures one degree of latitude as a 360th of the mean great circle', () => {
    const d = haversineMetres({ lon: 0, lat: 0 }, { lon: 0, lat: 1 });
    expect(d).toBeCloseTo((2 * Math.PI * 6_371_008.8) / 360, 6);
    expect(haversineMetres({ lon: 13.4, lat: 52.5 }, { lon: 13.4, lat: 52.5 })).toBe(0);
  });

  it('keeps a box open and lets it cross the antimeridian', () => {
    const tl = { lon: 10, lat: 20 };
    const br = { lon: 20, lat: 10 };
    expect(inBoundingBox({ lon: 15, lat: 15 }, tl, br)).toBe(true);
    expect(inBoundingBox({ lon: 10, lat: 15 }, tl, br)).toBe(false);
    expect(inBoundingBox({ lon: 15, lat: 20 }, tl, br)).toBe(false);
    const across = [
      { lon: 170, lat: 10 },
      { lon: -170, lat: -10 },
    ] as const;
    expect(inBoundingBox({ lon: 179, lat: 0 }, ...across)).toBe(true);
    expect(inBoundingBox({ lon: -179, lat: 0 }, ...across)).toBe(true);
    expect(inBoundingBox({ lon: 0, lat: 0 }, ...across)).toBe(false);
  });

  it('puts a point strictly inside the exterior and outside the holes in the polygon, and none on a ring', () => {
    const outer = ring([
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
      [0, 0],
    ]);
    const hole = ring([
      [4, 4],
      [6, 4],
      [6, 6],
      [4, 6],
      [4, 4],
    ]);
    expect(inPolygon({ lon: 2, lat: 2 }, outer, [hole])).toBe(true);
    expect(inPolygon({ lon: 5, lat: 5 }, outer, [hole])).toBe(false);
    expect(inPolygon({ lon: 4, lat: 5 }, outer, [hole])).toBe(false);
    expect(inPolygon({ lon: 0, lat: 5 }, outer, [])).toBe(false);
    expect(inPolygon({ lon: 11, lat: 5 }, outer, [])).toBe(false);
    expect(ringPosition({ lon: 10, lat: 10 }, outer)).toBe('edge');
  });

  it('handles a concave ring', () => {
    const u = ring([
      [0, 0],
      [3, 0],
      [3, 3],
      [2, 3],
      [2, 1],
      [1, 1],
      [1, 3],
      [0, 3],
      [0, 0],
    ]);
    expect(ringPosition({ lon: 1.5, lat: 2 }, u)).toBe('out');
    expect(ringPosition({ lon: 0.5, lat: 2 }, u)).toBe('in');
    expect(ringPosition({ lon: 2.5, lat: 2.5 }, u)).toBe('in');
  });
});
