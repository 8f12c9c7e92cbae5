// The load generator's pgvector client against a real PostgreSQL with pgvector, started by the test
// (loadgen/pg-cluster.ts; .ci/run installs both with bench/install-pgvector.sh): a 2,000 × 16 cosine
// table with an HNSW index, 40 queries with exact ground truth. The sweep must report pgvector's
// recall (near 1 at a wide ef, lower at ef 1), and an unusable target must fail before any load with
// a clear error. The pure parts (vector text, scores) run without a server; the postgres:// URL is
// target.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgUnavailable, type PgCluster, startPgCluster } from '../../loadgen/pg-cluster.js';
import { loadPgvectorTable } from '../../loadgen/pg-load.js';
import { bruteForceKnn, writeFvecs, writeIvecs } from '../../datasets/index.js';
import { angularSet } from '../helpers/angular-set.js';
import { scoreOf, vectorLiteral } from '../../loadgen/clients/pgvector.js';
import { runLoadgen, type LoadgenOptions } from '../../loadgen/index.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { closedPort } from './run-cli.js';
import pg from 'pg';

describe('pgvector client, without a server', () => {
  it('writes vectors as text that gives every float32 back exactly', () => {
    const v = new Float32Array([0.1, -1e-7, 3.4028234663852886e38, 1.1754943508222875e-38, 123456.789]);
    const parsed = vectorLiteral(v)
      .slice(1, -1)
      .split(',')
      .map((x) => Math.fround(Number(x)));
    expect(parsed).toEqual(Array.from(v));
  });

  it("turns pgvector's distances into the Strata clients' scores", () => {
    expect(scoreOf('Euclid', 2.5)).toBe(2.5);
    expect(scoreOf('Dot', -0.75)).toBe(0.75);
    expect(scoreOf('Cosine', 0.25)).toBe(0.75);
  });
});

const unavailable = pgUnavailable();
if (unavailable !== null) console.warn(`pgvector tests skip: ${unavailable}`);

describe.skipIf(unavailable !== null)('pgvector client against a real PostgreSQL with pgvector', () => {
  const DIM = 16;
  const K = 10;
  let cluster: PgCluster;
  let tmp: TempDir;
  let opts: (over?: Partial<LoadgenOptions>) => LoadgenOptions;

  beforeAll(async () => {
    tmp = makeTempDir('strata-pgvector-');
    cluster = await startPgCluster();
    const { base, queries } = angularSet(2000, DIM, 5, 40);
    await loadPgvectorTable({ url: cluster.url, table: 'items', vectors: base, dim: DIM, distance: 'Cosine', m: 8, efConstruction: 32 });
    // A table pgvector would scan exactly: the load generator refuses it.
    const c = new pg.Client({ connectionString: cluster.url });
    await c.connect();
    await c.query(`CREATE TABLE plain (id integer, embedding vector(${DIM}))`);
    await c.end();
    await writeFvecs(tmp.path('q.fvecs'), queries, DIM);
    const gt = bruteForceKnn(base, queries, DIM, K, 'cosine');
    await writeIvecs(tmp.path('gt.ivecs'), gt.ids, gt.k);
    opts = (over = {}) => ({
      url: cluster.url,
      collection: 'items',
      queries: tmp.path('q.fvecs'),
      gt: tmp.path('gt.ivecs'),
      protocol: 'pgvector',
      ef: [1, 200],
      concurrency: [3],
      durationS: 0.5,
      warmup: 10,
      ...over,
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    tmp?.cleanup();
  });

  it("reports the table, pgvector's distance and its recall at each ef_search", async () => {
    const report = await runLoadgen(opts());
    expect(report.target).toMatchObject({ collection: 'items', dim: DIM, distance: 'Cosine', points: 2000, server: { title: 'pgvector' } });
    const [narrow, wide] = report.results;
    for (const r of report.results) {
      expect(r.failed).toBe(0);
      expect(r.ok).toBeGreaterThan(0);
    }
    // ef_search 200 over 2,000 rows is near exact; ef_search 1 is not (a sweep whose recall did not
    // move would mean the setting never reached the server).
    expect(wide!.recall!.mean).toBeGreaterThan(0.98);
    expect(narrow!.recall!.mean).toBeLessThan(wide!.recall!.mean - 0.05);
  });

  it('answers batches in one statement (an index scan per vector) with the recall of single searches', async () => {
    const single = await runLoadgen(opts());
    const batched = await runLoadgen(opts({ batch: 6, maxRequests: 30 }));
    for (const [i, r] of batched.results.entries()) {
      expect(r.errors).toEqual({});
      expect(r.ok).toBe(6 * r.sent);
      expect(r.recall!.queries).toBe(40);
      // Each query's rows must land on that query, nearest first: the same answers as one at a time.
      expect(r.recall!.mean).toBeCloseTo(single.results[i]!.recall!.mean, 10);
    }
  });

  it('refuses a table without an HNSW index, naming why', async () => {
    await expect(runLoadgen(opts({ collection: 'plain' }))).rejects.toMatchObject({
      code: 'STRATA_INVALID_ARGUMENT',
      details: { reason: 'no-hnsw-index' },
    });
  });

  it('refuses a missing table and lists the tables that hold vectors', async () => {
    await expect(runLoadgen(opts({ collection: 'missing' }))).rejects.toThrow(/no collection "missing" .*\(the server has: items, plain\)/);
  });

  it('says when no PostgreSQL answers at the address', async () => {
    const port = await closedPort();
    await expect(runLoadgen(opts({ url: `postgres://postgres@127.0.0.1:${port}/postgres` }))).rejects.toMatchObject({
      code: 'STRATA_UNREACHABLE',
      message: expect.stringMatching(/is PostgreSQL running there/),
    });
  });
});
