// What every REST route module receives: the engine, the resolved options, the metrics, and the
// server's lifecycle (readiness and draining are the server's state, not the engine's).
import type { Engine } from '../../engine/public.js';
import type { Lifecycle } from '../lifecycle.js';
import type { ServerMetrics } from '../metrics.js';
import type { ResolvedOptions } from '../options.js';

export interface RestContext {
  engine: Engine;
  options: ResolvedOptions;
  metrics: ServerMetrics;
  lifecycle: Lifecycle;
}

/** Path parameters of every /collections/{collection_name}/… route (Qdrant's name). */
export interface CollectionParams {
  collection_name: string;
}

/** Qdrant's per-request query parameters: `timeout` (seconds) is honoured as a deadline. */
export interface CallQuery {
  timeout?: string | string[];
}
