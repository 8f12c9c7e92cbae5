// The options every listening command takes (serve, router): where it listens, its gRPC port, the
// API key and the log level, each with one wording and one check.
import type { Command } from 'commander';
import { DEFAULT_GRPC_PORT, DEFAULT_REST_PORT } from '../common/ports.js';
import { LOG_LEVELS, type LogLevel } from '../server/options.js';
import { choiceOption, intOption } from './options.js';

export interface ListenFlags {
  host: string;
  port: number;
  grpcPort: number;
  grpc: boolean;
  apiKey?: string;
  insecureNoAuth?: boolean;
  logLevel: LogLevel;
}

/** Adds the listening options to cmd; `grpcWhat` says what its strata.v1 port serves. */
export function addListenOptions(cmd: Command, grpcWhat: string): Command {
  return cmd
    .option('--host <host>', 'interface to listen on (0.0.0.0: every interface)', '127.0.0.1')
    .option('--port <port>', 'REST port (0: a free port)', intOption('--port', 0, 65535), DEFAULT_REST_PORT)
    .option('--grpc-port <port>', `port of Strata's gRPC API, strata.v1 (0: a free port)${grpcWhat}`, intOption('--grpc-port', 0, 65535), DEFAULT_GRPC_PORT)
    .option('--no-grpc', "do not serve Strata's gRPC API")
    .option(
      '--api-key <key>',
      'require this key (api-key header or Authorization: Bearer) on every route but the health probes; default $STRATA_API_KEY (empty: an error)',
    )
    .option('--insecure-no-auth', 'allow a non-loopback --host without an API key (anyone who reaches the port can query)')
    .option('--log-level <level>', LOG_LEVELS.join(' | '), choiceOption('--log-level', LOG_LEVELS), 'info');
}
