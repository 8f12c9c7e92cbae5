// The fields of a Qdrant request Strata does not honour are refused, naming the field, never
// ignored: a client that asks for a shard key, a quantization setting or a named vector must learn
// that it did not get one. Each handler lists the fields it honours; every other field that is set
// is an INVALID_ARGUMENT. Proto field names (snake_case) are what the error names, as in Qdrant's docs.
import { type DescMessage, isFieldSet, type MessageShape } from '@bufbuild/protobuf';
import { invalidArgument } from '../../../common/errors.js';

/** Refuses every set field of `msg` not in `honoured` (proto names), naming it under `at`. */
export function onlyFields<D extends DescMessage>(schema: D, msg: MessageShape<D>, honoured: readonly string[], at = ''): void {
  for (const f of schema.fields) {
    if (honoured.includes(f.name) || !isFieldSet(msg, f)) continue;
    // An enum or scalar at its default says nothing: proto3 cannot tell it from unset.
    throw invalidArgument(`${at}${f.name}`, 'is not supported by Strata: leave it out');
  }
}

/** A uint64/int64 count as a number, refused past what a request can mean. */
export function intOf(v: bigint | number | undefined, field: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0 || n > max) throw invalidArgument(field, `must be an integer in 0..${max}, got ${v}`);
  return n;
}
