// Hybrid search through the router: what a query fusing a dense and a sparse prefetch (rrf) costs
// through `strata router` over 3 shard servers, beside a dense query and a sparse query, and beside
// one `strata serve` of all the data. Side by side in one run, in turn, each kind a closed loop of
// `--concurrency` clients; every process shares this machine's cores (docs/benchmarks.md §6 says how
// to read a ratio taken so). Also the shard calls a routed query makes (the router's own
// /metrics), and how often both targets answer the same ids.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { Pool } from 'undici';
import { mulberry32 } from '../common/random.js';
import { median } from '../common/median.js';
import { readDataset } from '../datasets/index.js';
import { run, type Served, serveDataDir, serveRouter, stop } from './lib/strata-children.js';

const DIM = 100;
const VOCABULARY = 5000;

const o = new Command()
  .option('--count <n>', 'points', Number, 20_000)
  .option('--duration <s>', 'seconds per kind and target', Number, 5)
  .option('--concurrency <n>', 'clients', Number, 16)
  .option('--rounds <n>', 'rounds, each running every kind on both targets in turn', Number, 3)
  .option('--json <file>', 'also write the figures as JSON')
  .parse(process.argv)
  .opts<{ count: number; duration: number; concurrency: number; rounds: number; json?: string }>();

/** A sparse vector of `terms` distinct terms drawn with Zipf-like weights (rank^-1.1), as keyword vectors are. */
function sparseOf(rnd: () => number, terms: number): { indices: number[]; values: number[] } {
  const picked = new Set<number>();
  while (picked.size < terms) picked.add(Math.min(VOCABULARY - 1, Math.floor(rnd() ** 3 * VOCABULARY)));
  const indices = [...picked].sort((a, b) => a - b);
  return { indices, values: indices.map(() => Math.round((0.5 + rnd()) * 1000) / 1000) };
}

async function call(pool: Pool, method: 'PUT' | 'POST', path: string, body: unknown): Promise<unknown> {
  const r = await pool.request({ method, path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.body.text();
  if (r.statusCode !== 200) throw new Error(`${method} ${path}: ${r.statusCode} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { result: unknown }).result;
}

const tmp = mkdtempSync(join(tmpdir(), 'strata-router-hybrid-'));
const children: Served[] = [];
const pools: Pool[] = [];
try {
  const data = join(tmp, 'data');
  await run(['generate', '--out-dir', data, '--count', String(o.count), '--queries', '200', '--kind', 'embedding', '--dim', String(DIM)]);
  const base = await readDataset(join(data, 'base.fvecs'));
  const queries = await readDataset(join(data, 'query.fvecs'));
  const single = await serveDataDir(join(tmp, 'single'), { threads: 1 });
  children.push(single);
  for (let s = 0; s < 3; s++) children.push(await serveDataDir(join(tmp, `shard-${s}`), { threads: 1 }));
  const router = await serveRouter(children.slice(1).map((c) => c.rest));
  children.push(router);
  const targets = [
    ['one server, all data', new Pool(single.rest, { connections: o.concurrency })],
    ['router over 3 shards', new Pool(router.rest, { connections: o.concurrency })],
  ] as const;
  pools.push(...targets.map(([, p]) => p));

  const rnd = mulberry32(7);
  const points = Array.from({ length: base.count }, (_, i) => ({
    id: i,
    vector: { dense: Array.from(base.vectors.subarray(i * DIM, (i + 1) * DIM)), text: sparseOf(rnd, 12) },
  }));
  for (const [, pool] of targets) {
    await call(pool, 'PUT', '/collections/hyb', { vectors: { dense: { size: DIM, distance: 'Cosine' } }, sparse_vectors: { text: {} } });
    for (let at = 0; at < points.length; at += 500) await call(pool, 'PUT', '/collections/hyb/points?wait=true', { points: points.slice(at, at + 500) });
  }
  const sparseQueries = Array.from({ length: queries.count }, () => sparseOf(rnd, 4));
  const denseOf = (q: number): number[] => Array.from(queries.vectors.subarray(q * DIM, (q + 1) * DIM));
  const kinds: Array<[string, (q: number) => unknown]> = [
    ['dense', (q) => ({ query: denseOf(q), using: 'dense', limit: 10, params: { hnsw_ef: 64 } })],
    ['sparse', (q) => ({ query: sparseQueries[q], using: 'text', limit: 10 })],
    [
      'hybrid (rrf of both, 20 each)',
      (q) => ({
        prefetch: [
          { query: denseOf(q), using: 'dense', limit: 20, params: { hnsw_ef: 64 } },
          { query: sparseQueries[q], using: 'text', limit: 20 },
        ],
        query: { fusion: 'rrf' },
        limit: 10,
      }),
    ],
  ];

  // How often both targets give the same ids: a sparse search is exact; a dense one approximate on each shard and on the one server.
  const agree: Record<string, number> = {};
  for (const [kind, body] of kinds) {
    let same = 0;
    for (let q = 0; q < queries.count; q++) {
      const [a, b] = await Promise.all(targets.map(([, p]) => call(p, 'POST', '/collections/hyb/points/query', body(q))));
      const ids = (r: unknown): string => (r as { points: Array<{ id: number }> }).points.map((h) => h.id).join(',');
      if (ids(a) === ids(b)) same++;
    }
    agree[kind] = same / queries.count;
  }

  /** A closed loop of o.concurrency clients for o.duration seconds: QPS and latency percentiles. */
  async function load(pool: Pool, body: (q: number) => unknown): Promise<{ qps: number; p50: number; p99: number; count: number }> {
    const end = performance.now() + o.duration * 1000;
    const lat: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (performance.now() < end) {
          const q = next++ % queries.count;
          const t = performance.now();
          await call(pool, 'POST', '/collections/hyb/points/query', body(q));
          lat.push(performance.now() - t);
        }
      }),
    );
    lat.sort((a, b) => a - b);
    return { qps: lat.length / o.duration, p50: lat[Math.floor(lat.length / 2)]!, p99: lat[Math.floor(lat.length * 0.99)]!, count: lat.length };
  }

  /** Calls the router has made to its shards so far (its /metrics). */
  const shardCalls = async (): Promise<number> => {
    const r = await targets[1][1].request({ method: 'GET', path: '/metrics' });
    const text = await r.body.text();
    let n = 0;
    for (const m of text.matchAll(/^strata_router_shard_calls_total\{[^}]*\} (\d+)$/gm)) n += Number(m[1]);
    return n;
  };
  const runs: Array<{ round: number; kind: string; target: string; qps: number; p50: number; p99: number; count: number; callsPerQuery: number | null }> = [];
  for (let round = 1; round <= o.rounds; round++)
    for (const [kind, body] of kinds)
      for (const [target, pool] of targets) {
        const before = await shardCalls();
        const r = await load(pool, body);
        const calls = (await shardCalls()) - before;
        runs.push({ round, kind, target, ...r, callsPerQuery: pool === targets[1][1] ? calls / r.count : null });
        process.stderr.write(`round ${round} ${kind} ${target}: ${Math.round(r.qps)} QPS\n`);
      }

  const of = (kind: string, target: string) => runs.filter((r) => r.kind === kind && r.target === target);
  const qpsOf = (kind: string, target: string): number => median(of(kind, target).map((r) => r.qps));
  const range = (xs: number[]): string => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
  const lines = [
    `${o.count} points: 100-d Cosine embeddings and 12-term sparse vectors; ${o.concurrency} clients, JSON, ${o.duration} s a row, median (range) of ${o.rounds} rounds`,
    '',
    '| query | one server QPS | router QPS | router / one server | through the router, / dense | shard calls a routed query | same ids from both |',
    '|---|---|---|---|---|---|---|',
  ];
  const [oneName, routerName] = targets.map(([t]) => t);
  for (const [kind] of kinds) {
    const one = qpsOf(kind, oneName!);
    const via = qpsOf(kind, routerName!);
    const calls = median(of(kind, routerName!).map((r) => r.callsPerQuery!));
    lines.push(
      `| ${kind} | ${Math.round(one)} (${range(of(kind, oneName!).map((r) => r.qps))}) | ${Math.round(via)} (${range(of(kind, routerName!).map((r) => r.qps))}) | ${(via / one).toFixed(2)} | ${(via / qpsOf('dense', routerName!)).toFixed(2)} | ${calls.toFixed(2)} | ${agree[kind]!.toFixed(3)} |`,
    );
  }
  console.log(lines.join('\n'));
  if (o.json) writeFileSync(o.json, `${JSON.stringify({ node: process.version, date: new Date().toISOString(), parameters: o, agree, runs }, null, 2)}\n`);
} finally {
  await Promise.all(pools.map((p) => p.close()));
  await Promise.all(children.map((c) => stop(c)));
  rmSync(tmp, { recursive: true, force: true });
}
