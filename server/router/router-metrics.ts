// The router's own metrics: shards missing from answers (prom-client), and the shard set's call
// counts by replica and outcome, written out in Prometheus' text format.
import { Counter, Registry } from 'prom-client';
import type { ShardSet } from './shard-set.js';

export class RouterMetrics {
  private readonly registry = new Registry();
  private readonly missingTotal = new Counter({
    name: 'strata_router_missing_shards_total',
    help: 'Requests answered or failed without a shard, by shard.',
    labelNames: ['shard'],
    registers: [this.registry],
  });

  /** A request was answered, or failed, without this shard. */
  missing(shard: number): void {
    this.missingTotal.inc({ shard: String(shard) });
  }

  /** Every metric, as GET /metrics answers it. */
  async text(shards: ShardSet): Promise<string> {
    const lines = [...shards.calls.entries()].map(([k, n]) => {
      const [shard, url, outcome] = k.split(' ');
      return `strata_router_shard_calls_total{shard="${shard}",replica="${url}",outcome="${outcome}"} ${n}`;
    });
    return `${await this.registry.metrics()}# HELP strata_router_shard_calls_total Calls to shard replicas, by outcome.\n# TYPE strata_router_shard_calls_total counter\n${lines.join('\n')}\n`;
  }
}
