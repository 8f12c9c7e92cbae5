// The load generator against a real Strata server on free loopback ports: a small generated
// collection (2,000 x 16-d, M 8, 20% DRAM), 60 queries. Recall must equal the in-process engine's at
// the same ef, for every protocol and loop; the CLI must write a report and a well-formed plot; and
// an unusable target must fail fast with a clear message. No timing assertions.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrataError } from '../../common/errors.js';
import { Engine } from '../../engine/engine.js';
import { runQueries } from '../../engine/run-queries.js';
import { buildIndex } from '../../index/build/build-index.js';
import { readFvecsMatrix, readIvecs, writeFvecs, writeGeneratedSet, type WrittenSet } from '../../datasets/index.js';
import { recallAtK } from '../../index/search/recall.js';
import { DEFAULT_WARMUP, formatTable, parseReport, runLoadgen, type LoadgenOptions, type LoadgenReport } from '../../loadgen/index.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';
import { startServer, type Running } from '../server/fixture.js';
import { ensureLoadgenBuilt } from './built.js';
import { closedPort, strataAsync } from './run-cli.js';
import { xmlElements } from './svg.js';

const EFS = [8, 32];
const K = 10;
const QUERIES = 60;

let tmp: TempDir;
let set: WrittenSet;
let engine: Engine;
let server: Running;
/** In-process recall@10 of the same engine at each ef (tie-aware, as the load generator's). */
const expected = new Map<number, number>();

beforeAll(async () => {
  ensureLoadgenBuilt();
  tmp = makeTempDir('strata-loadgen-e2e-');
  set = await writeGeneratedSet(tmp.path('data'), { count: 2000, dim: 16, clusters: 8, seed: 11 }, QUERIES, K);
  await buildIndex({
    input: set.base,
    out: tmp.path('index'),
    metric: 'l2',
    m: 8,
    efConstruction: 64,
    dramBudget: '20%',
    placement: 'profile',
    profileSamples: 200,
  });
  engine = await Engine.open([{ dir: tmp.path('index'), name: 'vectors' }], { searchThreads: 0, memory: { mode: 'emulate' } });
  server = await startServer(engine, { qdrantGrpcPort: 0 });
  const q = await readFvecsMatrix(set.query);
  const gt = await readIvecs(set.groundtruth);
  const gd = await readFvecsMatrix(set.groundtruthDist);
  for (const ef of EFS) {
    const r = await runQueries(engine.collection('vectors'), q.data, { k: K, ef });
    expected.set(
      ef,
      recallAtK({ k: K, results: r.labels, resultDistances: r.distances, metric: 'l2', gtIds: gt.data, gtDim: gt.dim, gtDistances: gd.data }).mean,
    );
  }
  // ef 8 must miss something, or the comparison would be vacuous
  expect(expected.get(8)).toBeLessThan(1);
});

afterAll(async () => {
  await server?.close();
  await engine?.close();
  tmp?.cleanup();
});

const opts = (o: Partial<LoadgenOptions> = {}): LoadgenOptions => ({
  url: server.url,
  collection: 'vectors',
  queries: set.query,
  gt: set.groundtruth,
  k: K,
  ef: EFS,
  concurrency: [1, 3],
  durationS: 60,
  maxRequests: 2 * QUERIES,
  // Counted requests only (the default warm-up is tested on its own below).
  warmup: 0,
  ...o,
});

/** Searches the server has answered, from its request counter. */
async function searchesAnswered(): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) => l.startsWith('strata_http_requests_total{') && l.includes('route="/collections/:collection_name/points/search"') && l.includes('status="200"'),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

function expectRecallAsInProcess(report: LoadgenReport): void {
  for (const r of report.results) {
    expect(r.recall, `ef ${r.ef} c ${r.concurrency}`).not.toBeNull();
    expect(r.recall!.queries).toBe(QUERIES);
    expect(r.recall!.mean, `ef ${r.ef} c ${r.concurrency}`).toBeCloseTo(expected.get(r.ef)!, 10);
    expect(r.errors).toEqual({});
    expect(r.ok).toBe(r.sent);
  }
}

describe('loadgen against a real server', () => {
  it("closed loop over JSON: recall equals the in-process engine's at each ef, with full step results", async () => {
    const before = Date.now();
    const report = await runLoadgen(opts({ label: 'json closed' }));
    const after = Date.now();
    expect(report.results.map((r) => [r.ef, r.concurrency])).toEqual([
      [8, 1],
      [8, 3],
      [32, 1],
      [32, 3],
    ]);
    expectRecallAsInProcess(report);
    for (const r of report.results) {
      expect(r.stoppedBy).toBe('max-requests');
      expect(r.sent).toBe(2 * QUERIES);
      expect(r.qps).toBeGreaterThan(0);
      expect(r.recall!.tieAware).toBe(true);
      expect(r.recall!.min).toBeLessThanOrEqual(r.recall!.p5);
      expect(r.recall!.p5).toBeLessThanOrEqual(r.recall!.p50);
      const l = r.latencyMs;
      expect(l.count).toBe(r.ok);
      expect([l.p50Ms, l.p95Ms, l.p99Ms, l.p999Ms, l.maxMs]).toEqual([...[l.p50Ms, l.p95Ms, l.p99Ms, l.p999Ms, l.maxMs]].sort((a, b) => a - b));
      expect(r.strata!.distanceComputations).toBeGreaterThan(0);
      expect(r.strata!.dramShare).toBeGreaterThan(0);
      expect(r.strata!.dramShare).toBeLessThan(1);
      expect(r.strata!.bytesCxl).toBeGreaterThan(0);
      expect(r.strata!.modelledMemoryNs).toBeGreaterThan(0);
      expect(r.histogram.length).toBeGreaterThan(0);
    }
    // Each step's measured window on the wall clock (what the benches cut the servers' CPU to):
    // inside the run, in step order, as long as the step's own seconds.
    const w = report.results.map((r) => r.window!);
    expect(w[0]!.fromEpochMs).toBeGreaterThanOrEqual(before - 1);
    expect(w[w.length - 1]!.toEpochMs).toBeLessThanOrEqual(after + 1);
    for (let i = 0; i < w.length; i++) {
      expect(w[i]!.toEpochMs - w[i]!.fromEpochMs).toBeCloseTo(report.results[i]!.seconds * 1000, 2);
      if (i > 0) expect(w[i]!.fromEpochMs).toBeGreaterThanOrEqual(w[i - 1]!.toEpochMs);
    }
    expect(report.target).toMatchObject({ collection: 'vectors', dim: 16, distance: 'Euclid', points: 2000 });
    expect(report.groundTruth).toMatchObject({ source: 'file', tieAware: true });
    expect(report.machine.cpus.count).toBeGreaterThan(0);
    expect(report.machine.node).toBe(process.version);
    expect(report.packages['undici']).toMatch(/^\d+\.\d+\.\d+/);
    expect(report.packages['hdr-histogram-js']).toMatch(/^\d+\.\d+\.\d+/);
    expect(report.parameters).toMatchObject({ k: K, ef: EFS, concurrency: [1, 3], protocol: 'json', mode: 'closed', apiKey: false });
  });

  it('MessagePack answers give the same recall', async () => {
    expectRecallAsInProcess(await runLoadgen(opts({ protocol: 'msgpack', concurrency: [2] })));
  });

  it('gRPC answers give the same recall', async () => {
    const report = await runLoadgen(opts({ protocol: 'grpc', grpcUrl: server.addr.grpc!, concurrency: [2] }));
    expectRecallAsInProcess(report);
    expect(report.parameters.grpcUrl).toBe(server.addr.grpc);
    expect(report.results[0]!.strata!.distanceComputations).toBeGreaterThan(0);
  });

  it("Qdrant's gRPC API through its official client gives the same recall, without Strata's stats", async () => {
    const report = await runLoadgen(opts({ protocol: 'qdrant-grpc', grpcUrl: server.addr.qdrantGrpc!, concurrency: [2] }));
    expectRecallAsInProcess(report);
    expect(report.parameters.protocol).toBe('qdrant-grpc');
    for (const r of report.results) expect([r.errors, r.strata ?? null]).toEqual([{}, null]);
  });

  it('batches of queries per request (REST JSON, MessagePack, gRPC, Qdrant gRPC) give the same recall, counted in queries', async () => {
    // 7 does not divide the 60 queries: the last request of a pass wraps around to the first ones.
    for (const protocol of ['json', 'msgpack', 'grpc', 'qdrant-grpc'] as const) {
      const grpcUrl = protocol === 'qdrant-grpc' ? server.addr.qdrantGrpc! : server.addr.grpc!;
      const report = await runLoadgen(opts({ protocol, grpcUrl, batch: 7, concurrency: [2], maxRequests: 20 }));
      expect(report.parameters.batch).toBe(7);
      expect(formatTable(report)).toContain('60 queries (7 a request; QPS in queries, latency per request)');
      for (const r of report.results) {
        expect(r.recall!.queries, protocol).toBe(QUERIES);
        expect(r.recall!.mean, `${protocol} ef ${r.ef}`).toBeCloseTo(expected.get(r.ef)!, 10);
        expect(r.errors, protocol).toEqual({});
        expect(r.sent).toBe(20);
        expect(r.ok).toBe(7 * r.sent);
        expect(r.latencyMs.count).toBe(r.sent); // one latency per request: a batch is answered whole
        if (protocol !== 'qdrant-grpc') expect(r.strata!.distanceComputations, protocol).toBeGreaterThan(0); // the sampled queries' stats line up
      }
    }
  });

  it('open loop: sends on a timetable, reports offered vs achieved rate and the service time apart', async () => {
    const report = await runLoadgen(opts({ mode: 'open', rate: [300], concurrency: [2], ef: [8] }));
    const r = report.results[0]!;
    expect(r.mode).toBe('open');
    expect(r.offeredRate).toBe(300);
    expect(r.achievedRate).toBeGreaterThan(0);
    expect(r.serviceLatencyMs).not.toBeNull();
    expect(r.unsent).toBe(0);
    expect(r.recall!.mean).toBeCloseTo(expected.get(8)!, 10);
    // Every request sent was answered: the achieved rate is in requests, whatever a request carries.
    expect(r.achievedRate * r.seconds).toBeCloseTo(r.sent, 6);
    const batched = (await runLoadgen(opts({ mode: 'open', rate: [100], concurrency: [2], ef: [8], batch: 4, maxRequests: 30 }))).results[0]!;
    expect(batched.unsent).toBe(0);
    expect(batched.ok).toBe(4 * batched.sent);
    expect(batched.achievedRate * batched.seconds).toBeCloseTo(batched.sent, 6);
  });

  it('computes ground truth from --base when no --gt is given, with the same recall', async () => {
    const report = await runLoadgen(opts({ gt: undefined, base: set.base, gtCacheDir: tmp.path('gt-cache'), ef: [8], concurrency: [1] }));
    expect(report.groundTruth).toMatchObject({ source: 'computed', tieAware: true });
    expect(report.results[0]!.recall!.mean).toBeCloseTo(expected.get(8)!, 10);
    const again = await runLoadgen(opts({ gt: undefined, base: set.base, gtCacheDir: tmp.path('gt-cache'), ef: [8], concurrency: [1] }));
    expect(again.groundTruth!.source).toBe('cache');
  });
});

describe('strata loadgen and strata plot (the real CLI)', () => {
  it('runs a sweep, prints a table and writes the JSON report and SVG plots; plot combines reports', async () => {
    const common = [
      '--url',
      server.url,
      '--collection',
      'vectors',
      '--queries',
      set.query,
      '--gt',
      set.groundtruth,
      '--ef',
      '8,32',
      '--duration',
      '60',
      '--max-requests',
      String(QUERIES),
      '--warmup',
      '10',
    ];
    const a = await strataAsync([
      'loadgen',
      ...common,
      '--concurrency',
      '1,2',
      '--report',
      tmp.path('out', 'a.json'),
      '--plot',
      tmp.path('out', 'a.svg'),
      '--label',
      'closed json',
    ]);
    expect(a.status, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/\| ef \| conc \| recall \|/);
    const ra = parseReport(readFileSync(tmp.path('out', 'a.json'), 'utf8'), 'a.json');
    expect(ra.label).toBe('closed json');
    expect(ra.results).toHaveLength(4);
    for (const r of ra.results) expect(r.recall!.mean).toBeCloseTo(expected.get(r.ef)!, 10);
    expect(xmlElements(readFileSync(tmp.path('out', 'a.svg'), 'utf8'))[0]).toBe('svg');

    const b = await strataAsync([
      'loadgen',
      ...common,
      '--concurrency',
      '2',
      '--mode',
      'open',
      '--rate',
      '250',
      '--protocol',
      'msgpack',
      '--report',
      tmp.path('out', 'b.json'),
      '--label',
      'open msgpack',
    ]);
    expect(b.status, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/offered\/s \| achieved\/s/);
    const rb = parseReport(readFileSync(tmp.path('out', 'b.json'), 'utf8'), 'b.json');
    expect(rb.results.every((r) => r.mode === 'open' && r.offeredRate === 250)).toBe(true);

    const p = await strataAsync(['plot', tmp.path('out', 'a.json'), tmp.path('out', 'b.json'), '--out', tmp.path('out', 'ab.svg')]);
    expect(p.status, p.stderr).toBe(0);
    const svg = readFileSync(tmp.path('out', 'ab.svg'), 'utf8');
    expect(xmlElements(svg)[0]).toBe('svg');
    expect(svg).toContain('>closed json<');
    expect(svg).toContain('>open msgpack<');
  });

  it("warms up with DEFAULT_WARMUP untimed requests per step unless told otherwise, so the client's own cold code is not measured", async () => {
    // Below ~2,000 an open loop charged the client's warm-up to the server (docs/loadgen.md#warm-up).
    expect(DEFAULT_WARMUP).toBeGreaterThanOrEqual(2000);
    const before = await searchesAnswered();
    const report = tmp.path('out', 'warm.json');
    const r = await strataAsync([
      ...['loadgen', '--url', server.url, '--collection', 'vectors', '--queries', set.query, '--ef', '8', '--concurrency', '4'],
      ...['--max-requests', '40', '--duration', '60', '--no-progress', '--report', report],
    ]);
    expect(r.status, r.stderr).toBe(0);
    const rep = parseReport(readFileSync(report, 'utf8'), 'warm.json');
    expect(rep.parameters.warmup).toBe(DEFAULT_WARMUP);
    expect(rep.results[0]!.sent).toBe(40);
    expect((await searchesAnswered()) - before).toBe(DEFAULT_WARMUP + 40);
  });

  it('exits non-zero with a clear message when the endpoint is down', async () => {
    const port = await closedPort();
    const r = await strataAsync(['loadgen', '--url', `http://127.0.0.1:${port}`, '--collection', 'vectors', '--queries', set.query, '--duration', '1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`--url: nothing answers at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): is \`strata serve\` running there\\?`));
  });

  it('exits non-zero naming the collections there when the collection is missing', async () => {
    const r = await strataAsync(['loadgen', '--url', server.url, '--collection', 'nope', '--queries', set.query, '--duration', '1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('STRATA_COLLECTION_NOT_FOUND: --collection: no collection "nope"');
    expect(r.stderr).toContain('(the server has: vectors)');
  });

  it('refuses a non-loopback URL before sending anything', async () => {
    const r = await strataAsync(['loadgen', '--url', 'http://192.0.2.10:6333', '--collection', 'vectors', '--queries', set.query]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--url: 192\.0\.2\.10 .* is not a loopback address .*--allow-remote/);
  });
});

describe('unusable targets (library)', () => {
  it("rejects queries whose dimension differs from the collection's", async () => {
    await writeFvecs(tmp.path('q8.fvecs'), new Float32Array(8 * 4), 8);
    const e = await runLoadgen(opts({ queries: tmp.path('q8.fvecs'), gt: undefined })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StrataError);
    expect((e as StrataError).code).toBe('STRATA_DATASET_DIMENSION');
    expect((e as StrataError).message).toMatch(/queries have 8 dimensions, collection "vectors" has 16/);
  });

  it('sends the API key when the server wants one, and says so when it is missing', async () => {
    const keyed = await startServer(engine, { apiKey: 'sesame', grpcPort: null });
    try {
      await expect(runLoadgen(opts({ url: keyed.url, ef: [8], concurrency: [1] }))).rejects.toMatchObject({
        code: 'STRATA_UNAUTHENTICATED',
        message: expect.stringMatching(/--api-key/),
      });
      const report = await runLoadgen(opts({ url: keyed.url, apiKey: 'sesame', ef: [8], concurrency: [1] }));
      expect(report.results[0]!.errors).toEqual({});
      expect(report.parameters.apiKey).toBe(true);
      expect(JSON.stringify(report)).not.toContain('sesame');
    } finally {
      await keyed.close();
    }
  });

  it('rejects a missing collection and a dead gRPC port with their codes', async () => {
    await expect(runLoadgen(opts({ collection: 'missing' }))).rejects.toMatchObject({ code: 'STRATA_COLLECTION_NOT_FOUND' });
    const port = await closedPort();
    await expect(runLoadgen(opts({ protocol: 'grpc', grpcUrl: `127.0.0.1:${port}` }))).rejects.toThrow(/--grpc-url: nothing answers at 127\.0\.0\.1:\d+/);
  });
});
