// The router's three ways to ask shards, each turning what the shards gave into an answer or an
// error: every shard once (fan-out, with the partial-answer policy), one shard (a point by id, a
// write), and every replica of every shard (creating, deleting or compacting a collection).
import { StrataError } from '../../common/errors.js';
import type { PartialPolicy } from './router-options.js';
import { Relayed } from './router-errors.js';
import type { RouterMetrics } from './router-metrics.js';
import { type ShardAnswer, ShardFailure, type ShardMethod, type ShardSet, shardsUnreachable } from './shard-set.js';

export type { ShardMethod } from './shard-set.js';

/** The `result` of a shard's answer envelope. */
export const resultOf = <T>(a: ShardAnswer): T => (a.body as { result: T }).result;

export class ShardCalls {
  constructor(
    private readonly shards: ShardSet,
    private readonly partial: PartialPolicy,
    private readonly metrics: RouterMetrics,
  ) {}

  /** Every shard's answer to one call, with the policy applied to the missing ones. */
  async fanOut(method: ShardMethod, path: string, body?: unknown): Promise<{ answers: ShardAnswer[]; missing: number[] }> {
    const all = await this.shards.all(method, path, body);
    const failed = all.filter((a): a is ShardFailure => a instanceof ShardFailure);
    for (const f of failed) this.metrics.missing(f.shard);
    const answers = all.filter((a): a is ShardAnswer => !(a instanceof ShardFailure));
    // A request one shard refuses (4xx) every shard refuses: pass the first refusal on.
    const refused = answers.find((a) => a.status >= 400);
    if (refused) throw new Relayed(refused);
    if (failed.length > 0 && (this.partial === 'fail' || answers.length === 0)) throw shardsUnreachable(failed);
    return { answers, missing: failed.map((f) => f.shard) };
  }

  /** One call to one shard: its failure is the request's 502, a 4xx its answer. */
  async one(shard: number, method: ShardMethod, path: string, body?: unknown, headers?: Record<string, string>): Promise<ShardAnswer> {
    const a = await this.shards.call(shard, method, path, body, headers).catch((e: unknown) => {
      throw e instanceof ShardFailure ? shardsUnreachable([e]) : e;
    });
    if (a.status >= 400) throw new Relayed(a);
    return a;
  }

  /**
   * One call to every replica of every shard; it succeeds only when all of them did it. A replica's
   * refusal (a 4xx: the name is taken, the config is bad) is passed on; one that does not answer
   * fails the call naming it (the others have done it: retrying a delete or a compaction is
   * harmless, a create then meets 409 where it was done). Answers, by shard, every replica's result.
   */
  async everywhere<T>(method: Exclude<ShardMethod, 'GET'>, path: string, body?: unknown): Promise<T[][]> {
    const byShard = await Promise.all(Array.from({ length: this.shards.count }, (_, i) => this.shards.replicaAnswers(i, method, path, body)));
    const all = byShard.flat();
    const refused = all.find((a) => a.answer !== null && a.answer.status >= 400 && a.answer.status < 500);
    if (refused) throw new Relayed(refused.answer!);
    const failed = all.filter((a) => a.answer === null || a.answer.status >= 500);
    if (failed.length > 0)
      throw new StrataError(
        'STRATA_UNREACHABLE',
        `${failed.length} of ${all.length} replicas did not answer: ${failed.map((f) => `${f.url} (${f.reason ?? `status ${f.answer!.status}`})`).join(', ')}`.slice(
          0,
          600,
        ),
        { replicas: failed.map((f) => f.url).join(',') },
      );
    return byShard.map((answers) => answers.map((a) => resultOf<T>(a.answer!)));
  }
}
