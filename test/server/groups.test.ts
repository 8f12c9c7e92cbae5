// Qdrant's grouped search (search/groups, query/groups) through the official JS client against a
// real server: with exact search, the groups and their hits equal a brute-force model (groups opened
// in the order of their best hit, filled up to group_size), for keyword, integer and array keys,
// with a filter, when the groups need more hits than the first window, and for a query by point id
// (the point left out); fields Strata does not honour are refused, naming them.
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { Engine } from '../../engine/engine.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { startServer, type Running } from './fixture.js';

const NAME = 'grouped';
const DIM = 8;
const N = 600;
let tmp: TempDir;
let engine: Engine;
let srv: Running;
let client: QdrantClient;

interface Pt {
  id: number;
  vector: number[];
  payload: Record<string, unknown>;
}

const rnd = mulberry32(7);
const points: Pt[] = Array.from({ length: N }, (_, k) => {
  const id = k + 1;
  const payload: Record<string, unknown> = { team: `t${id % 13}`, n: id % 7, tags: [`g${id % 4}`, `g${id % 9}`] };
  // Nearly every point is on side "a"; one in twenty has a side of its own.
  payload['side'] = id % 20 === 0 ? `b${id}` : 'a';
  if (id % 10 === 3) delete payload['team'];
  return { id, vector: Array.from({ length: DIM }, () => rnd() * 2 - 1), payload };
});

beforeAll(async () => {
  tmp = makeTempDir('strata-groups-');
  engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path('data') });
  srv = await startServer(engine);
  client = new QdrantClient({ url: srv.url });
  await client.createCollection(NAME, { vectors: { size: DIM, distance: 'Euclid' } });
  await client.upsert(NAME, { wait: true, points });
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  tmp?.cleanup();
});

/** The values of `key` a payload is grouped under (arrays flattened; keywords and integers). */
function valuesOf(p: Record<string, unknown>, key: string): Array<string | number> {
  const v = p[key];
  const all = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return [...new Set(all.filter((x): x is string | number => typeof x === 'string' || Number.isInteger(x)))];
}

/** Brute force: every point by distance, groups opened in that order up to limit, each filled up to size. */
function model(q: number[], key: string, size: number, limit: number, keep: (p: Pt) => boolean = () => true): Array<{ id: string | number; hits: number[] }> {
  const d = (p: Pt): number => p.vector.reduce((s, x, j) => s + (x - q[j]!) ** 2, 0);
  const order = points.filter(keep).sort((a, b) => d(a) - d(b) || a.id - b.id);
  const groups = new Map<string | number, number[]>();
  for (const p of order)
    for (const g of valuesOf(p.payload, key)) {
      let hits = groups.get(g);
      if (hits === undefined) {
        if (groups.size >= limit) continue;
        hits = [];
        groups.set(g, hits);
      }
      if (hits.length < size) hits.push(p.id);
    }
  return [...groups].map(([id, hits]) => ({ id, hits }));
}

const shape = (r: { groups: Array<{ id: unknown; hits: Array<{ id: unknown }> }> }) =>
  r.groups.map((g) => ({ id: g.id, hits: g.hits.map((h) => Number(h.id)) }));

describe('grouped search', () => {
  it('groups the nearest points by a keyword, an integer and an array key as brute force does', async () => {
    for (const [qi, key, size, limit] of [
      [0, 'team', 3, 5],
      [1, 'n', 2, 7],
      [2, 'tags', 4, 6],
      [3, 'team', 1, 13],
    ] as const) {
      const q = points[qi * 50]!.vector;
      const r = await client.searchPointGroups(NAME, { vector: q, group_by: key, group_size: size, limit, params: { exact: true }, with_payload: true });
      expect(shape(r), `${key} ${size}×${limit}`).toEqual(model(q, key, size, limit));
      for (const g of r.groups) for (const h of g.hits) expect(valuesOf(h.payload as Record<string, unknown>, key)).toContain(g.id);
    }
  });

  it('asks for more hits until the groups are full: a key most near points share', async () => {
    const q = points[10]!.vector;
    const r = await client.searchPointGroups(NAME, { vector: q, group_by: 'side', group_size: 2, limit: 8, params: { exact: true } });
    expect(shape(r)).toEqual(model(q, 'side', 2, 8));
    expect(r.groups.length).toBe(8);
    // The eighth side's point lies beyond the first window (limit × group_size × 2 hits): more were asked for.
    const d = (p: Pt): number => p.vector.reduce((s, x, j) => s + (x - q[j]!) ** 2, 0);
    const rank = [...points].sort((a, b) => d(a) - d(b)).findIndex((p) => p.id === r.groups[7]!.hits[0]!.id);
    expect(rank).toBeGreaterThanOrEqual(2 * 8 * 2);
  });

  it('groups only the points a filter matches', async () => {
    const q = points[77]!.vector;
    const filter = { must: [{ key: 'n', range: { gte: 3 } }] };
    const r = await client.searchPointGroups(NAME, { vector: q, group_by: 'team', group_size: 2, limit: 4, filter, params: { exact: true } });
    expect(shape(r)).toEqual(model(q, 'team', 2, 4, (p) => (p.payload['n'] as number) >= 3));
    // Without with_payload, hits carry none.
    for (const g of r.groups) for (const h of g.hits) expect(h.payload ?? null).toBeNull();
  });

  it('groups a query by point id, leaving that point out, with the payload keys asked for', async () => {
    const me = points[123]!;
    const r = await client.queryGroups(NAME, { query: me.id, group_by: 'team', group_size: 2, limit: 3, params: { exact: true }, with_payload: ['n'] });
    expect(shape(r)).toEqual(model(me.vector, 'team', 2, 3, (p) => p.id !== me.id));
    for (const g of r.groups) for (const h of g.hits) expect(Object.keys(h.payload as object)).toEqual(['n']);
  });

  it('refuses what it does not honour, naming the field', async () => {
    const q = points[0]!.vector;
    const refused = async (body: Record<string, unknown>): Promise<string> => {
      const res = await fetch(`${srv.url}/collections/${NAME}/points/search/groups`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ vector: q, ...body }),
      });
      expect(res.status).toBe(400);
      return ((await res.json()) as { status: { error: string } }).status.error;
    };
    expect(await refused({ limit: 3 })).toMatch(/group_by/);
    expect(await refused({ group_by: 'team', with_lookup: { collection: 'x' } })).toMatch(/with_lookup/);
    expect(await refused({ group_by: 'team', limit: 1000, group_size: 100 })).toMatch(/limit/);
    expect(await refused({ group_by: 'team', offset: 2 })).toMatch(/offset/);
  });
});
