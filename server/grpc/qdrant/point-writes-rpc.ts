// qdrant.Points writes (Upsert, UpdateVectors, DeleteVectors (refused), Delete, Set/Overwrite/Delete/
// ClearPayload, Create/DeleteFieldIndex)
// as the REST bodies of the same writes (points-json.ts, value-json.ts, index-json.ts), parsed by
// the REST parsers (server/api/writes.ts, payload-index.ts) and applied by the collection. The
// collection must take writes before the request is parsed, as over REST.
import { spaceOf } from '../../api/vector-space.js';
import type { DescService, MessageInitShape } from '@bufbuild/protobuf';
import {
  ClearPayloadPointsSchema,
  CreateFieldIndexCollectionSchema,
  DeleteFieldIndexCollectionSchema,
  DeletePayloadPointsSchema,
  DeletePointsSchema,
  DeletePointVectorsSchema,
  type PointStruct,
  PointStructSchema,
  type PointsUpdateOperation,
  PointsUpdateOperation_ClearPayloadSchema,
  PointsUpdateOperation_DeletePayloadSchema,
  PointsUpdateOperation_DeletePointsSchema,
  PointsUpdateOperation_DeleteVectorsSchema,
  PointsUpdateOperation_OverwritePayloadSchema,
  PointsUpdateOperation_PointStructListSchema,
  PointsUpdateOperation_SetPayloadSchema,
  PointsUpdateOperation_UpdateVectorsSchema,
  type PointVectors,
  PointVectorsSchema,
  PointsOperationResponseSchema,
  SetPayloadPointsSchema,
  UpdateBatchPointsSchema,
  UpdateBatchResponseSchema,
  UpdatePointVectorsSchema,
  UpdateStatus,
  UpsertPointsSchema,
  type WriteOrdering,
  WriteOrderingType,
} from '@qdrant/js-client-grpc';
import { invalidArgument } from '../../../common/errors.js';
import type { Collection } from '../../../engine/public.js';
import { parseBatchWrites } from '../../api/batch-writes.js';
import type { Fields } from '../../api/fields.js';
import { parseCreateIndex } from '../../api/payload-index.js';
import { parseDeletePayload, parseDeleteVectors, parsePayload, parsePointSelector, parseUpdateVectors, parseUpsert } from '../../api/writes.js';
import type { GrpcContext } from '../calls.js';
import { collectionOf, type QdrantRouter, secondsSince } from './calls.js';
import { fieldSchemaJson } from './index-json.js';
import { idJson } from './point-id.js';
import { selectorJson, vectorJson } from './points-json.js';
import { onlyFields } from './refuse.js';
import { mapJson } from './value-json.js';

type OperationResponse = MessageInitShape<typeof PointsOperationResponseSchema>;

/** Writes are applied in order as they are made durable: only Qdrant's default (weak) ordering is that. */
function orderingDefault(o: WriteOrdering | undefined): void {
  if (o !== undefined && o.type !== WriteOrderingType.Weak) throw invalidArgument('ordering', 'only weak ordering (the default) is supported: leave it out');
}

/** The answer of a write: Qdrant's `completed` once applied, `acknowledged` when the client did not wait (both durable). */
function writeStatus(wait: boolean | undefined): UpdateStatus {
  return wait === true ? UpdateStatus.Completed : UpdateStatus.Acknowledged;
}

function updated(lsn: bigint, wait: boolean | undefined, t0: number): OperationResponse {
  return { result: { operationId: lsn, status: writeStatus(wait) }, time: secondsSince(t0) };
}

/** PointStructs as REST's upsert points. */
function pointsJson(points: readonly PointStruct[], at: string): Fields[] {
  return points.map((p, i) => {
    onlyFields(PointStructSchema, p, ['id', 'payload', 'vectors'], `${at}points[${i}].`);
    return {
      id: idJson(p.id, `${at}points[${i}].id`),
      vector: vectorJson(p.vectors, `${at}points[${i}].vectors`),
      payload: mapJson(p.payload, `${at}points[${i}].payload`),
    };
  });
}

/** PointVectors as REST's vector-update points. */
function pointVectorsJson(points: readonly PointVectors[], at: string): Fields[] {
  return points.map((p, i) => {
    onlyFields(PointVectorsSchema, p, ['id', 'vectors'], `${at}points[${i}].`);
    return { id: idJson(p.id, `${at}points[${i}].id`), vector: vectorJson(p.vectors, `${at}points[${i}].vectors`) };
  });
}

/** One operation of an UpdateBatch as REST's batch operation (server/api/batch-writes.ts parses both). */
function operationJson(o: PointsUpdateOperation, at: string): Fields {
  const op = o.operation;
  switch (op.case) {
    case 'upsert':
      onlyFields(PointsUpdateOperation_PointStructListSchema, op.value, ['points'], `${at}upsert.`);
      return { upsert: { points: pointsJson(op.value.points, `${at}upsert.`) } };
    case 'updateVectors':
      onlyFields(PointsUpdateOperation_UpdateVectorsSchema, op.value, ['points'], `${at}update_vectors.`);
      return { update_vectors: { points: pointVectorsJson(op.value.points, `${at}update_vectors.`) } };
    case 'setPayload':
    case 'overwritePayload': {
      const key = op.case === 'setPayload' ? 'set_payload' : 'overwrite_payload';
      if (op.case === 'setPayload') onlyFields(PointsUpdateOperation_SetPayloadSchema, op.value, ['payload', 'points_selector', 'key'], `${at}${key}.`);
      else onlyFields(PointsUpdateOperation_OverwritePayloadSchema, op.value, ['payload', 'points_selector', 'key'], `${at}${key}.`);
      return {
        [key]: {
          payload: mapJson(op.value.payload, `${at}${key}.payload`),
          key: op.value.key,
          ...selectorJson(op.value.pointsSelector, `${at}${key}.points_selector`),
        },
      };
    }
    case 'deletePayload':
      onlyFields(PointsUpdateOperation_DeletePayloadSchema, op.value, ['keys', 'points_selector'], `${at}delete_payload.`);
      return { delete_payload: { keys: op.value.keys, ...selectorJson(op.value.pointsSelector, `${at}delete_payload.points_selector`) } };
    case 'deletePoints':
      onlyFields(PointsUpdateOperation_DeletePointsSchema, op.value, ['points'], `${at}delete_points.`);
      return { delete: selectorJson(op.value.points, `${at}delete_points.points`) };
    case 'deleteDeprecated':
      return { delete: selectorJson(op.value, `${at}delete_deprecated`) };
    case 'clearPayload':
      onlyFields(PointsUpdateOperation_ClearPayloadSchema, op.value, ['points'], `${at}clear_payload.`);
      return { clear_payload: selectorJson(op.value.points, `${at}clear_payload.points`) };
    case 'clearPayloadDeprecated':
      return { clear_payload: selectorJson(op.value, `${at}clear_payload_deprecated`) };
    case 'deleteVectors':
      onlyFields(PointsUpdateOperation_DeleteVectorsSchema, op.value, ['points_selector', 'vectors'], `${at}delete_vectors.`);
      return { delete_vectors: { vector: op.value.vectors?.names ?? [], ...selectorJson(op.value.pointsSelector, `${at}delete_vectors.points_selector`) } };
    default:
      throw invalidArgument(at.replace(/\.$/, ''), 'required: one operation');
  }
}

export function bindPointWrites(r: QdrantRouter, svc: DescService, ctx: GrpcContext): void {
  /** A write: the collection must take writes before the request is parsed, as over REST. */
  const write = (name: string, fn: (c: Collection) => Promise<bigint>, wait: boolean | undefined, ordering: WriteOrdering | undefined) => {
    const t0 = performance.now();
    orderingDefault(ordering);
    const c = collectionOf(ctx, name);
    c.writable();
    return fn(c).then((lsn) => updated(lsn, wait, t0));
  };
  const WRITE = ['collection_name', 'wait', 'ordering'];

  r.unary(svc, 'Upsert', UpsertPointsSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(UpsertPointsSchema, req, [...WRITE, 'points']);
    return write(req.collectionName, (c) => c.upsert(parseUpsert({ points: pointsJson(req.points, '') }, spaceOf(c))), req.wait, req.ordering);
  });

  r.unary(svc, 'UpdateBatch', UpdateBatchPointsSchema, UpdateBatchResponseSchema, async (req) => {
    const t0 = performance.now();
    onlyFields(UpdateBatchPointsSchema, req, [...WRITE, 'operations', 'timeout']);
    orderingDefault(req.ordering);
    const c = collectionOf(ctx, req.collectionName);
    c.writable();
    const writes = parseBatchWrites({ operations: req.operations.map((o, i) => operationJson(o, `operations[${i}].`)) }, spaceOf(c));
    const status = writeStatus(req.wait);
    const result: Array<{ operationId: bigint; status: UpdateStatus }> = [];
    for (const w of writes) result.push({ operationId: await w(c, undefined), status });
    return { result, time: secondsSince(t0) };
  });

  r.unary(svc, 'UpdateVectors', UpdatePointVectorsSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(UpdatePointVectorsSchema, req, [...WRITE, 'points']);
    return write(
      req.collectionName,
      (c) => c.updateVectors(parseUpdateVectors({ points: pointVectorsJson(req.points, '') }, spaceOf(c))),
      req.wait,
      req.ordering,
    );
  });

  r.unary(svc, 'DeleteVectors', DeletePointVectorsSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(DeletePointVectorsSchema, req, [...WRITE, 'points_selector', 'vectors']);
    return write(
      req.collectionName,
      (c) => {
        const w = parseDeleteVectors({ vector: req.vectors?.names ?? [], ...selectorJson(req.pointsSelector, 'points_selector') }, spaceOf(c));
        return c.deleteVectors(w.target, w.names);
      },
      req.wait,
      req.ordering,
    );
  });

  r.unary(svc, 'Delete', DeletePointsSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(DeletePointsSchema, req, [...WRITE, 'points']);
    return write(req.collectionName, (c) => c.deletePoints(parsePointSelector(selectorJson(req.points, 'points'))), req.wait, req.ordering);
  });

  for (const [name, overwrite] of [
    ['SetPayload', false],
    ['OverwritePayload', true],
  ] as const) {
    r.unary(svc, name, SetPayloadPointsSchema, PointsOperationResponseSchema, (req) => {
      onlyFields(SetPayloadPointsSchema, req, [...WRITE, 'payload', 'points_selector', 'key']);
      return write(
        req.collectionName,
        (c) => {
          const w = parsePayload({ payload: mapJson(req.payload, 'payload'), key: req.key, ...selectorJson(req.pointsSelector, 'points_selector') });
          return c.setPayload(w.target, w.payload, overwrite, undefined, w.key);
        },
        req.wait,
        req.ordering,
      );
    });
  }

  r.unary(svc, 'DeletePayload', DeletePayloadPointsSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(DeletePayloadPointsSchema, req, [...WRITE, 'keys', 'points_selector']);
    return write(
      req.collectionName,
      (c) => {
        const w = parseDeletePayload({ keys: req.keys, ...selectorJson(req.pointsSelector, 'points_selector') });
        return c.deletePayloadKeys(w.target, w.keys);
      },
      req.wait,
      req.ordering,
    );
  });

  r.unary(svc, 'ClearPayload', ClearPayloadPointsSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(ClearPayloadPointsSchema, req, [...WRITE, 'points']);
    return write(
      req.collectionName,
      (c) => c.clearPayload(parsePointSelector(selectorJson(req.points, 'points'), 'whose payload to clear')),
      req.wait,
      req.ordering,
    );
  });

  r.unary(svc, 'CreateFieldIndex', CreateFieldIndexCollectionSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(CreateFieldIndexCollectionSchema, req, [...WRITE, 'field_name', 'field_type', 'field_index_params']);
    return write(
      req.collectionName,
      (c) => {
        const { field, params } = parseCreateIndex({ field_name: req.fieldName, field_schema: fieldSchemaJson(req.fieldType, req.fieldIndexParams) });
        return c.createPayloadIndex(field, params);
      },
      req.wait,
      req.ordering,
    );
  });

  r.unary(svc, 'DeleteFieldIndex', DeleteFieldIndexCollectionSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(DeleteFieldIndexCollectionSchema, req, [...WRITE, 'field_name']);
    if (req.fieldName === '') throw invalidArgument('field_name', 'required: the key path whose index to drop');
    return write(req.collectionName, (c) => c.deletePayloadIndex(req.fieldName), req.wait, req.ordering);
  });
}
