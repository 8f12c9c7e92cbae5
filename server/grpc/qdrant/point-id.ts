// Point ids between Qdrant's PointId message (uint64 `num` or `uuid`) and REST's JSON id, shared
// by the point conversions and the filter's has_id.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { PointId, PointIdSchema } from '@qdrant/js-client-grpc';
import { invalidArgument } from '../../../common/errors.js';
import type { PointKey } from '../../../engine/public.js';

/** A PointId as REST's id: a number, a UUID string; an integer past 2^53 as its digits (REST decides). */
export function idJson(id: PointId | undefined, field: string): number | string {
  const v = id?.pointIdOptions;
  if (v === undefined || v.case === undefined) throw invalidArgument(field, 'required: a num or uuid point id');
  if (v.case === 'uuid') return v.value;
  const n = Number(v.value);
  return Number.isSafeInteger(n) ? n : v.value.toString();
}

export function pointIdMessage(key: PointKey): MessageInitShape<typeof PointIdSchema> {
  return typeof key === 'number' ? { pointIdOptions: { case: 'num', value: BigInt(key) } } : { pointIdOptions: { case: 'uuid', value: key } };
}
