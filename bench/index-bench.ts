// Issue-2 benchmark: recall, QPS against hnswlib's own searchKnn on the same graph, placement
// policies at a 10% DRAM budget, tiered-with-injection vs all-DRAM, and bytes per vector per tier.
// One thread; every ratio is measured side by side in this one run (alternating repetitions, median).
// Run: npm run bench -- [--sift DIR] [--count 100000] [--queries 1000] [--json out.json]
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { projectRoot } from '../common/paths.js';
import { buildHnswlib, extractGraph } from '../index/build/hnsw-build.js';
import { predictedDramShare, profileGraph, sampleRows } from '../index/build/profile.js';
import { readDataset, readFvecsMatrix, readGroundTruth } from '../index/datasets/index.js';
import { generateClustered } from '../index/generate/clustered.js';
import { bruteForceKnn } from '../index/groundtruth.js';
import { placeNodes, PLACEMENT_POLICIES } from '../index/placement/placement.js';
import { runBatch } from '../index/search/batch.js';
import { recallAtK } from '../index/search/recall.js';
import { layoutIndex } from '../index/tiered/layout.js';
import type { TieredIndex } from '../index/tiered/tiered-index.js';

interface SetData {
  name: string;
  base: Float32Array;
  queries: Float32Array;
  dim: number;
  gtIds: Int32Array;
  gtDim: number;
  gtDist: Float32Array;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function siftSet(dir: string): Promise<SetData> {
  const base = await readDataset(join(dir, 'base.fvecs'));
  const q = await readDataset(join(dir, 'query.fvecs'));
  const gt = await readGroundTruth(join(dir, 'groundtruth.ivecs'));
  const gd = await readFvecsMatrix(join(dir, 'groundtruth_dist.fvecs'));
  return { name: 'sift-128-euclidean-10k', base: base.vectors, queries: q.vectors, dim: base.dim, gtIds: gt.data, gtDim: gt.dim, gtDist: gd.data };
}

function generatedSet(count: number, queries: number): SetData {
  const g = generateClustered({ count, dim: 128, clusters: 100, seed: 42 }, queries);
  const gt = bruteForceKnn(g.base, g.queries, 128, 10, 'l2');
  return { name: `clustered-${count / 1000}k-128`, base: g.base, queries: g.queries, dim: 128, gtIds: gt.ids, gtDim: gt.k, gtDist: gt.distances };
}

function recallOf(set: SetData, labels: Float64Array, dists: Float32Array): number {
  return recallAtK({ k: 10, results: labels, resultDistances: dists, metric: 'l2', gtIds: set.gtIds, gtDim: set.gtDim, gtDistances: set.gtDist }).mean;
}

function benchSet(set: SetData, reps: number): Record<string, unknown> {
  const { dim } = set;
  const n = set.base.length / dim;
  const nq = set.queries.length / dim;
  const out: Record<string, unknown> = { dataset: set.name, vectors: n, queries: nq, dim };
  const t0 = performance.now();
  const h = buildHnswlib(set.base, dim, { metric: 'l2', m: 16, efConstruction: 200, seed: 100 });
  out['buildSeconds'] = (performance.now() - t0) / 1000;
  const graph = extractGraph(h, dim);
  const profile = profileGraph(graph, 'l2', sampleRows(set.base, dim, 1000, 100), 10, 64);
  const total = placeNodes(graph, { policy: 'id', budgetBytes: 0 }).totalBytes;

  const allDram = layoutIndex(graph, placeNodes(graph, { policy: 'hops', budgetBytes: total }), 'l2', null);
  const qArrays = Array.from({ length: nq }, (_, q) => Array.from(set.queries.subarray(q * dim, (q + 1) * dim)));

  // 1 + 2: recall and QPS vs hnswlib on the same graph, per ef.
  const efRows: Array<Record<string, number>> = [];
  for (const ef of [16, 32, 64, 128]) {
    h.setEf(ef);
    const oursQps: number[] = [];
    const libQps: number[] = [];
    let ours = runBatch(allDram, set.queries, { k: 10, ef, warmup: 1 });
    const libLabels = new Float64Array(nq * 10);
    const libD = new Float32Array(nq * 10);
    for (let r = 0; r < reps; r++) {
      ours = runBatch(allDram, set.queries, { k: 10, ef });
      oursQps.push(ours.qps);
      const ts = performance.now();
      for (let q = 0; q < nq; q++) {
        const res = h.searchKnn(qArrays[q]!, 10);
        if (r === 0) {
          res.neighbors.forEach((id, j) => {
            libLabels[q * 10 + j] = id;
            libD[q * 10 + j] = res.distances[j]!;
          });
        }
      }
      libQps.push(nq / ((performance.now() - ts) / 1000));
    }
    efRows.push({
      ef,
      recallStrata: recallOf(set, ours.labels, ours.distances),
      recallHnswlib: recallOf(set, libLabels, libD),
      qpsStrata: median(oursQps),
      qpsHnswlib: median(libQps),
      ratio: median(oursQps) / median(libQps),
      distances: ours.stats.distances,
    });
  }
  out['efSweep'] = efRows;

  // 3: placement policies at 10% DRAM.
  const budget = Math.floor(total * 0.1);
  const policies: Array<Record<string, number | string | boolean>> = [];
  let reference: Float64Array | null = null;
  const tiered: Record<string, TieredIndex> = {};
  for (const policy of PLACEMENT_POLICIES) {
    const p = placeNodes(graph, { policy, budgetBytes: budget, profile: profile.accesses, seed: 7 });
    const idx = layoutIndex(graph, p, 'l2', null);
    tiered[policy] = idx;
    const r = runBatch(idx, set.queries, { k: 10, ef: 64 });
    const same = reference === null ? true : r.labels.every((v, i) => v === reference![i]);
    reference ??= r.labels;
    policies.push({
      policy,
      dramNodes: p.dramCount,
      predictedDramShare: predictedDramShare(profile, p.order, p.dramCount),
      dramShare: r.stats.dramShare,
      modelledMemoryUs: r.stats.modelledMemoryNs / 1000,
      modelledCxlExtraUs: r.stats.modelledCxlExtraNs / 1000,
      cxlBytesPerQuery: r.stats.bytes.cxl,
      recall: recallOf(set, r.labels, r.distances),
      sameAnswersAsHops: same,
    });
  }
  out['placement10pct'] = policies;

  // 4: tiered 10% (profile placement, injection on) vs all in DRAM, side by side.
  const flat: number[] = [];
  const inj: Record<string, number[]> = { profile: [], hops: [] };
  for (let r = 0; r < reps; r++) {
    flat.push(runBatch(allDram, set.queries, { k: 10, ef: 64, warmup: r === 0 ? 1 : 0 }).qps);
    for (const pol of ['profile', 'hops'] as const)
      inj[pol]!.push(runBatch(tiered[pol]!, set.queries, { k: 10, ef: 64, inject: true, warmup: r === 0 ? 1 : 0 }).qps);
  }
  out['tieredVsDram'] = {
    qpsAllDram: median(flat),
    qpsTieredProfileInjected: median(inj['profile']!),
    qpsTieredHopsInjected: median(inj['hops']!),
    ratioProfile: median(inj['profile']!) / median(flat),
    ratioHops: median(inj['hops']!) / median(flat),
  };

  // 5: resident bytes per vector per tier.
  const idx = tiered['profile']!;
  const tb = idx.tierBytes();
  const resident = idx.residentBytes();
  const dramNodes = idx.meta.dramCount;
  const cxlNodes = n - dramNodes;
  out['bytesPerVector'] = {
    rawVectorBytes: dim * 4,
    dramPerDramNode: (tb.dram - tb.dramGraph) / Math.max(1, dramNodes),
    cxlPerCxlNode: tb.cxl / Math.max(1, cxlNodes),
    dramGraphPerVector: tb.dramGraph / n,
    residentDramPerVector: (resident[0]! + tb.dramGraph) / n,
    residentCxlPerVector: resident[1]! / n,
    residentTotalPerVector: (resident[0]! + resident[1]! + tb.dramGraph) / n,
    searcherScratchPerVector: 4,
  };
  return out;
}

function markdown(r: Record<string, unknown>): string {
  const lines: string[] = [
    `### ${String(r['dataset'])} (${String(r['vectors'])} vectors, ${String(r['queries'])} queries, build ${(r['buildSeconds'] as number).toFixed(1)} s)`,
    '',
  ];
  lines.push('| ef | recall@10 Strata | recall@10 hnswlib | QPS Strata | QPS hnswlib | ratio | distances/query |', '|---|---|---|---|---|---|---|');
  for (const e of r['efSweep'] as Array<Record<string, number>>) {
    lines.push(
      `| ${e['ef']} | ${e['recallStrata']!.toFixed(3)} | ${e['recallHnswlib']!.toFixed(3)} | ${Math.round(e['qpsStrata']!)} | ${Math.round(e['qpsHnswlib']!)} | ${e['ratio']!.toFixed(2)} | ${e['distances']!.toFixed(0)} |`,
    );
  }
  lines.push(
    '',
    '| placement (10% DRAM) | DRAM nodes | predicted DRAM share | measured DRAM share | modelled memory µs/query | CXL extra µs/query | CXL bytes/query | recall@10 | same answers |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const p of r['placement10pct'] as Array<Record<string, number | string | boolean>>) {
    lines.push(
      `| ${String(p['policy'])} | ${String(p['dramNodes'])} | ${(100 * (p['predictedDramShare'] as number)).toFixed(1)}% | ${(100 * (p['dramShare'] as number)).toFixed(1)}% | ${(p['modelledMemoryUs'] as number).toFixed(1)} | ${(p['modelledCxlExtraUs'] as number).toFixed(1)} | ${Math.round(p['cxlBytesPerQuery'] as number)} | ${(p['recall'] as number).toFixed(3)} | ${String(p['sameAnswersAsHops'])} |`,
    );
  }
  const t = r['tieredVsDram'] as Record<string, number>;
  lines.push(
    '',
    `Tiered 10% DRAM with CXL injection vs all in DRAM (ef 64): profile ${Math.round(t['qpsTieredProfileInjected']!)} QPS vs ${Math.round(t['qpsAllDram']!)} QPS = **${t['ratioProfile']!.toFixed(2)}**; hops ${Math.round(t['qpsTieredHopsInjected']!)} QPS = ${t['ratioHops']!.toFixed(2)}.`,
  );
  const b = r['bytesPerVector'] as Record<string, number>;
  lines.push(
    '',
    `Bytes per vector: raw vector ${b['rawVectorBytes']}; DRAM tier ${b['dramPerDramNode']!.toFixed(0)} per DRAM node, CXL tier ${b['cxlPerCxlNode']!.toFixed(0)} per CXL node; upper layers + labels + levels ${b['dramGraphPerVector']!.toFixed(1)} per vector (DRAM); resident (whole regions incl. scratch) DRAM ${b['residentDramPerVector']!.toFixed(1)} + CXL ${b['residentCxlPerVector']!.toFixed(1)} = ${b['residentTotalPerVector']!.toFixed(1)} per vector (${(b['residentTotalPerVector']! / b['rawVectorBytes']!).toFixed(2)}x raw); each searcher adds a 4-byte visited tag per vector.`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const o = new Command('index-bench')
    .option('--sift <dir>', 'SIFT 10k directory', resolve(projectRoot(), '..', 'shared', 'datasets', 'sift-128-euclidean-10k'))
    .option('--count <n>', 'generated set size (0 to skip)', (v) => Number(v), 100_000)
    .option('--queries <n>', 'generated set queries', (v) => Number(v), 1000)
    .option('--reps <n>', 'alternating repetitions per measurement', (v) => Number(v), 5)
    .option('--json <file>', 'write the results as JSON')
    .parse(process.argv)
    .opts<{ sift: string; count: number; queries: number; reps: number; json?: string }>();
  const results: Array<Record<string, unknown>> = [];
  if (existsSync(join(o.sift, 'base.fvecs'))) {
    const r = benchSet(await siftSet(o.sift), o.reps);
    results.push(r);
    process.stdout.write(markdown(r) + '\n\n');
  } else {
    process.stdout.write(`(SIFT set not found at ${o.sift}: skipped)\n\n`);
  }
  if (o.count > 0) {
    const r = benchSet(generatedSet(o.count, o.queries), o.reps);
    results.push(r);
    process.stdout.write(markdown(r) + '\n');
  }
  if (o.json) {
    mkdirSync(resolve(o.json, '..'), { recursive: true });
    writeFileSync(o.json, JSON.stringify({ node: process.version, date: new Date().toISOString(), results }, null, 2) + '\n');
  }
}

await main();
