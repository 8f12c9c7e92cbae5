// The search matrix (pairs and offsets) through the official REST and gRPC clients against a real
// `strata serve --data-dir`: a sample of the points matching the filter, each with its `limit`
// nearest others among the sample, checked against exact distances the test computes itself; the
// sample bounded by the work a request may do.
import type { QdrantClient as GrpcClient } from '@qdrant/js-client-grpc';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matrixRows, matrixRowsInTurns } from '../../server/api/search-matrix.js';
import { type QdrantServed, serveForQdrantClients } from './qdrant-served.js';
import type { ServeChild } from './serve-child.js';

const NAME = 'matrix';
let served: QdrantServed;
let s: ServeChild;
let client: QdrantClient;
let grpc: GrpcClient;
const vectors = Array.from({ length: 80 }, (_, i) => [Math.cos(i / 3), Math.sin(i / 5), (i % 9) / 9, 1]);
const dist = (a: number, b: number): number => Math.hypot(...vectors[a]!.map((x, d) => x - vectors[b]![d]!));

beforeAll(async () => {
  served = await serveForQdrantClients('strata-matrix-');
  ({ s, rest: client, grpc } = served);
  await client.createCollection(NAME, { vectors: { size: 4, distance: 'Euclid' } });
  await client.upsert(NAME, { wait: true, points: vectors.map((vector, id) => ({ id, vector, payload: { odd: id % 2 === 1 } })) });
}, 60_000);

afterAll(async () => {
  await served?.close();
});

/** Each sampled point's nearest others among the sample, by exact Euclidean distance (ties by sample position). */
function expectNearest(sample: number[], rows: Map<number, Array<{ b: number; score: number }>>, limit: number): void {
  expect([...rows.keys()].sort((x, y) => x - y)).toEqual([...sample].sort((x, y) => x - y));
  for (const [a, got] of rows) {
    const want = sample
      .filter((b) => b !== a)
      .map((b) => ({ b, d: dist(a, b) }))
      .sort((x, y) => x.d - y.d)
      .slice(0, limit);
    expect(got.map((g) => g.score)).toEqual(want.map((w) => expect.closeTo(w.d, 4)));
    for (const g of got) expect(g.score).toBeCloseTo(dist(a, g.b), 4);
  }
}

describe('search matrix', () => {
  it('pairs: a sample of the matching points, each with its nearest others among the sample', async () => {
    const r = await client.searchMatrixPairs(NAME, { sample: 12, limit: 3, filter: { must: [{ key: 'odd', match: { value: true } }] } });
    const rows = new Map<number, Array<{ b: number; score: number }>>();
    for (const p of r.pairs) rows.set(Number(p.a), [...(rows.get(Number(p.a)) ?? []), { b: Number(p.b), score: p.score }]);
    const sample = [...rows.keys()];
    expect(sample).toHaveLength(12);
    for (const a of sample) expect(a % 2).toBe(1);
    for (const got of rows.values()) expect(got).toHaveLength(3);
    for (const p of r.pairs) expect(sample).toContain(Number(p.b));
    expectNearest(sample, rows, 3);
  });

  it('offsets: the same matrix as positions into ids; a sample larger than the matches takes them all', async () => {
    const r = await client.searchMatrixOffsets(NAME, { sample: 500, limit: 2 });
    const ids = r.ids.map(Number);
    expect(ids.sort((x, y) => x - y)).toEqual(vectors.map((_, i) => i));
    const back = r.ids.map(Number);
    const rows = new Map<number, Array<{ b: number; score: number }>>();
    r.offsets_row.forEach((row, k) => {
      const a = back[row]!;
      rows.set(a, [...(rows.get(a) ?? []), { b: back[r.offsets_col[k]!]!, score: r.scores[k]! }]);
    });
    expectNearest(back, rows, 2);
  });

  it('answers over gRPC as over REST, and refuses a sample past the work limit naming it', async () => {
    const g = await grpc.api('points').searchMatrixPairs({ collectionName: NAME, sample: 10n, limit: 2n } as never);
    const rows = new Map<number, Array<{ b: number; score: number }>>();
    for (const p of g.result!.pairs) {
      const a = Number(p.a?.pointIdOptions.value);
      rows.set(a, [...(rows.get(a) ?? []), { b: Number(p.b?.pointIdOptions.value), score: p.score }]);
    }
    expect(rows.size).toBe(10);
    expectNearest([...rows.keys()], rows, 2);
    const o = await grpc.api('points').searchMatrixOffsets({ collectionName: NAME, sample: 5n, limit: 1n } as never);
    expect(o.result!.ids).toHaveLength(5);
    expect(o.result!.offsetsRow).toHaveLength(5);
    const r = await fetch(`${s.rest}/collections/${NAME}/points/search/matrix/pairs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sample: 10000 }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { status: { error: string } }).status.error).toMatch(/^sample: a matrix of 10000 × 10000 points/);
  });
});

describe('the matrix over turns of the event loop', () => {
  it('yields between rows of a large sample, with the same rows as computed in one step', async () => {
    const dim = 64;
    const many = Array.from({ length: 400 }, (_, i) => Float32Array.from({ length: dim }, (_, d) => Math.sin(i * 0.37 + d * 1.3) + (i % 7) / 7));
    let done = false;
    let turnTaken = false;
    // Scheduled before the matrix starts: it runs before the matrix ends only if the matrix yields.
    setImmediate(() => {
      turnTaken = !done;
    });
    const rows = await matrixRowsInTurns(many, 'cosine', dim, 5).finally(() => {
      done = true;
    });
    expect(turnTaken).toBe(true);
    expect(rows).toEqual(matrixRows(many, 'cosine', dim, 5));
    expect(rows.every((r) => r.cols.length === 5)).toBe(true);
  });
});
