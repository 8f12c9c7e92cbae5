// Qdrant's REST routes that Strata does not run, each answered 501 STRATA_NOT_IMPLEMENTED saying why
// and what to use instead: a Qdrant client's user learns it from the error, not from a bare 404.
// test/server/client-coverage.test.ts holds this table and the served routes to the official
// client's own list of routes.
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { notImplemented } from '../../../common/errors.js';

const C = '/collections/:collection_name';
const SHARD_KEYS = 'shard keys are not supported: Strata shards a collection by point id (strata build --shards, and strata router over the shards)';
const SHARD_SNAPSHOTS = "a collection is one shard on its server: use the collection's snapshots (POST /collections/{c}/snapshots)";
const FULL_SNAPSHOTS = 'snapshots are per collection: POST /collections/{c}/snapshots for each';
const CONSENSUS = 'Strata runs no consensus between peers: replicas follow a shared write log (strata serve --write-log, NATS JetStream)';

export interface NotServed {
  method: HTTPMethods;
  url: string;
  why: string;
}

export const NOT_SERVED: readonly NotServed[] = [
  { method: 'POST', url: `${C}/cluster`, why: 'there are no shards to move or replicate within a server: a collection is one shard here' },
  { method: 'GET', url: `${C}/shards`, why: SHARD_KEYS },
  { method: 'PUT', url: `${C}/shards`, why: SHARD_KEYS },
  { method: 'POST', url: `${C}/shards/delete`, why: SHARD_KEYS },
  { method: 'GET', url: `${C}/shards/:shard_id/snapshot`, why: SHARD_SNAPSHOTS },
  { method: 'GET', url: `${C}/shards/:shard_id/snapshots`, why: SHARD_SNAPSHOTS },
  { method: 'POST', url: `${C}/shards/:shard_id/snapshots`, why: SHARD_SNAPSHOTS },
  { method: 'POST', url: `${C}/shards/:shard_id/snapshots/upload`, why: SHARD_SNAPSHOTS },
  { method: 'PUT', url: `${C}/shards/:shard_id/snapshots/recover`, why: SHARD_SNAPSHOTS },
  { method: 'GET', url: `${C}/shards/:shard_id/snapshots/:snapshot_name`, why: SHARD_SNAPSHOTS },
  { method: 'DELETE', url: `${C}/shards/:shard_id/snapshots/:snapshot_name`, why: SHARD_SNAPSHOTS },
  { method: 'GET', url: '/snapshots', why: FULL_SNAPSHOTS },
  { method: 'POST', url: '/snapshots', why: FULL_SNAPSHOTS },
  { method: 'GET', url: '/snapshots/:snapshot_name', why: FULL_SNAPSHOTS },
  { method: 'DELETE', url: '/snapshots/:snapshot_name', why: FULL_SNAPSHOTS },
  { method: 'POST', url: '/cluster/recover', why: CONSENSUS },
  { method: 'DELETE', url: '/cluster/peer/:peer_id', why: CONSENSUS },
  { method: 'GET', url: '/telemetry', why: "Strata's own metrics are at GET /metrics (Prometheus text format)" },
  { method: 'GET', url: '/cluster/telemetry', why: "Strata's own metrics are at GET /metrics (Prometheus text format)" },
  { method: 'GET', url: '/issues', why: "problems show in each collection's status (GET /collections/{c}) and in /readyz" },
  { method: 'DELETE', url: '/issues', why: "problems show in each collection's status (GET /collections/{c}) and in /readyz" },
  { method: 'GET', url: `${C}/optimizations`, why: "Strata's optimizer is its compaction: its state is in GET /collections/{c} (status, optimizer_status)" },
];

export function registerNotServedRoutes(app: FastifyInstance): void {
  for (const r of NOT_SERVED) {
    const operation = `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`;
    app.route({
      method: r.method,
      url: r.url,
      // The body is irrelevant: do not spend the body limit's worth of parsing on a refused call.
      handler: async () => {
        throw notImplemented(operation, r.why);
      },
    });
  }
}
