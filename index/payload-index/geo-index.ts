// The `geo` index: a grid of lon/lat cells, each cell → bitmap of the points with a location in it.
// A geo condition takes the cells its bounding rectangle touches as candidates, then checks each
// candidate's own locations (kept here, not read from the payload) with geo.ts, so the answer is exact.
// Radius rectangles are spherical; box and polygon tests are planar on the raw numbers (as geo.ts is),
// so their rectangles are planar too. A stored location outside the lon/lat ranges sits in a cell that
// every radius query takes as a candidate, since haversine wraps it around.
import { GEO_CODEC, type ValueCodec } from './point-values.js';
import type { GeoPoint } from '../filter/ast.js';
import { EARTH_RADIUS_M, haversineMetres, inBoundingBox, inPolygon } from '../filter/geo.js';
import { type Bitmap, bitmapOf, emptyBitmap, orAll } from './bitmap.js';
import type { IndexableCondition, IndexContext } from './field-index.js';
import { FieldIndexBase } from './field-index-base.js';
import { Postings } from './postings.js';

/** A closed lon/lat rectangle; several of them make a query's candidate region. */
interface Rect {
  readonly latMin: number;
  readonly latMax: number;
  readonly lonMin: number;
  readonly lonMax: number;
}

const DEG = 180 / Math.PI;
/** Widening of a radius rectangle against rounding, in degrees. */
const SLACK_DEG = 1e-9;

function radiusRects(center: GeoPoint, radius: number): Rect[] {
  const dLat = (radius / EARTH_RADIUS_M) * DEG + SLACK_DEG;
  const latMin = center.lat - dLat;
  const latMax = center.lat + dLat;
  if (latMin <= -90 || latMax >= 90) return [{ latMin, latMax, lonMin: -Infinity, lonMax: Infinity }];
  const dLon = Math.asin(Math.min(1, Math.sin(dLat / DEG) / Math.cos(center.lat / DEG))) * DEG + SLACK_DEG;
  const lonMin = center.lon - dLon;
  const lonMax = center.lon + dLon;
  const rects: Rect[] = [{ latMin, latMax, lonMin, lonMax }];
  if (lonMin < -180) rects.push({ latMin, latMax, lonMin: lonMin + 360, lonMax: 180 });
  if (lonMax > 180) rects.push({ latMin, latMax, lonMin: -180, lonMax: lonMax - 360 });
  return rects;
}

function ringRect(points: readonly GeoPoint[]): Rect {
  const lats = points.map((p) => p.lat);
  const lons = points.map((p) => p.lon);
  return { latMin: Math.min(...lats), latMax: Math.max(...lats), lonMin: Math.min(...lons), lonMax: Math.max(...lons) };
}

export class GeoIndex extends FieldIndexBase<GeoPoint> {
  readonly schema = 'geo';
  private readonly cells = new Postings<string>();

  /** @param cellDegrees the side of a grid cell, in degrees */
  constructor(private readonly cellDegrees = 1) {
    super();
  }

  private cellOf(p: GeoPoint): string {
    return `${Math.floor(p.lat / this.cellDegrees)},${Math.floor(p.lon / this.cellDegrees)}`;
  }

  protected codec(): ValueCodec<GeoPoint> {
    return GEO_CODEC;
  }

  protected read(e: unknown): GeoPoint | undefined {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) return undefined;
    const o = e as Readonly<Record<string, unknown>>;
    const lon = Object.hasOwn(o, 'lon') ? o.lon : undefined;
    const lat = Object.hasOwn(o, 'lat') ? o.lat : undefined;
    return typeof lon === 'number' && typeof lat === 'number' ? { lon, lat } : undefined;
  }

  protected insert(id: number, values: readonly GeoPoint[]): void {
    this.cells.add(
      id,
      values.map((p) => this.cellOf(p)),
    );
  }

  protected delete(id: number, values: readonly GeoPoint[]): void {
    this.cells.remove(
      id,
      values.map((p) => this.cellOf(p)),
    );
  }

  /** Points in a cell that touches a rectangle (`wrapped`: also every cell outside the lon/lat ranges). */
  private candidates(rects: readonly Rect[], wrapped: boolean): Bitmap {
    const c = this.cellDegrees;
    const hit: Bitmap[] = [];
    for (const [key, ids] of this.cells.entries()) {
      const [i, j] = key.split(',').map(Number) as [number, number];
      const [latMin, latMax, lonMin, lonMax] = [i * c, (i + 1) * c, j * c, (j + 1) * c];
      const outside = latMin < -90 || latMax > 90 || lonMin < -180 || lonMax > 180;
      if ((wrapped && outside) || rects.some((r) => latMin <= r.latMax && latMax >= r.latMin && lonMin <= r.lonMax && lonMax >= r.lonMin)) hit.push(ids);
    }
    return orAll(hit);
  }

  /** The candidates whose own locations pass `test`. */
  private check(candidates: Bitmap, test: (p: GeoPoint) => boolean): Bitmap {
    const out: number[] = [];
    for (const id of candidates) if (this.values.get(id)?.some(test)) out.push(id);
    return out.length === 0 ? emptyBitmap() : bitmapOf(out);
  }

  protected filterField(cond: IndexableCondition, _ctx: IndexContext): Bitmap | null {
    switch (cond.kind) {
      case 'geo_radius': {
        const { center, radius } = cond;
        return this.check(this.candidates(radiusRects(center, radius), true), (p) => haversineMetres(center, p) < radius);
      }
      case 'geo_bounding_box': {
        const { top_left: tl, bottom_right: br } = cond;
        const lat = { latMin: br.lat, latMax: tl.lat };
        const rects =
          tl.lon > br.lon
            ? [
                { ...lat, lonMin: tl.lon, lonMax: Infinity },
                { ...lat, lonMin: -Infinity, lonMax: br.lon },
              ]
            : [{ ...lat, lonMin: tl.lon, lonMax: br.lon }];
        return this.check(this.candidates(rects, false), (p) => inBoundingBox(p, tl, br));
      }
      case 'geo_polygon': {
        const { exterior } = cond;
        const interiors = cond.interiors ?? [];
        return this.check(this.candidates([ringRect(exterior.points)], false), (p) => inPolygon(p, exterior, interiors));
      }
      default:
        return null;
    }
  }

  protected fieldBytes(): number {
    return this.cells.bytes();
  }
}
