// order_by (scroll and the query API) through the official REST and gRPC clients against a real
// `strata serve --data-dir`: points in the order of a payload key's integer, float or datetime index,
// ascending or descending, from start_from, filtered, each point once (a multi-valued key at its
// first value met), ties by id, with order_value; refused without such an index, and with an offset.
import { type QdrantClient as GrpcClient, Direction } from '@qdrant/js-client-grpc';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type QdrantServed, serveForQdrantClients } from './qdrant-served.js';
import type { ServeChild } from './serve-child.js';

const NAME = 'ordered';
let served: QdrantServed;
let s: ServeChild;
let client: QdrantClient;
let grpc: GrpcClient;

interface Row {
  id: number;
  price: number;
  rating: number;
  sizes: number[];
  at: string;
  color: string;
}
/** 60 points: prices with ties (id % 13), ratings as floats, two sizes each, a timestamp a day apart (shuffled). */
const rows: Row[] = Array.from({ length: 60 }, (_, id) => ({
  id,
  price: (id * 7) % 13,
  rating: ((id * 37) % 60) / 7,
  sizes: [(id * 5) % 17, 20 + ((id * 3) % 11)],
  at: new Date(Date.UTC(2026, 0, 1 + ((id * 11) % 60))).toISOString(),
  color: id % 2 === 0 ? 'red' : 'blue',
}));

/** The oracle: each point at its first value met in the direction (ties by id), from `start`. */
function ordered(values: (r: Row) => number[], desc: boolean, start?: number, keep: (r: Row) => boolean = () => true): Array<{ id: number; value: number }> {
  const pairs = rows.flatMap((r) => values(r).map((v) => ({ id: r.id, value: v })));
  const inRange = pairs.filter((p) => start === undefined || (desc ? p.value <= start : p.value >= start));
  inRange.sort((a, b) => (desc ? b.value - a.value : a.value - b.value) || a.id - b.id);
  const seen = new Set<number>();
  return inRange.filter((p) => !seen.has(p.id) && seen.add(p.id) && keep(rows[p.id]!));
}

beforeAll(async () => {
  served = await serveForQdrantClients('strata-order-by-');
  ({ s, rest: client, grpc } = served);
  await client.createCollection(NAME, { vectors: { size: 2, distance: 'Euclid' } });
  await client.upsert(NAME, { wait: true, points: rows.map(({ id, ...payload }) => ({ id, vector: [id, 1], payload })) });
  for (const [field_name, field_schema] of [
    ['price', 'integer'],
    ['rating', 'float'],
    ['sizes', 'integer'],
    ['at', 'datetime'],
    ['color', 'keyword'],
  ] as const)
    await client.createPayloadIndex(NAME, { field_name, field_schema, wait: true });
}, 60_000);

afterAll(async () => {
  await served?.close();
});

const page = (r: { points: Array<{ id: string | number; order_value?: unknown }> }) => r.points.map((p) => ({ id: Number(p.id), value: p.order_value }));

describe('order_by', () => {
  it('scrolls in the order of an integer or float index, both directions, from start_from, with order_value', async () => {
    const asc = await client.scroll(NAME, { order_by: 'price', limit: 15, with_payload: false });
    expect(page(asc)).toEqual(ordered((r) => [r.price], false).slice(0, 15));
    expect(asc.next_page_offset ?? null).toBeNull();
    const desc = await client.scroll(NAME, { order_by: { key: 'rating', direction: 'desc', start_from: 5 }, limit: 10 });
    expect(page(desc).map((p) => p.id)).toEqual(
      ordered((r) => [r.rating], true, 5)
        .slice(0, 10)
        .map((p) => p.id),
    );
    for (const [i, p] of page(desc).entries()) expect(p.value).toBeCloseTo(ordered((r) => [r.rating], true, 5)[i]!.value, 10);
  });

  it('takes each point once, at its first value met, and keeps to the filter', async () => {
    const r = await client.scroll(NAME, {
      order_by: { key: 'sizes', direction: 'desc' },
      limit: 25,
      filter: { must: [{ key: 'color', match: { value: 'red' } }] },
    });
    expect(page(r)).toEqual(
      ordered(
        (x) => x.sizes,
        true,
        undefined,
        (x) => x.color === 'red',
      ).slice(0, 25),
    );
    expect(new Set(page(r).map((p) => p.id)).size).toBe(25);
  });

  it('orders by a datetime index, from an RFC 3339 start', async () => {
    const start = '2026-02-01T00:00:00Z';
    const r = await client.scroll(NAME, { order_by: { key: 'at', direction: 'desc', start_from: start }, limit: 8 });
    const want = ordered((x) => [Date.parse(x.at) * 1000], true, Date.parse(start) * 1000).slice(0, 8);
    expect(page(r)).toEqual(want);
  });

  it('answers the query API by order_by with score 0 and order_value', async () => {
    const r = await client.query(NAME, {
      query: { order_by: { key: 'price', direction: 'desc', start_from: 9 } },
      limit: 7,
      filter: { must: [{ key: 'color', match: { value: 'blue' } }] },
    });
    expect(page(r)).toEqual(
      ordered(
        (x) => [x.price],
        true,
        9,
        (x) => x.color === 'blue',
      ).slice(0, 7),
    );
    expect(r.points.every((p) => p.score === 0)).toBe(true);
  });

  it('answers over gRPC as over REST', async () => {
    const orderBy = { key: 'price', direction: Direction.Desc, startFrom: { value: { case: 'integer' as const, value: 9n } } };
    const scroll = await grpc.api('points').scroll({ collectionName: NAME, orderBy, limit: 12 } as never);
    const want = ordered((x) => [x.price], true, 9).slice(0, 12);
    expect(scroll.result.map((p) => ({ id: Number(p.id?.pointIdOptions.value), value: Number(p.orderValue?.variant.value) }))).toEqual(want);
    const q = await grpc
      .api('points')
      .query({ collectionName: NAME, query: { variant: { case: 'orderBy', value: orderBy } }, limit: 12n, prefetch: [] } as never);
    expect(q.result.map((p) => Number(p.id?.pointIdOptions.value))).toEqual(want.map((p) => p.id));
  });

  it('is refused without a range index on the key, with an offset, or with a start of the wrong kind', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const r = await fetch(`${s.rest}/collections/${NAME}/points/scroll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, error: ((await r.json()) as { status: { error: string } }).status.error };
    };
    expect(await refused({ order_by: 'color' })).toEqual({
      status: 400,
      error: expect.stringMatching(/^order_by\.key: "color" needs an integer, float or datetime payload index/),
    });
    expect(await refused({ order_by: 'price', offset: 3 })).toEqual({
      status: 400,
      error: expect.stringMatching(/^offset: points ordered by a payload value/),
    });
    expect(await refused({ order_by: { key: 'at', start_from: 5 } })).toEqual({
      status: 400,
      error: expect.stringMatching(/^order_by\.start_from: must be an RFC 3339 datetime/),
    });
    expect(await refused({ order_by: { key: 'price', direction: 'up' } })).toEqual({
      status: 400,
      error: expect.stringMatching(/^order_by\.direction: must be "asc" or "desc"/),
    });
  });
});
