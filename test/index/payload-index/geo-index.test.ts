// The geo grid's candidates never miss a point: on dense random locations (poles and the
// antimeridian included) and small cells, every geo condition answers exactly what geo.ts decides.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GeoPoint } from '../../../index/filter/ast.js';
import { haversineMetres, inBoundingBox, inPolygon } from '../../../index/filter/geo.js';
import { parseKeyPath } from '../../../index/filter/key-path.js';
import { bitmapOf } from '../../../index/payload-index/bitmap.js';
import { GeoIndex } from '../../../index/payload-index/geo-index.js';

const key = parseKeyPath('loc', 'key');
const lon = fc.oneof(
  fc.double({ min: -180, max: 180, noNaN: true }),
  fc.double({ min: 175, max: 180, noNaN: true }),
  fc.double({ min: -180, max: -175, noNaN: true }),
);
const lat = fc.oneof(fc.double({ min: -90, max: 90, noNaN: true }), fc.double({ min: 85, max: 90, noNaN: true }));
const point: fc.Arbitrary<GeoPoint> = fc.record({ lon, lat });

function indexOf(points: readonly GeoPoint[]): { index: GeoIndex; all: ReturnType<typeof bitmapOf> } {
  const index = new GeoIndex(0.5);
  points.forEach((p, id) => index.add(id, [p]));
  return { index, all: bitmapOf(points.map((_, id) => id)) };
}

const ids = (points: readonly GeoPoint[], test: (p: GeoPoint) => boolean): number[] => points.flatMap((p, id) => (test(p) ? [id] : []));

describe('GeoIndex', () => {
  it('answers geo_radius exactly, across the antimeridian and around the poles', () => {
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 200 }), point, fc.integer({ min: 0, max: 2_000_000 }), (points, center, radius) => {
        const { index, all } = indexOf(points);
        const got = index.filter({ kind: 'geo_radius', key, center, radius }, { all });
        expect(got?.toArray()).toEqual(ids(points, (p) => haversineMetres(center, p) < radius));
      }),
      { numRuns: 200 },
    );
  });

  it('answers geo_bounding_box exactly, a box crossing the antimeridian included', () => {
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 200 }), point, point, (points, a, b) => {
        const { index, all } = indexOf(points);
        const top_left = { lon: a.lon, lat: Math.max(a.lat, b.lat) };
        const bottom_right = { lon: b.lon, lat: Math.min(a.lat, b.lat) };
        const got = index.filter({ kind: 'geo_bounding_box', key, top_left, bottom_right }, { all });
        expect(got?.toArray()).toEqual(ids(points, (p) => inBoundingBox(p, top_left, bottom_right)));
      }),
      { numRuns: 200 },
    );
  });

  it('answers geo_polygon exactly, holes excluded', () => {
    const square = (c: GeoPoint, h: number) => ({
      points: [
        { lon: c.lon - h, lat: c.lat - h },
        { lon: c.lon + h, lat: c.lat - h },
        { lon: c.lon + h, lat: c.lat + h },
        { lon: c.lon - h, lat: c.lat + h },
        { lon: c.lon - h, lat: c.lat - h },
      ],
    });
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 200 }), fc.double({ min: 1, max: 60, noNaN: true }), (points, h) => {
        const { index, all } = indexOf(points);
        const exterior = square({ lon: 0, lat: 0 }, h);
        const interiors = [square({ lon: 0, lat: 0 }, h / 3)];
        const got = index.filter({ kind: 'geo_polygon', key, exterior, interiors }, { all });
        expect(got?.toArray()).toEqual(ids(points, (p) => inPolygon(p, exterior, interiors)));
      }),
      { numRuns: 100 },
    );
  });

  it('keeps a point with several locations until it is removed', () => {
    const index = new GeoIndex(1);
    index.add(7, [
      [
        { lon: 10, lat: 10 },
        { lon: -100, lat: -40 },
      ],
    ]);
    const all = bitmapOf([7]);
    expect(index.filter({ kind: 'geo_radius', key, center: { lon: -100, lat: -40 }, radius: 10 }, { all })?.toArray()).toEqual([7]);
    index.remove(7);
    expect(index.filter({ kind: 'geo_radius', key, center: { lon: -100, lat: -40 }, radius: 10 }, { all })?.toArray()).toEqual([]);
    expect(index.pointsIndexed).toBe(0);
  });
});
