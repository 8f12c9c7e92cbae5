// End to end through the real `strata` command: generate a set, build a tiered index, verify it,
// search it (graph, injected CXL stalls, exact), and the errors a user meets on bad input.
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFvecsMatrix, readIvecs, writeFvecs } from '../../index/datasets/index.js';
import { loadIndex } from '../../index/format/load-index.js';
import { nodeRecordBytes } from '../../index/placement/placement.js';
import { ensureBuilt, jsonLine, strata, type CliResult } from '../helpers/cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';

const COUNT = 3000;
const DIM = 32;
const QUERIES = 50;
const GT_K = 20;

let tmp: TempDir;
let data: string;
let idx: string;
let built: CliResult;

interface BuildJson {
  out: string;
  count: number;
  dim: number;
  metric: string;
  tiers: Array<{ kind: string; nodes: number; bytes: number }>;
  placement: {
    policy: string;
    dramBudgetBytes: number;
    dramNodes: number;
    cxlNodes: number;
    upperInCxl: number;
    profileQueries: number;
    predictedDramShare: number | null;
  };
  unreachable: number;
  seconds: Record<string, number>;
}

interface SearchJson {
  index: string;
  queries: number;
  k: number;
  ef: number;
  exact: boolean;
  recall: number | null;
  recallTieAware: boolean;
  dramShareOfAccesses: number;
  accessesPerQuery: { dram: number; cxl: number };
  modelledMemoryNsPerQuery: number;
  modelledCxlExtraNsPerQuery: number;
  injectedNsPerQuery: number;
  inject: boolean;
  kernels: string;
  memory: { mode: string; tiers: Array<{ kind: string; nodes: number }> };
}

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function expectOk(r: CliResult): void {
  expect(r.status, `exit status; stderr:\n${r.stderr}`).toBe(0);
}

function expectFailure(r: CliResult, ...fragments: string[]): void {
  expect(r.status, `stdout:\n${r.stdout}`).not.toBe(0);
  expect(r.status).not.toBeNull();
  for (const f of fragments) expect(r.stderr).toContain(f);
}

function searchArgs(...extra: string[]): string[] {
  return ['search', idx, '--queries', join(data, 'query.fvecs'), '--gt', join(data, 'groundtruth.ivecs'), '--ef', '64', '--k', '10', ...extra];
}

beforeAll(() => {
  ensureBuilt();
  tmp = makeTempDir('strata-cli-');
  data = tmp.path('data');
  idx = tmp.path('index');
  const g = strata([
    'generate',
    '--out-dir',
    data,
    '--count',
    String(COUNT),
    '--dim',
    String(DIM),
    '--queries',
    String(QUERIES),
    '--clusters',
    '10',
    '--k',
    String(GT_K),
  ]);
  expectOk(g);
  built = strata([
    'build',
    join(data, 'base.fvecs'),
    '--out',
    idx,
    '--dram-budget',
    '20%',
    '--placement',
    'profile',
    '--m',
    '8',
    '--ef-construction',
    '64',
    '--json',
  ]);
});

afterAll(() => tmp?.cleanup());

describe('strata generate', () => {
  it('writes base, queries and exact ground truth (ids and distances) of the requested shapes', async () => {
    expect(statSync(join(data, 'base.fvecs')).size).toBe(COUNT * (4 + 4 * DIM));
    const q = await readFvecsMatrix(join(data, 'query.fvecs'));
    expect([q.count, q.dim]).toEqual([QUERIES, DIM]);
    const gt = await readIvecs(join(data, 'groundtruth.ivecs'));
    expect([gt.count, gt.dim]).toEqual([QUERIES, GT_K]);
    const gd = await readFvecsMatrix(join(data, 'groundtruth_dist.fvecs'));
    expect([gd.count, gd.dim]).toEqual([QUERIES, GT_K]);
    // Ids are rows of the base set, distances ascend along each row.
    for (let i = 0; i < gt.data.length; i++) expect(gt.data[i]! >= 0 && gt.data[i]! < COUNT).toBe(true);
    for (let r = 0; r < QUERIES; r++) for (let j = 1; j < GT_K; j++) expect(gd.data[r * GT_K + j]!).toBeGreaterThanOrEqual(gd.data[r * GT_K + j - 1]!);
    // The true nearest neighbour's distance is what the base file says it is.
    const base = await readFvecsMatrix(join(data, 'base.fvecs'));
    const nn = gt.data[0]!;
    let s = 0;
    for (let d = 0; d < DIM; d++) s += (q.data[d]! - base.data[nn * DIM + d]!) ** 2;
    expect(gd.data[0]!).toBeCloseTo(Math.sqrt(s), 3);
  });

  it('is deterministic: the same arguments give byte-identical files and a JSON list of them', () => {
    const again = tmp.path('data-again');
    const r = strata([
      'generate',
      '--out-dir',
      again,
      '--count',
      String(COUNT),
      '--dim',
      String(DIM),
      '--queries',
      String(QUERIES),
      '--clusters',
      '10',
      '--k',
      String(GT_K),
    ]);
    expectOk(r);
    const w = jsonLine<Record<string, string>>(r);
    expect(w).toEqual({
      dir: again,
      base: join(again, 'base.fvecs'),
      query: join(again, 'query.fvecs'),
      groundtruth: join(again, 'groundtruth.ivecs'),
      groundtruthDist: join(again, 'groundtruth_dist.fvecs'),
    });
    for (const f of ['base.fvecs', 'query.fvecs', 'groundtruth.ivecs', 'groundtruth_dist.fvecs']) expect(sha256(join(again, f))).toBe(sha256(join(data, f)));
  });
});

describe('strata build --json', () => {
  it('exits 0 and prints one JSON summary with the count, dimension and tier sizes', () => {
    expectOk(built);
    const s = jsonLine<BuildJson>(built);
    expect(s.out).toBe(idx);
    expect([s.count, s.dim, s.metric]).toEqual([COUNT, DIM, 'l2']);
    expect(s.tiers.map((t) => t.kind)).toEqual(['dram', 'cxl']);
    expect(s.tiers[0]!.nodes + s.tiers[1]!.nodes).toBe(COUNT);
    const perNode = (1 + 2 * 8 + DIM) * 4;
    expect(s.tiers[0]!.bytes).toBe(s.tiers[0]!.nodes * perNode);
    expect(s.tiers[0]!.bytes + s.tiers[1]!.bytes).toBe(COUNT * perNode);
    expect(s.tiers[0]!.nodes).toBe(s.placement.dramNodes);
    expect(s.tiers[1]!.nodes).toBe(s.placement.cxlNodes);
    expect(s).not.toHaveProperty('manifest');
    expect(s.seconds['total']).toBeGreaterThan(0);
  });

  it('sizes the DRAM tier from 20% of the record bytes and predicts a DRAM share above the DRAM node share', () => {
    const s = jsonLine<BuildJson>(built);
    const { index } = loadIndex(idx);
    const g = { maxM0: index.meta.maxM0, maxM: index.meta.maxM, dim: index.meta.dim };
    expect([g.maxM0, g.maxM]).toEqual([16, 8]);
    let total = 0;
    let dramRecords = 0;
    for (let v = 0; v < COUNT; v++) {
      const b = nodeRecordBytes(g, index.levels[v]!);
      total += b;
      if (v < index.meta.dramCount) dramRecords += b;
    }
    expect(s.placement.policy).toBe('profile');
    expect(s.placement.dramBudgetBytes).toBe(Math.floor((total * 20) / 100));
    expect(index.meta.dramCount).toBe(s.placement.dramNodes);
    expect(dramRecords).toBeLessThanOrEqual(s.placement.dramBudgetBytes);
    // profile ranks every node on its own and keeps going past records that do not fit, so the
    // DRAM tier is filled to within one level-0 record of the budget.
    expect(s.placement.dramBudgetBytes - dramRecords).toBeLessThan(nodeRecordBytes(g, 0));
    let upperInCxl = 0;
    for (let v = index.meta.dramCount; v < COUNT; v++) if (index.levels[v]! > 0) upperInCxl++;
    expect(s.placement.upperInCxl).toBe(upperInCxl);
    expect(s.placement.profileQueries).toBe(1000);
    const share = s.placement.predictedDramShare!;
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThanOrEqual(1);
    expect(share).toBeGreaterThan(s.placement.dramNodes / COUNT);
  });
});

describe('strata verify', () => {
  it('exits 0 and reports ok with no errors for the built index', () => {
    const r = strata(['verify', idx]);
    expectOk(r);
    const v = jsonLine<{ ok: boolean; nodes: number; errors: string[]; checksums: string; unreachable: number }>(r);
    expect(v).toEqual({ ok: true, nodes: COUNT, errors: [], checksums: 'ok', unreachable: jsonLine<BuildJson>(built).unreachable });
  });

  it('exits non-zero with STRATA_INDEX_CORRUPT naming the file when a tier file is damaged', () => {
    const copy = tmp.path('index-damaged');
    cpSync(idx, copy, { recursive: true });
    const file = join(copy, 'tier-1-cxl.bin');
    truncateSync(file, statSync(file).size - 1);
    const r = strata(['verify', copy]);
    expectFailure(r, 'STRATA_INDEX_CORRUPT', file);
  });
});

describe('strata search', () => {
  it('prints one JSON line with recall >= 0.9 (tie-aware) and writes the result ids as .ivecs', async () => {
    const out = tmp.path('results.ivecs');
    const r = strata(searchArgs('--out', out));
    expectOk(r);
    const s = jsonLine<SearchJson>(r);
    expect([s.queries, s.k, s.ef, s.exact, s.inject]).toEqual([QUERIES, 10, 64, false, false]);
    expect(s.index).toBe('index');
    expect(s.recall).toBeGreaterThanOrEqual(0.9);
    expect(s.recallTieAware).toBe(true);
    expect(s.dramShareOfAccesses).toBeGreaterThanOrEqual(0);
    expect(s.dramShareOfAccesses).toBeLessThanOrEqual(1);
    const { dram, cxl } = s.accessesPerQuery;
    expect(dram).toBeGreaterThan(0);
    expect(cxl).toBeGreaterThan(0);
    expect(s.dramShareOfAccesses).toBeCloseTo(dram / (dram + cxl), 9);
    expect(s.modelledCxlExtraNsPerQuery).toBeGreaterThan(0);
    expect(s.injectedNsPerQuery).toBe(0);
    expect(s.kernels).toBe('wasm-simd');
    expect(s.memory.tiers.map((t) => t.nodes)).toEqual(jsonLine<BuildJson>(built).tiers.map((t) => t.nodes));

    const ids = await readIvecs(out);
    expect([ids.count, ids.dim]).toEqual([QUERIES, 10]);
    // Independently of the JSON: the file's ids against the ground truth's first 10 columns.
    const gt = await readIvecs(join(data, 'groundtruth.ivecs'));
    let hits = 0;
    for (let q = 0; q < QUERIES; q++) {
      const row = Array.from(ids.data.subarray(q * 10, q * 10 + 10));
      expect(new Set(row).size).toBe(10);
      for (const id of row) expect(id >= 0 && id < COUNT).toBe(true);
      const truth = new Set(gt.data.subarray(q * GT_K, q * GT_K + 10));
      hits += row.filter((id) => truth.has(id)).length;
    }
    expect(hits / (QUERIES * 10)).toBeGreaterThanOrEqual(0.9);
  });

  it('with --inject stalls by the modelled CXL extra: injected ns per query equal it within 1%', () => {
    const r = strata(searchArgs('--inject'));
    expectOk(r);
    const s = jsonLine<SearchJson>(r);
    expect(s.inject).toBe(true);
    expect(s.injectedNsPerQuery).toBeGreaterThan(0);
    expect(Math.abs(s.injectedNsPerQuery - s.modelledCxlExtraNsPerQuery)).toBeLessThanOrEqual(0.01 * s.modelledCxlExtraNsPerQuery);
    expect(s.recall).toBeGreaterThanOrEqual(0.9);
  });

  it('with --exact finds the true neighbours: recall 1', () => {
    const r = strata(searchArgs('--exact'));
    expectOk(r);
    const s = jsonLine<SearchJson>(r);
    expect(s.exact).toBe(true);
    expect(s.recall).toBe(1);
    expect(s.recallTieAware).toBe(true);
  });

  it('rejects queries of the wrong dimension with STRATA_DATASET_DIMENSION naming the query file', async () => {
    const q16 = tmp.path('q16.fvecs');
    await writeFvecs(q16, new Float32Array(5 * 16).fill(0.5), 16);
    const r = strata(['search', idx, '--queries', q16]);
    expectFailure(r, 'STRATA_DATASET_DIMENSION', q16);
    expect(r.stderr).toMatch(/16 dimensions, the index 32/);
    expect(r.stdout).toBe('');
  });

  it('fails with STRATA_INDEX_NOT_FOUND for a directory that holds no index', () => {
    const r = strata(['search', data, '--queries', join(data, 'query.fvecs')]);
    expectFailure(r, 'STRATA_INDEX_NOT_FOUND', data);
  });
});

describe('strata build errors', () => {
  function noTemporaries(): void {
    expect(readdirSync(tmp.dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  }

  it('a truncated .fvecs input exits non-zero naming the file and STRATA_DATASET_FORMAT, leaving no index directory', () => {
    const bad = tmp.path('truncated.fvecs');
    copyFileSync(join(data, 'base.fvecs'), bad);
    truncateSync(bad, statSync(bad).size - 7);
    const out = tmp.path('index-from-truncated');
    const r = strata(['build', bad, '--out', out, '--m', '8', '--ef-construction', '64']);
    expectFailure(r, 'STRATA_DATASET_FORMAT', bad);
    expect(r.stderr).toMatch(/row 2999 is truncated/);
    expect(existsSync(out)).toBe(false);
    noTemporaries();
  });

  it('--m 1 exits non-zero with a message naming --m and builds nothing', () => {
    const out = tmp.path('index-m1');
    const r = strata(['build', join(data, 'base.fvecs'), '--out', out, '--m', '1']);
    expectFailure(r, '--m');
    expect(r.stderr).toMatch(/2\.\.256/);
    expect(existsSync(out)).toBe(false);
  });

  it('building into an existing directory without --force fails with STRATA_INDEX_EXISTS and leaves it as it was', () => {
    const before = Object.fromEntries(readdirSync(idx).map((n) => [n, sha256(join(idx, n))]));
    const r = strata(['build', join(data, 'base.fvecs'), '--out', idx, '--m', '8', '--ef-construction', '32', '--limit', '500']);
    expectFailure(r, 'STRATA_INDEX_EXISTS', idx);
    expect(Object.fromEntries(readdirSync(idx).map((n) => [n, sha256(join(idx, n))]))).toEqual(before);
    noTemporaries();
  });

  it('with --force replaces an existing index', () => {
    const copy = tmp.path('index-forced');
    cpSync(idx, copy, { recursive: true });
    const r = strata([
      'build',
      join(data, 'base.fvecs'),
      '--out',
      copy,
      '--m',
      '8',
      '--ef-construction',
      '32',
      '--limit',
      '500',
      '--placement',
      'hops',
      '--force',
      '--json',
    ]);
    expectOk(r);
    expect(jsonLine<BuildJson>(r).count).toBe(500);
    expect(loadIndex(copy).index.meta.count).toBe(500);
    noTemporaries();
  });
});

describe('strata tiers', () => {
  it('prints the NUMA topology and the tier plan, consistent with its --json output', () => {
    const r = strata(['tiers']);
    expectOk(r);
    expect(r.stdout).toMatch(/^NUMA topology \(source: \/sys\)/);
    expect(r.stdout).toMatch(/node \d+: /);
    const plan = /Plan: (numa|emulated) mode/.exec(r.stdout);
    expect(plan).not.toBeNull();
    const j = strata(['tiers', '--json']);
    expectOk(j);
    const t = jsonLine<{ topology: { online: number[] }; plan: { mode: string; dramNode: number | null } }>(j);
    expect(t.plan.mode).toBe(plan![1]);
    expect(t.topology.online.length).toBeGreaterThan(0);
    if (t.plan.dramNode !== null) expect(r.stdout).toContain(`node ${t.plan.dramNode}:`);
  });
});
