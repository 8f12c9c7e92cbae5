// Write routes (Qdrant's paths and shapes): create and delete a collection; upsert and delete points;
// set and overwrite payloads. A write is answered once it is durable (fdatasync of the collection's
// write-ahead log) and, in the same step, visible to search; behind a shared write log, once this
// replica has applied it, with the log's sequence as operation_id. Without a data directory every
// one of them is STRATA_READ_ONLY (405).
import type { FastifyInstance } from 'fastify';
import { isStrataError, StrataError } from '../../../common/errors.js';
import { bodyObject } from '../../api/fields.js';
import { compactionView, parseCreateCollection, parseDeleteIds, parsePayload, parseUpsert, WRITE_ID_HEADER, waitFlag, writeIdOf } from '../../api/writes.js';
import { codecFor, send } from '../codec.js';
import type { CollectionParams, RestContext } from '../context.js';
import { ok } from '../envelope.js';

interface WriteRoute {
  Params: CollectionParams;
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

  app.put<WriteRoute>(c, async (req, reply) => {
    const cfg = parseCreateCollection(req.params.collection_name, bodyObject(req.body));
    await allowing('GET', () => ctx.engine.createCollection(cfg));
    return send(reply, codecFor(req), ok(reply, true));
  });

  app.delete<WriteRoute>(c, async (req, reply) => {
    const existed = await allowing('GET', () => ctx.engine.deleteCollection(req.params.collection_name));
    return send(reply, codecFor(req), ok(reply, existed));
  });

  app.put<WriteRoute>(`${c}/points`, async (req, reply) => {
    const wait = waitFlag(req.query.wait);
    const col = ctx.engine.collection(req.params.collection_name);
    // A read-only collection refuses before the body is read: 405, whatever the body.
    const lsn = await allowing('POST', () => {
      col.writable();
      return col.upsert(parseUpsert(bodyObject(req.body), col.dim), writeIdOf(req.headers[WRITE_ID_HEADER]));
    });
    return send(reply, codecFor(req), ok(reply, updateResult(lsn, wait)));
  });

  app.post<WriteRoute>(`${c}/points/delete`, async (req, reply) => {
    const wait = waitFlag(req.query.wait);
    const col = ctx.engine.collection(req.params.collection_name);
    const lsn = await allowing('', () => {
      col.writable();
      return col.deletePoints(parseDeleteIds(bodyObject(req.body)), writeIdOf(req.headers[WRITE_ID_HEADER]));
    });
    return send(reply, codecFor(req), ok(reply, updateResult(lsn, wait)));
  });

  // Strata's own: fold the fresh points and deletes into a new tiered base (engine.ts, compact).
  // Answered when the new base serves; a compaction already running is joined, not repeated.
  app.post<WriteRoute>(`${c}/compact`, async (req, reply) => {
    const r = await allowing('GET', () => ctx.engine.compact(req.params.collection_name));
    return send(reply, codecFor(req), ok(reply, compactionView(r)));
  });

  for (const [method, overwrite] of [
    ['POST', false],
    ['PUT', true],
  ] as const) {
    app.route<WriteRoute>({
      method,
      url: `${c}/points/payload`,
      handler: async (req, reply) => {
        const wait = waitFlag(req.query.wait);
        const col = ctx.engine.collection(req.params.collection_name);
        const lsn = await allowing('', () => {
          col.writable();
          const { ids, payload } = parsePayload(bodyObject(req.body));
          return col.setPayload(ids, payload, overwrite, writeIdOf(req.headers[WRITE_ID_HEADER]));
        });
        return send(reply, codecFor(req), ok(reply, updateResult(lsn, wait)));
      },
    });
  }
}
