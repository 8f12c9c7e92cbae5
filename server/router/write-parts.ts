// A write body's part for each shard: the points of an upsert (`points` or Qdrant's columnar
// `batch`) or of a vector update go to the shard their id hashes to (integer ids only: a UUID hashes
// to no shard, so it is refused naming it); a selection (delete, payload writes) by ids to the shards
// its ids hash to, by filter whole to every shard (any may hold matching points). And Qdrant's batch
// update: each operation's part for each shard, in the batch's order.
import { invalidArgument } from '../../common/errors.js';
import { arrayAt, type Fields, isAbsent, isPlainObject, objectAt, pointIdAt } from '../api/fields.js';
import { MAX_UPSERT } from '../api/writes.js';
import { MAX_LIMIT } from '../options.js';
import { groupByShard } from './write-routing.js';

/** Each shard's part of one write body, by shard. */
export type Parts = Map<number, Fields>;

/** An id the router can hash to its shard, or a 400 naming the field. */
function routedId(v: unknown, field: string): number {
  const id = pointIdAt(v, field);
  if (id === null) throw invalidArgument(field, 'must be an unsigned integer below 2^53');
  return id;
}

function mapParts<T>(groups: Map<number, T[]>, bodyOf: (items: T[]) => Fields): Parts {
  return new Map([...groups].map(([s, items]) => [s, bodyOf(items)]));
}

/** `{points: [{id, …}]}`: each shard's body with its own points (an upsert's, a vector update's). */
export function pointsParts(b: Fields, at: string, count: number): Parts {
  const points = arrayAt(b['points'], `${at}points`, MAX_UPSERT).map((p, i) => objectAt(p, `${at}points[${i}]`));
  return mapParts(
    groupByShard(points, count, (p, i) => routedId(p['id'], `${at}points[${i}].id`)),
    (ps) => ({ ...b, points: ps }),
  );
}

/** An upsert body, `{points}` or `{batch: {ids, vectors, payloads}}` (its columns cut by shard). */
export function upsertParts(b: Fields, at: string, count: number): Parts {
  if (!isAbsent(b['points']) || isAbsent(b['batch'])) return pointsParts(b, at, count);
  const batch = objectAt(b['batch'], `${at}batch`);
  const ids = arrayAt(batch['ids'], `${at}batch.ids`, MAX_UPSERT);
  const columnOf = (v: unknown, k: string): readonly unknown[] | null => {
    if (isAbsent(v)) return null;
    const list = arrayAt(v, `${at}batch.${k}`, MAX_UPSERT);
    if (list.length !== ids.length) throw invalidArgument(`${at}batch.${k}`, `${list.length} ${k.split('.')[0]} for ${ids.length} ids`);
    return list;
  };
  const column = (k: 'vectors' | 'payloads'): readonly unknown[] | null => columnOf(batch[k], k);
  // Named vectors come as {name: [vector per id]}: that column is cut, under its name.
  const named = isPlainObject(batch['vectors']) ? Object.keys(batch['vectors']) : [];
  if (named.length > 1) throw invalidArgument(`${at}batch.vectors`, `must hold the collection's one vector, got ${named.length} names`);
  const vectorName = named[0];
  const vectors = vectorName === undefined ? column('vectors') : columnOf((batch['vectors'] as Fields)[vectorName], `vectors.${vectorName}`);
  const payloads = column('payloads');
  const rows = groupByShard(
    ids.map((_, i) => i),
    count,
    (i) => routedId(ids[i], `${at}batch.ids[${i}]`),
  );
  const pick = (list: readonly unknown[], rs: number[]): unknown[] => rs.map((i) => list[i]);
  return mapParts(rows, (rs) => ({
    ...b,
    batch: {
      ...batch,
      ids: pick(ids, rs),
      ...(vectors ? { vectors: vectorName === undefined ? pick(vectors, rs) : { [vectorName]: pick(vectors, rs) } } : {}),
      ...(payloads ? { payloads: pick(payloads, rs) } : {}),
    },
  }));
}

/**
 * A selection (`{points: [id]}` or `{filter}`, with the rest of the write): by filter the whole body
 * to every shard; by ids each shard its own (an id past 2^53 or a UUID, which no write through the
 * router made, matches nothing and is left out).
 */
export function selectionParts(b: Fields, at: string, count: number): Parts {
  if (!isAbsent(b['filter'])) return new Map(Array.from({ length: count }, (_, s): [number, Fields] => [s, b]));
  const ids = arrayAt(b['points'], `${at}points`, MAX_LIMIT).map((v, i) => pointIdAt(v, `${at}points[${i}]`));
  return mapParts(
    groupByShard(ids, count, (id) => id),
    (ps) => ({ ...b, points: ps }),
  );
}

/** One operation of a batch as sent to a shard: its place in the batch and its part there. */
export interface ShardOperation {
  index: number;
  operation: Fields;
}

/**
 * Qdrant's batch update (checked whole by the server's parser first): each shard's operations, in
 * the batch's order, each with the shard's part of it; an operation with no part on a shard is not
 * sent there.
 */
export function batchParts(operations: readonly Fields[], count: number): Map<number, ShardOperation[]> {
  const byShard = new Map<number, ShardOperation[]>();
  operations.forEach((op, index) => {
    const kind = Object.keys(op)[0]!;
    const body = objectAt(op[kind], `operations[${index}].${kind}`);
    const at = `operations[${index}].${kind}.`;
    const parts = kind === 'upsert' ? upsertParts(body, at, count) : kind === 'update_vectors' ? pointsParts(body, at, count) : selectionParts(body, at, count);
    for (const [s, part] of parts) {
      const list = byShard.get(s) ?? [];
      list.push({ index, operation: { [kind]: part } });
      byShard.set(s, list);
    }
  });
  return new Map([...byShard].sort((a, b) => a[0] - b[0]));
}
