// Vector updates (Qdrant's update_vectors) through the official REST and gRPC clients against a real
// `strata serve --data-dir`: new vectors for existing points, searched at once with their payloads
// kept, also inside a batch; refused whole when a point does not exist, a vector has the wrong size
// or a name; deleting the dense vector refused, naming it; the updates kept through a compaction and a
// SIGKILL restart.
import type { QdrantClient as GrpcClient } from '@qdrant/js-client-grpc';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TempDir } from '../helpers/temp.js';
import { type QdrantServed, refusal, serveForQdrantClients } from './qdrant-served.js';
import { checkAfterRestart, type ServeChild } from './serve-child.js';

const NAME = 'moving';
const DIM = 4;
let served: QdrantServed;
let tmp: TempDir;
let s: ServeChild;
let client: QdrantClient;
let grpc: GrpcClient;

const start = (i: number): number[] => [Math.cos(i), Math.sin(i), i / 50, 1];
const FAR = [100, 100, 100, 100];
const OTHER = [-100, 50, -100, 50];

/** The nearest point to v (exact), with its payload. */
async function nearest(rest: QdrantClient, v: number[]): Promise<{ id: number; payload: unknown }> {
  const [hit] = await rest.search(NAME, { vector: v, limit: 1, with_payload: true, params: { exact: true } });
  return { id: Number(hit!.id), payload: hit!.payload };
}

beforeAll(async () => {
  served = await serveForQdrantClients('strata-update-vectors-');
  ({ tmp, s, rest: client, grpc } = served);
  await client.createCollection(NAME, { vectors: { size: DIM, distance: 'Euclid' } });
  await client.upsert(NAME, { wait: true, points: Array.from({ length: 50 }, (_, i) => ({ id: i, vector: start(i), payload: { n: i, tag: `p${i}` } })) });
}, 60_000);

afterAll(async () => {
  await served?.close();
});

describe('vector updates', () => {
  it('replaces the vectors of existing points, searched at once, payloads kept', async () => {
    await client.updateVectors(NAME, { wait: true, points: [{ id: 3, vector: FAR }] });
    expect(await nearest(client, FAR)).toEqual({ id: 3, payload: { n: 3, tag: 'p3' } });
    const [p] = await client.retrieve(NAME, { ids: [3], with_vector: true, with_payload: true });
    expect(p!.vector).toEqual(FAR);
    expect(p!.payload).toEqual({ n: 3, tag: 'p3' });
    // Qdrant's named form with the one unnamed vector, and inside a batch.
    await client.batchUpdate(NAME, { wait: true, operations: [{ update_vectors: { points: [{ id: 7, vector: { '': OTHER } }] } }] });
    expect(await nearest(client, OTHER)).toEqual({ id: 7, payload: { n: 7, tag: 'p7' } });
    expect((await client.count(NAME, { exact: true })).count).toBe(50);
  });

  it('refuses the whole update when a point does not exist, a vector has the wrong size or a name', async () => {
    const missing = await refusal(
      client.updateVectors(NAME, {
        wait: true,
        points: [
          { id: 11, vector: OTHER },
          { id: 999, vector: OTHER },
        ],
      }),
    );
    expect(missing.status).toBe(404);
    expect(missing.error).toMatch(/no point with id "999"/);
    expect(await nearest(client, start(11))).toMatchObject({ id: 11 });
    const size = await refusal(client.updateVectors(NAME, { points: [{ id: 11, vector: [1, 2] }] }));
    expect([size.status, size.error]).toEqual([400, expect.stringMatching(/^points\[0\]\.vector: expected 4 dimensions, got 2/)]);
    const named = await refusal(client.updateVectors(NAME, { points: [{ id: 11, vector: { image: [1, 2, 3, 4] } }] }));
    expect([named.status, named.error]).toEqual([
      400,
      expect.stringMatching(/^points\[0\]\.vector\.image: no vector named "image": this collection has one unnamed dense vector/),
    ]);
  });

  it("refuses to delete a point's dense vector, naming the field", async () => {
    const r = await refusal(client.deleteVectors(NAME, { points: [3], vector: [''] }));
    expect([r.status, r.error]).toEqual([400, expect.stringMatching(/^vector\[0\]: a point's primary dense vector cannot be deleted/)]);
    const named = await refusal(client.deleteVectors(NAME, { points: [3], vector: ['image'] }));
    expect(named.error).toMatch(/^vector\[0\]: no vector named "image"/);
    expect((await nearest(client, FAR)).id).toBe(3);
  });

  it('takes updates over gRPC as over REST, and refuses deleting a vector there too', async () => {
    const v = [5, -5, 5, -5];
    await grpc.api('points').updateVectors({
      collectionName: NAME,
      wait: true,
      points: [{ id: { pointIdOptions: { case: 'num', value: 20n } }, vectors: { vectorsOptions: { case: 'vector', value: { data: v } } } }],
    } as never);
    expect(await nearest(client, v)).toEqual({ id: 20, payload: { n: 20, tag: 'p20' } });
    await expect(
      grpc.api('points').deleteVectors({
        collectionName: NAME,
        pointsSelector: { pointsSelectorOneOf: { case: 'points', value: { ids: [{ pointIdOptions: { case: 'num', value: 20n } }] } } },
        vectors: { names: [''] },
      } as never),
    ).rejects.toThrow(/vector\[0\]: a point's primary dense vector cannot be deleted/);
  });

  it('keeps the updates through a compaction and a restart after SIGKILL', async () => {
    const r = await fetch(`${s.rest}/collections/${NAME}/compact`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(await nearest(client, FAR)).toEqual({ id: 3, payload: { n: 3, tag: 'p3' } });
    await client.updateVectors(NAME, { wait: true, points: [{ id: 30, vector: [-7, -7, -7, -7] }] });
    s.child.kill('SIGKILL');
    await s.exited;
    await checkAfterRestart(tmp.path('data'), async (rest) => {
      const again = new QdrantClient({ url: rest });
      expect(await nearest(again, FAR)).toEqual({ id: 3, payload: { n: 3, tag: 'p3' } });
      expect(await nearest(again, OTHER)).toEqual({ id: 7, payload: { n: 7, tag: 'p7' } });
      expect(await nearest(again, [-7, -7, -7, -7])).toEqual({ id: 30, payload: { n: 30, tag: 'p30' } });
      expect((await again.count(NAME, { exact: true })).count).toBe(50);
    });
  });
});
