// The router's strata.v1.Collections service: List, Get, Create, Delete and Compact, each the
// router's REST collection route called in process.
import type * as grpc from '@grpc/grpc-js';
import { type PayloadSchemaView, payloadIndexInfos } from '../../api/payload-index.js';
import { secondsSince } from '../../grpc/calls.js';
import type { CreateCollectionRequestMsg } from '../../grpc/messages.js';
import { collectionPath } from '../collection-paths.js';
import type { RestCall } from './rest-call.js';
import { unary } from './unary.js';

type Named = { collection_name: string };

export function collectionsService(rest: RestCall): grpc.UntypedServiceImplementation {
  return {
    List: unary<unknown, unknown>(async (_r, md) => {
      const t0 = performance.now();
      const l = (await rest(md, 'GET', '/collections')) as { collections: Array<{ name: string }> };
      return { collections: l.collections.map((c) => ({ name: c.name })), time: secondsSince(t0) };
    }),
    Get: unary<Named, unknown>(async (r, md) => {
      const t0 = performance.now();
      const c = (await rest(md, 'GET', collectionPath(r.collection_name))) as {
        status: string;
        points_count: number;
        config: { params: { vectors: { size: number; distance: string } }; hnsw_config?: { m?: number; ef_construct?: number } };
        strata?: { status_reasons?: string[] };
        payload_schema?: Record<string, PayloadSchemaView>;
      };
      return {
        result: {
          name: r.collection_name,
          status: c.status,
          dimension: c.config.params.vectors.size,
          distance: c.config.params.vectors.distance,
          points_count: c.points_count,
          hnsw_m: c.config.hnsw_config?.m ?? 0,
          hnsw_ef_construct: c.config.hnsw_config?.ef_construct ?? 0,
          status_reasons: c.strata?.status_reasons ?? [],
          payload_indexes: payloadIndexInfos(c.payload_schema ?? {}),
        },
        time: secondsSince(t0),
      };
    }),
    // The REST body of a create, as strata serve's gRPC Create builds it (0: the defaults).
    Create: unary<CreateCollectionRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      await rest(md, 'PUT', collectionPath(r.collection_name), {
        vectors: { size: r.dimension, distance: r.distance },
        hnsw_config: { ...(r.hnsw_m ? { m: r.hnsw_m } : {}), ...(r.hnsw_ef_construct ? { ef_construct: r.hnsw_ef_construct } : {}) },
      });
      return { result: true, time: secondsSince(t0) };
    }),
    Delete: unary<Named, unknown>(async (r, md) => {
      const t0 = performance.now();
      const existed = await rest(md, 'DELETE', collectionPath(r.collection_name));
      return { result: existed === true, time: secondsSince(t0) };
    }),
    Compact: unary<Named, unknown>(async (r, md) => {
      const t0 = performance.now();
      const result = await rest(md, 'POST', collectionPath(r.collection_name, '/compact'));
      return { result, time: secondsSince(t0) };
    }),
  };
}
