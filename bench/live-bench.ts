// Live collections through the engine with a data directory: upserts/s (batches of 1 and 100, 1 and
// 16 writers); recall@10 and QPS after live upserts and deletes, and after a compaction, vs a fresh
// build on the final data; search p50/p99 during upserts and compaction vs without.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import * as hdr from 'hdr-histogram-js';
import { bruteForceKnn, generateEmbedding, writeFvecs } from '../datasets/index.js';
import type { Collection } from '../engine/collection.js';
import { Engine } from '../engine/engine.js';
import { buildIndex } from '../index/build/build-index.js';
import { mulberry32 } from '../common/random.js';

const K = 10;
const EF = 64;

const o = new Command()
  .option('--count <n>', 'points in the final data set (before deletes)', Number, 50_000)
  .option('--queries <n>', 'queries', Number, 500)
  .option('--seconds <n>', 'seconds per throughput row', Number, 2)
  .option('--json <file>', 'also write the figures as JSON')
  .parse(process.argv)
  .opts<{ count: number; queries: number; seconds: number; json?: string }>();

const dim = 100;
const set = generateEmbedding({ count: o.count, dim, seed: 7 }, o.queries);
const baseCount = Math.floor(o.count * 0.7);
const row = (i: number): Float32Array => set.base.subarray(i * dim, (i + 1) * dim);
const tmp = mkdtempSync(join(tmpdir(), 'strata-live-'));
const out: Record<string, unknown> = { node: process.version, date: new Date().toISOString(), count: o.count, dim, metric: 'cosine', baseCount };
const lines: string[] = [];

async function build(name: string, ids: number[]): Promise<string> {
  const v = new Float32Array(ids.length * dim);
  ids.forEach((id, i) => v.set(row(id), i * dim));
  // Row numbers are the ids only for the base, whose ids are 0..baseCount-1; the final build's rows
  // are mapped back through `ids` when recall is computed.
  await writeFvecs(join(tmp, `${name}.fvecs`), v, dim);
  await buildIndex({ input: join(tmp, `${name}.fvecs`), out: join(tmp, name), metric: 'cosine' });
  return join(tmp, name);
}

function percentile(h: hdr.Histogram, p: number): number {
  return h.getValueAtPercentile(p) / 1000;
}

async function searchAll(c: Collection, withLatency?: hdr.Histogram): Promise<{ labels: Float64Array; qps: number }> {
  const labels = new Float64Array(o.queries * K).fill(-1);
  const t0 = performance.now();
  let next = 0;
  // 8 searches in flight keep the search thread busy without queueing much.
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < o.queries) {
        const q = next++;
        const s = performance.now();
        const r = await c.search({ vector: set.queries.subarray(q * dim, (q + 1) * dim), k: K, ef: EF });
        withLatency?.recordValue(Math.round((performance.now() - s) * 1000));
        r.hits.forEach((h, j) => (labels[q * K + j] = h.id));
      }
    }),
  );
  return { labels, qps: o.queries / ((performance.now() - t0) / 1000) };
}

function recall(labels: Float64Array, gtIds: Int32Array, idOf: (row: number) => number): number {
  let hit = 0;
  for (let q = 0; q < o.queries; q++) {
    const truth = new Set(Array.from(gtIds.subarray(q * K, (q + 1) * K), idOf));
    for (let j = 0; j < K; j++) if (truth.has(labels[q * K + j]!)) hit++;
  }
  return hit / (o.queries * K);
}

try {
  const baseIds = Array.from({ length: baseCount }, (_, i) => i);
  const baseDir = await build('base', baseIds);
  const engine = await Engine.open([{ dir: baseDir, name: 'live' }], {
    dataDir: join(tmp, 'data'),
    searchThreads: 1,
    memory: { mode: 'emulate' },
    compactAt: 0,
  });
  const c = engine.collection('live');

  // 1. Upsert throughput, into a collection of its own (created over the API, deleted after): the
  // throwaway points would otherwise stay in the measured collection's fresh graph as deleted nodes.
  const scratchCol = await engine.createCollection({ name: 'scratch', dim, metric: 'cosine', m: 16, efConstruction: 100 });
  lines.push(`## Live collections: ${o.count} × ${dim} angular, ${baseCount} built, the rest upserted live`, '');
  lines.push('### Upsert throughput (fdatasync on every acknowledged write; group commit)', '');
  lines.push('| batch | writers | points/s | writes/s |', '|---|---|---|---|');
  let scratchId = 10_000_000;
  const throughput: Array<Record<string, number>> = [];
  for (const [batch, writers] of [
    [1, 1],
    [1, 16],
    [100, 1],
    [100, 4],
  ] as const) {
    let points = 0;
    let writes = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (performance.now() - t0 < o.seconds * 1000) {
          const ps = Array.from({ length: batch }, () => ({ key: scratchId++, vector: row(scratchId % o.count).slice(), payload: null }));
          await scratchCol.upsert(ps);
          points += batch;
          writes++;
        }
      }),
    );
    const s = (performance.now() - t0) / 1000;
    throughput.push({ batch, writers, pointsPerSecond: points / s, writesPerSecond: writes / s });
    lines.push(`| ${batch} | ${writers} | ${Math.round(points / s)} | ${Math.round(writes / s)} |`);
  }
  out['throughput'] = throughput;
  await engine.deleteCollection('scratch');

  // 3a. Latency without writes (base only).
  const quiet = hdr.build();
  await searchAll(c, quiet);

  // 2. The live 30%, streamed in batches of 100 while searches run (3b).
  const busy = hdr.build();
  let streaming = true;
  const writer = (async () => {
    const t0 = performance.now();
    for (let id = baseCount; id < o.count; id += 100) {
      const ps = [];
      for (let j = id; j < Math.min(o.count, id + 100); j++) ps.push({ key: j, vector: row(j).slice(), payload: { row: j } });
      await c.upsert(ps);
    }
    streaming = false;
    return (o.count - baseCount) / ((performance.now() - t0) / 1000);
  })();
  while (streaming) await searchAll(c, busy);
  const streamRate = await writer;
  const rnd = mulberry32(3);
  const deleted = new Set<number>();
  while (deleted.size < Math.floor(o.count * 0.1)) deleted.add(Math.floor(rnd() * o.count));
  const del = [...deleted];
  for (let i = 0; i < del.length; i += 100) await c.deletePoints(del.slice(i, i + 100));

  const finalIds = Array.from({ length: o.count }, (_, i) => i).filter((i) => !deleted.has(i));
  const finalVectors = new Float32Array(finalIds.length * dim);
  finalIds.forEach((id, i) => finalVectors.set(row(id), i * dim));
  const gt = bruteForceKnn(finalVectors, set.queries, dim, K, 'cosine');
  const liveRun = await searchAll(c);
  const liveRecall = recall(liveRun.labels, gt.ids, (r) => finalIds[r]!);
  const info = c.info();

  // 4. Compaction: the fresh points and deletes folded into a new tiered base on a worker thread,
  // searches running all the while (3c), then recall and QPS again on the compacted collection.
  const during = hdr.build();
  const compaction = engine.compact('live');
  let compacting = true;
  void compaction.finally(() => (compacting = false)).catch(() => {});
  while (compacting) await searchAll(c, during);
  const report = await compaction;
  await searchAll(c);
  const afterRun = await searchAll(c);
  const afterRecall = recall(afterRun.labels, gt.ids, (r) => finalIds[r]!);
  const afterInfo = c.info();
  await engine.close();

  const freshDir = await build('final', finalIds);
  const fresh = await Engine.open([{ dir: freshDir, name: 'fresh' }], { searchThreads: 1, memory: { mode: 'emulate' } });
  const fc = fresh.collection('fresh');
  await searchAll(fc);
  const freshRun = await searchAll(fc);
  // The final build's rows are finalIds in order: map its labels (row numbers) back to ids.
  const freshRecall = recall(
    freshRun.labels.map((l) => (l < 0 ? -1 : finalIds[l]!)),
    gt.ids,
    (r) => finalIds[r]!,
  );
  await fresh.close();

  lines.push('', `### Recall@10 at ef ${EF}: 30% upserted live (${Math.round(streamRate)} points/s in batches of 100, during searches), then 10% deleted`, '');
  lines.push('| index | points | recall@10 | QPS (1 search thread, 8 in flight) |', '|---|---|---|---|');
  lines.push(
    `| live: base ${baseCount} + fresh ${info.live?.fresh} − hidden ${info.live?.hidden} | ${info.count} | ${liveRecall.toFixed(4)} | ${Math.round(liveRun.qps)} |`,
  );
  lines.push(
    `| live, after compaction (${report.seconds.toFixed(1)} s; fresh ${report.before.fresh} → ${report.after.fresh}, hidden ${report.before.hidden} → ${report.after.hidden}) | ${afterInfo.count} | ${afterRecall.toFixed(4)} | ${Math.round(afterRun.qps)} |`,
  );
  lines.push(`| fresh build on the final data | ${finalIds.length} | ${freshRecall.toFixed(4)} | ${Math.round(freshRun.qps)} |`);
  out['recall'] = {
    ef: EF,
    live: liveRecall,
    liveQps: liveRun.qps,
    compacted: afterRecall,
    compactedQps: afterRun.qps,
    compaction: report,
    fresh: freshRecall,
    freshQps: freshRun.qps,
    liveInfo: info.live,
    count: info.count,
  };

  lines.push('', '### Search latency with and without a stream of upserts (ms; 8 searches in flight, one search thread)', '');
  lines.push('| | p50 | p99 | searches |', '|---|---|---|---|');
  lines.push(`| no writes | ${percentile(quiet, 50).toFixed(2)} | ${percentile(quiet, 99).toFixed(2)} | ${quiet.totalCount} |`);
  lines.push(`| upserts streaming (batches of 100) | ${percentile(busy, 50).toFixed(2)} | ${percentile(busy, 99).toFixed(2)} | ${busy.totalCount} |`);
  lines.push(`| during compaction | ${percentile(during, 50).toFixed(2)} | ${percentile(during, 99).toFixed(2)} | ${during.totalCount} |`);
  out['latency'] = {
    quiet: { p50: percentile(quiet, 50), p99: percentile(quiet, 99), n: quiet.totalCount },
    streaming: { p50: percentile(busy, 50), p99: percentile(busy, 99), n: busy.totalCount },
    compacting: { p50: percentile(during, 50), p99: percentile(during, 99), n: during.totalCount },
  };
  console.log(lines.join('\n'));
  if (o.json) writeFileSync(o.json, `${JSON.stringify(out, null, 2)}\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
