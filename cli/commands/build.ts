// `strata build <input> --out <dir>`
import type { Command } from 'commander';
import { MAX_PAYLOAD_M } from '../../index/build/link-blocks.js';
import { type BuildPhase, buildIndex, DEFAULT_BUILD, GRAPH_BUILDERS, type GraphBuilder } from '../../index/build/build-index.js';
import { DEFAULT_FILL_ALPHA } from '../../index/build/fill-free-slots.js';
import { buildShards, MAX_SHARDS } from '../../index/build/build-shards.js';
import type { DatasetFormat } from '../../datasets/index.js';
import type { Metric } from '../../index/kernels/kernels.js';
import { CODE_KINDS } from '../../index/codes/index.js';
import { FIELD_SCHEMAS } from '../../index/payload-index/params.js';

const CODE_CHOICES = ['auto', 'none', ...CODE_KINDS] as const;
import { PLACEMENT_POLICIES, type PlacementPolicy } from '../../index/placement/placement.js';
import { type BudgetPlan, DEFAULT_POOL_SHARE } from '../../index/placement/planner.js';
import { choiceOption, intOption, numberOption } from '../options.js';
import { phaseProgress } from '../progress.js';

const FORMATS: readonly DatasetFormat[] = ['fvecs', 'bvecs', 'fbin', 'u8bin', 'i8bin', 'npy', 'hdf5', 'jsonl'];
const METRICS: readonly Metric[] = ['l2', 'ip', 'cosine'];

interface BuildFlags {
  out: string;
  format?: DatasetFormat;
  metric?: Metric;
  m: number;
  efConstruction: number;
  builder?: GraphBuilder;
  seed: number;
  dramBudget: string;
  placement: PlacementPolicy;
  codes: (typeof CODE_CHOICES)[number];
  retierPool: number;
  profileQueries?: string;
  profileSamples: number;
  name?: string;
  force?: boolean;
  keepUnreachable?: boolean;
  fillAlpha: number;
  threads?: number;
  limit?: number;
  segmentBytes?: number;
  shards?: number;
  payloads?: string;
  indexField: string[];
  payloadM?: number;
  json?: boolean;
}

const mib = (b: number): string => `${(b / 1048576).toFixed(1)} MiB`;
const perVector = (b: number, n: number): string => `${(b / Math.max(1, n)).toFixed(1)} B/vector`;

/** The budget plan, as `strata build` prints it. */
export function planLines(plan: BudgetPlan, n: number): string[] {
  const d = plan.dram;
  const c = plan.cxl;
  return [
    `plan: DRAM budget ${mib(plan.budgetBytes)} (${((100 * plan.budgetBytes) / plan.fullPrecisionBytes).toFixed(1)}% of ${mib(plan.fullPrecisionBytes)} at full precision); ${plan.reason}`,
    `  DRAM ${mib(d.total)} = ${perVector(d.total, n)}: upper layers ${mib(d.upper)}, ${plan.code ?? 'no'} codes ${mib(d.codes)} (${plan.codeRowBytes} B each${plan.code ? `, ${plan.codeDims} coded dims` : ''}${plan.codeCentroids > 0 ? `, and ${plan.codeCentroids} centroids` : ''}), ${d.runs > 0 ? `value runs ${mib(d.runs)}, ` : ''}neighbour lists of ${plan.adjacencyInDram} hottest nodes ${mib(d.adjacency)}${plan.poolLists > 0 ? `, promotion pool of ${plan.poolLists} lists ${mib(d.pool)}` : ''}, vectors of ${plan.vectorsInDram} nodes ${mib(d.vectors)}`,
    `  CXL  ${mib(c.total)} = ${perVector(c.total, n)}: neighbour lists of ${n - plan.adjacencyInDram} nodes ${mib(c.adjacency)}, vectors of ${n - plan.vectorsInDram} nodes ${mib(c.vectors)}, labels ${mib(c.labels)}`,
  ];
}

export function registerBuild(program: Command): void {
  program
    .command('build')
    .description('build a tiered index from a vector file (.fvecs .bvecs .fbin .u8bin .i8bin .npy .hdf5 .jsonl)')
    .argument('<input>', 'vector file')
    .requiredOption('-o, --out <dir>', 'index directory to create')
    .option('--format <format>', 'input format (default: by extension)', choiceOption('--format', FORMATS))
    .option('--metric <metric>', "l2 | ip | cosine (default: the file's own, else l2)", choiceOption('--metric', METRICS))
    .option('--m <n>', 'HNSW links per node', intOption('--m', 2, 256), DEFAULT_BUILD.m)
    .option('--ef-construction <n>', 'HNSW build beam width', intOption('--ef-construction', 1, 10000), DEFAULT_BUILD.efConstruction)
    .option('--seed <n>', 'random seed (graph levels, sampling)', intOption('--seed', 0), DEFAULT_BUILD.seed)
    .option('--dram-budget <bytes|N%>', 'DRAM for the index: bytes (512MiB, 2GB) or a share of its full-precision size', DEFAULT_BUILD.dramBudget)
    .option(
      '--codes <kind>',
      `DRAM code: auto (the planner picks) | none (full precision, whole records) | ${CODE_KINDS.join(' | ')}`,
      choiceOption('--codes', CODE_CHOICES),
      'auto',
    )
    .option('--placement <policy>', 'hops | profile | id | random', choiceOption('--placement', PLACEMENT_POLICIES), DEFAULT_BUILD.placement)
    .option(
      '--retier-pool <share>',
      'share of the DRAM neighbour-list budget kept as a promotion pool, which `strata serve` refills with the lists the live load visits most (0: every DRAM list fixed by the placement)',
      numberOption('--retier-pool', 0, 0.9),
      DEFAULT_POOL_SHARE,
    )
    .option('--profile-queries <file>', 'queries for profile placement (default: a sample of the data)')
    .option('--profile-samples <n>', 'data rows sampled as profiling queries', intOption('--profile-samples', 0), DEFAULT_BUILD.profileSamples)
    .option('--name <name>', 'collection name (default: the directory name)')
    .option('--limit <n>', 'index only the first n vectors', intOption('--limit', 1))
    .option('--segment-bytes <n>', 'largest tier segment in bytes', intOption('--segment-bytes', 65536))
    .option(
      '--shards <n>',
      `split the rows by a hash of their id into n shard indexes and a shard map (2..${MAX_SHARDS})`,
      intOption('--shards', 2, MAX_SHARDS),
    )
    .option('--keep-unreachable', "do not link in the nodes the entry point cannot reach (with --fill-alpha 0: hnswlib's graph as built)")
    .option(
      '--fill-alpha <a>',
      "fill the free level-0 neighbour slots with two-hop neighbours passing DiskANN's α test (0: leave them empty)",
      numberOption('--fill-alpha', 0, 4),
      DEFAULT_FILL_ALPHA,
    )
    .option('--threads <n>', "threads for the build's parallel passes (default: every core)", intOption('--threads', 1, 256))
    .option(
      '--builder <who>',
      'who builds the HNSW graph: strata (on every thread) | hnswlib (hnswlib-node, one thread; the reference) (default: strata with 2+ threads, else hnswlib)',
      choiceOption('--builder', GRAPH_BUILDERS),
    )
    .option('--payloads <file>', 'JSON Lines, line i the payload object of row i (for inputs other than JSONL, whose rows carry a "payload" member)')
    .option(
      '--index-field <key:type>',
      `a payload index to build when the index is served (repeatable): a key path and ${FIELD_SCHEMAS.join(' | ')}`,
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .option(
      '--payload-m <n>',
      "Qdrant's payload_m: link each block of the payload indexes (a keyword value, a range of a number) within itself, 2n links a point, so that filters walk their matches only (0: none)",
      intOption('--payload-m', 0, MAX_PAYLOAD_M),
    )
    .option('--force', 'replace an existing index directory')
    .option('--json', 'print the summary as JSON')
    .action(async (input: string, f: BuildFlags) => {
      const progress = phaseProgress();
      let summary: Awaited<ReturnType<typeof buildIndex>>;
      const options = {
        input,
        out: f.out,
        m: f.m,
        efConstruction: f.efConstruction,
        seed: f.seed,
        dramBudget: f.dramBudget,
        placement: f.placement,
        codes: f.codes,
        poolShare: f.retierPool,
        profileSamples: f.profileSamples,
        force: f.force ?? false,
        keepUnreachable: f.keepUnreachable ?? false,
        fillAlpha: f.fillAlpha,
        ...(f.threads ? { threads: f.threads } : {}),
        ...(f.builder ? { builder: f.builder } : {}),
        indexFields: f.indexField,
        ...(f.payloadM !== undefined ? { payloadM: f.payloadM } : {}),
        ...(f.payloads ? { payloads: f.payloads } : {}),
        ...(f.format ? { format: f.format } : {}),
        ...(f.metric ? { metric: f.metric } : {}),
        ...(f.profileQueries ? { profileQueries: f.profileQueries } : {}),
        ...(f.name ? { name: f.name } : {}),
        ...(f.limit ? { limit: f.limit } : {}),
        ...(f.segmentBytes ? { segmentBytes: f.segmentBytes } : {}),
        onProgress: (phase: BuildPhase, done: number, total: number) => progress.update(phase, done, total),
      };
      if (f.shards !== undefined) {
        let set: Awaited<ReturnType<typeof buildShards>>;
        try {
          set = await buildShards({ ...options, shards: f.shards });
        } finally {
          progress.stop();
        }
        if (f.json) {
          process.stdout.write(JSON.stringify({ out: set.out, map: set.map }) + '\n');
          return;
        }
        const lines = [
          `built ${set.shards.length} shards in ${set.out}: ${set.map.count} vectors x ${set.map.dim} (${set.map.metric}), rows by ${set.map.hash} of their id`,
          ...set.shards.map((s, i) => `  shard ${i}: ${s.count} vectors, ${s.seconds.total.toFixed(1)} s, ${s.plan.code ?? 'no'} codes`),
          `shard map: ${set.out}/shards.json`,
        ];
        process.stdout.write(lines.join('\n') + '\n');
        set.shards.forEach((sh, i) => {
          const warning = noCodeWarning(sh.plan);
          if (warning !== null) process.stderr.write(`shard ${i}: ${warning}\n`);
        });
        return;
      }
      try {
        summary = await buildIndex(options);
      } finally {
        progress.stop();
      }
      const { manifest, ...rest } = summary;
      if (f.json) {
        process.stdout.write(JSON.stringify(rest) + '\n');
        return;
      }
      const s = summary.seconds;
      const p = summary.placement;
      const lines = [
        `built ${summary.out}: ${summary.count} vectors x ${summary.dim} (${summary.metric}), M ${f.m}, efConstruction ${f.efConstruction}`,
        `time ${s.total.toFixed(1)} s (read ${s.read.toFixed(1)}, ${summary.payloads ? `payloads ${s.payloads.toFixed(1)}, ` : ''}graph ${s.graph.toFixed(1)}, fill ${s.fill.toFixed(1)}, profile ${s.profile.toFixed(1)}, layout ${s.layout.toFixed(1)}, ${summary.links ? `links ${s.links.toFixed(1)}, ` : ''}write ${s.write.toFixed(1)}); ${Math.round(summary.vectorsPerSecond)} vectors/s`,
        `graph built by ${summary.builder === 'strata' ? 'Strata (on every thread)' : 'hnswlib-node (one thread)'}; peak RSS ${(summary.peakRssBytes / 2 ** 20).toFixed(0)} MiB (${Math.round(summary.peakRssBytes / Math.max(1, summary.count))} B per vector)`,
        ...planLines(summary.plan, summary.count),
        `placement ${p.policy}: predicted share of neighbour-list reads from DRAM ${p.predictedDramShare === null ? 'n/a' : (100 * p.predictedDramShare).toFixed(1) + '%'} (${p.profileQueries} profiling queries)`,
        ...(summary.filled
          ? [
              `graph: free level-0 slots filled at alpha ${summary.filled.alpha}: ${summary.filled.linksAdded} links, mean degree ${summary.filled.degreeBefore.toFixed(1)} -> ${summary.filled.degreeAfter.toFixed(1)} of ${summary.manifest.graph.maxM0}`,
            ]
          : []),
        ...(summary.connected.linksAdded > 0
          ? [`graph: linked in ${summary.connected.unreachableBefore} nodes the entry point could not reach on level 0 (${summary.connected.linksAdded} links)`]
          : []),
        ...(summary.payloads
          ? [
              `payloads: ${summary.payloads.points} points with a payload; indexes ${summary.payloads.indexes.map((x) => `${x.field}:${x.params.type}`).join(', ') || 'none'}`,
            ]
          : []),
        ...(summary.links
          ? [
              `filter links: ${summary.links.blocks} blocks, ${summary.links.members} memberships; DRAM ${mib(summary.links.dramBytes)}, CXL ${mib(summary.links.cxlBytes)} (${perVector(summary.links.cxlBytes, summary.count)})`,
            ]
          : []),
        ...(summary.unreachable > 0 ? [`note: ${summary.unreachable} nodes are unreachable from the entry point on level 0`] : []),
      ];
      process.stdout.write(lines.join('\n') + '\n');
      const warning = noCodeWarning(summary.plan);
      if (warning !== null) process.stderr.write(`${warning}\n`);
    });
}

/**
 * Said loudly when the plan kept no code though one was wanted: every distance a search computes
 * then reads a full vector from the CXL tier, which the plan line alone states too quietly.
 */
export function noCodeWarning(plan: BudgetPlan): string | null {
  if (plan.codeBudgetBytes === null) return null;
  const aside = plan.dram.payloadIndexes > 0 ? ` and the payload indexes (${mib(plan.dram.payloadIndexes)})` : '';
  return `warning: the DRAM budget holds no code after the upper layers${aside}: every distance a search computes reads a full vector from the CXL tier; --dram-budget ${Math.ceil(plan.codeBudgetBytes / 1048576)}MiB or more keeps a code`;
}
