// `strata loadgen`: drives a running `strata serve` (or any Qdrant-compatible endpoint on loopback)
// with search requests and reports recall, QPS and latency percentiles per (ef, concurrency) step.
// The work is in loadgen/; this file parses flags, shows progress and writes the outputs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import {
  DEFAULT_STATS_EVERY,
  DEFAULT_WARMUP,
  formatTable,
  MAX_BATCH,
  PROTOCOLS,
  progressSink,
  renderSvg,
  runLoadgen,
  type LoadgenOptions,
  type LoopMode,
  type Protocol,
} from '../../loadgen/index.js';
import { choiceOption, intOption, numberOption } from '../options.js';

interface LoadgenFlags {
  url: string;
  collection: string;
  queries: string;
  queriesLimit?: number;
  gt?: string;
  base?: string;
  gtThreads?: number;
  gtCache?: string;
  k: number;
  batch: number;
  ef: number[];
  concurrency: number[];
  duration: number;
  maxRequests: number;
  warmup: number;
  protocol: Protocol;
  grpcUrl?: string;
  mode: LoopMode;
  rate?: number[];
  maxInflight: number;
  timeout: number;
  statsEvery: number;
  apiKey?: string;
  allowRemote?: boolean;
  report?: string;
  plot?: string;
  label?: string;
  progress: boolean;
  filters?: string;
  payloads?: string;
  unfiltered?: boolean;
  iterativeScan?: 'off' | 'relaxed_order' | 'strict_order';
}

/** "16,32,64": a list of whole numbers in min..max. */
function intListOption(name: string, min: number, max: number) {
  const one = intOption(name, min, max);
  return (v: string): number[] => {
    const parts = v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (parts.length === 0) throw new InvalidArgumentError(`${name} needs at least one value, e.g. 16,32,64`);
    return parts.map(one);
  };
}

function numberListOption(name: string, min: number) {
  const one = numberOption(name, min);
  return (v: string): number[] =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map(one);
}

function writeOut(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export function registerLoadgen(program: Command): void {
  program
    .command('loadgen')
    .description(
      'load a running strata serve (loopback), or a pgvector table to compare, with searches: recall, QPS and latency percentiles per ef and concurrency',
    )
    .requiredOption('--url <url>', 'REST base URL of the server, or postgres://… with --protocol pgvector (loopback only unless --allow-remote)')
    .requiredOption('--collection <name>', 'collection to search (pgvector: the table, with columns id and embedding)')
    .requiredOption('-q, --queries <file>', 'query vectors (.fvecs, .bvecs, .fbin, .npy, .hdf5 test, .jsonl)')
    .option('--queries-limit <n>', 'use only the first n queries', intOption('--queries-limit', 1))
    .option('--gt <file>', 'ground-truth ids (.ivecs, .ibin, .hdf5 neighbors); tie-aware when groundtruth_dist.fvecs sits beside it')
    .option('--base <file>', 'base vectors: compute exact ground truth (worker threads, cached next to the queries)')
    .option('--gt-threads <n>', 'threads for --base ground truth (default: cores - 1)', intOption('--gt-threads', 1, 256))
    .option('--gt-cache <dir>', 'where to cache computed ground truth (default: beside the queries, else the temp dir)')
    .option('-k, --k <n>', 'neighbours per query (limit)', intOption('--k', 1, 10_000), 10)
    .option(
      '--batch <n>',
      'queries per request: 1 sends single searches; more sends batch requests (REST …/search/batch, gRPC SearchBatch, pgvector one LATERAL statement)',
      intOption('--batch', 1, MAX_BATCH),
      1,
    )
    .option('--ef <list>', 'hnsw_ef values to sweep', intListOption('--ef', 1, 10_000), [16, 32, 64, 128])
    .option('--concurrency <list>', 'closed loop: workers; open loop: connections', intListOption('--concurrency', 1, 1024), [1, 8, 32])
    .option('--duration <s>', 'seconds per step', numberOption('--duration', 0.001), 10)
    .option('--max-requests <n>', 'requests per step at most', intOption('--max-requests', 1, 10_000_000), 1_000_000)
    .option('--warmup <n>', 'untimed requests per step before measuring (the client warms up too)', intOption('--warmup', 0, 10_000_000), DEFAULT_WARMUP)
    .option(
      '--protocol <p>',
      `${PROTOCOLS.join(' | ')} (qdrant-grpc: Qdrant's gRPC API through its official client, at --grpc-url)`,
      choiceOption('--protocol', PROTOCOLS),
      'json',
    )
    .option('--grpc-url <host:port>', 'gRPC address (default: the --url host, port 6334 for qdrant-grpc, 6335 for grpc)')
    .option(
      '--mode <mode>',
      'closed: each worker waits for its answer; open: fixed send schedule at --rate',
      choiceOption('--mode', ['closed', 'open'] as const),
      'closed',
    )
    .option('--rate <list>', 'open loop: requests per second across all connections (a list sweeps)', numberListOption('--rate', 0.001))
    .option(
      '--max-inflight <n>',
      'open loop: most requests in flight (the rest wait in the client, and that wait counts)',
      intOption('--max-inflight', 1, 65_536),
      1024,
    )
    .option('--timeout <ms>', 'per-request timeout', intOption('--timeout', 1, 600_000), 10_000)
    .option(
      '--stats-every <n>',
      "every n-th query asks for the server's cost (with_stats) for the cost columns; 0: none",
      intOption('--stats-every', 0, 1_000_000),
      DEFAULT_STATS_EVERY,
    )
    .option('--api-key <key>', 'API key (default $STRATA_API_KEY)')
    .option('--allow-remote', 'allow a non-loopback --url / --grpc-url')
    .option('--report <file.json>', 'write the JSON report')
    .option('--plot <file.svg>', 'write the SVG plot (recall vs QPS, latency vs load)')
    .option('--label <name>', 'name of this configuration in reports and plots')
    .option(
      '--filters <file>',
      'filter families (strata-filters/1 JSON, as the filtered sets write filters.json): each measured at every step, with exact filtered ground truth from --base and --payloads',
    )
    .option('--payloads <file>', "with --filters: the base rows' payloads (JSON Lines, line i for row i)")
    .option('--unfiltered', 'with --filters: measure the unfiltered search too, as the first family')
    .option(
      '--iterative-scan <mode>',
      'pgvector: hnsw.iterative_scan (off | relaxed_order | strict_order; default relaxed_order with --filters)',
      choiceOption('--iterative-scan', ['off', 'relaxed_order', 'strict_order'] as const),
    )
    .option('--no-progress', 'no live progress on stderr')
    .action(async (f: LoadgenFlags) => {
      const apiKey = f.apiKey ?? process.env['STRATA_API_KEY'];
      const o: LoadgenOptions = {
        url: f.url,
        collection: f.collection,
        queries: f.queries,
        k: f.k,
        batch: f.batch,
        ef: f.ef,
        concurrency: f.concurrency,
        durationS: f.duration,
        maxRequests: f.maxRequests,
        warmup: f.warmup,
        protocol: f.protocol,
        mode: f.mode,
        maxInflight: f.maxInflight,
        timeoutMs: f.timeout,
        statsEvery: f.statsEvery,
        allowRemote: f.allowRemote ?? false,
        ...(f.queriesLimit !== undefined ? { queriesLimit: f.queriesLimit } : {}),
        ...(f.gt !== undefined ? { gt: f.gt } : {}),
        ...(f.base !== undefined ? { base: f.base } : {}),
        ...(f.gtThreads !== undefined ? { gtThreads: f.gtThreads } : {}),
        ...(f.gtCache !== undefined ? { gtCacheDir: f.gtCache } : {}),
        ...(f.grpcUrl !== undefined ? { grpcUrl: f.grpcUrl } : {}),
        ...(f.rate !== undefined ? { rate: f.rate } : {}),
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...(f.label !== undefined ? { label: f.label } : {}),
        ...(f.filters !== undefined ? { filters: f.filters } : {}),
        ...(f.payloads !== undefined ? { payloads: f.payloads } : {}),
        ...(f.unfiltered !== undefined ? { unfiltered: f.unfiltered } : {}),
        ...(f.iterativeScan !== undefined ? { iterativeScan: f.iterativeScan } : {}),
      };
      const report = await runLoadgen(o, {
        ...(f.progress ? { progress: progressSink(process.stderr) } : {}),
        log: (line) => process.stderr.write(`loadgen: ${line}\n`),
      });
      process.stdout.write(formatTable(report));
      if (report.groundTruth?.note) process.stdout.write(`note: ${report.groundTruth.note}\n`);
      if (f.report) {
        writeOut(f.report, JSON.stringify(report, null, 2) + '\n');
        process.stderr.write(`loadgen: report written to ${f.report}\n`);
      }
      if (f.plot) {
        writeOut(f.plot, await renderSvg([report]));
        process.stderr.write(`loadgen: plot written to ${f.plot}\n`);
      }
    });
}
