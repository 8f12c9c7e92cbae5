// `strata router`: a stateless REST and gRPC front over shard servers (server/router/).
// `--shards` lists each shard's replicas ("|" between replicas, "," between shards), or
// `--shard-map` reads a shard set's shards.json for the count (URLs are still given with --shards,
// in shard order: the map says how ids hash, not where servers run).
import type { Command } from 'commander';
import { invalidArgument } from '../../common/errors.js';
import { DEFAULT_GRPC_PORT, DEFAULT_REST_PORT } from '../../common/ports.js';
import { readShardMap } from '../../index/build/build-shards.js';
import { bindGrpc, shutdownGrpc } from '../../server/grpc/grpc-server.js';
import { DEFAULT_MAX_BATCH, isLoopback } from '../../server/options.js';
import { buildRouterGrpc } from '../../server/router/router-grpc.js';
import { buildRouter, type PartialPolicy } from '../../server/router/router-server.js';
import { parseShards } from '../../server/router/shard-set.js';
import { apiKeyOf, choiceOption, intOption } from '../options.js';

interface RouterFlags {
  shards: string;
  shardMap?: string;
  host: string;
  port: number;
  partial: PartialPolicy;
  shardTimeoutMs: number;
  hedgeMs: number;
  apiKey?: string;
  shardApiKey?: string;
  insecureNoAuth?: boolean;
  logLevel: string;
  replicatedWrites?: boolean;
  grpcPort: number;
  grpc: boolean;
}

export function registerRouter(program: Command): void {
  program
    .command('router')
    .description('serve one REST API over shard servers: searches fan out and merge, points and writes go to the shard their id hashes to')
    .requiredOption('--shards <urls>', 'shard URLs in shard order, "," between shards and "|" between a shard\'s replicas')
    .option('--shard-map <dir>', "a shard set's directory (strata build --shards): checks the shard count against its shards.json")
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'REST port (0: a free port)', intOption('--port', 0, 65535), DEFAULT_REST_PORT)
    .option(
      '--grpc-port <port>',
      "port of Strata's gRPC API, strata.v1 (0: a free port): the same services as strata serve's",
      intOption('--grpc-port', 0, 65535),
      DEFAULT_GRPC_PORT,
    )
    .option('--no-grpc', 'do not start the gRPC server')
    .option(
      '--partial <policy>',
      'a shard that does not answer: fail the request (502) or answer from the others, marked partial',
      choiceOption('--partial', ['fail', 'allow'] as const),
      'fail',
    )
    .option('--shard-timeout-ms <ms>', 'per-shard deadline', intOption('--shard-timeout-ms', 1, 600_000), 2000)
    .option('--hedge-ms <ms>', 'ask another replica of a shard that has not answered after this long', intOption('--hedge-ms', 1, 600_000), 50)
    .option('--api-key <key>', 'clients must send this key (default: $STRATA_API_KEY)')
    .option('--shard-api-key <key>', 'the key the shard servers ask for (default: $STRATA_SHARD_API_KEY, else the --api-key)')
    .option('--insecure-no-auth', 'allow a non-loopback --host without an API key')
    .option('--log-level <level>', 'fatal | error | warn | info | debug | trace | silent', 'info')
    .option(
      '--replicated-writes',
      'the shard servers follow a shared write log (strata serve --write-log): send each write to any replica of its shard (without it, shards with several replicas refuse writes)',
    )
    .action(async (f: RouterFlags) => {
      const shards = parseShards(f.shards);
      if (f.shardMap !== undefined) {
        const map = readShardMap(f.shardMap);
        if (map.shards.length !== shards.length)
          throw invalidArgument('--shards', `${shards.length} shards given, the shard map ${f.shardMap} has ${map.shards.length}`);
      }
      const apiKey = apiKeyOf(f.apiKey) ?? null;
      if (apiKey === null && !isLoopback(f.host) && !f.insecureNoAuth)
        throw invalidArgument('--host', `${f.host} is reachable from other hosts: give --api-key, or --insecure-no-auth`);
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
