// What `strata router` is started with (cli/commands/router.ts resolves it from the command line).

/** What a request meets when a shard does not answer: `fail` answers 502, `allow` answers from the rest. */
export type PartialPolicy = 'fail' | 'allow';

export interface RouterOptions {
  shards: string[][];
  partial: PartialPolicy;
  timeoutMs: number;
  hedgeMs: number;
  apiKey: string | null;
  /** The key the shard servers ask for (default: none). */
  shardApiKey?: string | null;
  bodyLimit: number;
  logLevel: string;
  /**
   * The shard servers follow a shared write log (`strata serve --write-log`): a write goes to any
   * replica of its shard, which publishes it there for all of them. Without it a shard with more
   * than one replica refuses writes (they would reach one replica only).
   */
  replicatedWrites?: boolean;
}
