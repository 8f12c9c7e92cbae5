// Several dense vectors per point (Qdrant's named vectors) through the official REST and gRPC
// clients against a real `strata serve --data-dir`: a collection whose primary vector "text" (Cosine)
// is the tiered index's and whose secondary vector "image" (Euclid, another size) has a graph of its
// own; a quarter of the points have no image. Every answer is checked against a brute-force model
// kept in the test: searches exact and by the graph (recall), filtered, the query API (`using`, by
// id, recommend, discover, fusion with the primary), the search matrix, with_vector, writes, bad
// input refused naming the field, gRPC, and everything kept through a compaction, a snapshot and a
// restart after SIGKILL.
import type { QdrantClient as GrpcClient } from '@qdrant/js-client-grpc';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { type QdrantServed, refusal, serveForQdrantClients, snapshotKillRestart } from './qdrant-served.js';
import type { ServeChild } from './serve-child.js';

const NAME = 'multi';
const TEXT_DIM = 4;
const IMAGE_DIM = 6;
const POINTS = 400;
let served: QdrantServed;
let s: ServeChild;
let client: QdrantClient;
let grpc: GrpcClient;

interface ModelPoint {
  text: number[];
  image?: number[];
  payload: { group: string; n: number };
}
const model = new Map<number, ModelPoint>();
const rnd = mulberry32(11);
const randomVector = (dim: number): number[] => Array.from({ length: dim }, () => Math.fround(rnd() * 2 - 1));
const unit = (v: number[]): number[] => {
  const n = Math.hypot(...v);
  return v.map((x) => Math.fround(x / n));
};

type Hit = { id: number; score: number };
const cosine = (a: number[], b: number[]): number => unit(a).reduce((s, x, i) => s + x * unit(b)[i]!, 0);
const euclid = (a: number[], b: number[]): number => Math.hypot(...a.map((x, i) => x - b[i]!));

/** The model's best `limit` by image (Euclid: smallest first) or text (Cosine: largest first), ties by id. */
function modelSearch(using: 'image' | 'text', q: number[], limit: number, keep: (id: number, p: ModelPoint) => boolean = () => true): Hit[] {
  const out: Hit[] = [];
  for (const [id, p] of model) {
    const v = p[using];
    if (v === undefined || !keep(id, p)) continue;
    out.push({ id, score: using === 'image' ? euclid(q, v) : cosine(q, v) });
  }
  const sign = using === 'image' ? 1 : -1;
  return out.sort((a, b) => sign * (a.score - b.score) || a.id - b.id).slice(0, limit);
}

function expectSame(got: Array<{ id: unknown; score: number }>, want: Hit[]): void {
  expect(got.map((h) => Number(h.id))).toEqual(want.map((h) => h.id));
  got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 4));
}

function recall(got: Array<{ id: unknown }>, want: Hit[]): number {
  const ids = new Set(want.map((h) => h.id));
  return got.filter((h) => ids.has(Number(h.id))).length / want.length;
}

const imageSearch = (c: QdrantClient, q: number[], limit: number, extra: Record<string, unknown> = {}) =>
  c.search(NAME, { vector: { name: 'image', vector: q }, limit, ...extra } as never);

/** A REST call the client would not send as it is (Strata's own fields), failing as the client does. */
async function post(path: string, body: unknown): Promise<unknown> {
  const r = await fetch(`${s.rest}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const data = (await r.json()) as unknown;
  if (!r.ok) throw Object.assign(new Error(r.statusText), { status: r.status, data });
  return data;
}

function pointOf(id: number): { id: number; vector: Record<string, number[]>; payload: ModelPoint['payload'] } {
  const p = model.get(id)!;
  return { id, vector: { text: p.text, ...(p.image ? { image: p.image } : {}) }, payload: p.payload };
}

/** Searches by the image vector, exact, by the graph, and filtered (few matches and many), against the model. */
async function checkSearches(): Promise<void> {
  let found = 0;
  let wanted = 0;
  for (let t = 0; t < 10; t++) {
    const q = randomVector(IMAGE_DIM);
    expectSame(await imageSearch(client, q, 10, { params: { exact: true } }), modelSearch('image', q, 10));
    const graph = await imageSearch(client, q, 10);
    found += recall(graph, modelSearch('image', q, 10)) * 10;
    wanted += 10;
    // A rare group (a tenth of the points) is scored one by one: exact; a common one walks the graph.
    const rare = { must: [{ key: 'group', match: { value: 'rare' } }] };
    expectSame(
      await imageSearch(client, q, 5, { filter: rare }),
      modelSearch('image', q, 5, (_, p) => p.payload.group === 'rare'),
    );
    const even = { must: [{ key: 'group', match: { value: 'even' } }] };
    const want = modelSearch('image', q, 10, (_, p) => p.payload.group === 'even');
    const got = await imageSearch(client, q, 10, { filter: even });
    expect(got.every((h) => model.get(Number(h.id))!.payload.group === 'even')).toBe(true);
    expect(got).toHaveLength(10);
    found += recall(got, want) * 10;
    wanted += 10;
  }
  expect(found / wanted).toBeGreaterThanOrEqual(0.9);
  // The primary vector is searched by its name as before.
  const q = randomVector(TEXT_DIM);
  expectSame(await client.search(NAME, { vector: { name: 'text', vector: q }, limit: 10, params: { exact: true } }), modelSearch('text', q, 10));
}

beforeAll(async () => {
  served = await serveForQdrantClients('strata-secondary-');
  ({ s, rest: client, grpc } = served);
  await client.createCollection(NAME, {
    vectors: { text: { size: TEXT_DIM, distance: 'Cosine' }, image: { size: IMAGE_DIM, distance: 'Euclid' } },
  });
  for (let i = 0; i < POINTS; i++)
    model.set(i, {
      text: randomVector(TEXT_DIM),
      ...(i % 4 === 3 ? {} : { image: randomVector(IMAGE_DIM) }),
      payload: { group: i % 10 === 0 ? 'rare' : i % 2 === 0 ? 'even' : 'odd', n: i },
    });
  await client.upsert(NAME, { wait: true, points: [...model.keys()].map(pointOf) });
}, 60_000);

afterAll(async () => {
  await served?.close();
});

describe('secondary dense vectors', () => {
  it('are reported in the collection info with their size and distance, over REST and gRPC', async () => {
    const info = await client.getCollection(NAME);
    expect(info.config.params.vectors).toEqual({
      text: { size: TEXT_DIM, distance: 'Cosine', on_disk: false },
      image: { size: IMAGE_DIM, distance: 'Euclid', on_disk: false },
    });
    const bytes = (info as unknown as { strata: { secondary_bytes: Record<string, number> } }).strata.secondary_bytes;
    expect(Object.keys(bytes)).toEqual(['image']);
    expect(bytes['image']!).toBeGreaterThan(POINTS * 0.75 * IMAGE_DIM * 4);
    // The memory by part counts it in DRAM, as the info does.
    const memory = (await (await fetch(`${s.rest}/collections/${NAME}/memory`)).json()) as {
      result: { parts: Array<{ part: string; dram: number; cxl: number }> };
    };
    expect(memory.result.parts.find((p) => p.part === 'vector image')).toEqual({ part: 'vector image', dram: bytes['image'], cxl: 0 });
    const g = await grpc.api('collections').get({ collectionName: NAME });
    const map = g.result?.config?.params?.vectorsConfig?.config;
    expect(map?.case).toBe('paramsMap');
    const params = (map!.value as { map: Record<string, { size: bigint; distance: number }> }).map;
    expect(Object.fromEntries(Object.entries(params).map(([n, p]) => [n, Number(p.size)]))).toEqual({ text: TEXT_DIM, image: IMAGE_DIM });
  });

  it('are searched by name: exactly as the model ranks them, and by their graph at high recall, with and without filters', async () => {
    await checkSearches();
  });

  it('never answer fewer than limit while limit points match', async () => {
    // Points 0..9 of group rare that hold an image: fewer than 16 of them in all.
    const filter = {
      must: [
        { key: 'n', range: { lt: 100 } },
        { key: 'group', match: { value: 'rare' } },
      ],
    };
    const want = modelSearch('image', randomVector(IMAGE_DIM), 50, (_, p) => p.payload.n < 100 && p.payload.group === 'rare');
    const got = await imageSearch(client, randomVector(IMAGE_DIM), 50, { filter });
    expect(got.map((h) => Number(h.id)).sort((a, b) => a - b)).toEqual(want.map((h) => h.id).sort((a, b) => a - b));
  });

  it('are searched by the query API: using, by id (left out), recommend, discover, and fused with the primary', async () => {
    const q = randomVector(IMAGE_DIM);
    const exact = { params: { exact: true } };
    expectSame((await client.query(NAME, { query: q, using: 'image', limit: 10, ...exact })).points, modelSearch('image', q, 10));
    const byId = (await client.query(NAME, { query: 4, using: 'image', limit: 5, ...exact })).points;
    expectSame(
      byId,
      modelSearch('image', model.get(4)!.image!, 5, (id) => id !== 4),
    );
    // average_vector: 2 × mean(positive) − mean(negative), in the image vector's space.
    const [a, b, n] = [model.get(1)!.image!, model.get(2)!.image!, model.get(5)!.image!];
    const rec = a.map((x, i) => x + b[i]! - n[i]!);
    const recommended = (await client.query(NAME, { query: { recommend: { positive: [1, 2], negative: [5] } }, using: 'image', limit: 5, ...exact })).points;
    expectSame(recommended, modelSearch('image', rec, 8, (id) => ![1, 2, 5].includes(id)).slice(0, 5));
    // Discovery: scored by how many pairs rank each point nearer the positive, then by the target (image space).
    const disc = (await client.query(NAME, { query: { discover: { target: 6, context: [{ positive: 8, negative: 9 }] } }, using: 'image', limit: 5, ...exact }))
      .points;
    const sim = (x: number[], y: number[]) => -euclid(x, y);
    const [t, p, ng] = [model.get(6)!.image!, model.get(8)!.image!, model.get(9)!.image!];
    const wantDisc = [...model.entries()]
      .filter(([id, m]) => m.image !== undefined && ![6, 8, 9].includes(id))
      .map(([id, m]) => {
        const rank = sim(m.image!, p) > sim(m.image!, ng) ? 0 : -1;
        const s = sim(m.image!, t);
        return { id, score: rank + 1 / (1 + Math.exp(-s)) };
      })
      .sort((x, y) => y.score - x.score || x.id - y.id)
      .slice(0, 5);
    expect(disc.map((h) => Number(h.id))).toEqual(wantDisc.map((h) => h.id));
    // Hybrid: RRF of a text prefetch and an image prefetch.
    const tq = randomVector(TEXT_DIM);
    const lists = [modelSearch('text', tq, 20), modelSearch('image', q, 20)];
    const rrf = new Map<number, number>();
    for (const list of lists) list.forEach((h, r) => rrf.set(h.id, (rrf.get(h.id) ?? 0) + 1 / (r + 2)));
    const want = [...rrf].map(([id, score]) => ({ id, score })).sort((x, y) => y.score - x.score || x.id - y.id);
    const fused = await client.query(NAME, {
      prefetch: [
        { query: tq, using: 'text', limit: 20, ...exact },
        { query: q, using: 'image', limit: 20, ...exact },
      ],
      query: { fusion: 'rrf' },
      limit: 10,
    });
    expectSame(fused.points, want.slice(0, 10));
    // An image query re-scoring text candidates: only those holding an image, by their image distance.
    const rescored = (await client.query(NAME, { prefetch: [{ query: tq, using: 'text', limit: 30, ...exact }], query: q, using: 'image', limit: 30 })).points;
    const ids = new Set(modelSearch('text', tq, 30).map((h) => h.id));
    expectSame(
      rescored,
      modelSearch('image', q, 30, (id) => ids.has(id)),
    );
  });

  it('group search results by a payload key', async () => {
    const q = randomVector(IMAGE_DIM);
    const g = await client.searchPointGroups(NAME, {
      vector: { name: 'image', vector: q },
      group_by: 'group',
      limit: 3,
      group_size: 2,
      params: { exact: true },
    });
    const best = modelSearch('image', q, POINTS);
    const groups = [...new Set(best.map((h) => model.get(h.id)!.payload.group))];
    expect(g.groups.map((x) => x.id)).toEqual(groups);
    for (const group of g.groups) expectSame(group.hits, best.filter((h) => model.get(h.id)!.payload.group === group.id).slice(0, 2));
  });

  it('are the matrix’s vectors with using, and the recommend route’s', async () => {
    const m = await client.searchMatrixPairs(NAME, { sample: 20, limit: 2, using: 'image' });
    expect(m.pairs.length).toBe(40);
    for (const pair of m.pairs) {
      const [x, y] = [model.get(Number(pair.a))!, model.get(Number(pair.b))!];
      expect(pair.score).toBeCloseTo(euclid(x.image!, y.image!), 4);
    }
    const rec = await client.recommend(NAME, { positive: [1], using: 'image', limit: 3, params: { exact: true } });
    expectSame(rec, modelSearch('image', model.get(1)!.image!, 4, (id) => id !== 1).slice(0, 3));
  });

  it('are answered by name with with_vector, and not for a point without one', async () => {
    const [p] = await client.retrieve(NAME, { ids: [2, 3], with_vector: true });
    expect(p!.vector).toEqual({ text: unit(model.get(2)!.text), image: model.get(2)!.image });
    const [, three] = await client.retrieve(NAME, { ids: [2, 3], with_vector: true });
    expect(three!.vector).toEqual({ text: unit(model.get(3)!.text) });
    const [only] = await client.retrieve(NAME, { ids: [2], with_vector: ['image'] });
    expect(only!.vector).toEqual({ image: model.get(2)!.image });
    const got = (await (await fetch(`${s.rest}/collections/${NAME}/points/2`)).json()) as { result: { vector: unknown } };
    expect(got.result.vector).toEqual({ text: unit(model.get(2)!.text), image: model.get(2)!.image });
  });

  it('take updates, deletes and replacement: a later search sees each write whole', async () => {
    const far = Array.from({ length: IMAGE_DIM }, () => 50);
    await client.updateVectors(NAME, { wait: true, points: [{ id: 7, vector: { image: far } }] });
    model.get(7)!.image = far;
    const [seven] = await client.retrieve(NAME, { ids: [7], with_vector: ['text'] });
    expect(seven!.vector).toEqual({ text: unit(model.get(7)!.text) });
    expect((await imageSearch(client, far, 1)).map((h) => Number(h.id))).toEqual([7]);
    await client.deleteVectors(NAME, { wait: true, points: [7], vector: ['image'] });
    delete model.get(7)!.image;
    expect((await imageSearch(client, far, 1)).map((h) => Number(h.id))).not.toEqual([7]);
    // An upsert replaces the point whole: an image it leaves out is gone.
    model.set(8, { text: randomVector(TEXT_DIM), payload: { group: 'odd', n: 8 } });
    await client.upsert(NAME, { wait: true, points: [pointOf(8)] });
    await client.delete(NAME, { wait: true, points: [10] });
    model.delete(10);
    model.set(900, { text: randomVector(TEXT_DIM), payload: { group: 'even', n: 900 } });
    model.set(901, { text: randomVector(TEXT_DIM), image: far.map((x) => x + 1), payload: { group: 'odd', n: 901 } });
    await client.batchUpdate(NAME, {
      wait: true,
      operations: [
        {
          upsert: {
            batch: {
              ids: [900, 901],
              vectors: { text: [model.get(900)!.text, model.get(901)!.text], image: [null, model.get(901)!.image!] },
              payloads: [model.get(900)!.payload, model.get(901)!.payload],
            },
          },
        },
      ] as never,
    });
    for (const q of [far, randomVector(IMAGE_DIM), model.get(12)!.image!])
      expectSame(await imageSearch(client, q, 20, { params: { exact: true } }), modelSearch('image', q, 20));
  });

  it('refuse bad input naming the field, and write nothing', async () => {
    const cases: Array<[() => Promise<unknown>, RegExp]> = [
      [() => imageSearch(client, randomVector(TEXT_DIM), 3), /^vector: expected 6 dimensions, got 4/],
      [() => imageSearch(client, randomVector(IMAGE_DIM), 3, { params: { filter_plan: 'scan' }, filter: { must: [] } }), /^params\.filter_plan: /],
      [
        () => post(`/collections/${NAME}/points/search`, { vector: { name: 'image', vector: randomVector(IMAGE_DIM) }, limit: 3, with_stats: true }),
        /^with_stats: /,
      ],
      [
        () => client.upsert(NAME, { wait: true, points: [{ id: 5, vector: { text: randomVector(TEXT_DIM), image: [1, 2] } }] }),
        /^points\[0\]\.vector\.image: /,
      ],
      [() => client.upsert(NAME, { wait: true, points: [{ id: 5, vector: { image: randomVector(IMAGE_DIM) } }] }), /^points\[0\]\.vector\.text: required/],
      [() => client.deleteVectors(NAME, { points: [5], vector: ['text'] }), /^vector\[0\]: a point's primary dense vector cannot be deleted/],
      [
        () => client.query(NAME, { query: randomVector(IMAGE_DIM), using: 'sound' }),
        /^using: no vector named "sound": this collection has dense vectors "text", "image"/,
      ],
      [
        () => client.createCollection('x', { vectors: { a: { size: 2, distance: 'Dot' }, b: { size: 2, distance: 'Dot', hnsw_config: { m: 8 } } } }),
        /^vectors\.b\.hnsw_config: /,
      ],
      [() => client.createCollection('x', { vectors: { a: { size: 2, distance: 'Dot' }, b: { size: 0, distance: 'Dot' } } }), /^vectors\.b\.size: /],
    ];
    for (const [call, message] of cases) {
      const r = await refusal(call());
      expect([r.status, r.error]).toEqual([400, expect.stringMatching(message)]);
    }
    const [five] = await client.retrieve(NAME, { ids: [5], with_vector: true });
    expect(five!.vector).toEqual({ text: unit(model.get(5)!.text), image: model.get(5)!.image });
    expect((await client.collectionExists('x')).exists).toBe(false);
  });

  it('work through the gRPC client as through REST: upsert by name, search with vector_name, get', async () => {
    const id = (n: bigint) => ({ pointIdOptions: { case: 'num' as const, value: n } });
    const image = randomVector(IMAGE_DIM);
    const text = randomVector(TEXT_DIM);
    await grpc.api('points').upsert({
      collectionName: NAME,
      wait: true,
      points: [{ id: id(950n), vectors: { vectorsOptions: { case: 'vectors', value: { vectors: { text: { data: text }, image: { data: image } } } } } }],
    } as never);
    model.set(950, { text, image, payload: { group: '', n: 0 } });
    const r = await grpc.api('points').search({ collectionName: NAME, vector: image, vectorName: 'image', limit: 10n, params: { exact: true } } as never);
    expectSame(
      r.result.map((h) => ({ id: h.id!.pointIdOptions.value, score: h.score })),
      modelSearch('image', image, 10),
    );
    const got = await grpc
      .api('points')
      .get({ collectionName: NAME, ids: [id(950n)], withVectors: { selectorOptions: { case: 'include', value: { names: ['image'] } } } } as never);
    const out = got.result[0]!.vectors?.vectorsOptions;
    expect(out?.case).toBe('vectors');
    const vectors = (out!.value as { vectors: Record<string, { data: number[] }> }).vectors;
    expect(Object.keys(vectors)).toEqual(['image']);
    vectors['image']!.data.forEach((x, i) => expect(x).toBeCloseTo(image[i]!, 5));
  });

  it('keep every answer through a compaction, a snapshot and a restart after SIGKILL', async () => {
    const queries = [randomVector(IMAGE_DIM), model.get(12)!.image!];
    const exact = { params: { exact: true } };
    const r = await fetch(`${s.rest}/collections/${NAME}/compact`, { method: 'POST' });
    expect(r.status).toBe(200);
    for (const q of queries) expectSame(await imageSearch(client, q, 10, exact), modelSearch('image', q, 10));
    // The compaction built the image vectors a tiered base of their own: most of their bytes sit in
    // the CXL tier now, and every search answers from it as before.
    const memory = (await (await fetch(`${s.rest}/collections/${NAME}/memory`)).json()) as {
      result: { parts: Array<{ part: string; dram: number; cxl: number }> };
    };
    const image = memory.result.parts.find((p) => p.part === 'vector image')!;
    expect(image.cxl).toBeGreaterThan(image.dram);
    await checkSearches();
    // A write after the compaction is in the log only: it must be replayed over the compacted state.
    const late = Array.from({ length: IMAGE_DIM }, () => -40);
    await client.updateVectors(NAME, { wait: true, points: [{ id: 14, vector: { image: late } }] });
    model.get(14)!.image = late;
    await snapshotKillRestart(served, NAME, async (again) => {
      for (const c of [NAME, 'copy']) {
        for (const q of [...queries, late]) {
          const got = await again.search(c, { vector: { name: 'image', vector: q }, limit: 10, ...exact });
          expectSame(got, modelSearch('image', q, 10));
        }
        const tq = randomVector(TEXT_DIM);
        expectSame(await again.search(c, { vector: { name: 'text', vector: tq }, limit: 10, ...exact }), modelSearch('text', tq, 10));
      }
    });
  });
});
