// The router's strata.v1.Points writes: Upsert, Delete and SetPayload, each the router's REST write
// route called in process. gRPC writes answer once visible to search, as `strata serve` does: wait=true.
import type * as grpc from '@grpc/grpc-js';
import { jsonText, selectorMembers } from '../../grpc/json-text.js';
import { secondsSince } from '../../grpc/calls.js';
import type { DeletePointsRequestMsg, SetPayloadRequestMsg, UpsertRequestMsg } from '../../grpc/messages.js';
import type { WriteResult } from '../merge.js';
import { collectionPath } from '../collection-paths.js';
import type { RestCall } from './rest-call.js';
import { unary } from './unary.js';

export function pointWrites(rest: RestCall): grpc.UntypedServiceImplementation {
  /** One write through its REST route, answered with the time it took. */
  async function write(md: grpc.Metadata, method: 'PUT' | 'POST', name: string, path: string, body: unknown, t0: number): Promise<unknown> {
    const u = (await rest(md, method, collectionPath(name, `${path}?wait=true`), body)) as WriteResult;
    return { ...u, time: secondsSince(t0) };
  }

  return {
    Upsert: unary<UpsertRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const pts = r.points.map((p) => ({
        id: p.id,
        vector: Array.from(p.vector as ArrayLike<number>),
        ...(p.payload_json ? { payload: JSON.parse(p.payload_json) as unknown } : {}),
      }));
      return write(md, 'PUT', r.collection_name, '/points', { points: pts }, t0);
    }),
    Delete: unary<DeletePointsRequestMsg, unknown>(async (r, md) =>
      write(md, 'POST', r.collection_name, '/points/delete', selectorMembers(r), performance.now()),
    ),
    SetPayload: unary<SetPayloadRequestMsg, unknown>(async (r, md) => {
      const t0 = performance.now();
      const body = { ...selectorMembers(r), payload: jsonText(r.payload_json, 'payload_json'), ...(r.key !== '' ? { key: r.key } : {}) };
      return write(md, r.overwrite ? 'PUT' : 'POST', r.collection_name, '/points/payload', body, t0);
    }),
  };
}
