// Write routes (Qdrant's paths and shapes): create and delete a collection; upsert and delete points
// (by ids or filter); set, overwrite, delete and clear payloads (by ids or filter); create and drop
// payload indexes. A write is answered once it is durable (fdatasync of the collection's
// write-ahead log) and, in the same step, visible to search; behind a shared write log, once this
// replica has applied it, with the log's sequence as operation_id. Without a data directory every
// one of them is STRATA_READ_ONLY (405).
import { spaceOf } from '../../api/vector-space.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Collection } from '../../../engine/public.js';
import { isStrataError, StrataError } from '../../../common/errors.js';
import { bodyObject, type Fields } from '../../api/fields.js';
import { parseCreateIndex } from '../../api/payload-index.js';
import {
  compactionView,
  parseCollectionUpdate,
  parseCreateCollection,
  parseDeletePayload,
  parsePayload,
  parsePointSelector,
  parseUpdateVectors,
  parseUpsert,
  parseDeleteVectors,
  WRITE_ID_HEADER,
  waitFlag,
  writeIdOf,
} from '../../api/writes.js';
import { parseBatchWrites } from '../../api/batch-writes.js';
import { codecFor, send } from '../codec.js';
import type { CollectionParams, RestContext } from '../context.js';
import { ok } from '../envelope.js';

interface WriteRoute {
  Params: CollectionParams & { field_name?: string };
  Querystring: { wait?: string };
  Body: unknown;
}

/** Qdrant's UpdateResult. */
function updateResult(lsn: bigint, wait: boolean): { operation_id: number; status: 'completed' | 'acknowledged' } {
  return { operation_id: Number(lsn), status: wait ? 'completed' : 'acknowledged' };
}

/** A 405 must say what the path does answer (the Allow header): the refusals from below do not know the path. */
async function allowing<T>(allow: string, f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (isStrataError(e, 'STRATA_READ_ONLY') && e.details['allow'] === undefined)
      throw new StrataError(e.code, e.message, { ...e.details, allow }, { cause: e });
    throw e;
  }
}

export function registerWriteRoutes(app: FastifyInstance, ctx: RestContext): void {
  const c = '/collections/:collection_name';

  /**
   * One point or payload write: the collection must be writable before its body is read (a
   * read-only one answers 405 whatever the body), then `write` parses the body and logs the write.
   */
  const pointWrite = (
    method: 'PUT' | 'POST' | 'DELETE',
    url: string,
    allow: string,
    write: (col: Collection, body: Fields, writeId: string | undefined, req: FastifyRequest<WriteRoute>) => Promise<bigint>,
  ): void => {
    app.route<WriteRoute>({
      method,
      url,
      handler: async (req, reply) => {
        const wait = waitFlag(req.query.wait);
        const col = ctx.engine.collection(req.params.collection_name);
        const lsn = await allowing(allow, () => {
          col.writable();
          return write(col, bodyObject(req.body), writeIdOf(req.headers[WRITE_ID_HEADER]), req);
        });
        return send(reply, codecFor(req), ok(reply, updateResult(lsn, wait)));
      },
    });
  };

  app.put<WriteRoute>(c, async (req, reply) => {
    const cfg = parseCreateCollection(req.params.collection_name, bodyObject(req.body));
    await allowing('GET', () => ctx.engine.createCollection(cfg));
    return send(reply, codecFor(req), ok(reply, true));
  });

  app.patch<WriteRoute>(c, async (req, reply) => {
    await allowing('GET', () => {
      // A server or collection that takes no update says so whatever the body.
      ctx.engine.updatable(req.params.collection_name);
      ctx.engine.updateCollection(req.params.collection_name, parseCollectionUpdate(bodyObject(req.body)));
    });
    return send(reply, codecFor(req), ok(reply, true));
  });

  app.delete<WriteRoute>(c, async (req, reply) => {
    const existed = await allowing('GET', () => ctx.engine.deleteCollection(req.params.collection_name));
    return send(reply, codecFor(req), ok(reply, existed));
  });

  pointWrite('PUT', `${c}/points`, 'POST', (col, body, writeId) => col.upsert(parseUpsert(body, spaceOf(col)), writeId));
  // Qdrant's batch update: every operation checked first, then written in order; one result each.
  app.post<WriteRoute>(`${c}/points/batch`, async (req, reply) => {
    const wait = waitFlag(req.query.wait);
    const col = ctx.engine.collection(req.params.collection_name);
    const writeId = writeIdOf(req.headers[WRITE_ID_HEADER]);
    const results = await allowing('', async () => {
      col.writable();
      const writes = parseBatchWrites(bodyObject(req.body), spaceOf(col));
      const out: Array<ReturnType<typeof updateResult>> = [];
      for (const [i, w] of writes.entries()) out.push(updateResult(await w(col, writeId === undefined ? undefined : `${writeId}/${i}`), wait));
      return out;
    });
    return send(reply, codecFor(req), ok(reply, results));
  });
  // Qdrant's vector update: new vectors for existing points, payloads kept; deleting a vector is refused (writes.ts).
  pointWrite('PUT', `${c}/points/vectors`, '', (col, body, writeId) => col.updateVectors(parseUpdateVectors(body, spaceOf(col)), writeId));
  pointWrite('POST', `${c}/points/vectors/delete`, '', (col, body, writeId) => {
    const w = parseDeleteVectors(body, spaceOf(col));
    return col.deleteVectors(w.target, w.names, writeId);
  });
  pointWrite('POST', `${c}/points/delete`, '', (col, body, writeId) => col.deletePoints(parsePointSelector(body), writeId));
  // Set (POST: merged into what each point has) or overwrite (PUT: replacing it), by ids or filter.
  for (const [method, overwrite] of [
    ['POST', false],
    ['PUT', true],
  ] as const) {
    pointWrite(method, `${c}/points/payload`, '', (col, body, writeId) => {
      const w = parsePayload(body);
      return col.setPayload(w.target, w.payload, overwrite, writeId, w.key);
    });
  }
  pointWrite('POST', `${c}/points/payload/delete`, '', (col, body, writeId) => {
    const w = parseDeletePayload(body);
    return col.deletePayloadKeys(w.target, w.keys, writeId);
  });
  pointWrite('POST', `${c}/points/payload/clear`, '', (col, body, writeId) => col.clearPayload(parsePointSelector(body, 'whose payload to clear'), writeId));
  // Payload indexes: created (durable and serving when answered) and dropped.
  pointWrite('PUT', `${c}/index`, '', (col, body, writeId) => {
    const { field, params } = parseCreateIndex(body);
    return col.createPayloadIndex(field, params, writeId);
  });
  pointWrite('DELETE', `${c}/index/:field_name`, '', (col, _body, writeId, req) => col.deletePayloadIndex(req.params.field_name ?? '', writeId));

  // Strata's own: fold the fresh points and deletes into a new tiered base (engine.ts, compact).
  // Answered when the new base serves; a compaction already running is joined, not repeated.
  app.post<WriteRoute>(`${c}/compact`, async (req, reply) => {
    const r = await allowing('GET', () => ctx.engine.compact(req.params.collection_name));
    return send(reply, codecFor(req), ok(reply, compactionView(r)));
  });
}
