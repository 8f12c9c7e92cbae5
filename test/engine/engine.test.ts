import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStrataError } from '../../common/errors.js';
import { maxQueryMagnitude } from '../../index/search/bounds.js';
import { Engine } from '../../engine/engine.js';
import type { SearchResponse } from '../../engine/types.js';
import { buildIndex } from '../../index/build/build-index.js';
import { readDataset, writeFvecs, generateClustered } from '../../datasets/index.js';
import { openIndex } from '../../index/open-index.js';
import { runBatch } from '../../index/search/batch.js';
import { costModel } from '../../tiers/cost-model.js';

const SIFT = join(__dirname, '..', '..', '..', 'shared', 'datasets', 'sift-128-euclidean-10k');
const dim = 32;
const nq = 60;
let dir: string;
let indexDir: string;
let queries: Float32Array;
/** The single-thread, in-process answer for every query: the reference every engine answer must equal. */
let reference: Float64Array;

function ids(r: SearchResponse): number[] {
  return r.hits.map((h) => h.id);
}

function q(i: number): Float32Array {
  return queries.subarray(i * dim, (i + 1) * dim);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'strata-engine-'));
  const set = generateClustered({ count: 5000, dim, clusters: 20, seed: 9 }, nq);
  queries = set.queries;
  await writeFvecs(join(dir, 'base.fvecs'), set.base, dim);
  indexDir = join(dir, 'idx');
  await buildIndex({ input: join(dir, 'base.fvecs'), out: indexDir, m: 12, efConstruction: 80, dramBudget: '10%', placement: 'profile', profileSamples: 300 });
  const { index } = openIndex(indexDir, { mode: 'emulate' });
  reference = runBatch(index, queries, { k: 10, ef: 48 }).labels;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function allAnswers(engine: Engine, mode: 'local' | 'ndp'): Promise<number[][]> {
  const c = engine.collections()[0]!;
  const rs = await Promise.all(Array.from({ length: nq }, (_, i) => c.search({ vector: q(i), k: 10, ef: 48, mode })));
  return rs.map(ids);
}

/** The reference answer's ids for query i. */
const want = (i: number): number[] => Array.from(reference.subarray(i * 10, i * 10 + 10));
const expected = (): number[][] => Array.from({ length: nq }, (_, i) => want(i));

describe('engine execution modes', () => {
  it('answers identically in local and ndp modes on the calling thread, with one expander', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 0, ndp: true, memory: { mode: 'emulate' } });
    try {
      expect(await allAnswers(e, 'local')).toEqual(expected());
      expect(await allAnswers(e, 'ndp')).toEqual(expected());
    } finally {
      await e.close();
    }
  });

  it('answers identically with search threads, two expanders, prefetch and the pipelined schedule', async () => {
    const e = await Engine.open([{ dir: indexDir }], {
      searchThreads: 1,
      ndp: true,
      expanders: 2,
      prefetch: true,
      pipeline: true,
      inflightPerThread: 8,
      memory: { mode: 'emulate' },
    });
    let reports: Awaited<ReturnType<Engine['close']>>['tierReports'];
    try {
      expect(e.collections()[0]!.index!.vectors.segments.filter((s) => s.tier === 1).length).toBeGreaterThanOrEqual(2);
      expect(await allAnswers(e, 'ndp')).toEqual(expected());
      expect(await allAnswers(e, 'local')).toEqual(expected());
    } finally {
      reports = (await e.close()).tierReports;
    }
    // Both expanders served messages: the CXL tier really was split between them.
    expect(reports).toHaveLength(2);
    for (const r of reports) expect(r.messages).toBeGreaterThan(0);
  });

  it('moves only ids and distances in ndp mode, and charges each query the whole message it waited on', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 0, ndp: true, inflightPerThread: 32, memory: { mode: 'emulate' } });
    try {
      const c = e.collections()[0]!;
      const run = (mode: 'local' | 'ndp'): Promise<SearchResponse[]> =>
        Promise.all(Array.from({ length: nq }, (_, i) => c.search({ vector: q(i), k: 10, ef: 48, mode })));
      const local = await run('local');
      const ndp = await run('ndp');
      const mean = (rs: SearchResponse[], f: (r: SearchResponse) => number): number => rs.reduce((a, r) => a + f(r), 0) / rs.length;
      expect(mean(ndp, (r) => r.stats.vectorReads.cxl)).toBe(mean(local, (r) => r.stats.vectorReads.cxl));
      expect(mean(ndp, (r) => r.stats.linkMessages)).toBeGreaterThan(0);
      // ids out and distances back (8 bytes per id) plus entry headers and the query itself, never vectors
      expect(mean(ndp, (r) => r.stats.linkBytes)).toBeLessThan(mean(local, (r) => r.stats.vectorReads.cxl) * dim * 4);
      expect(mean(local, (r) => r.stats.linkBytes)).toBe(0);
      // A message carries many queries' reads and every one of them waits for all of it: per query,
      // the modelled time of its CXL vector reads is at least what reading them alone would take.
      expect(mean(ndp, (r) => r.stats.modelledMemoryNs)).toBeGreaterThan(mean(local, (r) => r.stats.modelledMemoryNs));
    } finally {
      await e.close();
    }
  });

  it('charges a query once per message it waited on, even when its request spans several segments of one expander', async () => {
    // Small segments: the one expander holds many CXL segments, so one request touches several.
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 0, ndp: true, segmentBytes: 16 * 1024, memory: { mode: 'emulate' } });
    let reports: Awaited<ReturnType<Engine['close']>>['tierReports'];
    let messages = 0;
    try {
      expect(e.collections()[0]!.index!.vectors.segments.filter((s) => s.tier === 1).length).toBeGreaterThan(2);
      // One query alone: every message the worker answers is one this query waited on.
      const r = await e.collections()[0]!.search({ vector: q(3), k: 10, ef: 48, mode: 'ndp' });
      messages = r.stats.linkMessages;
    } finally {
      reports = (await e.close()).tierReports;
    }
    expect(messages).toBeGreaterThan(0);
    expect(messages).toBe(reports.reduce((a, t) => a + t.messages, 0));
  });

  it('in ndp mode with injection, the tier worker really stalls at least what the model asks', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 0, ndp: true, inject: true, memory: { mode: 'emulate' } });
    try {
      const r = await e.collections()[0]!.search({ vector: q(5), k: 10, ef: 48, mode: 'ndp' });
      expect(r.stats.linkMessages).toBeGreaterThan(0);
      expect(r.stats.injectedNs).toBeGreaterThan(0);
      // Measured on the clocks of the threads that stalled (search thread and tier worker).
      expect(r.stats.stalledNs).toBeGreaterThanOrEqual(r.stats.injectedNs);
    } finally {
      await e.close();
    }
  });

  it('prefetches by default', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 0, memory: { mode: 'emulate' } });
    try {
      const r = await e.collections()[0]!.search({ vector: q(7), k: 10, ef: 48 });
      expect(r.stats.prefetchIssued).toBeGreaterThan(0);
    } finally {
      await e.close();
    }
  });

  it('hides neighbour-list latency with prefetch without changing answers', async () => {
    const off = await Engine.open([{ dir: indexDir }], { searchThreads: 0, ndp: true, prefetch: false, memory: { mode: 'emulate' } });
    const on = await Engine.open([{ dir: indexDir }], { searchThreads: 0, ndp: true, prefetch: true, memory: { mode: 'emulate' } });
    try {
      for (const mode of ['local', 'ndp'] as const) {
        const a = await off.collections()[0]!.search({ vector: q(7), k: 10, ef: 48, mode });
        const b = await on.collections()[0]!.search({ vector: q(7), k: 10, ef: 48, mode });
        expect(ids(b)).toEqual(ids(a));
        expect(b.stats.prefetchHits).toBeGreaterThan(0);
        expect(b.stats.prefetchHits).toBeLessThanOrEqual(b.stats.prefetchIssued);
        expect(b.stats.modelledMemoryNs).toBeLessThan(a.stats.modelledMemoryNs);
        expect(a.stats.prefetchIssued).toBe(0);
      }
    } finally {
      await off.close();
      await on.close();
    }
  });
});

describe('engine admission', () => {
  it('rejects beyond capacity at once with STRATA_OVERLOADED and answers every accepted request correctly', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 1, maxQueue: 8, inflightPerThread: 4, memory: { mode: 'emulate' } });
    try {
      const c = e.collections()[0]!;
      const settled = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => c.search({ vector: q(i % nq), k: 10, ef: 48 })));
      let ok = 0;
      let overloaded = 0;
      settled.forEach((s, i) => {
        if (s.status === 'fulfilled') {
          ok++;
          expect(ids(s.value)).toEqual(want(i % nq));
        } else {
          expect(isStrataError(s.reason, 'STRATA_OVERLOADED')).toBe(true);
          overloaded++;
        }
      });
      expect(ok).toBeGreaterThanOrEqual(8);
      expect(overloaded).toBeGreaterThan(0);
      expect(ok + overloaded).toBe(200);
      expect(c.queueStats.rejected).toBe(overloaded);
      expect(c.queueDepth).toBe(0);
    } finally {
      await e.close();
    }
  });

  it('sends a batch request to idle search threads as one task per thread (at most inflightPerThread queries each), answering each search as alone', async () => {
    for (const [threads, cases] of [
      [
        1,
        [
          [16, 1],
          [40, 3],
        ],
      ], // 16 | 16, 16, 8
      [
        2,
        [
          [16, 2],
          [40, 3],
        ],
      ], // 8, 8 | 16 (of 20), 16, 8
    ] as const) {
      const e = await Engine.open([{ dir: indexDir }], { searchThreads: threads, maxQueue: 100, inflightPerThread: 16, memory: { mode: 'emulate' } });
      try {
        const c = e.collections()[0]!;
        for (const [n, tasks] of cases) {
          const before = c.queueStats.tasks;
          const rs = await c.searchBatch(Array.from({ length: n }, (_, i) => ({ vector: q(i % nq), k: 10, ef: 48 })));
          expect(c.queueStats.tasks - before, `${threads} threads, ${n} queries`).toBe(tasks);
          rs.forEach((r, i) => expect(ids(r)).toEqual(want(i % nq)));
        }
        // A bad query fails the batch by name, and the queue is not left held: a search after it is answered.
        await expect(
          c.searchBatch([
            { vector: q(0), k: 10 },
            { vector: q(1), k: 0 },
          ]),
        ).rejects.toThrow(/limit/);
        expect(ids(await c.search({ vector: q(2), k: 10, ef: 48 }))).toEqual(want(2));
        // The failed batch's valid search still runs (on the other thread it may finish last).
        await expect.poll(() => c.queueDepth).toBe(0);
      } finally {
        await e.close();
      }
    }
  });

  it('with an inline ef budget runs cheap tasks on the calling thread and the rest on the search thread, answering alike', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 1, inlineEfBudget: 100, memory: { mode: 'emulate' } });
    try {
      const c = e.collections()[0]!;
      expect(ids(await c.search({ vector: q(0), k: 10, ef: 48 }))).toEqual(want(0));
      expect(e.metrics().inlineTasks).toBe(1);
      // Σ ef over the budget (3 × 48), an exact query and a wide beam: all go to the search thread.
      const rs = await c.searchBatch([0, 1, 2].map((i) => ({ vector: q(i), k: 10, ef: 48 })));
      rs.forEach((r, i) => expect(ids(r)).toEqual(want(i)));
      await c.search({ vector: q(1), k: 10, ef: 10, exact: true });
      // A small ef with a large k searches a beam k wide: that is what counts.
      const wide = await c.search({ vector: q(1), k: 200, ef: 10 });
      expect(wide.hits).toHaveLength(200);
      expect(e.metrics().inlineTasks).toBe(1);
      expect(c.queueStats.tasks).toBe(4);
    } finally {
      await e.close();
    }
  });

  it('fails a request past its deadline with STRATA_DEADLINE_EXCEEDED and a cancelled one with STRATA_CANCELLED', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 0, maxQueue: 1000, memory: { mode: 'emulate' } });
    try {
      const c = e.collections()[0]!;
      // A long queue ahead, so that these two are still waiting when their time runs out.
      const busy = Array.from({ length: 300 }, (_, i) => c.search({ vector: q(i % nq), k: 10, ef: 200 }));
      const late = expect(c.search({ vector: q(1), k: 10, timeoutMs: 0 })).rejects.toMatchObject({ code: 'STRATA_DEADLINE_EXCEEDED' });
      const ac = new AbortController();
      const cancelled = expect(c.search({ vector: q(2), k: 10, signal: ac.signal })).rejects.toMatchObject({ code: 'STRATA_CANCELLED' });
      ac.abort();
      await late;
      await cancelled;
      await Promise.all(busy);
    } finally {
      await e.close();
    }
  });

  it('validates requests, naming the field', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 0, memory: { mode: 'emulate' } });
    try {
      const c = e.collections()[0]!;
      await expect(c.search({ vector: new Float32Array(dim + 1), k: 10 })).rejects.toThrow(/^vector: expected 32 dimensions/);
      await expect(c.search({ vector: new Float32Array(dim).fill(NaN), k: 10 })).rejects.toThrow(/^vector: element 0/);
      await expect(c.search({ vector: q(0), k: 0 })).rejects.toThrow(/^limit:/);
      await expect(c.search({ vector: q(0), k: 10, mode: 'ndp' })).rejects.toThrow(/^mode:/);
      expect(() => e.collection('nope')).toThrowError(expect.objectContaining({ code: 'STRATA_COLLECTION_NOT_FOUND' }) as Error);
    } finally {
      await e.close();
    }
  });

  it('answers every queued and running request on close with its real answer, while refusing new ones', async () => {
    // 2 tasks of 4 run on the thread; the other 52 are still waiting in the queue when close() begins.
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 1, ndp: true, inflightPerThread: 4, memory: { mode: 'emulate' } });
    const c = e.collections()[0]!;
    const inflight = Array.from({ length: nq }, (_, i) => c.search({ vector: q(i), k: 10, ef: 48, mode: i % 2 ? 'ndp' : 'local' }));
    expect(c.queueStats.waiting).toBeGreaterThan(0);
    const closing = e.close(60_000);
    // Submitted after close() began: refused at once, although the queue still holds the others.
    await expect(c.search({ vector: q(0), k: 10 })).rejects.toMatchObject({ code: 'STRATA_SHUTTING_DOWN' });
    expect(e.ready).toBe(false);
    const answers = await Promise.all(inflight);
    expect(answers.map(ids)).toEqual(expected());
    await closing;
    await expect(c.search({ vector: q(0), k: 10 })).rejects.toMatchObject({ code: 'STRATA_SHUTTING_DOWN' });
  });

  it('keeps the drain deadline hard: a search that never ends fails with STRATA_SHUTTING_DOWN and close() returns', async () => {
    // Every CXL access stalls ~1000 s (a busy loop on the search thread): the search never finishes
    // by itself, and a close() that waited for the thread would never return.
    const e = await Engine.open([{ dir: indexDir }], {
      searchThreads: 1,
      inject: true,
      cost: costModel({ cxlExtraLatencyNs: 1e12 }),
      memory: { mode: 'emulate' },
    });
    const c = e.collections()[0]!;
    const stuck = c.search({ vector: q(0), k: 10, ef: 48 });
    stuck.catch(() => {});
    expect(c.queueStats.depth).toBe(1);
    const drainMs = 200;
    const t0 = performance.now();
    const guard = new Promise<'guard'>((resolve) => setTimeout(() => resolve('guard'), 30_000).unref());
    const outcome = await Promise.race([e.close(drainMs).then(() => 'closed' as const), guard]);
    expect(outcome).toBe('closed');
    // It did wait for the drain first (a lower bound the code guarantees).
    expect(performance.now() - t0).toBeGreaterThanOrEqual(drainMs - 1);
    await expect(stuck).rejects.toMatchObject({ code: 'STRATA_SHUTTING_DOWN' });
    expect(c.health().status).toBe('red');
  });

  it('refuses query values whose distances would overflow float32, naming the field and the bound', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 0, memory: { mode: 'emulate' } });
    try {
      const c = e.collections()[0]!;
      const bound = maxQueryMagnitude(dim);
      expect(bound).toBeCloseTo(Math.sqrt(3.4028234663852886e38 / (4 * dim)), -10);
      const huge = q(0).slice();
      huge[3] = 1e20;
      await expect(c.search({ vector: huge, k: 10 })).rejects.toThrow(/^vector: element 3 is 1\.00e\+20, beyond ±1\.63e\+18/);
      // Just inside the bound every distance is still a finite number.
      const edge = new Float32Array(dim).fill(Math.fround(bound * 0.999));
      const r = await c.search({ vector: edge, k: 10 });
      expect(r.hits).toHaveLength(10);
      for (const h of r.hits) expect(Number.isFinite(h.distance)).toBe(true);
    } finally {
      await e.close();
    }
  });
});

describe('collection status', () => {
  it('reports real segments and green / yellow / red from the tiers and the engine state', async () => {
    const e = await Engine.open([{ dir: indexDir }], { searchThreads: 0, ndp: true, expanders: 2, memory: { mode: 'emulate' } });
    const c = e.collections()[0]!;
    const info = c.info();
    expect(info.segments).toBe(c.index!.tiers.reduce((a, t) => a + t.segments.length, 0));
    expect(info.segments).toBeGreaterThanOrEqual(3); // one DRAM segment, the CXL tier split for two expanders
    expect(info.health).toEqual({ status: 'green', reasons: [] });
    await e.close();
    expect(c.info().health).toEqual({ status: 'red', reasons: ['shutting down: new searches are refused'] });
  });

  it('is yellow when a tier planned on a NUMA node runs elsewhere, and says why', async () => {
    // Node 1 does not exist on most hosts (and never on a single-node one): the CXL tier falls back
    // to emulation with a warning. Where the bind does succeed, the collection is green.
    const warnings: string[] = [];
    const e = await Engine.open([{ dir: indexDir }], {
      searchThreads: 0,
      memory: { mode: 'numa', dramNode: 0, cxlNode: 1, allowEmulation: true, onWarning: (m) => warnings.push(m) },
    });
    try {
      const c = e.collections()[0]!;
      const fellBack = c.index!.tiers.some((t) => t.binding.mode !== 'numa' || (t.binding.pagesElsewhere ?? 0) > 0);
      const h = c.health();
      if (fellBack) {
        expect(h.status).toBe('yellow');
        expect(h.reasons.join('\n')).toMatch(/tier: planned on node \d, running emulated|pages are not on node/);
        // The payload values' slabs met the same refusal: they too run emulated, and say so.
        expect(h.reasons).toContain('payload values: planned on node 1, running emulated');
        expect(warnings.join('\n')).toMatch(/payload values: .*continuing with them emulated/);
      } else {
        expect(h).toEqual({ status: 'green', reasons: [] });
      }
    } finally {
      await e.close();
    }
  });
});

describe.skipIf(!existsSync(join(SIFT, 'base.fvecs')))('engine on SIFT 10k (../shared)', () => {
  it('gives identical ids in local and ndp modes', async () => {
    const d = mkdtempSync(join(tmpdir(), 'strata-sift-'));
    try {
      await buildIndex({
        input: join(SIFT, 'base.fvecs'),
        out: join(d, 'idx'),
        dramBudget: '10%',
        placement: 'profile',
        profileSamples: 300,
        efConstruction: 100,
      });
      const qs = await readDataset(join(SIFT, 'query.fvecs'));
      const e = await Engine.open([{ dir: join(d, 'idx') }], { searchThreads: 0, ndp: true, memory: { mode: 'emulate' } });
      try {
        const c = e.collections()[0]!;
        const run = (mode: 'local' | 'ndp'): Promise<SearchResponse[]> =>
          Promise.all(Array.from({ length: qs.count }, (_, i) => c.search({ vector: qs.vectors.subarray(i * 128, (i + 1) * 128), k: 10, ef: 64, mode })));
        const [a, b] = [await run('local'), await run('ndp')];
        expect(b.map(ids)).toEqual(a.map(ids));
      } finally {
        await e.close();
      }
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
