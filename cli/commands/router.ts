// `strata router`: a stateless REST and gRPC front over shard servers (server/router/).
// `--shards` lists each shard's replicas ("|" between replicas, "," between shards), or
// `--shard-map` reads a shard set's shards.json for the count (URLs are still given with --shards,
// in shard order: the map says how ids hash, not where servers run).
import type { Command } from 'commander';
import { invalidArgument } from '../../common/errors.js';
import { readShardMap } from '../../index/build/build-shards.js';
import { bindGrpc, shutdownGrpc } from '../../server/grpc/grpc-server.js';
import { checkExposure, DEFAULT_MAX_BATCH } from '../../server/options.js';
import { buildRouterGrpc } from '../../server/router/router-grpc.js';
import { buildRouter, type PartialPolicy } from '../../server/router/router-server.js';
import { parseShards } from '../../server/router/shard-set.js';
import { addListenOptions, type ListenFlags } from '../listen-options.js';
import { apiKeyOf, choiceOption, intOption } from '../options.js';

interface RouterFlags extends ListenFlags {
  shards: string;
  shardMap?: string;
  partial: PartialPolicy;
  shardTimeoutMs: number;
  hedgeMs: number;
  shardApiKey?: string;
  replicatedWrites?: boolean;
}

export function registerRouter(program: Command): void {
  addListenOptions(
    program
      .command('router')
      .description('serve one REST API over shard servers: searches fan out and merge, points and writes go to the shard their id hashes to')
      .requiredOption('--shards <urls>', 'shard URLs in shard order, "," between shards and "|" between a shard\'s replicas')
      .option('--shard-map <dir>', "a shard set's directory (strata build --shards): checks the shard count against its shards.json")
      .option(
        '--partial <policy>',
        'a shard that does not answer: fail the request (502) or answer from the others, marked partial',
        choiceOption('--partial', ['fail', 'allow'] as const),
        'fail',
      )
      .option('--shard-timeout-ms <ms>', 'per-shard deadline', intOption('--shard-timeout-ms', 1, 600_000), 2000)
      .option('--hedge-ms <ms>', 'ask another replica of a shard that has not answered after this long', intOption('--hedge-ms', 1, 600_000), 50)
      .option('--shard-api-key <key>', 'the key the shard servers ask for (default: $STRATA_SHARD_API_KEY, else the --api-key)')
      .option(
        '--replicated-writes',
        'the shard servers follow a shared write log (strata serve --write-log): send each write to any replica of its shard (without it, shards with several replicas refuse writes)',
      ),
    ": the same services as strata serve's",
  ).action(async (f: RouterFlags) => {
    const shards = parseShards(f.shards);
    if (f.shardMap !== undefined) {
      const map = readShardMap(f.shardMap);
      if (map.shards.length !== shards.length)
        throw invalidArgument('--shards', `${shards.length} shards given, the shard map ${f.shardMap} has ${map.shards.length}`);
    }
    const apiKey = apiKeyOf(f.apiKey) ?? null;
    checkExposure(f.host, apiKey, f.insecureNoAuth === true, '--host');
    const shardApiKey = f.shardApiKey ?? process.env['STRATA_SHARD_API_KEY'] ?? apiKey;
    const router = buildRouter({
      shards,
      partial: f.partial,
      timeoutMs: f.shardTimeoutMs,
      hedgeMs: f.hedgeMs,
      apiKey,
      shardApiKey,
      bodyLimit: 32 * 1024 * 1024,
      logLevel: f.logLevel,
      replicatedWrites: f.replicatedWrites === true,
    });
    const addr = await router.app.listen({ host: f.host, port: f.port });
    const grpcServer = f.grpc ? buildRouterGrpc(router, { bodyLimit: 32 * 1024 * 1024, maxBatch: DEFAULT_MAX_BATCH }) : null;
    const grpcPort = grpcServer ? await bindGrpc(grpcServer, f.host, f.grpcPort) : null;
    // Handlers first: a supervisor that signals as soon as it reads the addresses gets a clean stop.
    const stopped = new Promise<void>((resolve) => {
      const stop = (): void => {
        void Promise.all([router.close(), grpcServer ? shutdownGrpc(grpcServer, 5000) : null]).then(() => resolve(), resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    process.stdout.write(
      `strata router: ${shards.length} shards (${shards.map((r) => r.length).join('/')} replicas), partial answers: ${f.partial}\nREST  ${addr}\n${grpcPort !== null ? `gRPC  ${f.host}:${grpcPort}\n` : ''}`,
    );
    await stopped;
  });
}
