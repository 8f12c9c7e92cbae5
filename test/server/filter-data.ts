// A small hand-made collection with payloads of every kind a filter tests (keyword, integer, float,
// bool, text, datetime, geo, arrays, arrays of objects, null and empty values, nested objects), one
// filter per condition kind and clause, and the expected answers computed here: by brute force
// over the known payloads with the reference evaluator (index/filter/evaluate.ts), and for each
// case also by a predicate written by hand from the data, so that the two must agree before a
// server's answer is compared with them.
import type { QdrantClient } from '@qdrant/js-client-rest';
import { expect } from 'vitest';
import { compile } from '../../index/filter/evaluate.js';
import { parseFilter } from '../../index/filter/parse.js';
import { mulberry32 } from '../../common/random.js';

export const FILTER_DIM = 4;
export const POINTS = 48;

export type Payload = Record<string, unknown>;

export interface DataPoint {
  id: number;
  vector: number[];
  payload: Payload;
}

const CITIES = ['Berlin', 'London', 'Moscow', 'Paris', 'Tokyo'];
const DESCS = ['red fox jumps', 'lazy brown dog', 'quick red car', 'blue sky'];

/** The payload of point i (1-based): every field follows a rule of i, so a hand predicate can say who matches. */
export function payloadOf(i: number): Payload {
  const p: Payload = {
    city: CITIES[i % 5],
    price: Math.round(((i * 13.7) % 100) * 10) / 10,
    tags: ['a', 'b', 'c', 'd'].filter((_, j) => (i >> j) & 1),
    flag: i % 3 === 0,
    desc: DESCS[i % 4],
    created: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
    loc: { lon: 13 + (i % 8) * 0.5, lat: 52 + (i % 6) * 0.4 },
    items:
      i % 4 === 0
        ? []
        : [
            { name: 'x', qty: i % 5 },
            { name: i % 2 ? 'y' : 'z', qty: i % 3 },
          ],
    meta: { level: { n: i % 4 } },
  };
  if (i % 7 !== 0) p['count'] = i % 11;
  // maybe: null, [], [null], a value, or missing.
  if (i % 5 === 0) p['maybe'] = null;
  else if (i % 5 === 1) p['maybe'] = [];
  else if (i % 5 === 2) p['maybe'] = [null];
  else if (i % 5 === 3) p['maybe'] = 'v';
  return p;
}

export function dataPoints(): DataPoint[] {
  const rnd = mulberry32(33);
  return Array.from({ length: POINTS }, (_, k) => {
    const id = k + 1;
    return { id, vector: Array.from({ length: FILTER_DIM }, () => rnd() * 2 - 1), payload: payloadOf(id) };
  });
}

/** Haversine distance in metres (mean Earth radius), written here rather than taken from geo.ts. */
function metres(a: { lon: number; lat: number }, b: { lon: number; lat: number }): number {
  const r = (d: number): number => (d * Math.PI) / 180;
  const h = Math.sin(r(b.lat - a.lat) / 2) ** 2 + Math.cos(r(a.lat)) * Math.cos(r(b.lat)) * Math.sin(r(b.lon - a.lon) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

export interface FilterCase {
  /** The behaviour, for the test name. */
  name: string;
  filter: Record<string, unknown>;
  /** Who matches, written from payloadOf's rules. */
  hand: (i: number, p: Payload) => boolean;
}

const loc = (p: Payload): { lon: number; lat: number } => p['loc'] as { lon: number; lat: number };
const items = (p: Payload): Array<{ name: string; qty: number }> => p['items'] as Array<{ name: string; qty: number }>;
const day = (p: Payload): number => Date.parse(p['created'] as string);

export const FILTER_CASES: FilterCase[] = [
  { name: 'match value (keyword)', filter: { must: [{ key: 'city', match: { value: 'Berlin' } }] }, hand: (i) => i % 5 === 0 },
  { name: 'match value (integer)', filter: { must: [{ key: 'count', match: { value: 3 } }] }, hand: (i) => i % 7 !== 0 && i % 11 === 3 },
  { name: 'match value (bool)', filter: { must: [{ key: 'flag', match: { value: true } }] }, hand: (i) => i % 3 === 0 },
  { name: 'match value in an array', filter: { must: [{ key: 'tags', match: { value: 'c' } }] }, hand: (i) => ((i >> 2) & 1) === 1 },
  { name: 'match any', filter: { must: [{ key: 'city', match: { any: ['Paris', 'Tokyo'] } }] }, hand: (i) => i % 5 === 3 || i % 5 === 4 },
  { name: 'match except', filter: { must: [{ key: 'city', match: { except: ['Berlin', 'London'] } }] }, hand: (i) => i % 5 >= 2 },
  { name: 'match text', filter: { must: [{ key: 'desc', match: { text: 'red' } }] }, hand: (i) => i % 4 === 0 || i % 4 === 2 },
  {
    name: 'range (float)',
    filter: { must: [{ key: 'price', range: { gte: 20, lt: 60 } }] },
    hand: (_, p) => (p['price'] as number) >= 20 && (p['price'] as number) < 60,
  },
  {
    name: 'range (integer, open below)',
    filter: { must: [{ key: 'count', range: { lte: 2 } }] },
    hand: (i) => i % 7 !== 0 && i % 11 <= 2,
  },
  {
    name: 'datetime range',
    filter: { must: [{ key: 'created', range: { gte: '2024-01-10T00:00:00Z', lt: '2024-01-20' } }] },
    hand: (_, p) => day(p) >= Date.UTC(2024, 0, 10) && day(p) < Date.UTC(2024, 0, 20),
  },
  {
    name: 'geo radius',
    filter: { must: [{ key: 'loc', geo_radius: { center: { lon: 14, lat: 53 }, radius: 60_000 } }] },
    hand: (_, p) => metres(loc(p), { lon: 14, lat: 53 }) < 60_000,
  },
  {
    name: 'geo bounding box',
    filter: { must: [{ key: 'loc', geo_bounding_box: { top_left: { lon: 13.2, lat: 53.5 }, bottom_right: { lon: 15.2, lat: 52.3 } } }] },
    hand: (_, p) => loc(p).lon > 13.2 && loc(p).lon < 15.2 && loc(p).lat > 52.3 && loc(p).lat < 53.5,
  },
  {
    name: 'geo polygon with a hole',
    filter: {
      must: [
        {
          key: 'loc',
          geo_polygon: {
            exterior: {
              points: [
                { lon: 12.9, lat: 51.9 },
                { lon: 16.7, lat: 51.9 },
                { lon: 16.7, lat: 54.1 },
                { lon: 12.9, lat: 54.1 },
                { lon: 12.9, lat: 51.9 },
              ],
            },
            interiors: [
              {
                points: [
                  { lon: 13.9, lat: 52.7 },
                  { lon: 15.1, lat: 52.7 },
                  { lon: 15.1, lat: 53.3 },
                  { lon: 13.9, lat: 53.3 },
                  { lon: 13.9, lat: 52.7 },
                ],
              },
            ],
          },
        },
      ],
    },
    hand: (_, p) => !(loc(p).lon > 13.9 && loc(p).lon < 15.1 && loc(p).lat > 52.7 && loc(p).lat < 53.3),
  },
  { name: 'values_count', filter: { must: [{ key: 'tags', values_count: { gte: 2 } }] }, hand: (_, p) => (p['tags'] as string[]).length >= 2 },
  { name: 'is_empty', filter: { must: [{ is_empty: { key: 'maybe' } }] }, hand: (i) => i % 5 === 0 || i % 5 === 1 || i % 5 === 4 },
  { name: 'is_null', filter: { must: [{ is_null: { key: 'maybe' } }] }, hand: (i) => i % 5 === 0 },
  { name: 'has_id', filter: { must: [{ has_id: [1, 5, 9, 200] }] }, hand: (i) => i === 1 || i === 5 || i === 9 },
  {
    name: 'nested (both conditions on one array element)',
    filter: {
      must: [
        {
          nested: {
            key: 'items',
            filter: {
              must: [
                { key: 'name', match: { value: 'y' } },
                { key: 'qty', range: { gte: 1 } },
              ],
            },
          },
        },
      ],
    },
    hand: (_, p) => items(p).some((e) => e.name === 'y' && e.qty >= 1),
  },
  { name: 'key path into objects', filter: { must: [{ key: 'meta.level.n', match: { value: 2 } }] }, hand: (i) => i % 4 === 2 },
  { name: 'key path through an array', filter: { must: [{ key: 'items[].qty', range: { gte: 4 } }] }, hand: (_, p) => items(p).some((e) => e.qty >= 4) },
  {
    name: 'should',
    filter: {
      should: [
        { key: 'city', match: { value: 'Berlin' } },
        { key: 'flag', match: { value: true } },
      ],
    },
    hand: (i) => i % 5 === 0 || i % 3 === 0,
  },
  { name: 'must_not', filter: { must_not: [{ key: 'city', match: { value: 'Berlin' } }] }, hand: (i) => i % 5 !== 0 },
  {
    name: 'min_should',
    filter: {
      min_should: {
        conditions: [
          { key: 'flag', match: { value: true } },
          { key: 'tags', match: { value: 'a' } },
          { key: 'desc', match: { text: 'sky' } },
        ],
        min_count: 2,
      },
    },
    hand: (i) => [i % 3 === 0, (i & 1) === 1, i % 4 === 3].filter(Boolean).length >= 2,
  },
  {
    name: 'nested filters (a filter as a condition) with must, should and must_not',
    filter: {
      must: [
        {
          should: [
            { key: 'city', match: { value: 'Paris' } },
            { key: 'city', match: { value: 'Tokyo' } },
          ],
        },
        { must_not: [{ key: 'tags', match: { value: 'a' } }] },
      ],
      must_not: [{ has_id: [8] }],
    },
    hand: (i) => (i % 5 === 3 || i % 5 === 4) && (i & 1) === 0 && i !== 8,
  },
  { name: 'an empty should matches nothing', filter: { should: [] }, hand: () => false },
  { name: 'an empty filter matches every point', filter: {}, hand: () => true },
];

/** The ids a filter matches, by the reference evaluator over the known payloads. */
export function evaluatorIds(points: readonly DataPoint[], filter: unknown, payloads: ReadonlyMap<number, Payload> | null = null): number[] {
  const test = compile(parseFilter(filter));
  return points.filter((p) => test({ id: p.id, payload: payloads ? (payloads.get(p.id) ?? null) : p.payload })).map((p) => p.id);
}

/** The ids a case matches, by its hand predicate. */
export function handIds(points: readonly DataPoint[], c: FilterCase): number[] {
  return points.filter((p) => c.hand(p.id, p.payload)).map((p) => p.id);
}

/** Squared L2 distance: the order of Euclid scores. */
export function l2(a: readonly number[], b: readonly number[]): number {
  return a.reduce((s, x, i) => s + (x - b[i]!) ** 2, 0);
}

/** The k nearest of `ids` to q (ties to the lower id). */
export function nearest(points: readonly DataPoint[], ids: readonly number[], q: readonly number[], k: number): number[] {
  const byId = new Map(points.map((p) => [p.id, p]));
  return [...ids]
    .map((id) => ({ id, d: l2(byId.get(id)!.vector, q) }))
    .sort((a, b) => a.d - b.d || a.id - b.id)
    .slice(0, k)
    .map((x) => x.id);
}

/** Every case through count, scroll (one page) and an exact search of k, against its hand-written answer. */
export async function expectEveryCase(client: QdrantClient, name: string, points: readonly DataPoint[], query: readonly number[], k: number): Promise<void> {
  for (const c of FILTER_CASES) {
    const want = handIds(points, c);
    expect((await client.count(name, { filter: c.filter })).count, c.name).toBe(want.length);
    const page = await client.scroll(name, { filter: c.filter, limit: 100, with_payload: false });
    expect(
      page.points.map((p) => Number(p.id)),
      c.name,
    ).toEqual(want);
    const hits = await client.search(name, { vector: [...query], limit: k, filter: c.filter, params: { exact: true } });
    expect(
      hits.map((h) => Number(h.id)),
      c.name,
    ).toEqual(nearest(points, want, query, k));
  }
}
