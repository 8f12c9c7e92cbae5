// `npm run bench -- <name> [args]`: one entry point, so that docs cite a benchmark by name rather
// than by file. The chosen bench runs in this process as if started alone: process.argv is rewritten
// to its own file and the arguments after the name, so its command-line parser sees only its own.
import { fileURLToPath } from 'node:url';

interface Bench {
  /** The bench's module, relative to this one (both compiled to dist/bench/). */
  module: string;
  /** What it measures, in one line, for `--list`. */
  about: string;
}

const BENCHES: Readonly<Record<string, Bench>> = {
  tiering: { module: './tiering-bench.js', about: 'tiering with codes in process: DRAM share, recall, QPS at equal recall vs full precision and hnswlib-node' },
  kernels: { module: './kernel-bench.js', about: 'the distance kernels alone: ns per scattered row per code kind, WASM vs JS' },
  engine: { module: './engine-bench.js', about: 'near-data vs local execution through the engine as the CXL latency is swept' },
  server: { module: './server-bench.js', about: 'QPS over loopback (JSON, MessagePack, gRPC) vs the in-process engine' },
  service: { module: './service-bench.js', about: 'strata serve driven by strata loadgen in its own process: QPS, p99, CPU per query, vs a floor server' },
  pgvector: { module: './pgvector-bench.js', about: 'Strata vs pgvector on the same vectors and load generator: QPS at equal recall, CPU per answer' },
  loadgen: { module: './loadgen-overhead.js', about: "the load generator's own limit against a trivial endpoint, and its tail by warm-up count" },
  build: { module: './build-bench.js', about: 'strata build (one thread, every core) beside hnswlib-node alone on the same vectors: time per phase, recall' },
  fill: { module: './fill-bench.js', about: 'a TEXMEX graph as built vs its free slots filled at each α: recall per ef, QPS at equal recall' },
  'list-codes': {
    module: './list-codes-bench.js',
    about: "a TEXMEX graph tiered at 10% with and without list codes beside its lists: recall, QPS, a block's cost and what it saves",
  },
  wal: { module: './wal-bench.js', about: 'write-ahead log appends/s with fdatasync: one in flight vs group commit' },
  live: { module: './live-bench.js', about: 'live collections: upserts/s, recall after live writes vs a fresh build, latency under writes' },
  retier: { module: './retier-bench.js', about: 'DRAM share of list reads when the load moves: static placement vs promotion pool vs compaction' },
  router: { module: './router-bench.js', about: 'strata router over 3 shards vs one strata serve of all the data: QPS, p99, recall' },
  'router-hybrid': {
    module: './router-hybrid-bench.js',
    about: 'hybrid search (rrf of a dense and a sparse prefetch) through strata router over 3 shards vs one server, beside dense and sparse queries',
  },
  filtered: { module: './filtered-bench.js', about: 'filtered search vs pgvector (WHERE, iterative scans) per filter family: recall, QPS, p99, short answers' },
  'filter-plans': {
    module: './filter-plans-bench.js',
    about: 'filtered search in process, plan by plan: scan and graph walk (WASM and JS), two-hop, graph or scan, the planner; recall, CPU, CXL bytes',
  },
  'index-build': {
    module: './index-build-bench.js',
    about: 'creating a payload index over stored points: one step vs a chunk per event-loop turn; wall time, longest block',
  },
  'payload-memory': {
    module: './payload-memory-bench.js',
    about: 'payload memory per point (4 fields): the old Map of objects vs payload rows, with and without indexes',
  },
  dashboard: { module: './dashboard-bench.js', about: "the dashboard's page captures (docs/dashboard/), and QPS with and without its live page polling" },
  sparse: { module: './sparse-bench.js', about: 'sparse vectors in process: inverted index vs scoring every vector, CPU per query, bytes a point' },
  secondary: {
    module: './secondary-bench.js',
    about: 'a secondary dense vector in process: bytes a point, recall and CPU per ef, filtered plans forced vs the planner',
  },
  replication: { module: './replication-bench.js', about: "upserts through a shared NATS write log vs a collection's own log, and replica lag" },
  'payload-steps': {
    module: './payload-steps-bench.js',
    about:
      "a million points' payload work in steps (capture, link blocks, a saved state's parts) and a range index's sort and merge, each beside what it replaced",
  },
  stalls: {
    module: './stalls-bench.js',
    about: 'the heaviest requests against served GloVe-100k with payload indexes: the longest /healthz wait during each',
  },
};

function list(): string {
  const width = Math.max(...Object.keys(BENCHES).map((n) => n.length));
  const rows = Object.entries(BENCHES).map(([name, b]) => `  ${name.padEnd(width)}  ${b.about}`);
  return `usage: npm run bench -- <name> [args]   (each takes --help)\n\n${rows.join('\n')}\n`;
}

const [name, ...args] = process.argv.slice(2);
if (name === undefined || name === '--list' || name === '--help' || name === '-h') {
  process.stdout.write(list());
} else {
  const bench = BENCHES[name];
  if (bench === undefined) {
    process.stderr.write(`no benchmark named '${name}'\n\n${list()}`);
    process.exitCode = 2;
  } else {
    const url = new URL(bench.module, import.meta.url);
    process.argv = [process.argv[0]!, fileURLToPath(url), ...args];
    await import(url.href);
  }
}
