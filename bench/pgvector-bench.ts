// Strata against pgvector on the same vectors, machine and load generator (`strata loadgen`, its own
// process), alternating within every repetition over an ef sweep: QPS, p99, recall@10, server and
// client CPU per answer, and the ratio of their QPS at equal recall; single queries vs batches.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { readDataset } from '../datasets/index.js';
import { type LoadgenReport, renderSvg } from '../loadgen/index.js';
import { type PgCluster, startPgCluster } from '../loadgen/pg-cluster.js';
import { qpsAtRecall } from './lib/curves.js';
import { loadPgvectorTable } from '../loadgen/pg-load.js';
import { generatedAngularSet, measuredLoadgen, serve, stop } from './lib/strata-children.js';
import { median } from '../common/median.js';

interface Row {
  system: 'strata' | 'pgvector';
  /** Queries per request. */
  batch: number;
  ef: number;
  rep: number;
  qps: number;
  p99Ms: number;
  recall: number;
  serverCpuUs: number;
  clientCpuUs: number;
  /** The load generator's report of this row (in the run's temporary directory). */
  report: string;
}

interface Point {
  ef: number;
  recall: number;
  qps: number;
  p99Ms: number;
}

async function main(): Promise<void> {
  const o = new Command('pgvector-bench')
    .option('--index <dir>', 'a built Strata index of --base (default: generate a 100k × 100 angular embedding-like set and build it)')
    .option('--base <file>', 'the base vectors the index was built from (with --index)')
    .option('--queries <file>', 'query vectors (with --index)')
    .option('--gt <file>', 'ground truth (with --index)')
    .option('--count <n>', 'generated vectors', (v) => Number(v), 100_000)
    .option('--efs <list>', 'ef values (Strata hnsw_ef, pgvector hnsw.ef_search)', '12,16,20,24,32,40,64,100,128')
    .option('--concurrency <n>', 'client requests outstanding', (v) => Number(v), 16)
    .option('--duration <s>', 'seconds per measurement', (v) => Number(v), 5)
    .option('--reps <n>', 'alternating repetitions', (v) => Number(v), 2)
    .option(
      '--warmup <n>',
      "untimed queries per row, sent in requests of --batch (each row's connections are new: pgvector's backends fault in the shared buffers)",
      (v) => Number(v),
      3000,
    )
    .option('--threads <n>', 'strata serve --search-threads', (v) => Number(v), 1)
    .option('--batch <list>', 'queries per request, to both (strata loadgen --batch); a list alternates within each repetition', '1')
    .option('--targets <list>', 'recall@10 values to compare QPS at', '0.9,0.95,0.99')
    .option('--pin-server <cpus>', 'run strata serve and PostgreSQL on these CPUs only (taskset -c), e.g. 1')
    .option('--pin-client <cpus>', 'run the load generator on these CPUs only, e.g. 0')
    .option('--plot <file.svg>', 'also plot both curves (recall vs QPS, latency), from the repetition nearest the median at each ef')
    .option('--json <file>', 'also write the results as JSON')
    .parse(process.argv)
    .opts<{
      index?: string;
      base?: string;
      queries?: string;
      gt?: string;
      count: number;
      efs: string;
      concurrency: number;
      duration: number;
      reps: number;
      warmup: number;
      threads: number;
      batch: string;
      targets: string;
      pinServer?: string;
      pinClient?: string;
      plot?: string;
      json?: string;
    }>();
  const efs = o.efs.split(',').map(Number);
  const batches = o.batch.split(',').map(Number);
  const targets = o.targets.split(',').map(Number);
  const tmp = mkdtempSync(join(tmpdir(), 'strata-pgvector-bench-'));
  let cluster: PgCluster | null = null;
  try {
    let { index, base, queries, gt } = o;
    let strataBuildSeconds: number | null = null;
    if (!index) {
      const set = await generatedAngularSet(tmp, o.count);
      ({ index, base, queries, gt } = set);
      strataBuildSeconds = set.buildSeconds;
    }
    if (!base || !queries || !gt) throw new Error('--base, --queries and --gt are required with --index');
    const b = await readDataset(base);

    // pgvector: a table of the same rows (id = row number, as the ground truth numbers them) and its
    // HNSW index built with the parameters of Strata's graph. Memory settings let the build and the
    // index fit in RAM, as a tuned deployment would; the build may use both cores.
    cluster = await startPgCluster({
      settings: { shared_buffers: '1GB', maintenance_work_mem: '1GB', max_parallel_maintenance_workers: 1, effective_cache_size: '4GB', jit: 'off' },
    });
    process.stderr.write(`loading ${b.count} vectors into pgvector and building its HNSW index\n`);
    const pgLoad = await loadPgvectorTable({
      url: cluster.url,
      table: 'items',
      vectors: b.vectors,
      dim: b.dim,
      distance: 'Cosine',
      m: 16,
      efConstruction: 200,
    });
    process.stderr.write(`pgvector: load ${pgLoad.loadSeconds.toFixed(1)} s, index ${pgLoad.indexSeconds.toFixed(1)} s\n`);
    // Pinned after the build (which may use both cores): the backends of the load's connections are
    // forked from the postmaster and inherit its CPUs.
    if (o.pinServer !== undefined) execFileSync('taskset', ['-a', '-p', '-c', o.pinServer, String(cluster.pid)], { stdio: 'ignore' });

    const server = await serve(index, { threads: o.threads, cpus: o.pinServer });
    const rows: Row[] = [];
    try {
      const pgUrl = cluster.url;
      const pgPid = cluster.pid;
      const step = async (system: Row['system'], batch: number, ef: number, rep: number): Promise<void> => {
        const report = join(tmp, `r-${system}-${batch}-${ef}-${rep}.json`);
        const target =
          system === 'strata'
            ? ['--url', server.rest, '--collection', 'bench', '--protocol', 'msgpack']
            : ['--url', pgUrl, '--collection', 'items', '--protocol', 'pgvector'];
        // strata serve with its threads; the postmaster with its backends (the load's connections).
        const serverPid = system === 'strata' ? server.child.pid! : pgPid;
        const m = await measuredLoadgen(
          [
            'loadgen',
            ...target,
            ...['-q', queries!, '--gt', gt!, '--concurrency', String(o.concurrency), '--ef', String(ef), '--duration', String(o.duration)],
            ...['--warmup', String(Math.ceil(o.warmup / batch)), '--batch', String(batch), '--no-progress', '--report', report],
          ],
          { report, serverPid, ...(o.pinClient !== undefined ? { cpus: o.pinClient } : {}) },
        );
        rows.push({ system, batch, ef, rep, ...m, recall: m.recall ?? Number.NaN, report });
        process.stderr.write(`rep ${rep} batch ${batch} ef ${ef} ${system}: ${m.qps.toFixed(0)} QPS, recall ${(m.recall ?? Number.NaN).toFixed(4)}\n`);
      };
      for (let rep = 0; rep < o.reps; rep++)
        for (const batch of batches)
          for (const ef of efs) {
            // Who goes first alternates, so neither always meets the machine after the other's load.
            const order: Array<Row['system']> = (rep + efs.indexOf(ef)) % 2 === 0 ? ['strata', 'pgvector'] : ['pgvector', 'strata'];
            for (const sys of order) await step(sys, batch, ef, rep);
          }
    } finally {
      await stop(server);
    }

    /** The repetitions of one system at one batch size and ef. */
    const at = (system: Row['system'], batch: number, ef: number): Row[] => rows.filter((r) => r.system === system && r.batch === batch && r.ef === ef);
    const curve = (system: Row['system'], batch: number): Point[] =>
      efs.map((ef) => {
        const rs = at(system, batch, ef);
        return { ef, recall: rs[0]!.recall, qps: median(rs.map((r) => r.qps)), p99Ms: median(rs.map((r) => r.p99Ms)) };
      });
    const cpu = (system: Row['system'], batch: number, ef: number, f: 'serverCpuUs' | 'clientCpuUs'): number => median(at(system, batch, ef).map((r) => r[f]));
    const perQuery = (batch: number): string =>
      batch === 1 ? 'one query per request' : `${batch} queries per request (QPS and CPU per query, p99 per request)`;
    const lines = [
      `${b.count} × ${b.dim} vectors (${base}), ${o.concurrency} clients (strata loadgen, its own process), ${o.duration} s per row, median of ${o.reps} alternating repetitions.`,
      `pgvector (HNSW m 16, ef_construction 200, vector_cosine_ops): load ${pgLoad.loadSeconds.toFixed(1)} s, index build ${pgLoad.indexSeconds.toFixed(1)} s, index ${(pgLoad.indexBytes / 1e6).toFixed(1)} MB.${strataBuildSeconds !== null ? ` Strata build (graph, placement, codes): ${strataBuildSeconds.toFixed(1)} s.` : ''}`,
      `Strata: strata serve, ${o.threads} search thread(s), MessagePack.${o.pinServer !== undefined ? ` Servers on CPU(s) ${o.pinServer}, the load generator on ${o.pinClient ?? 'any'} (taskset).` : ''}`,
    ];
    const byBatch = batches.map((batch) => {
      const curves = { strata: curve('strata', batch), pgvector: curve('pgvector', batch) };
      lines.push(
        '',
        `${perQuery(batch)}:`,
        '',
        '| ef | Strata QPS | recall@10 | p99 ms | server CPU µs/query | client CPU µs/query | pgvector QPS | recall@10 | p99 ms | server CPU µs/query | client CPU µs/query |',
        '|---|---|---|---|---|---|---|---|---|---|---|',
        ...efs.map((ef, i) => {
          const s = curves.strata[i]!;
          const p = curves.pgvector[i]!;
          const c = (sys: Row['system'], f: 'serverCpuUs' | 'clientCpuUs'): string => cpu(sys, batch, ef, f).toFixed(0);
          return `| ${ef} | ${s.qps.toFixed(0)} | ${s.recall.toFixed(4)} | ${s.p99Ms.toFixed(2)} | ${c('strata', 'serverCpuUs')} | ${c('strata', 'clientCpuUs')} | ${p.qps.toFixed(0)} | ${p.recall.toFixed(4)} | ${p.p99Ms.toFixed(2)} | ${c('pgvector', 'serverCpuUs')} | ${c('pgvector', 'clientCpuUs')} |`;
        }),
        '',
        '| recall@10 | Strata QPS | pgvector QPS | Strata / pgvector |',
        '|---|---|---|---|',
      );
      const atRecall = targets.map((t) => {
        const s = qpsAtRecall(curves.strata, t);
        const p = qpsAtRecall(curves.pgvector, t);
        lines.push(
          `| ${t} | ${s?.toFixed(0) ?? 'not reached'} | ${p?.toFixed(0) ?? 'not reached'} | ${s !== null && p !== null ? (s / p).toFixed(2) : 'n/a'} |`,
        );
        return { recall: t, strata: s, pgvector: p, ratio: s !== null && p !== null ? s / p : null };
      });
      return { batch, curves, atRecall };
    });
    if (batches.length > 1) {
      // The same system's QPS with batches against single queries, at equal recall, from the same run.
      lines.push(
        '',
        `| recall@10 | ${batches
          .slice(1)
          .flatMap((bt) => [`Strata ×${bt} / ×${batches[0]}`, `pgvector ×${bt} / ×${batches[0]}`])
          .join(' | ')} |`,
      );
      lines.push(
        `|---|${batches
          .slice(1)
          .map(() => '---|---|')
          .join('')}`,
      );
      for (const [i, t] of targets.entries()) {
        const ratio = (sys: 'strata' | 'pgvector', k: number): string => {
          const a = byBatch[k]!.atRecall[i]![sys];
          const z = byBatch[0]!.atRecall[i]![sys];
          return a !== null && z !== null ? (a / z).toFixed(2) : 'n/a';
        };
        lines.push(
          `| ${t} | ${batches
            .slice(1)
            .flatMap((_, k) => [ratio('strata', k + 1), ratio('pgvector', k + 1)])
            .join(' | ')} |`,
        );
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    if (o.plot) {
      // One report per system and batch size whose steps are, at each ef, the repetition nearest that ef's median QPS.
      const combined = (system: Row['system'], batch: number, label: string): LoadgenReport => {
        const results = efs.map((ef) => {
          const rs = at(system, batch, ef);
          const m = median(rs.map((r) => r.qps));
          const near = rs.reduce((a, r) => (Math.abs(r.qps - m) < Math.abs(a.qps - m) ? r : a));
          return (JSON.parse(readFileSync(near.report, 'utf8')) as LoadgenReport).results[0]!;
        });
        const first = JSON.parse(readFileSync(rows.find((r) => r.system === system && r.batch === batch)!.report, 'utf8')) as LoadgenReport;
        return { ...first, label, results };
      };
      const per = (batch: number): string => (batches.length === 1 && batch === 1 ? '' : batch === 1 ? ', single queries' : `, ${batch} queries a request`);
      const reports = batches.flatMap((batch) => [
        combined('strata', batch, `Strata (strata serve, ${o.threads} search thread${per(batch)})`),
        combined('pgvector', batch, `pgvector (HNSW m 16, efc 200${per(batch)})`),
      ]);
      const title = `${b.count} × ${b.dim} angular, ${o.concurrency} clients${o.pinServer !== undefined ? ', one vCPU per server' : ''}: Strata vs pgvector ${reports[1]!.target.server.version ?? ''}`;
      writeFileSync(o.plot, await renderSvg(reports, { title }));
    }
    if (o.json)
      writeFileSync(
        o.json,
        `${JSON.stringify({ node: process.version, date: new Date().toISOString(), vectors: b.count, dim: b.dim, pgLoad, strataBuildSeconds, rows: rows.map(({ report: _, ...r }) => r), byBatch }, null, 2)}\n`,
      );
  } finally {
    await cluster?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
