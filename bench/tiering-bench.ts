// Tiering with codes, in process, one thread: per data set one hnswlib graph laid out several ways,
// side by side (alternating repetitions, medians): DRAM share and CXL bytes at a 10% budget, recall
// against the re-rank pool, QPS at equal recall vs full precision, the codes all in DRAM and hnswlib-node.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import type { HierarchicalNSW } from 'hnswlib-node';
import { connectUnreachable } from '../index/build/connect-unreachable.js';
import { DEFAULT_FILL_ALPHA, fillFreeSlots } from '../index/build/fill-free-slots.js';
import { buildHnswlib, extractGraph } from '../index/build/hnsw-build.js';
import type { GraphImage } from '../index/graph/graph-image.js';
import { graphFullPrecisionBytes, type PlaceOptions, placeAndLayout } from '../index/build/place-and-layout.js';
import { profileGraph, sampleRows } from '../index/build/profile.js';
import type { CodeKind } from '../index/codes/index.js';
import { bruteForceKnn, generateClustered, generateEmbedding, readDataset } from '../datasets/index.js';
import { normalizeRows } from '../index/kernels/reference.js';
import type { Metric } from '../index/kernels/kernels.js';
import { runBatch } from '../index/search/batch.js';
import { recallAtK } from '../index/search/recall.js';
import type { SearchStats } from '../index/search/stats.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';
import { costModel, type CostModelParams, DEFAULT_COST_MODEL } from '../tiers/cost-model.js';
import { qpsAtRecall } from './lib/curves.js';
import { median } from '../common/median.js';

interface DataSet {
  name: string;
  base: Float32Array;
  queries: Float32Array;
  dim: number;
  metric: Metric;
}

interface Point {
  ef: number;
  recall: number;
  qps: number;
}

/**
 * The ef grid. 20, 28 and 40 were added around recall 0.95: a straight line across 32 → 48 runs
 * below a concave QPS-recall curve, so a contender whose 0.95 fell mid-gap was understated against
 * one that landed on a grid point (SIFT 10k: full precision reaches 0.952 at ef 32, codes 0.944).
 * COARSE_EFS, the earlier grid, is still reported beside it.
 */
const EFS = [10, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 192, 256];
const COARSE_EFS = new Set([10, 16, 24, 32, 48, 64, 96, 128, 192, 256]);
const TARGET_RECALL = 0.95;
/** The issue's second point of comparison: QPS against hnswlib-node at this recall too. */
const LOWER_RECALL = 0.9;
const K = 10;

const f = (x: number | null, d = 0): string => (x === null ? 'n/a' : x.toFixed(d));

/** The contenders laid out on hnswlib's graph as built (no links added), for the attribution. */
const HNSW_GRAPH = "all DRAM, hnswlib's graph";

class Contender {
  readonly curve = new Map<number, { recall: number; qps: number[] }>();
  constructor(
    readonly name: string,
    readonly run: (ef: number) => { qps: number; labels: Float64Array },
  ) {}
  measure(ef: number, recallOf: (labels: Float64Array) => number): void {
    const r = this.run(ef);
    const e = this.curve.get(ef) ?? { recall: recallOf(r.labels), qps: [] };
    e.qps.push(r.qps);
    this.curve.set(ef, e);
  }
  points(): Point[] {
    return [...this.curve.entries()].sort((a, b) => a[0] - b[0]).map(([ef, e]) => ({ ef, recall: e.recall, qps: median(e.qps) }));
  }
}

/** base.fvecs and query.fvecs of a TEXMEX-layout directory (SIFT's, or what `strata fetch` writes). */
async function readTexmex(dir: string, name: (count: number, dim: number) => string, metric: Metric): Promise<DataSet> {
  const b = await readDataset(join(dir, 'base.fvecs'));
  const q = await readDataset(join(dir, 'query.fvecs'));
  return { name: name(b.count, b.dim), base: b.vectors, queries: q.vectors, dim: b.dim, metric };
}

function loadSets(names: string[], count: number, queries: number, gloveDir: string): Promise<DataSet[]> {
  return Promise.all(
    names.map(async (name): Promise<DataSet | null> => {
      if (name === 'sift') {
        const dir = resolve('..', 'shared', 'datasets', 'sift-128-euclidean-10k');
        if (!existsSync(join(dir, 'base.fvecs'))) {
          process.stderr.write(`skipping sift: ${dir} is absent\n`);
          return null;
        }
        return readTexmex(dir, () => 'sift-128-euclidean-10k', 'l2');
      }
      if (name === 'glove') {
        // Real word vectors: `strata fetch glove-100 -o DIR` writes them (datasets/real/word-vectors.ts).
        if (!existsSync(join(gloveDir, 'base.fvecs'))) {
          process.stderr.write(`skipping glove: ${gloveDir} holds no base.fvecs (strata fetch glove-100 -o ${gloveDir})\n`);
          return null;
        }
        return readTexmex(gloveDir, (count, dim) => `glove-${count / 1000}k-${dim}`, 'cosine');
      }
      if (name === 'clustered') {
        const s = generateClustered({ count, dim: 128, clusters: 100, seed: 42 }, queries);
        return { name: `clustered-${count / 1000}k-128`, base: s.base, queries: s.queries, dim: 128, metric: 'l2' };
      }
      if (name === 'angular') {
        // GloVe-100's shape: 100 dimensions, angular, embedding-like (datasets/generate/embedding.ts).
        const s = generateEmbedding({ count, dim: 100, seed: 7 }, queries);
        return { name: `angular-${count / 1000}k-100`, base: s.base, queries: s.queries, dim: s.dim, metric: 'cosine' };
      }
      throw new Error(`unknown set ${name}: expected sift, clustered, angular, glove`);
    }),
  ).then((xs) => xs.filter((x): x is DataSet => x !== null));
}

function hnswRunner(h: HierarchicalNSW, queries: Float32Array, dim: number, repeat: number): (ef: number) => { qps: number; labels: Float64Array } {
  const nq = queries.length / dim;
  const rows = Array.from({ length: nq }, (_, i) => Array.from(queries.subarray(i * dim, (i + 1) * dim)));
  return (ef) => {
    h.setEf(ef);
    const labels = new Float64Array(nq * K).fill(-1);
    const t0 = performance.now();
    for (let r = 0; r < repeat; r++) {
      for (let i = 0; i < nq; i++) {
        const res = h.searchKnn(rows[i]!, K);
        if (r === 0) for (let j = 0; j < res.neighbors.length; j++) labels[i * K + j] = res.neighbors[j]!;
      }
    }
    return { qps: (repeat * nq) / ((performance.now() - t0) / 1000), labels };
  };
}

function strataRunner(
  index: TieredIndex,
  queries: Float32Array,
  repeat: number,
  o: { inject?: boolean; cost?: CostModelParams; rerank?: number; fused?: boolean },
): (ef: number) => { qps: number; labels: Float64Array } {
  const tiled = new Float32Array(queries.length * repeat);
  for (let r = 0; r < repeat; r++) tiled.set(queries, r * queries.length);
  return (ef) => {
    const b = runBatch(index, tiled, {
      k: K,
      ef,
      inject: o.inject ?? false,
      fused: o.fused ?? true,
      ...(o.cost ? { cost: o.cost } : {}),
      ...(o.rerank !== undefined ? { rerank: o.rerank } : {}),
    });
    return { qps: b.qps, labels: b.labels.subarray(0, (queries.length / index.meta.dim) * K) };
  };
}

async function benchSet(ds: DataSet, reps: number, codeChoice: CodeKind | 'auto', m: number, lines: string[]): Promise<Record<string, unknown>> {
  const { dim, metric } = ds;
  let base = ds.base;
  let queries = ds.queries;
  if (metric === 'cosine') {
    base = base.slice();
    queries = queries.slice();
    normalizeRows(base, dim);
    normalizeRows(queries, dim);
  }
  const n = base.length / dim;
  const nq = queries.length / dim;
  const out: Record<string, unknown> = { set: ds.name, count: n, dim, metric, queries: nq, m };
  lines.push(`## ${ds.name} (${n} × ${dim}, ${metric}, ${nq} queries, M ${m})`, '');

  const gt = bruteForceKnn(base, queries, dim, K, metric);
  const recallOf = (labels: Float64Array): number => recallAtK({ k: K, results: labels, metric, gtIds: gt.ids, gtDim: gt.k }).mean;

  let t0 = performance.now();
  // One graph for every contender, hnswlib-node's included: a degree changes both sides alike.
  const h = buildHnswlib(base, dim, { metric: metric === 'l2' ? 'l2' : 'ip', m, efConstruction: 200, seed: 100 });
  const hnswGraph: GraphImage = extractGraph(h, dim);
  const hnswSeconds = (performance.now() - t0) / 1000;
  // What `strata build` lays out: hnswlib's graph with its unreachable nodes linked in and its free
  // level-0 slots filled (index/build/fill-free-slots.ts); hnswlib's own graph stays for hnswlib-node
  // and for the steps of the attribution before the fill.
  t0 = performance.now();
  const graph: GraphImage = { ...hnswGraph, level0: hnswGraph.level0.slice() };
  connectUnreachable(graph, metric);
  const fill = await fillFreeSlots(graph, metric, DEFAULT_FILL_ALPHA);
  const fillSeconds = (performance.now() - t0) / 1000;
  const graphSeconds = hnswSeconds + fillSeconds;
  t0 = performance.now();
  const samples = sampleRows(base, dim, 1000, 3);
  const profile = profileGraph(graph, metric, samples, K, 64);
  const profileSeconds = (performance.now() - t0) / 1000;
  const hnswProfile = profileGraph(hnswGraph, metric, samples, K, 64);
  const full = graphFullPrecisionBytes(graph);
  const place = (share: number, codes: CodeKind | 'none' | 'auto', extra: Partial<PlaceOptions> = {}, g = graph) => {
    const t = performance.now();
    const p = placeAndLayout(g, metric, null, {
      budgetBytes: Math.floor(full * share),
      policy: 'profile',
      profile: (g === graph ? profile : hnswProfile).accesses,
      codes,
      seed: 5,
      ...extra,
    });
    return { ...p, seconds: (performance.now() - t) / 1000 };
  };

  // The layouts. `tiered` is what `strata build --dram-budget 10%` makes (auto picks the code).
  const tiered = place(0.1, codeChoice);
  const code = tiered.plan.code;
  if (code === null) throw new Error(`${ds.name}: no code fits 10%`);
  const records = place(0.1, 'none');
  const allDram = place(1, 'none');
  const codesDram = place(1, code);
  // sq8 (4x smaller than floats, the cheapest code kernel) all in DRAM: what codes alone do for speed.
  const sq8Dram = place(1, 'sq8');
  const keepOrder = place(1, 'none', { renumber: 'keep', policy: 'id' }, hnswGraph);
  const jsKernels = place(1, 'none', { renumber: 'keep', policy: 'id', kernels: 'js' }, hnswGraph);
  const hnswDram = place(1, 'none', {}, hnswGraph);
  const repeat = Math.max(1, Math.ceil(2000 / nq));
  const costs = { 90: costModel({ cxlExtraLatencyNs: 90 }), 190: costModel(), 400: costModel({ cxlExtraLatencyNs: 400 }) };
  out['plan'] = { code, reason: tiered.plan.reason, dram: tiered.plan.dram, cxl: tiered.plan.cxl, fullPrecisionBytes: full };

  // 1. DRAM share and CXL bytes at 10%, ef 64, injection on at the default latency.
  lines.push(`### 1. DRAM share at a 10% DRAM budget (ef 64, default model +${DEFAULT_COST_MODEL.cxlExtraLatencyNs} ns)`, '');
  lines.push(
    '| layout | recall@10 | distance DRAM share | access DRAM share | CXL KB/query | re-ranked/query | injected µs/query | stalled µs/query |',
    '|---|---|---|---|---|---|---|---|',
  );
  const share: Array<Record<string, unknown>> = [];
  const shareRow = (name: string, index: TieredIndex, rerank?: number): SearchStats => {
    const b = runBatch(index, queries, { k: K, ef: 64, inject: true, ...(rerank !== undefined ? { rerank } : {}) });
    const s = b.stats;
    const rec = recallOf(b.labels);
    share.push({
      layout: name,
      recall: rec,
      distanceDramShare: s.distanceDramShare,
      dramShare: s.dramShare,
      cxlBytes: s.bytes.cxl,
      reranked: s.reranked,
      injectedNs: s.injectedNs,
      stalledNs: s.stalledNs,
    });
    lines.push(
      `| ${name} | ${rec.toFixed(4)} | ${s.distanceDramShare.toFixed(3)} | ${s.dramShare.toFixed(3)} | ${(s.bytes.cxl / 1000).toFixed(1)} | ${s.reranked.toFixed(1)} | ${(s.injectedNs / 1000).toFixed(1)} | ${(s.stalledNs / 1000).toFixed(1)} |`,
    );
    return s;
  };
  shareRow('whole records, no code (10%)', records.index);
  shareRow(`${code} codes + hot neighbour lists (10%)`, tiered.index);
  shareRow('all in DRAM, full precision', allDram.index);
  out['dramShare'] = share;
  lines.push('');

  // 2. Recall against the re-rank pool, ef 64.
  lines.push(`### 2. recall@10 at ef 64 against the re-rank pool (${code}, 10%)`, '');
  const fullRecall = recallOf(runBatch(allDram.index, queries, { k: K, ef: 64 }).labels);
  lines.push(`Full precision at ef 64: ${fullRecall.toFixed(4)}.`, '');
  lines.push('| rerank (cap) | recall@10 | − full precision | re-ranked/query | skipped by the bound/query |', '|---|---|---|---|---|');
  const rr: Array<Record<string, number>> = [];
  for (const rerank of [0, 10, 20, 30, 50, 100, 200]) {
    const b = runBatch(tiered.index, queries, { k: K, ef: 64, rerank });
    const rec = recallOf(b.labels);
    rr.push({ rerank, recall: rec, delta: rec - fullRecall, reranked: b.stats.reranked, skipped: b.stats.rerankSkipped });
    lines.push(
      `| ${rerank === 0 ? '0 (estimates)' : rerank} | ${rec.toFixed(4)} | ${(rec - fullRecall).toFixed(4)} | ${b.stats.reranked.toFixed(1)} | ${b.stats.rerankSkipped.toFixed(1)} |`,
    );
  }
  out['rerank'] = { fullRecall, rows: rr };
  lines.push('');

  // 3 and 4: QPS-recall curves, contenders alternating within each repetition.
  const contenders = [
    new Contender('hnswlib-node searchKnn', hnswRunner(h, queries, dim, repeat)),
    new Contender('Strata, graph order, JS kernels, full precision', strataRunner(jsKernels.index, queries, repeat, {})),
    new Contender('Strata, graph order, WASM kernels, full precision, JS beam', strataRunner(keepOrder.index, queries, repeat, { fused: false })),
    new Contender(`${HNSW_GRAPH}, full precision (BFS order, WASM), JS beam`, strataRunner(hnswDram.index, queries, repeat, { fused: false })),
    new Contender(`${HNSW_GRAPH}, full precision (BFS order, WASM)`, strataRunner(hnswDram.index, queries, repeat, {})),
    new Contender('all DRAM, full precision (BFS order, WASM)', strataRunner(allDram.index, queries, repeat, {})),
    new Contender(`all DRAM, ${code} codes`, strataRunner(codesDram.index, queries, repeat, {})),
    new Contender('all DRAM, sq8 codes', strataRunner(sq8Dram.index, queries, repeat, {})),
    new Contender(`tiered 10%, ${code} codes, CXL +90 ns`, strataRunner(tiered.index, queries, repeat, { inject: true, cost: costs[90] })),
    new Contender(`tiered 10%, ${code} codes, CXL +190 ns (default)`, strataRunner(tiered.index, queries, repeat, { inject: true, cost: costs[190] })),
    new Contender(`tiered 10%, ${code} codes, CXL +400 ns`, strataRunner(tiered.index, queries, repeat, { inject: true, cost: costs[400] })),
    new Contender(
      `tiered 10%, ${code} codes, CXL +190 ns, JS beam`,
      strataRunner(tiered.index, queries, repeat, { inject: true, cost: costs[190], fused: false }),
    ),
    new Contender('tiered 10%, whole records, CXL +190 ns', strataRunner(records.index, queries, repeat, { inject: true, cost: costs[190] })),
  ];
  for (const c of contenders) c.run(32); // JIT warm-up
  for (let r = 0; r < reps; r++) for (const ef of EFS) for (const c of contenders) c.measure(ef, recallOf);
  const curves = Object.fromEntries(contenders.map((c) => [c.name, c.points()]));
  const at = Object.fromEntries(contenders.map((c) => [c.name, qpsAtRecall(c.points(), TARGET_RECALL)]));
  const coarse = Object.fromEntries(
    contenders.map((c) => [
      c.name,
      qpsAtRecall(
        c.points().filter((p) => COARSE_EFS.has(p.ef)),
        TARGET_RECALL,
      ),
    ]),
  );
  out['curves'] = curves;
  out['qpsAtRecall'] = { target: TARGET_RECALL, ...at };
  out['qpsAtRecallCoarseGrid'] = { target: TARGET_RECALL, efs: [...COARSE_EFS], ...coarse };
  const lower = Object.fromEntries(contenders.map((c) => [c.name, qpsAtRecall(c.points(), LOWER_RECALL)]));
  out['qpsAtLowerRecall'] = { target: LOWER_RECALL, ...lower };
  lines.push(`### 3–4. QPS at recall@10 = ${TARGET_RECALL} (interpolated on ef ${EFS.join(', ')}; one thread; median of ${reps})`, '');
  lines.push(
    `| contender | QPS @ recall | ratio to hnswlib | ratio to all-DRAM full precision | the same two ratios on the coarse grid (no ef 20, 28, 40) | ratio to hnswlib at recall ${LOWER_RECALL} |`,
    '|---|---|---|---|---|---|',
  );
  const hl = lower['hnswlib-node searchKnn'] ?? null;
  const hq = at['hnswlib-node searchKnn'] ?? null;
  const aq = at['all DRAM, full precision (BFS order, WASM)'] ?? null;
  const hc = coarse['hnswlib-node searchKnn'] ?? null;
  const ac = coarse['all DRAM, full precision (BFS order, WASM)'] ?? null;
  const ratio = (x: number | null, y: number | null): string => (x && y ? (x / y).toFixed(2) : 'n/a');
  for (const c of contenders) {
    const q = at[c.name] ?? null;
    const qc = coarse[c.name] ?? null;
    lines.push(`| ${c.name} | ${f(q)} | ${ratio(q, hq)} | ${ratio(q, aq)} | ${ratio(qc, hc)}, ${ratio(qc, ac)} | ${ratio(lower[c.name] ?? null, hl)} |`);
  }
  const q = (name: string): number | null => at[name] ?? null;
  const js = q('Strata, graph order, JS kernels, full precision');
  const wasm = q('Strata, graph order, WASM kernels, full precision, JS beam');
  const hnswJs = q(`${HNSW_GRAPH}, full precision (BFS order, WASM), JS beam`);
  const hnswFused = q(`${HNSW_GRAPH}, full precision (BFS order, WASM)`);
  const codesQ = q(`all DRAM, ${code} codes`);
  const sq8Q = q('all DRAM, sq8 codes');
  const tieredQ = q(`tiered 10%, ${code} codes, CXL +190 ns (default)`);
  const tieredJsQ = q(`tiered 10%, ${code} codes, CXL +190 ns, JS beam`);
  if (js && wasm && hnswJs && hnswFused && aq && codesQ && sq8Q && hq) {
    // The chain JS kernels → WASM kernels → BFS renumbering → fused beam (all on hnswlib's graph) →
    // the filled graph → codes, one cause per step, each step's QPS ratio at equal recall (steps
    // multiply: their product is the whole chain).
    const steps: Array<[string, number]> = [
      ['kernels (WASM SIMD vs JS)', wasm / js],
      ['BFS renumbering (vs hnswlib node order)', hnswJs / wasm],
      ['fused WASM beam (vs the JS beam)', hnswFused / hnswJs],
      [`free level-0 slots filled at α ${DEFAULT_FILL_ALPHA} (vs hnswlib's graph)`, aq / hnswFused],
      ['sq8 codes (vs full precision)', sq8Q / aq],
      [`${code} codes (vs full precision)`, codesQ / aq],
    ];
    lines.push(
      '',
      `Attribution, each step's QPS ratio at equal recall: ${steps.map(([k, r]) => `${k} ×${r.toFixed(2)}`).join('; ')}. Against hnswlib-node: full precision ×${(aq / hq).toFixed(2)}, sq8 ×${(sq8Q / hq).toFixed(2)}, ${code} ×${(codesQ / hq).toFixed(2)}; hnswlib node order with WASM kernels ×${(wasm / hq).toFixed(2)}.`,
    );
    out['attribution'] = Object.fromEntries(steps);
  }
  if (tieredQ && aq && codesQ) {
    lines.push(
      `Tiered (10%, injection at +190 ns) vs all-DRAM full precision: ×${(tieredQ / aq).toFixed(2)}; vs the same codes all in DRAM: ×${(tieredQ / codesQ).toFixed(2)}.${tieredJsQ ? ` The fused beam's share in the tiered index: ×${(tieredQ / tieredJsQ).toFixed(2)} over its JS beam.` : ''}`,
    );
  }
  lines.push('');

  // 6. Bytes and build time.
  const dramPerVector = tiered.plan.dram.total / n;
  lines.push('### 6. Bytes and build time', '');
  lines.push(
    `DRAM per vector at 10%: ${dramPerVector.toFixed(1)} B = ${(dramPerVector / (4 * dim)).toFixed(3)} × the raw vector (${4 * dim} B): upper layers ${(tiered.plan.dram.upper / n).toFixed(1)}, ${code} codes ${(tiered.plan.dram.codes / n).toFixed(1)} (rows and ${tiered.plan.codeCentroids} centroids), neighbour lists ${(tiered.plan.dram.adjacency / n).toFixed(1)}, promotion pool ${(tiered.plan.dram.pool / n).toFixed(1)}, vectors ${(tiered.plan.dram.vectors / n).toFixed(1)} B/vector.`,
    `Build: HNSW graph ${hnswSeconds.toFixed(1)} s, its free slots filled ${fillSeconds.toFixed(1)} s (${fill.linksAdded} links: mean level-0 degree ${fill.degreeBefore.toFixed(1)} → ${fill.degreeAfter.toFixed(1)}), profiling ${profileSeconds.toFixed(1)} s; placement and layout without codes ${records.seconds.toFixed(2)} s, with ${code} (training and encoding included) ${tiered.seconds.toFixed(2)} s: the build takes ×${((graphSeconds + profileSeconds + tiered.seconds) / (graphSeconds + profileSeconds + records.seconds)).toFixed(3)} the time of --codes none.`,
    '',
  );
  out['bytes'] = { dramPerVector, rawVector: 4 * dim, ratio: dramPerVector / (4 * dim) };
  out['buildSeconds'] = {
    graph: graphSeconds,
    hnswlib: hnswSeconds,
    fill: fillSeconds,
    profile: profileSeconds,
    layoutNone: records.seconds,
    layoutCodes: tiered.seconds,
  };
  return out;
}

async function main(): Promise<void> {
  const o = new Command('tiering-bench')
    .option('--sets <list>', 'sift (../shared), clustered, angular, glove (real word vectors: --glove)', 'sift,clustered,angular')
    .option('--glove <dir>', 'a set written by `strata fetch glove-100 -o <dir>`', '.strata/datasets/glove-100')
    .option('--count <n>', 'generated set size', (v) => Number(v), 100_000)
    .option('--queries <n>', 'generated queries', (v) => Number(v), 1000)
    .option('--reps <n>', 'alternating repetitions', (v) => Number(v), 3)
    .option('--code <kind>', "the tiered layout's code (default: what the planner picks at 10%)", 'auto')
    .option('--m <n>', "the graph's M (hnswlib's, for every contender)", (v) => Number(v), 16)
    .option('--json <file>', 'write results as JSON')
    .parse(process.argv)
    .opts<{ sets: string; glove: string; count: number; queries: number; reps: number; code: CodeKind | 'auto'; m: number; json?: string }>();
  const sets = await loadSets(o.sets.split(','), o.count, o.queries, o.glove);
  const results: unknown[] = [];
  for (const ds of sets) {
    const lines: string[] = [];
    results.push(await benchSet(ds, o.reps, o.code, o.m, lines));
    process.stdout.write(lines.join('\n') + '\n');
  }
  if (o.json) {
    mkdirSync(resolve(o.json, '..'), { recursive: true });
    writeFileSync(o.json, JSON.stringify({ node: process.version, date: new Date().toISOString(), results }, null, 2) + '\n');
  }
}

await main();
