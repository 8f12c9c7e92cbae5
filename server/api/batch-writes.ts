// Qdrant's batch update (`POST …/points/batch`): a list of point and payload writes, every one
// parsed and checked before any is logged (a bad one anywhere is a 400 naming it, and nothing is
// written), then written in order, one after another. Deleting the dense vector is refused (writes.ts).
import type { VectorSpace } from './vector-space.js';
import { invalidArgument, isStrataError, StrataError } from '../../common/errors.js';
import type { Collection } from '../../engine/public.js';
import { arrayAt, type Fields, objectAt } from './fields.js';
import { parseDeletePayload, parseDeleteVectors, parsePayload, parsePointSelector, parseUpdateVectors, parseUpsert } from './writes.js';

/** Most operations in one batch. */
export const MAX_BATCH_OPERATIONS = 1000;

/** One parsed operation: writes itself to the collection, resolving with its sequence number. */
export type BatchWrite = (c: Collection, writeId: string | undefined) => Promise<bigint>;

const KINDS = ['upsert', 'delete', 'set_payload', 'overwrite_payload', 'delete_payload', 'clear_payload', 'update_vectors', 'delete_vectors'] as const;

function parseOne(kind: (typeof KINDS)[number], body: Fields, space: VectorSpace): BatchWrite {
  switch (kind) {
    case 'upsert': {
      const points = parseUpsert(body, space);
      return (c, id) => c.upsert(points, id);
    }
    case 'delete': {
      const target = parsePointSelector(body);
      return (c, id) => c.deletePoints(target, id);
    }
    case 'set_payload':
    case 'overwrite_payload': {
      const w = parsePayload(body);
      return (c, id) => c.setPayload(w.target, w.payload, kind === 'overwrite_payload', id, w.key);
    }
    case 'delete_payload': {
      const w = parseDeletePayload(body);
      return (c, id) => c.deletePayloadKeys(w.target, w.keys, id);
    }
    case 'update_vectors': {
      const points = parseUpdateVectors(body, space);
      return (c, id) => c.updateVectors(points, id);
    }
    case 'delete_vectors': {
      const w = parseDeleteVectors(body, space);
      return (c, id) => c.deleteVectors(w.target, w.names, id);
    }
    case 'clear_payload': {
      const target = parsePointSelector(body, 'whose payload to clear');
      return (c, id) => c.clearPayload(target, id);
    }
  }
}

/** An error of a member's own body, its field put under the member's path. */
function under(at: string, e: unknown): unknown {
  if (!isStrataError(e, 'STRATA_INVALID_ARGUMENT')) return e;
  const field = typeof e.details['field'] === 'string' ? e.details['field'] : '';
  return new StrataError(e.code, `${at}${e.message}`, { ...e.details, field: `${at}${field}` }, { cause: e });
}

/** `{operations: [{upsert: {…}} | {delete: {…}} | …]}`, each member with exactly one operation. */
export function parseBatchWrites(body: Fields, space: VectorSpace): BatchWrite[] {
  return arrayAt(body['operations'], 'operations', MAX_BATCH_OPERATIONS).map((raw, i) => {
    const at = `operations[${i}]`;
    const op = objectAt(raw, at);
    const keys = Object.keys(op);
    if (keys.length !== 1) throw invalidArgument(at, `must hold exactly one operation (${KINDS.join(', ')}), got ${keys.length}`);
    const kind = keys[0]!;
    if (!(KINDS as readonly string[]).includes(kind)) throw invalidArgument(`${at}.${kind}`, `is not an operation (${KINDS.join(', ')})`);
    try {
      return parseOne(kind as (typeof KINDS)[number], objectAt(op[kind], `${at}.${kind}`), space);
    } catch (e) {
      throw under(`${at}.${kind}.`, e);
    }
  });
}
