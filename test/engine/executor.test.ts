// The search threads' side of the error contract: what a task throws in a worker reaches the caller
// as the same StrataError (code, message, details), not as a generic thread failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrataError } from '../../common/errors.js';
import { PoolExecutor } from '../../engine/executor.js';
import type { QueryTask } from '../../engine/task.js';
import { costModel } from '../../tiers/cost-model.js';
import { buildSmallIndex, type SmallIndex } from '../helpers/small-index.js';
import { rejected } from '../helpers/temp.js';

let small: SmallIndex;
let pool: PoolExecutor;

beforeAll(() => {
  small = buildSmallIndex({ count: 500, queries: 4 });
  const cost = costModel();
  pool = new PoolExecutor(1, {
    collections: [{ handle: small.index.share(), ndp: null }],
    searcherOptions: { cost, inject: false, prefetch: false },
    ndpOptions: { inflight: 4, pipeline: false, prefetch: false, inject: false, cost, model: 'host', spin: 100 },
    threadCounter: new SharedArrayBuffer(4),
    cpus: null,
  });
});

afterAll(async () => {
  await pool.destroy();
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
    ...over,
  };
}

describe('search threads (piscina)', () => {
  it('answers a task', async () => {
    const r = await pool.run(task({}));
    expect(r.labels.length).toBe(5);
    expect(r.labels[0]).toBeGreaterThanOrEqual(0);
  });

  it('hand a StrataError raised in the worker to the caller with its code, message and details', async () => {
    // an ndp task on a collection without tier workers: runTask refuses it inside the thread
    const e = await rejected(pool.run(task({ mode: 'ndp' })));
    expect(e).toBeInstanceOf(StrataError);
    const s = e as StrataError;
    expect(s.code).toBe('STRATA_INVALID_ARGUMENT');
    expect(s.message).toBe('mode: ndp needs the engine started with tier workers (ndp: true)');
    expect(s.details).toEqual({ field: 'mode' });
    expect(s.stack).toMatch(/run-task/);
  });

  it('report any other failure in the worker as STRATA_WORKER_FAILED, and keep serving', async () => {
    const e = await rejected(pool.run(task({ collection: 7 })));
    expect(e).toBeInstanceOf(StrataError);
    expect((e as StrataError).code).toBe('STRATA_WORKER_FAILED');
    expect((e as StrataError).message).toMatch(/^search thread failed: /);
    expect((await pool.run(task({}))).labels.length).toBe(5);
  });
});
