// Sparse vectors (Qdrant's sparse_vectors) through the official REST and gRPC clients against a real
// `strata serve --data-dir`: a collection with an unnamed dense vector and two named sparse ones
// (one IDF-weighted); every answer checked against a brute-force model kept in the test (dot
// products, IDF, filters, RRF and DBSF hybrid fusion); vector updates and deletes; bad input refused
// naming the field with nothing written; the same answers over gRPC; and everything kept through a
// compaction, a snapshot and a restart after SIGKILL.
import type { QdrantClient as GrpcClient } from '@qdrant/js-client-grpc';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../common/random.js';
import { type QdrantServed, refusal, serveForQdrantClients, snapshotKillRestart } from './qdrant-served.js';
import type { ServeChild } from './serve-child.js';

const NAME = 'hybrid';
const DIM = 4;
const POINTS = 300;
let served: QdrantServed;
let s: ServeChild;
let client: QdrantClient;
let grpc: GrpcClient;

type Sparse = { indices: number[]; values: number[] };
interface ModelPoint {
  dense: number[];
  text?: Sparse;
  tags?: Sparse;
  payload: { group: string; n: number };
}
/** What the collection should hold: the test's own brute-force model. */
const model = new Map<number, ModelPoint>();

const rnd = mulberry32(7);
/** A sparse vector over a small vocabulary (so that terms are shared and IDF varies), indices unsorted as clients send them. */
function randomSparse(vocab: number, terms: number): Sparse {
  const picked = new Set<number>();
  while (picked.size < terms) picked.add(Math.floor(rnd() * rnd() * vocab));
  const indices = [...picked].sort(() => rnd() - 0.5);
  return { indices, values: indices.map(() => Math.round(rnd() * 40) / 8 + 0.125) };
}
// Rounded to float32 here, as the server stores them.
const denseOf = (i: number): number[] => [Math.cos(i), Math.sin(i), (i % 9) / 9, 1].map(Math.fround);

function idf(name: 'text' | 'tags', dim: number): number {
  if (name === 'tags') return 1;
  const holders = [...model.values()].filter((p) => p.text !== undefined);
  const n = holders.filter((p) => p.text!.indices.includes(dim)).length;
  return Math.log(1 + (holders.length - n + 0.5) / (n + 0.5));
}

/**
 * The model's best `limit` by the named sparse vector against q, ties by id: a search takes only
 * points sharing a dimension with q; a re-scoring (`anyHolder`) every point holding the vector.
 */
function modelSearch(
  name: 'text' | 'tags',
  q: Sparse,
  limit: number,
  keep: (id: number, p: ModelPoint) => boolean = () => true,
  anyHolder = false,
): Array<{ id: number; score: number }> {
  const out: Array<{ id: number; score: number }> = [];
  for (const [id, p] of model) {
    const v = p[name];
    if (v === undefined || !keep(id, p)) continue;
    let shared = false;
    let score = 0;
    q.indices.forEach((d, j) => {
      const at = v.indices.indexOf(d);
      if (at < 0) return;
      shared = true;
      score += q.values[j]! * idf(name, d) * v.values[at]!;
    });
    if (shared || anyHolder) out.push({ id, score });
  }
  return out.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, limit);
}

function expectSame(got: Array<{ id: unknown; score: number }>, want: Array<{ id: number; score: number }>): void {
  expect(got.map((h) => Number(h.id))).toEqual(want.map((h) => h.id));
  got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 4));
}

const search = (c: QdrantClient, name: string, q: Sparse, limit: number, filter?: unknown) =>
  c.search(NAME, { vector: { name, vector: q }, limit, ...(filter ? { filter } : {}) } as never);

beforeAll(async () => {
  served = await serveForQdrantClients('strata-sparse-');
  ({ s, rest: client, grpc } = served);
  await client.createCollection(NAME, {
    vectors: { size: DIM, distance: 'Euclid' },
    sparse_vectors: { text: { modifier: 'idf' }, tags: { index: { on_disk: false } } },
  } as never);
  const points = Array.from({ length: POINTS }, (_, i) => {
    const p: ModelPoint = { dense: denseOf(i), payload: { group: i % 3 === 0 ? 'a' : 'b', n: i } };
    if (i % 5 !== 4) p.text = randomSparse(60, 1 + (i % 6));
    if (i % 2 === 0) p.tags = randomSparse(12, 2);
    model.set(i, p);
    const vector: Record<string, unknown> = { '': p.dense };
    if (p.text) vector['text'] = p.text;
    if (p.tags) vector['tags'] = p.tags;
    return { id: i, vector, payload: p.payload };
  });
  await client.upsert(NAME, { wait: true, points } as never);
}, 60_000);

afterAll(async () => {
  await served?.close();
});

describe('sparse vectors', () => {
  it('are reported in the collection info, over REST and gRPC', async () => {
    const info = await client.getCollection(NAME);
    expect((info.config.params as { sparse_vectors?: unknown }).sparse_vectors).toEqual({ text: { modifier: 'idf' }, tags: {} });
    const bytes = (info as unknown as { strata: { sparse_bytes: Record<string, number> } }).strata.sparse_bytes;
    expect(Object.keys(bytes).sort()).toEqual(['tags', 'text']);
    // The text column holds more entries than the tags one: its bytes say so.
    expect(bytes['text']!).toBeGreaterThan(bytes['tags']!);
    // The memory by part counts each column in DRAM, as the info does.
    const memory = (await (await fetch(`${s.rest}/collections/${NAME}/memory`)).json()) as {
      result: { parts: Array<{ part: string; dram: number; cxl: number }> };
    };
    for (const name of ['text', 'tags'])
      expect(memory.result.parts.find((p) => p.part === `sparse vector ${name}`)).toEqual({ part: `sparse vector ${name}`, dram: bytes[name], cxl: 0 });
    const g = await grpc.api('collections').get({ collectionName: NAME });
    const map = g.result?.config?.params?.sparseVectorsConfig?.map ?? {};
    expect(Object.fromEntries(Object.entries(map).map(([n, p]) => [n, p.modifier ?? 0]))).toEqual({ text: 1, tags: 0 });
  });

  it('are searched exactly, as the model scores them (dot products, IDF), with and without a filter', async () => {
    for (let t = 0; t < 12; t++) {
      const q = randomSparse(60, 1 + (t % 4));
      expectSame(await search(client, 'text', q, 10), modelSearch('text', q, 10));
      const filter = { must: [{ key: 'group', match: { value: 'a' } }] };
      expectSame(
        await search(client, 'text', q, 7, filter),
        modelSearch('text', q, 7, (_, p) => p.payload.group === 'a'),
      );
      const tq = randomSparse(12, 2);
      expectSame(await search(client, 'tags', tq, 15), modelSearch('tags', tq, 15));
    }
  });

  it('are searched by the query API: a sparse vector, {nearest: it}, and a point id (left out of its answer)', async () => {
    const q = randomSparse(60, 3);
    const want = modelSearch('text', q, 10);
    expectSame((await client.query(NAME, { query: q, using: 'text', limit: 10 } as never)).points, want);
    expectSame((await client.query(NAME, { query: { nearest: q }, using: 'text', limit: 10 } as never)).points, want);
    const byId = (await client.query(NAME, { query: 12, using: 'text', limit: 5 } as never)).points;
    expectSame(byId, modelSearch('text', model.get(12)!.text!, 6, (id) => id !== 12).slice(0, 5));
  });

  it('fuse with the dense vector in one hybrid query, RRF and DBSF, as the model ranks them', async () => {
    const q = randomSparse(60, 3);
    const dense = denseOf(41).map((x) => x + 0.05);
    const sparseHits = modelSearch('text', q, 20);
    const denseHits = [...model.entries()]
      .map(([id, p]) => ({ id, score: Math.hypot(...p.dense.map((x, d) => x - dense[d]!)) }))
      .sort((a, b) => a.score - b.score || a.id - b.id)
      .slice(0, 20);
    const prefetch = [
      { query: q, using: 'text', limit: 20 },
      { query: dense, limit: 20, params: { exact: true } },
    ];
    const rrf = new Map<number, number>();
    for (const list of [sparseHits, denseHits]) list.forEach((h, r) => rrf.set(h.id, (rrf.get(h.id) ?? 0) + 1 / (r + 2)));
    const want = [...rrf].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
    expectSame((await client.query(NAME, { prefetch, query: { fusion: 'rrf' }, limit: 10 } as never)).points, want.slice(0, 10));
    // DBSF: each list normalised at mean ± 3σ, the dense one turned round (its scores are distances).
    const norm = (list: Array<{ id: number; score: number }>, sign: number) => {
      const xs = list.map((h) => sign * h.score);
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
      return list.map((h, i) => ({ id: h.id, score: (xs[i]! - (mean - 3 * sd)) / (6 * sd) }));
    };
    const dbsf = new Map<number, number>();
    for (const h of [...norm(sparseHits, 1), ...norm(denseHits, -1)]) dbsf.set(h.id, (dbsf.get(h.id) ?? 0) + h.score);
    const wantD = [...dbsf].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
    expectSame((await client.query(NAME, { prefetch, query: { fusion: 'dbsf' }, limit: 10 } as never)).points, wantD.slice(0, 10));
    // A sparse query re-scoring dense candidates: only those holding the sparse vector, by their sparse score.
    const rescored = (await client.query(NAME, { prefetch: [prefetch[1]], query: q, using: 'text', limit: 20 } as never)).points;
    const ids = new Set(denseHits.map((h) => h.id));
    expectSame(rescored, modelSearch('text', q, POINTS, (id) => ids.has(id), true).slice(0, 20));
  });

  it('are answered by name with with_vector and by GET of the point, beside the dense vector', async () => {
    const [p] = await client.retrieve(NAME, { ids: [2], with_vector: true });
    const m = model.get(2)!;
    const sorted = (v: Sparse): Sparse => {
      const order = v.indices.map((_, i) => i).sort((a, b) => v.indices[a]! - v.indices[b]!);
      return { indices: order.map((i) => v.indices[i]!), values: order.map((i) => v.values[i]!) };
    };
    expect(p!.vector).toEqual({ '': m.dense, text: sorted(m.text!), tags: sorted(m.tags!) });
    const got = (await (await fetch(`${s.rest}/collections/${NAME}/points/2`)).json()) as { result: { vector: unknown } };
    expect(got.result.vector).toEqual({ '': m.dense, text: sorted(m.text!), tags: sorted(m.tags!) });
    const [only] = await client.retrieve(NAME, { ids: [2], with_vector: ['tags'] });
    expect(only!.vector).toEqual({ tags: sorted(m.tags!) });
    const [hit] = await client.search(NAME, { vector: { name: 'tags', vector: m.tags! }, limit: 1, with_vector: ['text'] } as never);
    expect(Object.keys(hit!.vector as object)).toEqual(model.get(Number(hit!.id))!.text ? ['text'] : []);
  });

  it('take updates, deletes and replacement: a later search sees each write whole', async () => {
    const fresh = { indices: [500, 501], values: [2, 3] };
    await client.updateVectors(NAME, { wait: true, points: [{ id: 7, vector: { text: fresh } }] } as never);
    model.get(7)!.text = fresh;
    const [seven] = await client.retrieve(NAME, { ids: [7], with_vector: [''] });
    expect(seven!.vector).toEqual({ '': model.get(7)!.dense });
    expectSame(await search(client, 'text', { indices: [500], values: [1] }, 3), modelSearch('text', { indices: [500], values: [1] }, 3));
    await client.deleteVectors(NAME, { wait: true, points: [7], vector: ['text'] });
    delete model.get(7)!.text;
    expect(await search(client, 'text', { indices: [500], values: [1] }, 3)).toEqual([]);
    // An upsert replaces the point whole: a sparse vector it leaves out is gone.
    await client.upsert(NAME, { wait: true, points: [{ id: 8, vector: [0, 0, 0, 1], payload: { group: 'b', n: 8 } }] });
    model.set(8, { dense: [0, 0, 0, 1], payload: { group: 'b', n: 8 } });
    await client.delete(NAME, { wait: true, points: [10] });
    model.delete(10);
    await client.batchUpdate(NAME, {
      wait: true,
      operations: [{ upsert: { batch: { ids: [900, 901], vectors: { '': [denseOf(900), denseOf(901)], tags: [null, { indices: [3], values: [9] }] } } } }],
    } as never);
    model.set(900, { dense: denseOf(900), payload: { group: '', n: 0 } });
    model.set(901, { dense: denseOf(901), tags: { indices: [3], values: [9] }, payload: { group: '', n: 0 } });
    for (const q of [model.get(12)!.text!, randomSparse(60, 4)]) expectSame(await search(client, 'text', q, 20), modelSearch('text', q, 20));
    expectSame(await search(client, 'tags', { indices: [3], values: [1] }, 50), modelSearch('tags', { indices: [3], values: [1] }, 50));
  });

  it('refuse bad input naming the field, and write nothing', async () => {
    const cases: Array<[() => Promise<unknown>, RegExp]> = [
      [() => search(client, 'text', { indices: [1, 1], values: [1, 2] }, 3), /^vector\.vector\.indices\[1\]: index 1 is repeated/],
      [() => search(client, 'text', { indices: [1, 2], values: [1] }, 3), /^vector\.vector\.values: /],
      [() => search(client, 'words', { indices: [1], values: [1] }, 3), /^vector\.name: no vector named "words"/],
      [
        () => client.search(NAME, { vector: { name: 'text', vector: { indices: [1], values: [1] } }, limit: 3, params: { hnsw_ef: 64 } } as never),
        /^params\.hnsw_ef: /,
      ],
      [() => client.query(NAME, { query: [1, 2, 3, 4], using: 'text' } as never), /^query: using names the sparse vector "text"/],
      [
        () => client.upsert(NAME, { wait: true, points: [{ id: 5, vector: { text: { indices: [1], values: [1] } } }] } as never),
        /^points\[0\]\.vector\[""\]: required/,
      ],
      [
        () => client.upsert(NAME, { wait: true, points: [{ id: 5, vector: { '': denseOf(5), text: { indices: [-1], values: [1] } } }] } as never),
        /^points\[0\]\.vector\.text\.indices\[0\]/,
      ],
      [() => client.deleteVectors(NAME, { points: [5], vector: [''] }), /^vector\[0\]: a point's primary dense vector cannot be deleted/],
      [
        () => client.createCollection('x', { vectors: { size: 2, distance: 'Dot' }, sparse_vectors: { s: { index: { full_scan_threshold: 10 } } } } as never),
        /^sparse_vectors\.s\.index\.full_scan_threshold/,
      ],
      [
        () => client.createCollection('x', { vectors: { size: 2, distance: 'Dot' }, sparse_vectors: { s: { index: { on_disk: true } } } } as never),
        /^sparse_vectors\.s\.index\.on_disk/,
      ],
      [
        () => client.createCollection('x', { vectors: { size: 2, distance: 'Dot' }, sparse_vectors: { s: { modifier: 'bm25' } } } as never),
        /^sparse_vectors\.s\.modifier/,
      ],
    ];
    for (const [call, message] of cases) {
      const r = await refusal(call());
      expect([r.status, r.error]).toEqual([400, expect.stringMatching(message)]);
    }
    const [five] = await client.retrieve(NAME, { ids: [5], with_vector: true });
    expect(five!.vector).toEqual(expect.objectContaining({ '': model.get(5)!.dense }));
    expect((await client.collectionExists('x')).exists).toBe(false);
  });

  it('work through the gRPC client as through REST: upsert, search with sparse_indices, query, get', async () => {
    const id = (n: bigint) => ({ pointIdOptions: { case: 'num' as const, value: n } });
    const v = { indices: [700, 3], values: [4, 0.5] };
    await grpc.api('points').upsert({
      collectionName: NAME,
      wait: true,
      points: [
        {
          id: id(950n),
          vectors: {
            vectorsOptions: {
              case: 'vectors',
              value: { vectors: { '': { data: denseOf(950) }, tags: { vector: { case: 'sparse', value: v } } } },
            },
          },
        },
      ],
    } as never);
    model.set(950, { dense: denseOf(950), tags: v, payload: { group: '', n: 0 } });
    const q = { indices: [3, 700], values: [1, 1] };
    const want = modelSearch('tags', q, 10);
    const r = await grpc
      .api('points')
      .search({ collectionName: NAME, vector: q.values, vectorName: 'tags', sparseIndices: { data: q.indices }, limit: 10n } as never);
    expectSame(
      r.result.map((h) => ({ id: h.id!.pointIdOptions.value, score: h.score })),
      want,
    );
    const qr = await grpc.api('points').query({
      collectionName: NAME,
      query: { variant: { case: 'nearest', value: { variant: { case: 'sparse', value: q } } } },
      using: 'tags',
      limit: 10n,
    } as never);
    expectSame(
      qr.result.map((h) => ({ id: h.id!.pointIdOptions.value, score: h.score })),
      want,
    );
    const got = await grpc
      .api('points')
      .get({ collectionName: NAME, ids: [id(950n)], withVectors: { selectorOptions: { case: 'include', value: { names: ['tags'] } } } } as never);
    const out = got.result[0]!.vectors?.vectorsOptions;
    expect(out?.case).toBe('vectors');
    const tags = (out!.value as { vectors: Record<string, { vector: { case: string; value: Sparse } }> }).vectors['tags']!;
    expect(tags.vector.case).toBe('sparse');
    expect(tags.vector.value).toEqual(expect.objectContaining({ indices: [3, 700], values: [0.5, 4] }));
    await grpc.api('points').deleteVectors({
      collectionName: NAME,
      wait: true,
      pointsSelector: { pointsSelectorOneOf: { case: 'points', value: { ids: [id(950n)] } } },
      vectors: { names: ['tags'] },
    } as never);
    delete model.get(950)!.tags;
    expectSame(await search(client, 'tags', q, 10), modelSearch('tags', q, 10));
    expect(modelSearch('tags', q, 10).some((h) => h.id === 950)).toBe(false);
  });

  it('keep every answer through a compaction, a snapshot and a restart after SIGKILL', async () => {
    const queries = [randomSparse(60, 2), randomSparse(60, 5), model.get(12)!.text!];
    const r = await fetch(`${s.rest}/collections/${NAME}/compact`, { method: 'POST' });
    expect(r.status).toBe(200);
    for (const q of queries) expectSame(await search(client, 'text', q, 10), modelSearch('text', q, 10));
    // A write after the compaction is in the log only: it must be replayed over the compacted state.
    const late = { indices: [800], values: [5] };
    await client.updateVectors(NAME, { wait: true, points: [{ id: 14, vector: { text: late } }] } as never);
    model.get(14)!.text = late;
    await snapshotKillRestart(served, NAME, async (again) => {
      for (const c of [NAME, 'copy']) {
        for (const q of [...queries, late]) {
          const got = await again.search(c, { vector: { name: 'text', vector: q }, limit: 10 } as never);
          expectSame(got, modelSearch('text', q, 10));
        }
        expectSame(
          await again.search(c, { vector: { name: 'tags', vector: { indices: [3], values: [1] } }, limit: 50 } as never),
          modelSearch('tags', { indices: [3], values: [1] }, 50),
        );
      }
    });
  });
});
