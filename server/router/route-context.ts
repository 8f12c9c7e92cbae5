// What every router route module receives: the shards, the ways to call them, the remembered score
// order of each collection, the router's metrics and the options the routes decide by.
import type { RouterMetrics } from './router-metrics.js';
import type { RouterOptions } from './router-options.js';
import type { ScoreOrder } from './score-order.js';
import type { ShardCalls } from './shard-calls.js';
import type { ShardSet } from './shard-set.js';

export interface RouterContext {
  shards: ShardSet;
  calls: ShardCalls;
  scoreOrder: ScoreOrder;
  metrics: RouterMetrics;
  options: Pick<RouterOptions, 'partial' | 'replicatedWrites'>;
}
