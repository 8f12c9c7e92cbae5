// A collection whose one vector is named, as Qdrant's clients and the frameworks on them create it
// (`vectors: {"text-dense": {size, distance}}`), through the official REST and gRPC clients against a
// real `strata serve --data-dir`: writes and searches in every form that names the vector, answers
// carrying the name, a wrong name or a missing one refused naming the field, more than one name
// refused at create, and the name kept through a restart after SIGKILL and a snapshot.
import type { QdrantClient as GrpcClient } from '@qdrant/js-client-grpc';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TempDir } from '../helpers/temp.js';
import { type QdrantServed, refusal, serveForQdrantClients } from './qdrant-served.js';
import { checkAfterRestart, type ServeChild } from './serve-child.js';

const NAME = 'docs';
const V = 'text-dense';
const DIM = 4;
let served: QdrantServed;
let tmp: TempDir;
let s: ServeChild;
let client: QdrantClient;
let grpc: GrpcClient;

const vec = (i: number): number[] => [Math.cos(i), Math.sin(i), (i % 7) / 7, 1];

beforeAll(async () => {
  served = await serveForQdrantClients('strata-named-vector-');
  ({ tmp, s, rest: client, grpc } = served);
  await client.createCollection(NAME, { vectors: { [V]: { size: DIM, distance: 'Cosine' } } });
  await client.upsert(NAME, { wait: true, points: Array.from({ length: 40 }, (_, i) => ({ id: i, vector: { [V]: vec(i) }, payload: { n: i } })) });
}, 60_000);

afterAll(async () => {
  await served?.close();
});

describe('a named vector', () => {
  it('is reported by name in the collection info, over REST and gRPC', async () => {
    const info = await client.getCollection(NAME);
    expect(info.config.params.vectors).toEqual({ [V]: { size: DIM, distance: 'Cosine', on_disk: false } });
    const g = await grpc.api('collections').get({ collectionName: NAME });
    const vc = g.result?.config?.params?.vectorsConfig?.config;
    expect(vc?.case).toBe('paramsMap');
    expect(Object.keys((vc!.value as { map: Record<string, unknown> }).map)).toEqual([V]);
  });

  it('is searched by {name, vector}, by the query API with using, and answered by name', async () => {
    const [hit] = await client.search(NAME, { vector: { name: V, vector: vec(5) }, limit: 1, with_vector: true, params: { exact: true } });
    expect(hit!.id).toBe(5);
    expect(Object.keys(hit!.vector as object)).toEqual([V]);
    const q = await client.query(NAME, { query: vec(9), using: V, limit: 1, params: { exact: true } });
    expect(q.points[0]!.id).toBe(9);
    const byId = await client.query(NAME, { query: 12, using: V, limit: 1, params: { exact: true } });
    expect(byId.points[0]!.id).not.toBe(12);
    const [p] = await client.retrieve(NAME, { ids: [3], with_vector: [V] });
    const stored = (p!.vector as Record<string, number[]>)[V]!;
    const norm = Math.hypot(...vec(3));
    stored.forEach((x, d) => expect(x).toBeCloseTo(vec(3)[d]! / norm, 5));
    const page = await client.scroll(NAME, { limit: 2, with_vector: true });
    expect(page.points.map((r) => Object.keys(r.vector as object))).toEqual([[V], [V]]);
  });

  it('takes columnar upserts, vector updates and batches that name it', async () => {
    await client.upsert(NAME, { wait: true, batch: { ids: [100, 101], vectors: { [V]: [vec(100), vec(101)] } } });
    await client.updateVectors(NAME, { wait: true, points: [{ id: 100, vector: { [V]: [0, 0, -1, 0] } }] });
    await client.batchUpdate(NAME, { wait: true, operations: [{ upsert: { points: [{ id: 102, vector: { [V]: [0, -1, 0, 0] } }] } }] });
    const near = async (v: number[]): Promise<unknown> =>
      (await client.search(NAME, { vector: { name: V, vector: v }, limit: 1, params: { exact: true } }))[0]!.id;
    expect(await near([0, 0, -1, 0])).toBe(100);
    expect(await near([0, -1, 0, 0])).toBe(102);
    expect((await client.count(NAME, { exact: true })).count).toBe(43);
  });

  it('refuses another name, and a vector given without its name, naming the field', async () => {
    const cases: Array<[() => Promise<unknown>, RegExp]> = [
      [() => client.search(NAME, { vector: vec(1), limit: 1 }), /^vector: no vector named "": this collection has one dense vector, named "text-dense"/],
      [() => client.search(NAME, { vector: { name: 'image', vector: vec(1) }, limit: 1 }), /^vector\.name: no vector named "image"/],
      [() => client.query(NAME, { query: vec(1), limit: 1 }), /^using: no vector named ""/],
      [() => client.query(NAME, { query: vec(1), using: 'image', limit: 1 }), /^using: no vector named "image"/],
      [() => client.upsert(NAME, { wait: true, points: [{ id: 1, vector: vec(1) }] }), /^points\[0\]\.vector: no vector named ""/],
      [() => client.upsert(NAME, { wait: true, points: [{ id: 1, vector: { image: vec(1) } }] }), /^points\[0\]\.vector\.image: no vector named "image"/],
      [() => client.retrieve(NAME, { ids: [1], with_vector: ['image'] }), /^with_vector\[0\]: no vector named "image"/],
      [() => client.recommend(NAME, { positive: [1], using: 'image', limit: 1 }), /^using: no vector named "image"/],
    ];
    for (const [call, message] of cases) {
      const r = await refusal(call());
      expect([r.status, r.error]).toEqual([400, expect.stringMatching(message)]);
    }
    // Nothing was written by the refused upserts.
    const [p] = await client.retrieve(NAME, { ids: [1], with_vector: true });
    expect((p!.vector as Record<string, number[]>)[V]![3]).toBeGreaterThan(0);
  });

  it('refuses at create more dense vectors than it takes, and a sparse vector named as a dense one', async () => {
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`v${i}`, { size: 4, distance: 'Dot' }]));
    const r = await refusal(client.createCollection('two', { vectors: many } as never));
    expect([r.status, r.error]).toEqual([400, expect.stringMatching(/^vectors: at most 16 dense vectors, got 17/)]);
    const clash = await refusal(
      client.createCollection('two', { vectors: { a: { size: 4, distance: 'Dot' }, b: { size: 8, distance: 'Dot' } }, sparse_vectors: { b: {} } }),
    );
    expect([clash.status, clash.error]).toEqual([400, expect.stringMatching(/^sparse_vectors\.b: names the dense vector too/)]);
    expect((await client.collectionExists('two')).exists).toBe(false);
  });

  it('works through the gRPC client: create with params_map, upsert, search with vector_name, get by name', async () => {
    const id = (n: bigint) => ({ pointIdOptions: { case: 'num' as const, value: n } });
    await grpc.api('collections').create({
      collectionName: 'g',
      vectorsConfig: { config: { case: 'paramsMap', value: { map: { [V]: { size: 4n, distance: 1 } } } } },
    } as never);
    await grpc.api('points').upsert({
      collectionName: 'g',
      wait: true,
      points: [1n, 2n].map((n) => ({
        id: id(n),
        vectors: { vectorsOptions: { case: 'vectors', value: { vectors: { [V]: { data: n === 1n ? [1, 0, 0, 0] : [0, 1, 0, 0] } } } } },
      })),
    } as never);
    const r = await grpc.api('points').search({
      collectionName: 'g',
      vector: [0, 1, 0, 0],
      vectorName: V,
      limit: 1n,
      withVectors: { selectorOptions: { case: 'enable', value: true } },
    } as never);
    expect(r.result[0]!.id?.pointIdOptions.value).toBe(2n);
    expect(r.result[0]!.vectors?.vectorsOptions.case).toBe('vectors');
    await expect(grpc.api('points').search({ collectionName: 'g', vector: [0, 1, 0, 0], limit: 1n } as never)).rejects.toThrow(/vector: no vector named ""/);
    const got = await grpc
      .api('points')
      .get({ collectionName: 'g', ids: [id(1n)], withVectors: { selectorOptions: { case: 'include', value: { names: [V] } } } } as never);
    const out = got.result[0]!.vectors?.vectorsOptions;
    expect(out?.case).toBe('vectors');
    expect(Object.keys((out!.value as { vectors: Record<string, unknown> }).vectors)).toEqual([V]);
  });

  it('keeps its name through a snapshot and a restart after SIGKILL', async () => {
    const snap = await client.createSnapshot(NAME);
    const location = `${s.rest}/collections/${NAME}/snapshots/${snap!.name}`;
    expect(await client.recoverSnapshot('copy', { location, checksum: snap!.checksum! })).toBe(true);
    s.child.kill('SIGKILL');
    await s.exited;
    await checkAfterRestart(tmp.path('data'), async (rest) => {
      const again = new QdrantClient({ url: rest });
      for (const c of [NAME, 'copy']) {
        expect((await again.getCollection(c)).config.params.vectors).toEqual({ [V]: { size: DIM, distance: 'Cosine', on_disk: false } });
        const [hit] = await again.search(c, { vector: { name: V, vector: vec(7) }, limit: 1, params: { exact: true } });
        expect(hit!.id).toBe(7);
      }
    });
  });
});
