// `strata search <dir> --queries <file>`: a batch in-process, one JSON line out.
import type { Command } from 'commander';
import { StrataError } from '../../common/errors.js';
import { distancesFileBeside, readDataset, readFvecsMatrix, readGroundTruth, writeIvecs } from '../../datasets/index.js';
import { Engine } from '../../engine/engine.js';
import { runQueries } from '../../engine/run-queries.js';
import { recallAtK } from '../../index/search/recall.js';
import { MAX_EF, MAX_K } from '../../index/search/bounds.js';
import { DEFAULT_PREFETCH } from '../../index/search/searcher.js';
import { addMemoryFlags, costFromFlags, memoryRequest, type MemoryFlags } from '../memory-flags.js';
import { choiceOption, intOption } from '../options.js';

interface SearchFlags extends MemoryFlags {
  queries: string;
  k: number;
  ef: number;
  gt?: string;
  out?: string;
  inject?: boolean;
  exact?: boolean;
  warmup: number;
  limit?: number;
  mode: 'local' | 'ndp';
  threads: number;
  prefetch?: boolean;
  pipeline?: boolean;
  inflight: number;
}

export function registerSearch(program: Command): void {
  addMemoryFlags(
    program
      .command('search')
      .description('run a batch of queries against an index in-process and print one JSON line of results')
      .argument('<dir>', 'index directory')
      .requiredOption('-q, --queries <file>', 'query vectors (any supported format)')
      .option('-k, --k <n>', 'neighbours per query', intOption('--k', 1, MAX_K), 10)
      .option('--ef <n>', 'beam width on level 0', intOption('--ef', 1, MAX_EF), 64)
      .option('--gt <file>', 'ground-truth ids (.ivecs, .ibin, .hdf5 neighbors) for recall')
      .option('--out <file>', "write result ids as .ivecs (the input's ids; row numbers where it has none)")
      .option('--inject', 'stall the search by the modelled CXL extra time (emulated CXL end to end)')
      .option('--exact', 'brute force over every tier instead of the graph')
      .option('--warmup <n>', 'untimed passes over the queries first', intOption('--warmup', 0, 100), 1)
      .option('--limit <n>', 'use only the first n queries', intOption('--limit', 1))
      .option(
        '--mode <mode>',
        'local: the search thread reads every tier; ndp: CXL-tier distances computed by tier workers',
        choiceOption('--mode', ['local', 'ndp'] as const),
        'local',
      )
      .option('--threads <n>', 'search threads (0: this thread)', intOption('--threads', 0, 256), 0)
      .option('--inflight <n>', 'queries per search thread at once', intOption('--inflight', 1, 1024), 32)
      .option('--no-prefetch', 'do not foresee the next candidate (by default its neighbour list is fetched a step ahead)')
      .option('--pipeline', "ndp: overlap one query group's deferrable work with the other's tier work"),
  ).action(async (dir: string, f: SearchFlags) => {
    const engine = await Engine.open([{ dir }], {
      memory: memoryRequest(f),
      cost: costFromFlags(f),
      mode: f.mode,
      searchThreads: f.threads,
      inflightPerThread: f.inflight,
      inject: f.inject ?? false,
      prefetch: f.prefetch ?? DEFAULT_PREFETCH,
      pipeline: f.pipeline ?? false,
      maxQueue: 1 << 30,
      ...(f.expanders !== undefined ? { expanders: f.expanders } : {}),
    });
    const collection = engine.collections()[0]!;
    const dim = collection.dim;
    const info = collection.info();
    const qs = await readDataset(f.queries, f.limit ? { limit: f.limit } : {});
    if (qs.dim !== dim) {
      await engine.close();
      throw new StrataError('STRATA_DATASET_DIMENSION', `${qs.file}: queries have ${qs.dim} dimensions, the index ${dim}`, {
        file: qs.file,
        expected: dim,
        found: qs.dim,
      });
    }
    let r: Awaited<ReturnType<typeof runQueries>>;
    try {
      r = await runQueries(collection, qs.vectors, { k: f.k, ef: f.ef, exact: f.exact ?? false, mode: f.mode, warmup: f.warmup });
    } finally {
      await engine.close();
    }
    let recall: number | null = null;
    let tieAware = false;
    let duplicates: number | null = null;
    if (f.gt) {
      const gt = await readGroundTruth(f.gt);
      if (gt.count < r.queries)
        throw new StrataError('STRATA_DATASET_FORMAT', `${gt.file}: ${gt.count} ground-truth rows for ${r.queries} queries`, { file: gt.file });
      const dfile = distancesFileBeside(f.gt);
      const gd = dfile ? await readFvecsMatrix(dfile) : null;
      const useD = gd !== null && gd.dim === gt.dim && gd.count >= r.queries;
      const rr = recallAtK({
        k: f.k,
        results: r.labels,
        metric: collection.metric,
        gtIds: gt.data,
        gtDim: gt.dim,
        ...(useD ? { resultDistances: r.distances, gtDistances: gd.data } : {}),
      });
      recall = rr.mean;
      tieAware = rr.tieAware;
      duplicates = rr.duplicates;
    }
    if (f.out) {
      const ids = new Int32Array(r.labels.length);
      for (let i = 0; i < ids.length; i++) {
        const v = r.labels[i]!;
        if (v > 0x7fffffff) throw new StrataError('STRATA_INVALID_ARGUMENT', `--out: id ${v} does not fit an .ivecs int32`, { field: 'out' });
        ids[i] = v;
      }
      await writeIvecs(f.out, ids, f.k);
    }
    const s = r.stats;
    process.stdout.write(
      JSON.stringify({
        index: info.name,
        mode: f.mode,
        threads: f.threads,
        queries: r.queries,
        k: f.k,
        ef: f.ef,
        exact: f.exact ?? false,
        qps: Math.round(r.qps * 10) / 10,
        recall,
        recallTieAware: tieAware,
        recallDuplicates: duplicates,
        meanDistanceComputations: s.distances,
        meanHops: s.hops,
        dramShareOfAccesses: s.dramShare,
        dramShareOfDistances: s.distanceDramShare,
        rerankedPerQuery: s.reranked,
        accessesPerQuery: s.accesses,
        bytesPerQuery: s.bytes,
        modelledMemoryNsPerQuery: s.modelledMemoryNs,
        modelledCxlExtraNsPerQuery: s.modelledCxlExtraNs,
        injectedNsPerQuery: s.injectedNs,
        stalledNsPerQuery: s.stalledNs,
        linkMessagesPerQuery: s.linkMessages,
        linkBytesPerQuery: s.linkBytes,
        prefetch: { issued: s.prefetchIssued, hits: s.prefetchHits },
        inject: f.inject ?? false,
        kernels: collection.index?.vectors.segments[0]?.kernels?.kind ?? 'none',
        code: info.code,
        memory: { mode: info.memory.mode, reason: info.memory.reason, tiers: info.tiers.map((t) => ({ kind: t.kind, nodes: t.nodes, binding: t.binding })) },
      }) + '\n',
    );
  });
}
