// Geometry for the geo conditions, with Qdrant's rules: distances are haversine on a sphere of the
// mean Earth radius (the one Qdrant's geo library uses), a radius and a bounding box exclude their
// edge, a box whose left edge lies east of its right edge crosses the antimeridian, and a polygon
// holds the points strictly inside its exterior ring and outside every hole (a point on any ring is
// outside, as Qdrant's `contains` has it, though its docs say the boundary counts).
import type { GeoPoint, GeoRing } from './ast.js';

/** Mean Earth radius in metres (IUGG), as in Qdrant's haversine. */
export const EARTH_RADIUS_M = 6_371_008.8;

const RAD = Math.PI / 180;

/** Great-circle distance in metres. */
export function haversineMetres(a: GeoPoint, b: GeoPoint): number {
  const dLat = (b.lat - a.lat) * RAD;
  const dLon = (b.lon - a.lon) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * RAD) * Math.cos(b.lat * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function inBoundingBox(p: GeoPoint, topLeft: GeoPoint, bottomRight: GeoPoint): boolean {
  const lonInside = topLeft.lon > bottomRight.lon ? p.lon > topLeft.lon || p.lon < bottomRight.lon : topLeft.lon < p.lon && p.lon < bottomRight.lon;
  return lonInside && bottomRight.lat < p.lat && p.lat < topLeft.lat;
}

/** Whether p lies on the segment a–b (exactly: the coordinates are the request's own numbers). */
function onSegment(p: GeoPoint, a: GeoPoint, b: GeoPoint): boolean {
  const cross = (b.lon - a.lon) * (p.lat - a.lat) - (b.lat - a.lat) * (p.lon - a.lon);
  if (cross !== 0) return false;
  return Math.min(a.lon, b.lon) <= p.lon && p.lon <= Math.max(a.lon, b.lon) && Math.min(a.lat, b.lat) <= p.lat && p.lat <= Math.max(a.lat, b.lat);
}

/** Where p lies against a closed ring: 'in', 'out' or 'edge' (ray casting, planar lon/lat). */
export function ringPosition(p: GeoPoint, ring: GeoRing): 'in' | 'out' | 'edge' {
  const pts = ring.points;
  let inside = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const a = pts[i]!;
    const b = pts[j]!;
    if (onSegment(p, a, b)) return 'edge';
    if (a.lat > p.lat !== b.lat > p.lat && p.lon < ((b.lon - a.lon) * (p.lat - a.lat)) / (b.lat - a.lat) + a.lon) inside = !inside;
  }
  return inside ? 'in' : 'out';
}

export function inPolygon(p: GeoPoint, exterior: GeoRing, interiors: readonly GeoRing[]): boolean {
  if (ringPosition(p, exterior) !== 'in') return false;
  for (const hole of interiors) if (ringPosition(p, hole) !== 'out') return false;
  return true;
}
