// The search threads, fed by shared-memory rings (RingExecutor): they answer tasks, keep the error
// contract (what a task throws in a worker reaches the caller as the same StrataError, anything else
// as STRATA_WORKER_FAILED) and keep serving after a failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrataError } from '../../common/errors.js';
import { type Executor, InlineExecutor } from '../../engine/executor.js';
import { RingExecutor } from '../../engine/ring-executor.js';
import { ringShape } from '../../engine/ring-protocol.js';
import { makeContext } from '../../engine/run-task.js';
import type { SearchWorkerData } from '../../engine/workers/worker-data.js';
import type { QueryTask } from '../../engine/task.js';
import { costModel } from '../../tiers/cost-model.js';
import { buildSmallIndex, type SmallIndex } from '../helpers/small-index.js';
import { rejected } from '../helpers/temp.js';

let small: SmallIndex;
const executors: Record<string, Executor> = {};

function workerData(): SearchWorkerData {
  const cost = costModel();
  return {
    collections: [{ handle: small.index.share(), ndp: null }],
    searcherOptions: { cost, inject: false, prefetch: false },
    ndpOptions: { inflight: 4, pipeline: false, prefetch: false, inject: false, cost, model: 'host', spin: 100 },
    threadCounter: new SharedArrayBuffer(4),
    filters: new SharedArrayBuffer(4),
    cpus: null,
  };
}

beforeAll(() => {
  small = buildSmallIndex({ count: 500, queries: 4 });
  // The same search on the calling thread: what a thread's answer is compared with.
  executors['inline'] = new InlineExecutor([makeContext(small.index, workerData().searcherOptions, null, new SharedArrayBuffer(4))]);
  // Two slots, so that the tests below queue tasks beyond them.
  executors['ring'] = new RingExecutor(2, workerData(), ringShape(2, 4, small.index.meta.dim, 50));
});

afterAll(async () => {
  for (const e of Object.values(executors)) await e.destroy();
});

function task(over: Partial<QueryTask>): QueryTask {
  const dim = small.index.meta.dim;
  return {
    collection: 0,
    mode: 'local',
    dim,
    vectors: small.queries.slice(0, dim),
    k: Int32Array.of(5),
    ef: Int32Array.of(16),
    rerank: Int32Array.of(0),
    prune: Uint8Array.of(1),
    exact: Uint8Array.of(0),
    filterAt: Int32Array.of(-1),
    matched: Int32Array.of(0),
    plan: Uint8Array.of(0),
    ...over,
  };
}

describe('search threads (ring)', () => {
  const pool = (): Executor => executors['ring']!;

  it('answers a task', async () => {
    const r = await pool().run(task({}));
    expect(r.labels.length).toBe(5);
    expect(r.labels[0]).toBeGreaterThanOrEqual(0);
  });

  it('answers many tasks at once (more than the threads hold) each with its own answer', async () => {
    const dim = small.index.meta.dim;
    const one = async (q: number) => (await pool().run(task({ vectors: small.queries.slice(q * dim, (q + 1) * dim) }))).labels;
    const alone = await Promise.all([0, 1, 2, 3].map(one));
    const together = await Promise.all(Array.from({ length: 24 }, (_, i) => one(i % 4)));
    together.forEach((labels, i) => expect(Array.from(labels)).toEqual(Array.from(alone[i % 4]!)));
  });

  it('hand a StrataError raised in the worker to the caller with its code, message and details', async () => {
    // an ndp task on a collection without tier workers: runTask refuses it inside the thread
    const e = await rejected(pool().run(task({ mode: 'ndp' })));
    expect(e).toBeInstanceOf(StrataError);
    const s = e as StrataError;
    expect(s.code).toBe('STRATA_INVALID_ARGUMENT');
    expect(s.message).toBe('mode: ndp needs the engine started with tier workers (ndp: true)');
    expect(s.details).toEqual({ field: 'mode' });
    expect(s.stack).toMatch(/run-task/);
  });

  it('report any other failure in the worker as STRATA_WORKER_FAILED, and keep serving', async () => {
    const e = await rejected(pool().run(task({ collection: 7 })));
    expect(e).toBeInstanceOf(StrataError);
    expect((e as StrataError).code).toBe('STRATA_WORKER_FAILED');
    expect((e as StrataError).message).toMatch(/^search thread failed: /);
    expect((await pool().run(task({}))).labels.length).toBe(5);
  });
});

describe('ring search threads, large answers', () => {
  it('answers a result too large for its slot through the port, the same as the calling thread', async () => {
    // Slots sized for 3 hits per query: k = 40 overflows.
    const ring = new RingExecutor(1, workerData(), ringShape(2, 4, small.index.meta.dim, 3));
    try {
      const big = task({ k: Int32Array.of(40), ef: Int32Array.of(64) });
      const [viaRing, viaPool] = await Promise.all([ring.run(big), executors['inline']!.run(task({ k: Int32Array.of(40), ef: Int32Array.of(64) }))]);
      expect(viaRing.kMax).toBe(40);
      expect(Array.from(viaRing.labels)).toEqual(Array.from(viaPool.labels));
      expect(Array.from(viaRing.distances)).toEqual(Array.from(viaPool.distances));
      // and the slot is free again: small answers keep coming through the ring
      expect((await ring.run(task({ k: Int32Array.of(3) }))).labels.length).toBe(3);
    } finally {
      await ring.destroy();
    }
  });
});

describe('ring search threads, stopping', () => {
  it('close waits for the tasks in flight; destroy fails them and refuses new ones', async () => {
    const ring = new RingExecutor(1, workerData(), ringShape(2, 4, small.index.meta.dim, 50));
    const inFlight = Array.from({ length: 6 }, () => ring.run(task({})));
    await ring.close();
    for (const r of await Promise.all(inFlight)) expect(r.labels.length).toBe(5);
    expect((await rejected(ring.run(task({})))) as StrataError).toMatchObject({ code: 'STRATA_SHUTTING_DOWN' });
    const other = new RingExecutor(1, workerData(), ringShape(2, 4, small.index.meta.dim, 50));
    const doomed = other.run(task({ ef: Int32Array.of(400) }));
    await other.destroy();
    const e = await doomed.then(
      () => null,
      (x: unknown) => x,
    );
    // Either it finished before the threads were stopped, or it failed saying so.
    if (e !== null) expect(e).toMatchObject({ code: 'STRATA_SHUTTING_DOWN' });
  });
});
