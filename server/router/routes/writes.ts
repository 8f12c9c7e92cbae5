// Write routes: upsert, vector update, delete and payload (set: POST, overwrite: PUT, delete,
// clear), each id's part sent to the shard it hashes to (write-parts.ts, write-routing.ts), a write
// by filter and a payload index's create or drop to every shard; Qdrant's batch update checked whole
// and each operation's part sent to its shards, in order; the shards' acknowledgements answered as one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { arrayAt, bodyObject, type Fields, objectAt } from '../../api/fields.js';
import { MAX_BATCH_OPERATIONS, parseBatchWrites } from '../../api/batch-writes.js';
import { parseDeleteVectors } from '../../api/writes.js';
import type { VectorSpace } from '../../api/vector-space.js';
import type { CollectionParams } from '../../rest/context.js';
import { answer } from '../answer.js';
import { mergeWriteResults, type WriteResult } from '../merge.js';
import type { RouterContext } from '../route-context.js';
import { COLLECTION_ROUTE } from '../collection-paths.js';
import { batchParts, type Parts, pointsParts, selectionParts, upsertParts } from '../write-parts.js';
import { routeWrites } from '../write-routing.js';

type WriteRoute = { Params: CollectionParams; Body: unknown; Querystring: { wait?: string } };
type IndexRoute = { Params: CollectionParams & { field_name: string }; Body: unknown; Querystring: { wait?: string } };

/** Routes one write's parts to their shards and answers the shards' acknowledgements as one. */
async function routed(
  ctx: RouterContext,
  req: FastifyRequest<WriteRoute>,
  r: FastifyReply,
  method: 'PUT' | 'POST' | 'DELETE',
  path: string,
  parts: ReadonlyMap<number, unknown>,
): Promise<FastifyReply> {
  const wait = req.query.wait === 'true';
  const results = await routeWrites(ctx, { name: req.params.collection_name, method, path: `${path}${wait ? '?wait=true' : ''}`, wait, bodies: parts });
  return answer(req, r, mergeWriteResults([...results.values()]));
}

export function registerWriteRoutes(app: FastifyInstance, ctx: RouterContext): void {
  const count = ctx.shards.count;

  /**
   * A write whose body the router cuts into each shard's part (`partsOf`), after `check` (the
   * server's own check, for a write the router must refuse as the server does whatever the parts).
   */
  const write = (
    method: 'PUT' | 'POST',
    path: string,
    partsOf: (b: Fields, at: string, count: number) => Parts,
    check: (b: Fields, space: VectorSpace) => void = () => {},
  ): void => {
    app.route<WriteRoute>({
      method,
      url: `${COLLECTION_ROUTE}${path}`,
      handler: async (req, r) => {
        const b = bodyObject(req.body);
        check(b, await ctx.scoreOrder.space(req.params.collection_name));
        return routed(ctx, req, r, method, path, partsOf(b, '', count));
      },
    });
  };
  write('PUT', '/points', upsertParts);
  write('PUT', '/points/vectors', pointsParts);
  // A write that selects points (delete, payload set / overwrite / delete / clear): by ids, each
  // shard gets its own ids and the rest of the body; by filter, every shard gets the whole body,
  // since any shard may hold matching points (each shard checks the body as the server does, so a
  // filter it cannot take is refused, never dropped).
  write('POST', '/points/delete', selectionParts);
  // Set (POST: merge) or overwrite (PUT) payloads.
  write('POST', '/points/payload', selectionParts);
  write('PUT', '/points/payload', selectionParts);
  write('POST', '/points/payload/delete', selectionParts);
  write('POST', '/points/payload/clear', selectionParts);
  // The server refuses to delete a point's dense vector, whichever points it selects: so does the
  // router, before any shard gets it; sparse vectors' deletes go to the shards as other selections.
  write('POST', '/points/vectors/delete', selectionParts, parseDeleteVectors);

  // Qdrant's batch update: checked whole by the server's own parser (with the collection's
  // dimension) before any shard gets a part, so a bad operation anywhere is the server's 400 naming
  // operations[i]… and nothing is written; then each shard gets its parts of the operations in the
  // batch's order (a shard applies them in order, as the server does). One acknowledgement per
  // operation: those of the shards it reached, as one.
  app.post<WriteRoute>(`${COLLECTION_ROUTE}/points/batch`, async (req, r) => {
    const b = bodyObject(req.body);
    parseBatchWrites(b, await ctx.scoreOrder.space(req.params.collection_name));
    const operations = arrayAt(b['operations'], 'operations', MAX_BATCH_OPERATIONS).map((o, i) => objectAt(o, `operations[${i}]`));
    const byShard = batchParts(operations, count);
    const wait = req.query.wait === 'true';
    const results = await routeWrites<WriteResult[]>(
      ctx,
      {
        name: req.params.collection_name,
        method: 'POST',
        path: `/points/batch${wait ? '?wait=true' : ''}`,
        wait,
        bodies: new Map([...byShard].map(([s, ops]) => [s, { operations: ops.map((o) => o.operation) }])),
      },
      (acks) => Math.max(0, ...acks.map((a) => a.operation_id)),
    );
    const perOperation = operations.map((): WriteResult[] => []);
    for (const [s, ops] of byShard) ops.forEach((o, j) => perOperation[o.index]!.push(results.get(s)![j]!));
    // An operation that reached no shard (no point of it routes anywhere) wrote nothing.
    const nothing: WriteResult = { operation_id: 0, status: wait ? 'completed' : 'acknowledged' };
    return answer(
      req,
      r,
      perOperation.map((acks) => (acks.length > 0 ? mergeWriteResults(acks) : nothing)),
    );
  });

  // Payload indexes: created or dropped on every shard, as a write (a shared write log carries it
  // to the shard's replicas).
  const everyShard = (method: 'PUT' | 'DELETE', url: string, path: (req: FastifyRequest<IndexRoute>) => string): void => {
    app.route<IndexRoute>({
      method,
      url,
      handler: async (req, r) => {
        const body = method === 'PUT' ? bodyObject(req.body) : undefined;
        const shards = new Map(Array.from({ length: count }, (_, s): [number, unknown] => [s, body]));
        return routed(ctx, req, r, method, path(req), shards);
      },
    });
  };
  everyShard('PUT', `${COLLECTION_ROUTE}/index`, () => '/index');
  everyShard('DELETE', `${COLLECTION_ROUTE}/index/:field_name`, (req) => `/index/${encodeURIComponent(req.params.field_name)}`);
}
