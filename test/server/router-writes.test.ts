// The write routes `strata router` routes beyond upsert, delete and payloads, each compared with one
// `strata serve` given the same writes: Qdrant's batch update (checked whole before any shard gets
// a part, then each operation's part sent to the shards its ids hash to, or by filter to every
// shard, in the batch's order), the columnar upsert, vector updates by id, and vector deletes
// (refused as the server refuses them). Three shard servers with data directories and one single
// server, all real, on loopback; after each write the router's points, scrolled with their vectors
// and payloads, are the server's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { shardOf } from '../../index/build/build-shards.js';
import { makeTempDir } from '../helpers/temp.js';
import { type HttpAnswer, http, type Running } from './fixture.js';
import { type RouterCluster, startRouterCluster } from './router-cluster.js';

const DIM = 4;
const SHARDS = 3;
const C = '/collections/w';
const tmp = makeTempDir('strata-router-writes-');
let cluster: RouterCluster | undefined;
let single: Running;
let url: string;

const rnd = mulberry32(17);
const vector = (): number[] => Array.from({ length: DIM }, () => Math.round((rnd() * 2 - 1) * 1000) / 1000);
const CITIES = ['Berlin', 'London', 'Paris'];
const initial = Array.from({ length: 60 }, (_, k) => ({ id: k + 1, vector: vector(), payload: { city: CITIES[k % 3]!, n: k % 7, keep: 'x' } }));

beforeAll(async () => {
  cluster = await startRouterCluster(tmp, SHARDS);
  ({ single, url } = cluster);
  for (const u of [url, single.url]) {
    expect((await http(u, 'PUT', C, { vectors: { size: DIM, distance: 'Euclid' } })).status).toBe(200);
    expect((await http(u, 'PUT', `${C}/points?wait=true`, { points: initial })).status).toBe(200);
  }
}, 60_000);

afterAll(async () => {
  await cluster?.close();
  tmp.cleanup();
});

/** Every point, in id order, with its vector and payload. */
async function everything(u: string): Promise<unknown> {
  const r = await http(u, 'POST', `${C}/points/scroll`, { limit: 1000, with_vector: true, with_payload: true });
  expect(r.status, r.text).toBe(200);
  return (r.body as { result: { points: unknown[] } }).result.points;
}

/** The router holds what the single server holds (and holds points on every shard). */
async function expectSameState(): Promise<void> {
  const held = (await everything(url)) as Array<{ id: number }>;
  expect(held).toEqual(await everything(single.url));
  expect(new Set(held.map((p) => shardOf(p.id, SHARDS))).size).toBe(SHARDS);
}

/** The same write to the router and to the single server: both answers. */
async function both(method: 'PUT' | 'POST', path: string, body: unknown): Promise<[HttpAnswer, HttpAnswer]> {
  const viaRouter = await http(url, method, path, body);
  const viaSingle = await http(single.url, method, path, body);
  return [viaRouter, viaSingle];
}

const errorOf = (r: HttpAnswer): string => (r.body as { status: { error: string } }).status.error;

/** Both refused alike (status and message), and nothing changed. */
async function refusedAlike(method: 'PUT' | 'POST', path: string, body: unknown, field: RegExp): Promise<void> {
  const before = await everything(url);
  const [r, s] = await both(method, path, body);
  expect(r.status, r.text).toBe(s.status);
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(errorOf(r)).toBe(errorOf(s));
  expect(errorOf(r)).toMatch(field);
  expect(await everything(url)).toEqual(before);
  await expectSameState();
}

describe('writes through the router against one server given the same writes', () => {
  it('starts alike', async () => {
    await expectSameState();
  });

  it('applies a batch update as the server does: each operation to the shards it touches, in order, one acknowledgement each', async () => {
    const fresh = Array.from({ length: 12 }, (_, k) => ({ id: 100 + k, vector: vector(), payload: { city: 'Tokyo', n: k } }));
    const operations = [
      { upsert: { points: fresh } },
      {
        upsert: {
          batch: {
            ids: [200, 201, 202, 203, 204, 205],
            vectors: Array.from({ length: 6 }, vector),
            payloads: [{ n: 1 }, null, { n: 3 }, { n: 4 }, {}, { n: 6 }],
          },
        },
      },
      { upsert: { batch: { ids: [210, 211, 212], vectors: Array.from({ length: 3 }, vector) } } },
      { set_payload: { payload: { flag: true }, points: [1, 2, 3, 4, 100, 201, 211] } },
      { overwrite_payload: { payload: { city: 'Rome' }, filter: { must: [{ key: 'city', match: { value: 'Paris' } }] } } },
      { set_payload: { payload: { deep: { a: 1 } }, key: 'nested', points: [7, 8, 9] } },
      { delete_payload: { keys: ['keep'], points: [10, 11, 12, 13] } },
      { delete_payload: { keys: ['n'], filter: { must: [{ key: 'city', match: { value: 'Berlin' } }] } } },
      { clear_payload: { points: [14, 15, 202] } },
      // The vector of a point upserted earlier in the same batch: the order within a shard holds.
      {
        update_vectors: {
          points: [
            { id: 16, vector: vector() },
            { id: 104, vector: vector() },
            { id: 17, vector: { '': vector() } },
          ],
        },
      },
      { delete: { points: [18, 19, 20, 203] } },
      { delete: { filter: { must: [{ key: 'n', match: { value: 5 } }] } } },
      // A point deleted above, written again.
      { upsert: { points: [{ id: 18, vector: vector(), payload: { back: true } }] } },
      // No point of it routes anywhere: it reaches no shard, and wrote nothing.
      { delete: { points: [] } },
    ];
    const [r, s] = await both('POST', `${C}/points/batch?wait=true`, { operations });
    expect(r.status, r.text).toBe(200);
    expect(s.status, s.text).toBe(200);
    const acks = (r.body as { result: Array<{ operation_id: number; status: string }> }).result;
    expect(acks.map((a) => a.status)).toEqual(operations.map(() => 'completed'));
    expect(acks.slice(0, -1).every((a) => a.operation_id > 0)).toBe(true);
    await expectSameState();
  });

  it('checks a batch whole before any shard gets a part: a bad operation anywhere is the server\u2019s 400, and nothing is written', async () => {
    const good = { upsert: { points: [30, 31, 32, 33, 34].map((id) => ({ id, vector: vector(), payload: { bad: 'not written' } })) } };
    await refusedAlike(
      'POST',
      `${C}/points/batch?wait=true`,
      {
        operations: [
          good,
          { set_payload: { payload: { x: 1 }, points: [35] } },
          {
            upsert: {
              points: [
                { id: 36, vector: vector() },
                { id: 37, vector: [1, 2] },
              ],
            },
          },
        ],
      },
      /^operations\[2\]\.upsert\.points\[1\]\.vector: /,
    );
    await refusedAlike(
      'POST',
      `${C}/points/batch`,
      { operations: [good, { delete_vectors: { points: [1], vector: [''] } }] },
      /^operations\[1\]\.delete_vectors\.vector\[0\]: /,
    );
    await refusedAlike('POST', `${C}/points/batch`, { operations: [good, { upsert: {}, delete: { points: [1] } }] }, /^operations\[1\]: /);
    await refusedAlike(
      'POST',
      `${C}/points/batch`,
      { operations: [good, { set_payload: { payload: { x: 1 }, filter: { must: [{ key: 'n', range: { gt: 'x' } }] } } }] },
      /^operations\[1\]\.set_payload\.filter/,
    );
  });

  it('refuses, naming it, an upserted id it cannot hash to a shard (a UUID), writing nothing', async () => {
    const before = await everything(url);
    const r = await http(url, 'POST', `${C}/points/batch`, {
      operations: [
        { upsert: { points: [{ id: 40, vector: vector() }] } },
        { upsert: { points: [{ id: '5c56c793-69f3-4fbf-87e6-c4bf54c28c26', vector: vector() }] } },
      ],
    });
    expect([r.status, errorOf(r)]).toEqual([400, expect.stringMatching(/^operations\[1\]\.upsert\.points\[0\]\.id: /)]);
    const columnar = await http(url, 'PUT', `${C}/points`, { batch: { ids: [41, '5c56c793-69f3-4fbf-87e6-c4bf54c28c26'], vectors: [vector(), vector()] } });
    expect([columnar.status, errorOf(columnar)]).toEqual([400, expect.stringMatching(/^batch\.ids\[1\]: /)]);
    expect(await everything(url)).toEqual(before);
  });

  it('upserts the columnar form (ids, vectors, payloads) to the shards its ids hash to', async () => {
    const ids = [300, 301, 302, 303, 304, 305, 306];
    const body = { batch: { ids, vectors: ids.map(() => vector()), payloads: ids.map((id) => ({ col: id })) } };
    const [r, s] = await both('PUT', `${C}/points?wait=true`, body);
    expect([r.status, s.status]).toEqual([200, 200]);
    await expectSameState();
    await refusedAlike('PUT', `${C}/points`, { batch: { ids: [307, 308], vectors: [vector()] } }, /^batch\.vectors: /);
  });

  it('updates vectors by id on the shards the ids hash to, payloads kept; a point that does not exist is the server\u2019s 404', async () => {
    const points = [1, 2, 3, 21, 22, 23, 100, 300].map((id) => ({ id, vector: vector() }));
    expect(new Set(points.map((p) => shardOf(p.id, SHARDS))).size).toBe(SHARDS);
    const [r, s] = await both('PUT', `${C}/points/vectors?wait=true`, { points });
    expect([r.status, s.status], r.text).toEqual([200, 200]);
    await expectSameState();
    const got = await http(url, 'POST', `${C}/points`, { ids: [21, 300], with_vector: true });
    expect((got.body as { result: Array<{ vector: number[] }> }).result.map((p) => p.vector.map((x) => Math.round(x * 1000) / 1000))).toEqual([
      points[3]!.vector,
      points[7]!.vector,
    ]);
    await refusedAlike('PUT', `${C}/points/vectors`, { points: [{ id: 9999, vector: vector() }] }, /9999/);
    await refusedAlike('PUT', `${C}/points/vectors`, { points: [{ id: 24, vector: [1] }] }, /^points\[0\]\.vector: /);
  });

  it('refuses a vector delete as the server does (400 naming vector), whichever points it selects, writing nothing', async () => {
    for (const selection of [{ points: [1, 2, 3, 22] }, { filter: { must: [{ key: 'city', match: { value: 'London' } }] } }, { points: [] }])
      await refusedAlike('POST', `${C}/points/vectors/delete`, { ...selection, vector: [''] }, /^vector\[0\]: /);
    await refusedAlike('POST', `${C}/points/vectors/delete`, { points: [1], filter: {}, vector: [''] }, /^filter: /);
  });
});
