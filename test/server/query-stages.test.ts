// Qdrant's query API with prefetch stages, fusion and MMR, through the official REST client against a
// real server: each answer checked against the published rule computed here from exact nearest
// lists (Qdrant's RRF: 1 / ((rank + 1) / weight + k − 1), k 2 by default; DBSF: each list's scores at
// mean ± 3 sample deviations mapped to 0..1 and summed; MMR: the most relevant first, then the best
// (1 − diversity) × relevance − diversity × max similarity to those picked), on a Cosine and a
// Euclid collection.
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { seededVector } from '../helpers/seeded-vectors.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { http, startServer, type Running } from './fixture.js';

const DIM = 8;
const COUNT = 400;
let tmp: TempDir;
let engine: Engine;
let srv: Running;
let client: QdrantClient;

/** A seeded vector per point: clusters of 40 around 10 centres, so that near neighbours look alike. */
function vectorOf(i: number): number[] {
  const noise = seededVector(i + 1, DIM);
  const c = i % 10;
  return Array.from({ length: DIM }, (_, d) => Math.cos(c * (d + 1)) + 0.3 * noise[d]!);
}
const vectors = Array.from({ length: COUNT }, (_, i) => vectorOf(i));
const kind = (i: number): string => (i % 3 === 0 ? 'a' : 'b');

const unit = (v: readonly number[]): number[] => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const dot = (a: readonly number[], b: readonly number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const dist = (a: readonly number[], b: readonly number[]): number => Math.sqrt(a.reduce((s, x, i) => s + (x - b[i]!) ** 2, 0));

/** The collection's score of point i for q: cosine similarity, or Euclidean distance. */
function scoreOf(coll: 'cos' | 'l2', q: readonly number[], i: number): number {
  return coll === 'cos' ? dot(unit(q), unit(vectors[i]!)) : dist(q, vectors[i]!);
}

/** The exact k nearest (best first) among the points `where` keeps. */
function nearest(coll: 'cos' | 'l2', q: readonly number[], k: number, where: (i: number) => boolean = () => true): Array<{ id: number; score: number }> {
  const all = vectors.map((_, id) => ({ id, score: scoreOf(coll, q, id) })).filter((p) => where(p.id));
  all.sort((a, b) => (coll === 'cos' ? b.score - a.score : a.score - b.score) || a.id - b.id);
  return all.slice(0, k);
}

function rrf(lists: Array<Array<{ id: number }>>, k = 2, weights: number[] = lists.map(() => 1)): Array<{ id: number; score: number }> {
  const m = new Map<number, number>();
  lists.forEach((l, i) => l.forEach((p, r) => m.set(p.id, (m.get(p.id) ?? 0) + 1 / ((r + 1) / weights[i]! + k - 1))));
  return [...m].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

function dbsf(lists: Array<Array<{ id: number; score: number }>>, sign: number): Array<{ id: number; score: number }> {
  const m = new Map<number, number>();
  for (const l of lists) {
    const xs = l.map((p) => sign * p.score);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1));
    l.forEach((p, r) => m.set(p.id, (m.get(p.id) ?? 0) + (xs[r]! - mean + 3 * sd) / (6 * sd)));
  }
  return [...m].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

function mmr(coll: 'cos' | 'l2', q: readonly number[], candidates: number[], diversity: number, count: number): number[] {
  const sim = (a: number, b: number): number => (coll === 'cos' ? dot(unit(vectors[a]!), unit(vectors[b]!)) : -dist(vectors[a]!, vectors[b]!));
  const rel = (i: number): number => (coll === 'cos' ? scoreOf(coll, q, i) : -scoreOf(coll, q, i));
  const left = [...candidates];
  const picked: number[] = [];
  while (picked.length < count && left.length > 0) {
    let best = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    left.forEach((c, j) => {
      const value = picked.length === 0 ? rel(c) : (1 - diversity) * rel(c) - diversity * Math.max(...picked.map((p) => sim(c, p)));
      if (value > bestValue) [best, bestValue] = [j, value];
    });
    picked.push(left.splice(best, 1)[0]!);
  }
  return picked;
}

const ids = (r: { points: Array<{ id: string | number }> }): number[] => r.points.map((p) => Number(p.id));
const EXACT = { exact: true };

beforeAll(async () => {
  tmp = makeTempDir('strata-query-stages-');
  engine = await Engine.open([], { searchThreads: 0, memory: { mode: 'emulate' }, dataDir: tmp.path('data') });
  srv = await startServer(engine);
  client = new QdrantClient({ url: srv.url, checkCompatibility: false });
  for (const [name, distance] of [
    ['cos', 'Cosine'],
    ['l2', 'Euclid'],
  ] as const) {
    await client.createCollection(name, { vectors: { size: DIM, distance } });
    await client.upsert(name, { wait: true, points: vectors.map((vector, id) => ({ id, vector, payload: { kind: kind(id) } })) });
  }
});

afterAll(async () => {
  await srv?.close();
  await engine?.close();
  tmp?.cleanup();
});

describe('query API: prefetch, fusion and MMR', () => {
  const qa = vectorOf(1000);
  const qb = vectorOf(1003);
  /** The exact 20 nearest of qa and 15 nearest of qb: nearest(coll, qa, 20) and nearest(coll, qb, 15). */
  const twoPrefetches = [
    { query: qa, limit: 20, params: EXACT },
    { query: qb, limit: 15, params: EXACT },
  ];

  for (const coll of ['cos', 'l2'] as const) {
    it(`fuses two prefetches by RRF (default k, and k with weights) on ${coll}`, async () => {
      const la = nearest(coll, qa, 20);
      const lb = nearest(coll, qb, 15);
      const r = await client.query(coll, {
        prefetch: twoPrefetches,
        query: { fusion: 'rrf' },
        limit: 12,
      });
      const want = rrf([la, lb]).slice(0, 12);
      expect(ids(r)).toEqual(want.map((p) => p.id));
      r.points.forEach((p, i) => expect(p.score).toBeCloseTo(want[i]!.score, 5));
      const w = await client.query(coll, {
        prefetch: twoPrefetches,
        query: { rrf: { k: 60, weights: [3, 0.5] } },
        limit: 12,
      });
      expect(ids(w)).toEqual(
        rrf([la, lb], 60, [3, 0.5])
          .slice(0, 12)
          .map((p) => p.id),
      );
    });

    it(`fuses two prefetches by DBSF, nearer counting more, on ${coll}`, async () => {
      const la = nearest(coll, qa, 20);
      const lb = nearest(coll, qb, 15);
      const r = await client.query(coll, {
        prefetch: twoPrefetches,
        query: { fusion: 'dbsf' },
        limit: 10,
      });
      const want = dbsf([la, lb], coll === 'cos' ? 1 : -1).slice(0, 10);
      expect(ids(r)).toEqual(want.map((p) => p.id));
      r.points.forEach((p, i) => expect(p.score).toBeCloseTo(want[i]!.score, 4));
    });

    it(`re-scores the prefetches' union with the query's vector, exactly, on ${coll}`, async () => {
      const union = new Set([...nearest(coll, qa, 25), ...nearest(coll, qb, 25)].map((p) => p.id));
      const r = await client.query(coll, {
        prefetch: [
          { query: qa, limit: 25, params: EXACT },
          { query: qb, limit: 25, params: EXACT },
        ],
        query: qb,
        limit: 8,
      });
      const want = nearest(coll, qb, 8, (i) => union.has(i));
      expect(ids(r)).toEqual(want.map((p) => p.id));
      r.points.forEach((p, i) => expect(p.score).toBeCloseTo(want[i]!.score, 4));
    });

    it(`picks by MMR from candidates_limit nearest, scored against the query, on ${coll}`, async () => {
      for (const diversity of [0, 0.5, 0.9]) {
        const cands = nearest(coll, qa, 40).map((p) => p.id);
        const r = await client.query(coll, { query: { nearest: qa, mmr: { diversity, candidates_limit: 40 } }, limit: 6, params: EXACT });
        const want = mmr(coll, qa, cands, diversity, 6);
        expect(ids(r)).toEqual(want);
        r.points.forEach((p, i) => expect(p.score).toBeCloseTo(scoreOf(coll, qa, want[i]!), 4));
      }
      // Diversity 0 is the nearest order; high diversity leaves it.
      const plain = nearest(coll, qa, 6).map((p) => p.id);
      expect(ids(await client.query(coll, { query: { nearest: qa, mmr: { diversity: 0, candidates_limit: 40 } }, limit: 6, params: EXACT }))).toEqual(plain);
      expect(ids(await client.query(coll, { query: { nearest: qa, mmr: { diversity: 0.9, candidates_limit: 40 } }, limit: 6, params: EXACT }))).not.toEqual(
        plain,
      );
    });
  }

  it('passes the query filter down to every prefetch, and applies each stage its own', async () => {
    const isA = (i: number): boolean => kind(i) === 'a';
    const la = nearest('cos', qa, 20, isA);
    const lb = nearest('cos', qb, 20, (i) => isA(i) && i % 2 === 0);
    const r = await client.query('cos', {
      prefetch: [
        { query: qa, limit: 20, params: EXACT },
        { query: qb, limit: 20, params: EXACT, filter: { must: [{ has_id: Array.from({ length: COUNT / 2 }, (_, j) => 2 * j) }] } },
      ],
      query: { fusion: 'rrf' },
      filter: { must: [{ key: 'kind', match: { value: 'a' } }] },
      limit: 10,
      with_payload: true,
    });
    expect(ids(r)).toEqual(
      rrf([la, lb])
        .slice(0, 10)
        .map((p) => p.id),
    );
    for (const p of r.points) expect(p.payload).toEqual({ kind: 'a' });
  });

  it('nests prefetches: a fusion of prefetches, re-scored by a vector, with an offset and a threshold', async () => {
    const inner = rrf([nearest('l2', qa, 30), nearest('l2', qb, 30)])
      .slice(0, 20)
      .map((p) => p.id);
    const fused = [
      {
        prefetch: [
          { query: qa, limit: 30, params: EXACT },
          { query: qb, limit: 30, params: EXACT },
        ],
        query: { fusion: 'rrf' as const },
        limit: 20,
      },
    ];
    const r = await client.query('l2', {
      prefetch: fused,
      query: qa,
      limit: 5,
      offset: 2,
    });
    const ranked = nearest('l2', qa, 20, (i) => inner.includes(i));
    expect(ids(r)).toEqual(ranked.slice(2, 7).map((p) => p.id));
    const cut = (ranked[4]!.score + ranked[5]!.score) / 2;
    const t = await client.query('l2', {
      prefetch: fused,
      query: qa,
      limit: 10,
      score_threshold: cut,
    });
    expect(ids(t)).toEqual(ranked.filter((p) => p.score <= cut).map((p) => p.id));
  });

  it("leaves a recommendation's examples out of its re-scored prefetch answer", async () => {
    const r = await client.query('cos', { prefetch: [{ query: 5, limit: 30, params: EXACT }], query: { recommend: { positive: [5] } }, limit: 5 });
    expect(ids(r)).not.toContain(5);
    expect(ids(r)).toEqual(
      nearest('cos', vectors[5]!, 6, (i) => i !== 5)
        .map((p) => p.id)
        .slice(0, 5),
    );
  });
});

describe('query, recommend and their batches and groups', () => {
  const qa = vectorOf(2000);

  it('answers a query batch member by member as the single queries, prefetch and MMR included', async () => {
    const searches = [
      { query: qa, limit: 4, params: EXACT },
      { prefetch: [{ query: qa, limit: 20, params: EXACT }], query: { fusion: 'rrf' as const }, limit: 3 },
      { query: { nearest: qa, mmr: { diversity: 0.7, candidates_limit: 30 } }, limit: 5, params: EXACT },
    ];
    const batch = await client.queryBatch('cos', { searches });
    expect(batch).toHaveLength(3);
    for (const [i, s] of searches.entries()) expect(ids(batch[i]!)).toEqual(ids(await client.query('cos', s)));
    expect(ids(batch[0]!)).toEqual(nearest('cos', qa, 4).map((p) => p.id));
  });

  it('answers a recommend batch and recommend groups as the single recommendations', async () => {
    const searches = [
      { positive: [1, 2], limit: 4, params: EXACT },
      { positive: [3], negative: [4], limit: 2, params: EXACT, filter: { must: [{ key: 'kind', match: { value: 'a' } }] } },
    ];
    const batch = await client.recommendBatch('l2', { searches });
    for (const [i, s] of searches.entries()) expect(batch[i]!.map((p) => Number(p.id))).toEqual((await client.recommend('l2', s)).map((p) => Number(p.id)));
    expect(batch[1]!.every((p) => kind(Number(p.id)) === 'a')).toBe(true);
    const groups = await client.recommendPointGroups('l2', { positive: [1, 2], group_by: 'kind', group_size: 2, limit: 2, params: EXACT });
    const best = (await client.recommend('l2', { positive: [1, 2], limit: 40, params: EXACT })).map((p) => Number(p.id));
    expect(groups.groups.map((g) => g.id).sort()).toEqual(['a', 'b']);
    for (const g of groups.groups) expect(g.hits.map((h) => Number(h.id))).toEqual(best.filter((id) => kind(id) === g.id).slice(0, 2));
  });
});

describe('discovery and context queries', () => {
  /** The collection's similarity of two vectors (Euclid's distance turned round). */
  const sim = (coll: 'cos' | 'l2', a: readonly number[], b: readonly number[]): number => (coll === 'cos' ? dot(unit(a), unit(b)) : -dist(a, b));
  const squash = (x: number): number => x / (1 + Math.abs(x));
  /** Qdrant's published discovery score: Σ sign(sim to positive − sim to negative) + (squash(sim to target) + 1) / 2. */
  const discovery = (coll: 'cos' | 'l2', v: readonly number[], target: readonly number[], pairs: Array<[number, number]>): number =>
    pairs.reduce((r, [p, n]) => r + Math.sign(sim(coll, v, vectors[p]!) - sim(coll, v, vectors[n]!)), 0) + 0.5 * (squash(sim(coll, v, target)) + 1);
  /** Qdrant's context score: Σ squash(min(sim to positive − sim to negative − ε, 0)). */
  const context = (coll: 'cos' | 'l2', v: readonly number[], pairs: Array<[number, number]>): number =>
    pairs.reduce((s, [p, n]) => s + squash(Math.min(sim(coll, v, vectors[p]!) - sim(coll, v, vectors[n]!) - 2 ** -23, 0)), 0);
  const ranked = (score: (i: number) => number, among: number[]) =>
    among.map((id) => ({ id, score: score(id) })).sort((a, b) => b.score - a.score || a.id - b.id);
  const everyBut = (...ids: number[]) => vectors.map((_, i) => i).filter((i) => !ids.includes(i));
  const target = vectorOf(3001);
  const pairs: Array<[number, number]> = [
    [11, 12],
    [21, 25],
  ];

  for (const coll of ['cos', 'l2'] as const) {
    it(`discovers over every point with params.exact, by Qdrant's score, on ${coll}`, async () => {
      const r = await client.query(coll, {
        query: { discover: { target, context: pairs.map(([positive, negative]) => ({ positive, negative })) } },
        params: EXACT,
        limit: 8,
      });
      const want = ranked((i) => discovery(coll, vectors[i]!, target, pairs), everyBut(11, 12, 21, 25)).slice(0, 8);
      expect(ids(r)).toEqual(want.map((p) => p.id));
      r.points.forEach((p, i) => expect(p.score).toBeCloseTo(want[i]!.score, 4));
      // The classic route answers the same.
      const classic = await client.discoverPoints(coll, {
        target,
        context: pairs.map(([positive, negative]) => ({ positive, negative })),
        limit: 8,
        params: EXACT,
      });
      expect(classic.map((p) => Number(p.id))).toEqual(want.map((p) => p.id));
    });

    it(`ranks a prefetch's candidates by context alone, on ${coll}`, async () => {
      const cands = nearest(coll, target, 40).map((p) => p.id);
      const r = await client.query(coll, {
        prefetch: { query: target, limit: 40, params: EXACT },
        query: { context: pairs.map(([positive, negative]) => ({ positive, negative })) },
        limit: 10,
      });
      const want = ranked(
        (i) => context(coll, vectors[i]!, pairs),
        cands.filter((i) => ![11, 12, 21, 25].includes(i)),
      ).slice(0, 10);
      r.points.forEach((p, i) => expect(p.score).toBeCloseTo(want[i]!.score, 4));
      expect(new Set(ids(r))).toEqual(new Set(want.map((p) => p.id)));
    });
  }

  it('asks for prefetch or params.exact rather than scanning every point unasked', async () => {
    const r = await http(srv.url, 'POST', '/collections/cos/points/query', { query: { discover: { target, context: { positive: 1, negative: 2 } } } });
    expect(r.status).toBe(400);
    expect((r.body as { status: { error: string } }).status.error).toMatch(/^params\.exact: a discover query scores each candidate/);
  });
});
