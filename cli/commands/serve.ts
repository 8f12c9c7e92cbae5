// `strata serve [index dirs…]`: the query service. Loads each index directory as a collection and
// serves it over REST (Qdrant-compatible, JSON and MessagePack) and gRPC until SIGINT/SIGTERM, then
// drains (server/shutdown.ts) and exits 0. With --demo (or no directories) it serves the embedded
// default dataset, built on first use exactly as `strata demo` builds it. The API key is never
// printed: the example query reads it from $STRATA_API_KEY.
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { parseByteSize } from '../../common/byte-size.js';
import { effectiveCpus } from '../../common/effective-cpus.js';
import { invalidArgument, StrataError, errorMessage } from '../../common/errors.js';
import {
  type CollectionSpec,
  DEFAULT_COLLECTION_DRAM_BUDGET,
  DEFAULT_COMPACT_AT,
  DEFAULT_POOL_ROUND_MS,
  DEFAULT_RETIER_DROP,
  Engine,
} from '../../engine/engine.js';
import { INLINE_EF_BUDGET } from '../../engine/executor.js';
import { buildServer, type ServerAddresses } from '../../server/app.js';
import { DEFAULT_ANSWER_LIMIT, DEFAULT_BODY_LIMIT, DEFAULT_MAX_BATCH, resolveOptions, type ServerOptions } from '../../server/options.js';
import { shutdown } from '../../server/shutdown.js';
import { DEFAULT_QDRANT_GRPC_PORT } from '../../common/ports.js';
import { addMemoryFlags, costFromFlags, memoryRequest, type MemoryFlags } from '../memory-flags.js';
import { type ListenFlags, addListenOptions } from '../listen-options.js';
import { apiKeyOf, choiceOption, intOption, numberOption } from '../options.js';
import { DEMO_DIR, DEMO_SPEC, prepareDemo } from './demo.js';

interface ServeFlags extends MemoryFlags, ListenFlags {
  name: string[];
  demo?: boolean;
  demoDir: string;
  qdrantGrpcPort: number;
  qdrantGrpc: boolean;
  searchThreads: number;
  inline: 'auto' | 'never';
  maxQueue: number;
  mode: 'local' | 'ndp';
  inject?: boolean;
  valueRuns: boolean;
  bodyLimit: number;
  answerLimit: number;
  maxBatch: number;
  drainMs: number;
  dataDir?: string;
  writeLog?: string;
  writeLogStream?: string;
  writeLogReplicas: number;
  compactAt: number;
  collectionDramBudget: number;
  retierDrop: number;
  retierEvery: number;
}

/** "33554432", "32MiB", "512k", "1GB": a byte count (common/byte-size.ts). */
function byteSizeOption(name: string) {
  return (v: string): number => {
    const n = parseByteSize(v) ?? Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1024 || n > 2 ** 31 - 1)
      throw new InvalidArgumentError(`${name} must be a size from 1KiB to 2GiB (e.g. 32MiB), got "${v}"`);
    return n;
  };
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];

/**
 * A ready-to-paste search: the first stored vector of the first collection as the query. With a key
 * the shell fills it in from $STRATA_API_KEY: stdout ends up in journald and `kubectl logs`.
 */
function curlExample(engine: Engine, rest: string, withKey: boolean): string {
  const c = engine.collections()[0];
  if (!c) return `curl -s ${rest}/collections${withKey ? ' -H "api-key: $STRATA_API_KEY"' : ''}`;
  const id = c.scroll(null, 1).ids[0];
  const first = id === undefined ? null : c.getPoint(id);
  const vector = first ? Array.from(first.vector, (x) => Number(x.toFixed(3))) : new Array<number>(c.dim).fill(0);
  const auth = withKey ? ' -H "api-key: $STRATA_API_KEY"' : '';
  return `curl -s -X POST ${rest}/collections/${encodeURIComponent(c.name)}/points/search -H 'Content-Type: application/json'${auth} -d '${JSON.stringify({ vector, limit: 5, with_payload: false })}'`;
}

function announce(engine: Engine, a: ServerAddresses, withKey: boolean, writeLog: string | null): void {
  const lines = [
    `strata serve: ${
      engine
        .collections()
        .map((c) => `${c.name} (${c.count()} points, ${c.dim}-d)`)
        .join(', ') || 'no collections yet (create one: PUT /collections/{name})'
    }`,
    `REST  ${a.rest}   (Qdrant-compatible; JSON or MessagePack; OpenAPI at ${a.rest}/openapi.json; metrics at ${a.rest}/metrics)`,
    a.qdrantGrpc
      ? `Qdrant gRPC  ${a.qdrantGrpc}   (qdrant.Points, qdrant.Collections, qdrant.Snapshots, qdrant.Qdrant: Qdrant's gRPC clients)`
      : 'Qdrant gRPC  disabled',
    a.grpc ? `gRPC  ${a.grpc}   (proto/strata.proto, package strata.v1; health: grpc.health.v1.Health)` : 'gRPC  disabled',
    ...(writeLog !== null ? [`write log  ${writeLog}   (writes are applied as the stream delivers them, on every replica)`] : []),
    withKey ? 'try (with STRATA_API_KEY set to the key in your shell):' : 'try:',
    curlExample(engine, a.rest, withKey),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

async function specsFrom(dirs: string[], f: ServeFlags): Promise<CollectionSpec[]> {
  if (f.demo && dirs.length > 0)
    throw new StrataError('STRATA_INVALID_ARGUMENT', '--demo serves the embedded dataset: pass either --demo or index directories, not both', {
      field: 'demo',
    });
  // A data directory alone serves the collections created in it (and takes new ones).
  if (dirs.length === 0 && !f.demo && f.dataDir !== undefined) return [];
  if (dirs.length === 0) {
    const { indexDir } = await prepareDemo(f.demoDir, DEMO_SPEC.count);
    return [{ dir: indexDir, name: f.name[0] ?? 'demo' }];
  }
  if (f.name.length > 0 && f.name.length !== dirs.length) {
    throw new StrataError(
      'STRATA_INVALID_ARGUMENT',
      `--name given ${f.name.length} times for ${dirs.length} index directories: give one per directory, in order, or none`,
      { field: 'name' },
    );
  }
  return dirs.map((dir, i) => (f.name[i] !== undefined ? { dir, name: f.name[i] } : { dir }));
}

export function registerServe(program: Command): void {
  addMemoryFlags(
    addListenOptions(
      program
        .command('serve')
        .description('serve index directories over REST (Qdrant-compatible, JSON/MessagePack) and gRPC; no directories (or --demo): the embedded demo dataset')
        .argument('[dirs...]', 'index directories built by strata build, one collection each')
        .option('--name <name>', "collection name, once per directory in order (default: the manifest's name)", collect, [])
        .option('--demo', 'serve the embedded default dataset as collection "demo" (built on first use)')
        .option('--demo-dir <dir>', 'working directory of --demo', DEMO_DIR)
        .option(
          '--data-dir <dir>',
          'make collections writable: write-ahead logs of upserts and deletes, and the collections created over the API, live here (replayed on start); without it collections are read-only',
        )
        .option(
          '--write-log <urls>',
          "follow a shard's shared write log on these NATS JetStream servers (nats://host:4222, comma-separated): writes are published there and every replica applies them in the log's order (needs --data-dir)",
        )
        .option('--write-log-stream <name>', "the shard's JetStream stream (one per shard; created if missing)", 'strata-shard-0')
        .option(
          '--write-log-replicas <n>',
          'copies JetStream keeps of the stream when this server creates it (3 on a three-node NATS cluster)',
          intOption('--write-log-replicas', 1, 5),
          1,
        )
        .option(
          '--compact-at <points>',
          'compact a live collection into a new tiered base once its fresh + hidden points reach this many (and 30% of its base); 0: only on POST /collections/{name}/compact',
          intOption('--compact-at', 0, 2 ** 31 - 1),
          DEFAULT_COMPACT_AT,
        )
        .option(
          '--collection-dram-budget <share>',
          "DRAM for each collection created over the API, as a share of its base at full precision (0.01-1): every compaction plans the base within it, the collection's payload indexes set aside first",
          numberOption('--collection-dram-budget', 0.01, 1),
          DEFAULT_COLLECTION_DRAM_BUDGET,
        )
        .option(
          '--retier-drop <share>',
          're-tier a live collection (a compaction profiled with its recorded queries) when its neighbour-list DRAM share over 2,000 searches falls this far below the share after its last layout; 0: never',
          numberOption('--retier-drop', 0, 1),
          DEFAULT_RETIER_DROP,
        )
        .option(
          '--retier-every <ms>',
          "move neighbour lists between the tiers in place this often: the promotion pool's coldest lists out, the CXL lists the load visits most in (after 200 searches at least); 0: never",
          intOption('--retier-every', 0, 3_600_000),
          DEFAULT_POOL_ROUND_MS,
        )
        .option(
          '--qdrant-grpc-port <port>',
          "port of Qdrant's gRPC API (qdrant.Qdrant, qdrant.Collections, qdrant.Points, qdrant.Snapshots), for Qdrant's gRPC clients (0: a free port)",
          intOption('--qdrant-grpc-port', 0, 65535),
          DEFAULT_QDRANT_GRPC_PORT,
        )
        .option('--no-qdrant-grpc', "do not serve Qdrant's gRPC API")
        .option('--search-threads <n>', 'search threads (0: search on the main thread)', intOption('--search-threads', 0, 256), 1)
        .option(
          '--inline <when>',
          `auto: on one effective CPU (affinity or cgroup quota), tasks whose searches' max(ef, k) sum to ≤ ${INLINE_EF_BUDGET} (none exact) run on the event loop, the rest on the search threads; never`,
          choiceOption('--inline', ['auto', 'never'] as const),
          'auto',
        )
        .option('--max-queue <n>', 'searches waiting or running per collection before new ones get 429', intOption('--max-queue', 1, 1 << 24), 1024)
        .option(
          '--mode <mode>',
          'local: search threads read every tier; ndp: CXL-tier distances computed by tier workers',
          choiceOption('--mode', ['local', 'ndp'] as const),
          'local',
        )
        .option('--inject', 'stall searches by the modelled CXL extra time (emulated CXL end to end)')
        .option('--no-value-runs', "filtered scans read each match's code where it lies, not from its value's run (comparisons)")
        .addOption(
          new Option('--body-limit <size>', 'largest request body / gRPC message (e.g. 64MiB)')
            .argParser(byteSizeOption('--body-limit'))
            .default(DEFAULT_BODY_LIMIT, '32MiB'),
        )
        .addOption(
          new Option('--answer-limit <size>', 'largest answer one request may ask for: points × (64 bytes + 4 per vector element) (e.g. 64MiB)')
            .argParser(byteSizeOption('--answer-limit'))
            .default(DEFAULT_ANSWER_LIMIT, '32MiB'),
        )
        .option('--max-batch <n>', 'most searches in one batch request', intOption('--max-batch', 1, 100_000), DEFAULT_MAX_BATCH)
        .option(
          '--drain-ms <ms>',
          'on SIGINT/SIGTERM, how long admitted requests may take to finish; past it they fail with 503 and the threads are stopped',
          intOption('--drain-ms', 0, 600_000),
          10_000,
        ),
      '',
    ),
  ).action(async (dirs: string[], f: ServeFlags) => {
    const apiKey = apiKeyOf(f.apiKey);
    const serverOptions: ServerOptions = {
      host: f.host,
      port: f.port,
      grpcPort: f.grpc ? f.grpcPort : null,
      qdrantGrpcPort: f.qdrantGrpc ? f.qdrantGrpcPort : null,
      ...(apiKey !== undefined ? { apiKey } : {}),
      insecureNoAuth: f.insecureNoAuth ?? false,
      bodyLimit: f.bodyLimit,
      answerLimit: f.answerLimit,
      maxBatch: f.maxBatch,
      logLevel: f.logLevel,
      grpcDrainMs: f.drainMs,
    };
    // Refuse an open server before spending the time to load indexes.
    try {
      resolveOptions(serverOptions);
    } catch (e) {
      throw e instanceof StrataError && e.details['field'] === 'host' ? invalidArgument('--host', e.message.replace(/^host: /, '')) : e;
    }
    if (f.writeLog !== undefined && f.dataDir === undefined)
      throw invalidArgument('--write-log', 'needs --data-dir: a replica keeps what it applied from the log there');
    if (f.writeLogStream !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(f.writeLogStream))
      throw invalidArgument('--write-log-stream', `must be 1 to 64 letters, digits, _ or -, got ${JSON.stringify(f.writeLogStream)}`);
    const specs = await specsFrom(dirs, f);
    // On one effective CPU a search thread only takes turns with the event loop, and each hand-off
    // costs two wake-ups: cheap searches run inline there (docs/benchmarks.md §3b, one CPU).
    const cpus = effectiveCpus();
    const inline = f.inline === 'auto' && f.searchThreads > 0 && f.mode === 'local' && cpus.cpus < 2;
    const engine = await Engine.open(specs, {
      memory: memoryRequest(f),
      cost: costFromFlags(f),
      searchThreads: f.searchThreads,
      ...(inline ? { inlineEfBudget: INLINE_EF_BUDGET } : {}),
      maxQueue: f.maxQueue,
      mode: f.mode,
      inject: f.inject ?? false,
      valueRuns: f.valueRuns,
      ...(f.expanders !== undefined ? { expanders: f.expanders } : {}),
      ...(f.dataDir !== undefined ? { dataDir: f.dataDir } : {}),
      compactAt: f.compactAt,
      collectionDramBudget: f.collectionDramBudget,
      retierDrop: f.retierDrop,
      poolRoundMs: f.retierEvery,
      ...(f.writeLog !== undefined ? { writeLog: { servers: f.writeLog, stream: f.writeLogStream ?? 'strata-shard-0', replicas: f.writeLogReplicas } } : {}),
    });
    const server = buildServer(engine, serverOptions);
    let addresses: ServerAddresses;
    try {
      addresses = await server.listen();
    } catch (e) {
      await server.close(0);
      await engine.close(0);
      throw e;
    }
    if (inline)
      process.stdout.write(
        `search  ${f.searchThreads} thread(s); searches of Σ max(ef, k) ≤ ${INLINE_EF_BUDGET} a task run on the event loop: ${cpus.cpus} effective CPU (affinity ${cpus.affinity}, ${cpus.source}; --inline never to turn off)\n`,
      );
    // Shutdown (server/shutdown.ts): readiness off and new requests refused at once, admitted ones
    // finish for up to --drain-ms, then the engine fails what is left and stops its threads. A
    // second signal exits at once. The handlers are in place before the addresses are printed: a
    // supervisor that signals as soon as it reads them must get a drain, not the default exit.
    const stopped = new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals): void => {
        if (stopping) {
          process.stderr.write(`strata serve: ${signal} again, exiting without draining\n`);
          process.exit(1);
        }
        stopping = true;
        process.stderr.write(`strata serve: ${signal}, draining (up to ${f.drainMs} ms)\n`);
        shutdown(server, engine, f.drainMs).then(
          () => resolve(),
          (e: unknown) => {
            process.stderr.write(`strata serve: error while closing: ${errorMessage(e)}\n`);
            resolve();
          },
        );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    announce(engine, addresses, apiKey !== undefined, f.writeLog !== undefined ? `stream ${f.writeLogStream ?? 'strata-shard-0'} on ${f.writeLog}` : null);
    await stopped;
    process.stderr.write('strata serve: stopped\n');
  });
}
