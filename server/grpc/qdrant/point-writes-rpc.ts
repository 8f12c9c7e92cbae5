// qdrant.Points writes (Upsert, UpdateVectors, DeleteVectors (refused), Delete, Set/Overwrite/Delete/
// ClearPayload, Create/DeleteFieldIndex)
// as the REST bodies of the same writes (points-json.ts, value-json.ts, index-json.ts), parsed by
// the REST parsers (server/api/writes.ts, payload-index.ts) and applied by the collection. The
// collection must take writes before the request is parsed, as over REST.
import type { DescService, MessageInitShape } from '@bufbuild/protobuf';
import {
  ClearPayloadPointsSchema,
  CreateFieldIndexCollectionSchema,
  DeleteFieldIndexCollectionSchema,
  DeletePayloadPointsSchema,
  DeletePointsSchema,
  DeletePointVectorsSchema,
  PointStructSchema,
  PointVectorsSchema,
  PointsOperationResponseSchema,
  SetPayloadPointsSchema,
  UpdatePointVectorsSchema,
  UpdateStatus,
  UpsertPointsSchema,
  type WriteOrdering,
  WriteOrderingType,
} from '@qdrant/js-client-grpc';
import { invalidArgument } from '../../../common/errors.js';
import type { Collection } from '../../../engine/public.js';
import { parseCreateIndex } from '../../api/payload-index.js';
import { parseDeletePayload, parsePayload, parsePointSelector, parseUpdateVectors, parseUpsert, refuseDeleteVectors } from '../../api/writes.js';
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
function updated(lsn: bigint, wait: boolean | undefined, t0: number): OperationResponse {
  return { result: { operationId: lsn, status: wait === true ? UpdateStatus.Completed : UpdateStatus.Acknowledged }, time: secondsSince(t0) };
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
    return write(
      req.collectionName,
      (c) =>
        c.upsert(
          parseUpsert(
            {
              points: req.points.map((p, i) => {
                onlyFields(PointStructSchema, p, ['id', 'payload', 'vectors'], `points[${i}].`);
                return {
                  id: idJson(p.id, `points[${i}].id`),
                  vector: vectorJson(p.vectors, `points[${i}].vectors`),
                  payload: mapJson(p.payload, `points[${i}].payload`),
                };
              }),
            },
            c.dim,
          ),
        ),
      req.wait,
      req.ordering,
    );
  });

  r.unary(svc, 'UpdateVectors', UpdatePointVectorsSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(UpdatePointVectorsSchema, req, [...WRITE, 'points']);
    return write(
      req.collectionName,
      (c) =>
        c.updateVectors(
          parseUpdateVectors(
            {
              points: req.points.map((p, i) => {
                onlyFields(PointVectorsSchema, p, ['id', 'vectors'], `points[${i}].`);
                return { id: idJson(p.id, `points[${i}].id`), vector: vectorJson(p.vectors, `points[${i}].vectors`) };
              }),
            },
            c.dim,
          ),
        ),
      req.wait,
      req.ordering,
    );
  });

  r.unary(svc, 'DeleteVectors', DeletePointVectorsSchema, PointsOperationResponseSchema, (req) => {
    onlyFields(DeletePointVectorsSchema, req, [...WRITE, 'points_selector', 'vectors']);
    return write(
      req.collectionName,
      () => refuseDeleteVectors({ vector: req.vectors?.names ?? [], ...selectorJson(req.pointsSelector, 'points_selector') }),
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
