// Payload writes and payload indexes through Qdrant's official JS client against a real server with a
// data directory: set (merged, and into a key path with `key`), overwrite, delete keys, clear and
// delete points, each by ids and by filter, checked after each write against a model the test
// keeps (a filter selects by the payloads of that moment, and a filtered read sees a write at once
// with wait=true); payload indexes created and dropped, shown in payload_schema with their point
// counts, answers the same with and without them; refused index parameters name the field.
import type { QdrantCollectionView } from '../../server/api/collection-view.js';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { dataPoints, evaluatorIds, FILTER_CASES, FILTER_DIM, type DataPoint, type Payload } from './filter-data.js';
import { http, startServer, type Running } from './fixture.js';

const NAME = 'payloads';
let tmp: TempDir;
let engine: Engine;
let srv: Running;
let client: QdrantClient;
const points: DataPoint[] = dataPoints();
/** What every live point's payload should be now. */
const model = new Map<number, Payload>(points.map((p) => [p.id, structuredClone(p.payload)]));
const live = (): DataPoint[] => points.filter((p) => model.has(p.id));

beforeAll(async () => {
  tmp = makeTempDir('strata-payloads-');
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

/** Every live point's payload as the server has it, by id. */
async function stored(): Promise<Map<number, unknown>> {
  const page = await client.scroll(NAME, { limit: 1000, with_payload: true });
  return new Map(page.points.map((p) => [Number(p.id), p.payload]));
}

/** The ids a filter selects now, by the reference evaluator over the model. */
const selected = (filter: unknown): number[] => evaluatorIds(live(), filter, model);

async function expectModel(): Promise<void> {
  expect(await stored()).toEqual(model);
}

async function refusal(p: Promise<unknown>): Promise<{ status: number; error: string }> {
  const e = await p.then(
    () => null,
    (err: unknown) => err as { status?: number; data?: { status?: { error?: string } } },
  );
  expect(e, 'the call should have been refused').not.toBeNull();
  return { status: e!.status ?? 0, error: e!.data?.status?.error ?? '' };
}

const berlin = { must: [{ key: 'city', match: { value: 'Berlin' } }] };

describe('payload writes', () => {
  it('sets a payload by filter (merged into each matching point), seen by the next filtered count', async () => {
    const ids = selected(berlin);
    const r = await client.setPayload(NAME, { payload: { stage: 'one' }, filter: berlin, wait: true });
    expect(r.status).toBe('completed');
    for (const id of ids) model.get(id)!['stage'] = 'one';
    expect((await client.count(NAME, { filter: { must: [{ key: 'stage', match: { value: 'one' } }] } })).count).toBe(ids.length);
    await expectModel();
  });

  it('overwrites the payload of listed ids (replaced whole)', async () => {
    await client.overwritePayload(NAME, { payload: { only: true, city: 'Rome' }, points: [1, 2], wait: true });
    model.set(1, { only: true, city: 'Rome' });
    model.set(2, { only: true, city: 'Rome' });
    await expectModel();
  });

  it('overwrites by filter', async () => {
    const f = {
      must: [
        { key: 'desc', match: { text: 'sky' } },
        { key: 'flag', match: { value: true } },
      ],
    };
    const ids = selected(f);
    expect(ids.length).toBeGreaterThan(0);
    await client.overwritePayload(NAME, { payload: { sky: 1 }, filter: f, wait: true });
    for (const id of ids) model.set(id, { sky: 1 });
    await expectModel();
  });

  it('sets into the object at a key path with key, by filter', async () => {
    const f = { must: [{ key: 'tags', match: { value: 'b' } }] };
    const ids = selected(f);
    await client.setPayload(NAME, { payload: { extra: 7 }, key: 'meta', filter: f, wait: true });
    for (const id of ids) {
      const p = model.get(id)!;
      p['meta'] = { ...(p['meta'] as Payload), extra: 7 };
    }
    await expectModel();
  });

  it('sets by ids, the ids that do not exist ignored', async () => {
    await client.setPayload(NAME, { payload: { city: 'Oslo' }, points: [5, 10_000], wait: true });
    model.get(5)!['city'] = 'Oslo';
    await expectModel();
  });

  it('deletes payload keys (top-level and a key path) by filter', async () => {
    const f = { must: [{ key: 'count', range: { gte: 5 } }] };
    const ids = selected(f);
    await client.deletePayload(NAME, { keys: ['flag', 'meta.level'], filter: f, wait: true });
    for (const id of ids) {
      const p = model.get(id)!;
      delete p['flag'];
      if (typeof p['meta'] === 'object' && p['meta'] !== null) delete (p['meta'] as Payload)['level'];
    }
    await expectModel();
  });

  it('deletes payload keys by ids', async () => {
    await client.deletePayload(NAME, { keys: ['price'], points: [6, 7], wait: true });
    delete model.get(6)!['price'];
    delete model.get(7)!['price'];
    await expectModel();
  });

  it('clears payloads by ids and by filter', async () => {
    await client.clearPayload(NAME, { points: [3, 4], wait: true });
    model.set(3, {});
    model.set(4, {});
    const f = {
      must: [
        { key: 'city', match: { value: 'Moscow' } },
        { key: 'tags', values_count: { lt: 2 } },
      ],
    };
    const ids = selected(f);
    expect(ids.length).toBeGreaterThan(0);
    await client.clearPayload(NAME, { filter: f, wait: true });
    for (const id of ids) model.set(id, {});
    await expectModel();
  });

  it('deletes the points a filter matches, and no other', async () => {
    const f = { must: [{ key: 'city', match: { value: 'London' } }] };
    const ids = selected(f);
    expect(ids.length).toBeGreaterThan(0);
    await client.delete(NAME, { filter: f, wait: true });
    for (const id of ids) model.delete(id);
    expect((await client.count(NAME)).count).toBe(model.size);
    await expectModel();
  });

  it('refuses a write that gives both points and filter, or neither, naming the field', async () => {
    const both = await refusal(client.setPayload(NAME, { payload: { x: 1 }, points: [1], filter: berlin, wait: true }));
    expect(both.status).toBe(400);
    expect(both.error).toMatch(/^filter: /);
    for (const [path, body, field] of [
      ['/points/payload/clear', {}, 'points'],
      ['/points/payload/delete', { points: [1] }, 'keys'],
      ['/points/delete', { points: [1], shard_key: 'a' }, 'shard_key'],
      ['/points/payload', { payload: { x: 1 }, points: [1], key: '' }, 'key'],
    ] as const) {
      const r = await http(srv.url, 'POST', `/collections/${NAME}${path}?wait=true`, body);
      expect(r.status, path).toBe(400);
      expect((r.body as { status: { error: string } }).status.error.startsWith(`${field}: `), path).toBe(true);
    }
    await expectModel();
  });
});

describe('payload indexes', () => {
  const indexed: Array<[string, unknown]> = [
    ['city', 'keyword'],
    ['count', 'integer'],
    ['price', { type: 'float' }],
    ['flag', 'bool'],
    ['created', 'datetime'],
    ['loc', 'geo'],
    ['desc', { type: 'text', tokenizer: 'word', lowercase: true, min_token_len: 1, max_token_len: 20 }],
  ];

  /** Live points holding a value at top-level key k. */
  const holding = (k: string): number => [...model.values()].filter((p) => p[k] !== undefined && p[k] !== null).length;

  it('answers every filter the same before and after the indexes are created', async () => {
    const before = await Promise.all(
      FILTER_CASES.map(async (c) => (await client.scroll(NAME, { filter: c.filter, limit: 1000, with_payload: false })).points.map((p) => Number(p.id))),
    );
    for (const [field_name, field_schema] of indexed) {
      const r = await client.createPayloadIndex(NAME, { field_name, field_schema: field_schema as never, wait: true });
      expect(r.status).toBe('completed');
    }
    for (const [i, c] of FILTER_CASES.entries()) {
      const want = selected(c.filter);
      expect(before[i], c.name).toEqual(want);
      const after = (await client.scroll(NAME, { filter: c.filter, limit: 1000, with_payload: false })).points.map((p) => Number(p.id));
      expect(after, c.name).toEqual(want);
      expect((await client.count(NAME, { filter: c.filter })).count, c.name).toBe(want.length);
    }
  });

  it('shows each index in payload_schema with its type, its parameters and the points it holds', async () => {
    const info = await client.getCollection(NAME);
    const schema = info.payload_schema as Record<string, { data_type: string; points: number; params?: Record<string, unknown> }>;
    expect(Object.keys(schema).sort()).toEqual(indexed.map(([k]) => k).sort());
    for (const [k, s] of indexed) {
      expect(schema[k]!.data_type, k).toBe(typeof s === 'string' ? s : (s as { type: string }).type);
      expect(schema[k]!.points, k).toBe(holding(k));
    }
    expect(schema['desc']!.params).toMatchObject({ type: 'text', tokenizer: 'word', lowercase: true });
    const raw = await http(srv.url, 'GET', `/collections/${NAME}`);
    const payload = (raw.body as { result: { strata: { payload: QdrantCollectionView['strata']['payload'] } } }).result.strata.payload;
    expect(payload.values_bytes).toBeGreaterThan(0);
    // The values are cold data, in the CXL tier: emulated on this server (no --memory numa).
    expect(payload.values_tier).toMatchObject({ tier: 'cxl', mode: 'emulated', node: null, pages: null });
    expect(payload.values_tier.slabs).toBeGreaterThan(0);
    expect(payload.rows_bytes).toBeGreaterThan(0);
    expect(Object.keys(payload.index_bytes).sort()).toEqual(indexed.map(([k]) => k).sort());
  });

  it('keeps an index current under payload writes (its point count and its answers)', async () => {
    const target = [...model.keys()].find((id) => model.get(id)!['city'] === undefined)!;
    await client.setPayload(NAME, { payload: { city: 'Lima' }, points: [target], wait: true });
    model.get(target)!['city'] = 'Lima';
    const lima = { must: [{ key: 'city', match: { value: 'Lima' } }] };
    expect((await client.count(NAME, { filter: lima })).count).toBe(1);
    const schema = (await client.getCollection(NAME)).payload_schema as Record<string, { points: number }>;
    expect(schema['city']!.points).toBe(holding('city'));
  });

  it('drops an index: gone from payload_schema, its filters still answered', async () => {
    const r = await client.deletePayloadIndex(NAME, 'city', { wait: true });
    expect(r.status).toBe('completed');
    const schema = (await client.getCollection(NAME)).payload_schema as Record<string, unknown>;
    expect(schema['city']).toBeUndefined();
    expect((await client.count(NAME, { filter: berlin })).count).toBe(selected(berlin).length);
  });

  it('refuses the parameters and schemas it does not honour, naming the field', async () => {
    for (const [body, field] of [
      [{ field_name: 'city', field_schema: { type: 'keyword', is_tenant: true } }, 'field_schema.is_tenant'],
      [{ field_name: 'price', field_schema: { type: 'float', on_disk: true } }, 'field_schema.on_disk'],
      [{ field_name: 'desc', field_schema: { type: 'text', tokenizer: 'prefix' } }, 'field_schema.tokenizer'],
      [{ field_name: 'desc', field_schema: { type: 'text', stemmer: { type: 'snowball', language: 'english' } } }, 'field_schema.stemmer'],
      [{ field_name: 'count', field_schema: { type: 'integer', range: false } }, 'field_schema.range'],
      [{ field_name: 'city', field_schema: 'vector' }, 'field_schema'],
      [{ field_name: 'city', field_schema: { type: 'nope' } }, 'field_schema.type'],
      [{ field_schema: 'keyword' }, 'field_name'],
    ] as const) {
      const r = await http(srv.url, 'PUT', `/collections/${NAME}/index?wait=true`, body);
      expect(r.status, field).toBe(400);
      const error = (r.body as { status: { error: string } }).status.error;
      expect(error.startsWith(`${field}: `), error).toBe(true);
    }
  });
});
