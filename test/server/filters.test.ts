// Filtered reads through Qdrant's official JS client against a real server on a real port: a small
// hand-made collection with payloads (filter-data.ts), then every condition kind and clause through
// search (exact and graph), scroll and count, search batch and query; with_payload selectors;
// with_stats' filter plan; and bad filters and selectors refused with a 400 naming the field.
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { dataPoints, evaluatorIds, FILTER_CASES, FILTER_DIM, handIds, nearest, POINTS, type DataPoint, expectEveryCase } from './filter-data.js';
import { http, startServer, type Running } from './fixture.js';

const NAME = 'filtered';
let tmp: TempDir;
let engine: Engine;
let srv: Running;
let client: QdrantClient;
const points: DataPoint[] = dataPoints();
const query = [0.1, -0.2, 0.3, 0.05];

beforeAll(async () => {
  tmp = makeTempDir('strata-filters-');
  engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path('data') });
  srv = await startServer(engine);
  client = new QdrantClient({ url: srv.url, checkCompatibility: false });
  await client.createCollection(NAME, { vectors: { size: FILTER_DIM, distance: 'Euclid' } });
  await client.upsert(NAME, { wait: true, points });
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  tmp?.cleanup();
});

/** A client error's status and message (the Qdrant envelope's status.error). */
async function refusal(p: Promise<unknown>): Promise<{ status: number; error: string }> {
  const e = await p.then(
    () => null,
    (err: unknown) => err as { status?: number; data?: { status?: { error?: string } } },
  );
  expect(e, 'the call should have been refused').not.toBeNull();
  return { status: e!.status ?? 0, error: e!.data?.status?.error ?? '' };
}

describe('the test data', () => {
  it("has each case's hand-written answer equal the reference evaluator's, and no case trivially all or none but the two meant to be", () => {
    for (const c of FILTER_CASES) {
      const want = handIds(points, c);
      expect(evaluatorIds(points, c.filter), c.name).toEqual(want);
      if (c.name.startsWith('an empty')) continue;
      expect(want.length, c.name).toBeGreaterThan(0);
      expect(want.length, c.name).toBeLessThan(POINTS);
    }
  });
});

describe.each(FILTER_CASES)('filter: $name', (c) => {
  const want = (): number[] => handIds(points, c);

  it('counts exactly the matching points', async () => {
    expect((await client.count(NAME, { filter: c.filter, exact: true })).count).toBe(want().length);
  });

  it('scrolls the matching points in id order, page by page, with their payloads', async () => {
    const seen: number[] = [];
    let offset: number | undefined;
    for (;;) {
      const page = await client.scroll(NAME, { filter: c.filter, limit: 7, ...(offset !== undefined ? { offset } : {}) });
      for (const p of page.points) {
        expect(p.payload).toEqual(points[Number(p.id) - 1]!.payload);
        seen.push(Number(p.id));
      }
      if (page.next_page_offset === null || page.next_page_offset === undefined) break;
      offset = Number(page.next_page_offset);
    }
    expect(seen).toEqual(want());
  });

  it('searches exactly among the matching points only (the nearest of them, best first)', async () => {
    const hits = await client.search(NAME, { vector: query, limit: 5, filter: c.filter, params: { exact: true }, with_payload: false });
    expect(hits.map((h) => Number(h.id))).toEqual(nearest(points, want(), query, 5));
  });

  it('walks the graph to every matching point when limit covers them (never a short answer)', async () => {
    const hits = await client.search(NAME, { vector: query, limit: POINTS, filter: c.filter });
    expect(hits.map((h) => Number(h.id)).sort((a, b) => a - b)).toEqual(want());
  });
});

describe('filters in search batch and query', () => {
  it('gives each search of a batch its own filter', async () => {
    const [a, b] = [FILTER_CASES[0]!, FILTER_CASES[4]!];
    const res = await client.searchBatch(NAME, {
      searches: [
        { vector: query, limit: 3, filter: a.filter, params: { exact: true } },
        { vector: query, limit: 3, filter: b.filter, params: { exact: true } },
        { vector: query, limit: 3, params: { exact: true } },
      ],
    });
    expect(res.map((hits) => hits.map((h) => Number(h.id)))).toEqual([
      nearest(points, handIds(points, a), query, 3),
      nearest(points, handIds(points, b), query, 3),
      nearest(
        points,
        points.map((p) => p.id),
        query,
        3,
      ),
    ]);
  });

  it("takes query's filter", async () => {
    const c = FILTER_CASES.find((x) => x.name === 'range (float)')!;
    const res = await client.query(NAME, { query, limit: 4, filter: c.filter, params: { exact: true } });
    expect(res.points.map((p) => Number(p.id))).toEqual(nearest(points, handIds(points, c), query, 4));
  });

  it("applies a prefetch stage's own filter and the query's, both, to the prefetch's candidates", async () => {
    const [a, b] = [FILTER_CASES[0]!, FILTER_CASES[2]!];
    const own = await client.query(NAME, { prefetch: [{ query, filter: a.filter, limit: 10, params: { exact: true } }], query, limit: 3 });
    expect(own.points.map((p) => Number(p.id))).toEqual(nearest(points, handIds(points, a), query, 3));
    const inB = new Set(handIds(points, b));
    const both = await client.query(NAME, {
      prefetch: [{ query, filter: a.filter, limit: 10, params: { exact: true } }],
      query,
      filter: b.filter,
      limit: 3,
    });
    expect(both.points.map((p) => Number(p.id))).toEqual(
      nearest(
        points,
        handIds(points, a).filter((id) => inB.has(id)),
        query,
        3,
      ),
    );
  });
});

describe('filters over MessagePack', () => {
  it('takes a filter in a MessagePack body (vector as Float32Array) and answers the same points', async () => {
    const c = FILTER_CASES.find((x) => x.name === 'datetime range')!;
    const want = handIds(points, c);
    const r = await http(
      srv.url,
      'POST',
      `/collections/${NAME}/points/search`,
      { vector: Float32Array.from(query), limit: 4, filter: c.filter, params: { exact: true } },
      { msgpack: true },
    );
    expect(r.status).toBe(200);
    expect((r.body as { result: Array<{ id: number }> }).result.map((h) => h.id)).toEqual(nearest(points, want, query, 4));
    const count = await http(srv.url, 'POST', `/collections/${NAME}/points/count`, { filter: c.filter }, { msgpack: true });
    expect((count.body as { result: { count: number } }).result.count).toBe(want.length);
  });
});

describe('with_payload selectors', () => {
  const berlin = { must: [{ key: 'city', match: { value: 'Berlin' } }] };
  const first = points[4]!; // id 5, the first in Berlin

  it('returns only the listed keys, the include form, or all but the excluded ones', async () => {
    const pick = async (with_payload: unknown): Promise<unknown> =>
      (await client.scroll(NAME, { filter: berlin, limit: 1, with_payload: with_payload as never })).points[0]!.payload;
    const p = first.payload;
    expect(await pick(['city', 'meta.level'])).toEqual({ city: p['city'], meta: p['meta'] });
    expect(await pick({ include: ['price'] })).toEqual({ price: p['price'] });
    const { desc: _d, loc: _l, ...rest } = p;
    expect(await pick({ exclude: ['desc', 'loc'] })).toEqual(rest);
    expect(await pick(false)).toBeNull();
  });

  it('applies the selector to search hits and retrieved points too', async () => {
    const hits = await client.search(NAME, { vector: query, limit: 2, filter: berlin, with_payload: ['flag'] });
    for (const h of hits) expect(h.payload).toEqual({ flag: points[Number(h.id) - 1]!.payload['flag'] });
    const exclude = ['items', 'meta', 'tags', 'loc', 'desc', 'created', 'price', 'maybe'];
    const got = await client.retrieve(NAME, { ids: [first.id], with_payload: { exclude } });
    expect(got[0]!.payload).toEqual(Object.fromEntries(Object.entries(first.payload).filter(([k]) => !exclude.includes(k))));
    expect(Object.keys(got[0]!.payload!).sort()).toEqual(['city', 'count', 'flag']);
  });

  it('refuses a selector path it cannot honour with a 400 naming the field', async () => {
    for (const [with_payload, field] of [
      [['items[].qty'], 'with_payload[0]'],
      [{ include: ['tags[0]'] }, 'with_payload.include[0]'],
      [{ include: ['a'], exclude: ['b'] }, 'with_payload'],
      [[3], 'with_payload[0]'],
    ] as const) {
      const r = await refusal(client.scroll(NAME, { limit: 1, with_payload: with_payload as never }));
      expect(r.status).toBe(400);
      expect(r.error.startsWith(`${field}: `), r.error).toBe(true);
    }
  });
});

describe('with_stats', () => {
  it("reports the filter's plan, estimate and exact match counts in the stats of a filtered search only", async () => {
    const c = FILTER_CASES[0]!;
    const raw = await http(srv.url, 'POST', `/collections/${NAME}/points/search`, { vector: query, limit: 3, filter: c.filter, with_stats: true });
    expect(raw.status).toBe(200);
    const stats = (raw.body as { strata: { filter?: Record<string, unknown> } }).strata;
    const f = stats.filter as {
      plan: string;
      matched: number;
      base: number;
      fresh: number;
      residual: boolean;
      fresh_plan: string;
      estimated: { min: number; exp: number; max: number };
    };
    expect(['scan', 'graph', 'none']).toContain(f.plan);
    expect(['graph', 'scan', 'exact', 'none']).toContain(f.fresh_plan);
    expect(f.fresh_plan === 'none').toBe(f.fresh === 0);
    expect(f.matched).toBe(handIds(points, c).length);
    expect(f.base + f.fresh).toBe(f.matched);
    expect(f.estimated.min).toBeLessThanOrEqual(f.matched);
    expect(f.estimated.max).toBeGreaterThanOrEqual(f.matched);
    expect(typeof f.residual).toBe('boolean');
    const plain = await http(srv.url, 'POST', `/collections/${NAME}/points/search`, { vector: query, limit: 3, with_stats: true });
    expect((plain.body as { strata: Record<string, unknown> }).strata['filter']).toBeUndefined();
  });

  it('reports plan none when nothing matches, and answers no hit', async () => {
    const raw = await http(srv.url, 'POST', `/collections/${NAME}/points/search`, {
      vector: query,
      limit: 3,
      filter: { must: [{ has_id: [999] }] },
      with_stats: true,
    });
    expect((raw.body as { result: unknown[] }).result).toEqual([]);
    expect((raw.body as { strata: { filter: { plan: string; matched: number } } }).strata.filter).toMatchObject({ plan: 'none', matched: 0 });
  });
});

describe('bad filters', () => {
  it('are refused with a 400 naming the full path of the field, on every endpoint that takes one', async () => {
    const bad = { must: [{ key: 'price', range: { gte: 'cheap' } }] };
    const field = 'filter.must[0].range.gte';
    for (const p of [
      client.search(NAME, { vector: query, limit: 3, filter: bad }),
      client.query(NAME, { query, limit: 3, filter: bad }),
      client.scroll(NAME, { filter: bad }),
      client.count(NAME, { filter: bad }),
      client.delete(NAME, { filter: bad, wait: true }),
      client.setPayload(NAME, { payload: { x: 1 }, filter: bad, wait: true }),
      client.overwritePayload(NAME, { payload: { x: 1 }, filter: bad, wait: true }),
      client.deletePayload(NAME, { keys: ['x'], filter: bad, wait: true }),
      client.clearPayload(NAME, { filter: bad, wait: true }),
    ]) {
      const r = await refusal(p);
      expect(r.status).toBe(400);
      expect(r.error.startsWith(`${field}: `), r.error).toBe(true);
    }
    const batch = await refusal(
      client.searchBatch(NAME, {
        searches: [
          { vector: query, limit: 1 },
          { vector: query, limit: 1 },
          { vector: query, limit: 1, filter: bad },
        ],
      }),
    );
    expect(batch.error.startsWith(`searches[2].${field}: `), batch.error).toBe(true);
    // Nothing was written by the refused writes.
    expect((await client.count(NAME)).count).toBe(POINTS);
  });

  it('refuse a shard_key (one shard per collection) on every read rather than ignoring it', async () => {
    for (const p of [
      client.search(NAME, { vector: query, limit: 3, shard_key: 'a' }),
      client.searchBatch(NAME, { searches: [{ vector: query, limit: 1, shard_key: 'a' }] }),
      client.query(NAME, { query, limit: 3, shard_key: 'a' }),
      client.scroll(NAME, { shard_key: 'a' }),
      client.count(NAME, { shard_key: 'a' }),
      client.retrieve(NAME, { ids: [1], shard_key: 'a' }),
    ]) {
      const r = await refusal(p);
      expect(r.status).toBe(400);
      expect(r.error).toMatch(/^(searches\[0\]\.)?shard_key: /);
    }
  });

  it('refuse an unknown member, naming it, rather than ignoring it', async () => {
    for (const [filter, field] of [
      [{ must: [{ key: 'city', match: { value: 'Berlin' } }], maybe: [] }, 'filter.maybe'],
      [{ should: [{ key: 'city', match: { value: 'Berlin', fuzzy: true } }] }, 'filter.should[0].match.fuzzy'],
      [
        { must: [{ nested: { key: 'items', filter: { must: [{ key: 'qty', range: { gte: 1, around: 2 } }] } } }] },
        'filter.must[0].nested.filter.must[0].range.around',
      ],
    ] as const) {
      const r = await refusal(client.count(NAME, { filter: filter as never }));
      expect(r.status).toBe(400);
      expect(r.error.startsWith(`${field}: `), r.error).toBe(true);
    }
  });
});

describe('after a compaction (the points in a base index)', () => {
  beforeAll(async () => {
    const r = await http(srv.url, 'POST', `/collections/${NAME}/compact`);
    expect(r.status).toBe(200);
  });

  it('answers every filter as the fresh layer did: count, scroll and exact search', async () => {
    await expectEveryCase(client, NAME, points, query, 5);
  });

  it('runs the plan params.filter_plan names, each answering every match when limit covers them', async () => {
    const c = FILTER_CASES.find((x) => x.name === 'match any')!;
    const want = handIds(points, c);
    for (const plan of ['scan', 'graph', 'two_hop']) {
      const raw = await http(srv.url, 'POST', `/collections/${NAME}/points/search`, {
        vector: query,
        limit: POINTS,
        filter: c.filter,
        params: { filter_plan: plan },
        with_stats: true,
      });
      expect(raw.status, plan).toBe(200);
      const body = raw.body as { result: Array<{ id: number }>; strata: { filter: { plan: string; base: number } } };
      expect(body.strata.filter.plan, plan).toBe(plan);
      expect(body.strata.filter.base, plan).toBe(want.length);
      expect(
        body.result.map((h) => h.id).sort((a, b) => a - b),
        plan,
      ).toEqual(want);
    }
  });

  it('refuses filter_plan without a filter, or a plan it does not have, naming the field', async () => {
    for (const [body, field] of [
      [{ vector: query, limit: 3, params: { filter_plan: 'scan' } }, 'params.filter_plan'],
      [{ vector: query, limit: 3, filter: FILTER_CASES[0]!.filter, params: { filter_plan: 'acorn' } }, 'params.filter_plan'],
    ] as const) {
      const r = await http(srv.url, 'POST', `/collections/${NAME}/points/search`, body);
      expect(r.status).toBe(400);
      expect((r.body as { status: { error: string } }).status.error.startsWith(`${field}: `)).toBe(true);
    }
  });
});
