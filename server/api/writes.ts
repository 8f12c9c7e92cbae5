// The write requests both protocols take, parsed into plans: create a collection, upsert points (in
// Qdrant's row form `points` and its columnar form `batch`), delete points, set, overwrite, delete
// or clear payloads (each by ids or by filter). Every field is checked here, at the edge, with
// errors naming its path; the engine trusts what it gets (it copies vectors before keeping them: a
// MessagePack Float32Array is a view of the request's buffer).
import { denseDim, denseNameAt, isSparseName, MAX_VECTOR_NAME, pointVectorsAt, type VectorSpace } from './vector-space.js';
import { invalidArgument } from '../../common/errors.js';
import {
  type CollectionConfig,
  type CollectionUpdate,
  type CompactionReport,
  type KeyedPoint,
  MAX_PAYLOAD_M,
  type Metric,
  type Payload,
  type PointKey,
  type PointSelector,
  selectorPaths,
  type SecondaryParams,
  type SparseParams,
  type SparseVector,
  sparseVectorAt,
  UUID_ID_BASE,
} from '../../engine/public.js';
import {
  arrayAt,
  canonicalUuid,
  describe,
  type Fields,
  filterAt,
  isPlainObject,
  intAt,
  isAbsent,
  noShardKey,
  objectAt,
  onlyMembers,
  optionalString,
  UUID,
  vectorAt,
} from './fields.js';
import { MAX_IDS, MAX_SELECTOR_KEYS } from '../options.js';

/** Largest vector size a created collection may have. */
export const MAX_DIM = 65_536;
/**
 * Most points in one upsert request (rows or batch columns), as Qdrant takes bulk loads in one
 * request up to the body limit. The engine applies a large upsert in steps (WRITE_STEP_POINTS), so
 * the count bounds only the parse and the copy.
 */
export const MAX_UPSERT = 100_000;

const DISTANCES: Readonly<Record<string, Metric>> = { Cosine: 'cosine', Euclid: 'l2', Dot: 'ip' };

/**
 * Settings of Qdrant's create body that Strata meets only at one value (one shard per server, one
 * replica, payloads and vectors in memory as float32): that value is taken, any other refused.
 */
const ONLY_AS: ReadonlyArray<readonly [string, unknown]> = [
  ['shard_number', 1],
  ['replication_factor', 1],
  ['write_consistency_factor', 1],
  ['on_disk_payload', false],
];

/** Most dense vectors (the primary and the secondary ones) one collection may name. */
export const MAX_DENSE_VECTORS = 16;

/**
 * Qdrant's quantization_config as the code a collection's compactions keep in DRAM: scalar int8 is
 * Strata's sq8 (always in RAM, as Strata's codes are; its own clip of 0.01% at each end of each
 * dimension, so a `quantile` is refused), "Disabled" (an update's) full precision; product and binary
 * quantization have no Strata code and are refused, naming them.
 */
function quantizationAt(v: unknown, when: string): 'sq8' | 'none' | undefined {
  if (isAbsent(v)) return undefined;
  if (v === 'Disabled' && when.includes('updated')) return 'none';
  const q = objectAt(v, 'quantization_config');
  onlyMembers(q, ['scalar'], 'quantization_config', `${when} (Strata's codes: scalar int8; product and binary are not offered)`);
  const s = objectAt(q['scalar'], 'quantization_config.scalar');
  onlyMembers(
    s,
    ['type', 'always_ram'],
    'quantization_config.scalar',
    `${when} (Strata's int8 clips 0.01% of values at each end of each dimension: leave quantile out)`,
  );
  if (s['type'] !== 'int8') throw invalidArgument('quantization_config.scalar.type', `must be "int8", got ${describe(s['type'])}`);
  if (!isAbsent(s['always_ram']) && s['always_ram'] !== true)
    throw invalidArgument('quantization_config.scalar.always_ram', 'Strata keeps codes in DRAM always: leave it out or true');
  return 'sq8';
}

/** Most sparse vectors one collection may name. */
export const MAX_SPARSE_VECTORS = 16;

/**
 * Qdrant's sparse_vectors: {name: {index?: {on_disk?, datatype?}, modifier?: "none" | "idf"}}. Strata
 * keeps every inverted index in memory as float32 and always searches it (exactly), so on_disk true,
 * another datatype and full_scan_threshold are refused, naming them.
 */
function sparseVectorsAt(v: unknown, denseNames: readonly string[]): Record<string, SparseParams> | undefined {
  if (isAbsent(v)) return undefined;
  const o = objectAt(v, 'sparse_vectors');
  const names = Object.keys(o);
  if (names.length > MAX_SPARSE_VECTORS) throw invalidArgument('sparse_vectors', `at most ${MAX_SPARSE_VECTORS} sparse vectors, got ${names.length}`);
  const out: Record<string, SparseParams> = {};
  for (const name of names) {
    const at = `sparse_vectors.${name.slice(0, 40)}`;
    if (name === '' || name.length > MAX_VECTOR_NAME) throw invalidArgument(at, `a sparse vector's name has 1 to ${MAX_VECTOR_NAME} characters`);
    if (denseNames.includes(name)) throw invalidArgument(at, 'names the dense vector too: give the sparse vector a name of its own');
    const p = isAbsent(o[name]) ? {} : objectAt(o[name], at);
    onlyMembers(p, ['index', 'modifier'], at, 'in a sparse vector');
    if (!isAbsent(p['index'])) {
      const index = objectAt(p['index'], `${at}.index`);
      onlyMembers(index, ['on_disk', 'datatype'], `${at}.index`, '(Strata always searches the inverted index, exactly: leave full_scan_threshold out)');
      if (!isAbsent(index['on_disk']) && index['on_disk'] !== false)
        throw invalidArgument(`${at}.index.on_disk`, 'Strata keeps inverted indexes in memory: leave it out or false');
      if (!isAbsent(index['datatype']) && index['datatype'] !== 'float32')
        throw invalidArgument(`${at}.index.datatype`, `Strata stores sparse values as float32, got ${describe(index['datatype'])}`);
    }
    const m = p['modifier'];
    if (!isAbsent(m) && m !== 'none' && m !== 'idf') throw invalidArgument(`${at}.modifier`, `must be "none" or "idf", got ${describe(m)}`);
    out[name] = { modifier: m === 'idf' ? 'idf' : 'none' };
  }
  return out;
}

export function parseCreateCollection(name: string, body: Fields): CollectionConfig {
  onlyMembers(
    body,
    ['vectors', 'sparse_vectors', 'hnsw_config', 'quantization_config', 'shard_number', 'replication_factor', 'write_consistency_factor', 'on_disk_payload'],
    '',
    'when a collection is created',
  );
  const given = objectAt(body['vectors'], 'vectors');
  // Unnamed, `{"vectors": {"size", "distance"}}`, or named, `{"vectors": {"<name>": {"size",
  // "distance"}, …}}`: the first name is the primary vector (the tiered index's), the others secondary.
  const names = isAbsent(given['size']) && Object.values(given).some(isPlainObject) ? Object.keys(given) : [];
  if (names.length > MAX_DENSE_VECTORS) throw invalidArgument('vectors', `at most ${MAX_DENSE_VECTORS} dense vectors, got ${names.length}`);
  for (const name of names)
    if (name.length > MAX_VECTOR_NAME) throw invalidArgument(`vectors.${name.slice(0, 40)}`, `a vector name has at most ${MAX_VECTOR_NAME} characters`);
  if (names.length > 1 && names.includes('')) throw invalidArgument('vectors[""]', 'beside other names, every dense vector needs a name');
  const key = names[0];
  const at = key === undefined ? 'vectors' : `vectors.${key}`;
  const { dim, metric } = denseParamsAt(key === undefined ? given : objectAt(given[key], at), at);
  for (const [k, only] of ONLY_AS)
    if (!isAbsent(body[k]) && body[k] !== only) throw invalidArgument(k, `Strata supports only ${JSON.stringify(only)} here, got ${describe(body[k])}`);
  // {"": params} is Qdrant's unnamed vector spelled as a map.
  const vectorName = key === '' ? undefined : key;
  const secondary = Object.fromEntries(names.slice(1).map((n) => [n, denseParamsAt(objectAt(given[n], `vectors.${n}`), `vectors.${n}`)]));
  const hnsw = hnswAt(body['hnsw_config'], 'when a collection is created');
  const codes = quantizationAt(body['quantization_config'], 'when a collection is created');
  const sparse = sparseVectorsAt(body['sparse_vectors'], names);
  return {
    name,
    dim,
    metric,
    m: hnsw.m ?? 16,
    efConstruction: hnsw.efConstruction ?? 100,
    ...(codes !== undefined ? { codes } : {}),
    ...(vectorName !== undefined ? { vectorName } : {}),
    ...(hnsw.payloadM !== undefined ? { payloadM: hnsw.payloadM } : {}),
    ...(sparse !== undefined ? { sparse } : {}),
    ...(names.length > 1 ? { secondary } : {}),
  };
}

/** One dense vector's params at create: size and distance (on_disk false and datatype float32 only). */
function denseParamsAt(v: Fields, at: string): SecondaryParams {
  onlyMembers(v, ['size', 'distance', 'on_disk', 'datatype'], at, 'in a dense vector when a collection is created');
  for (const [k, only] of [
    ['on_disk', false],
    ['datatype', 'float32'],
  ] as const)
    if (!isAbsent(v[k]) && v[k] !== only) throw invalidArgument(`${at}.${k}`, `Strata supports only ${JSON.stringify(only)} here, got ${describe(v[k])}`);
  const dim = intAt(v['size'], `${at}.size`, 1, MAX_DIM);
  const d = v['distance'];
  const metric = typeof d === 'string' ? DISTANCES[d] : undefined;
  if (metric === undefined) throw invalidArgument(`${at}.distance`, `must be one of Cosine, Euclid, Dot, got ${describe(d)}`);
  return { dim, metric };
}

/**
 * `hnsw_config`'s m, ef_construct and payload_m (the filter links within each block of the payload
 * indexes: index/filter-links/), the HNSW settings Strata builds with; any other member is refused.
 */
function hnswAt(v: unknown, when: string): { m?: number; efConstruction?: number; payloadM?: number } {
  if (isAbsent(v)) return {};
  const hnsw = objectAt(v, 'hnsw_config');
  onlyMembers(hnsw, ['m', 'ef_construct', 'payload_m'], 'hnsw_config', when);
  return {
    ...(isAbsent(hnsw['m']) ? {} : { m: intAt(hnsw['m'], 'hnsw_config.m', 2, 128) }),
    ...(isAbsent(hnsw['ef_construct']) ? {} : { efConstruction: intAt(hnsw['ef_construct'], 'hnsw_config.ef_construct', 4, 4096) }),
    ...(isAbsent(hnsw['payload_m']) ? {} : { payloadM: payloadMAt(hnsw['payload_m']) }),
  };
}

/** payload_m: 0 (no filter links) or 2..MAX_PAYLOAD_M (a block graph of one link a point links nothing). */
function payloadMAt(v: unknown): number {
  const n = intAt(v, 'hnsw_config.payload_m', 0, MAX_PAYLOAD_M);
  if (n === 1) throw invalidArgument('hnsw_config.payload_m', `must be 0 (no filter links) or in 2..${MAX_PAYLOAD_M}, got 1`);
  return n;
}

/** Largest indexing_threshold taken (kilobytes): past it, a collection would never compact by itself anyway. */
const MAX_INDEXING_THRESHOLD_KB = 2 ** 31;

/**
 * PATCH /collections/{c}: `hnsw_config` (m, ef_construct: the next compaction's build) and
 * `optimizers_config.indexing_threshold` (kilobytes of vectors past which it compacts by itself, 0
 * never), as Qdrant's update takes them; every other setting is refused, naming it.
 */
export function parseCollectionUpdate(body: Fields): CollectionUpdate {
  const when = 'when a collection is updated';
  onlyMembers(body, ['hnsw_config', 'optimizers_config', 'quantization_config'], '', when);
  const u: CollectionUpdate = hnswAt(body['hnsw_config'], when);
  const codes = quantizationAt(body['quantization_config'], when);
  if (codes !== undefined) u.codes = codes;
  if (!isAbsent(body['optimizers_config'])) {
    const o = objectAt(body['optimizers_config'], 'optimizers_config');
    onlyMembers(o, ['indexing_threshold'], 'optimizers_config', when);
    if (!isAbsent(o['indexing_threshold']))
      u.indexingThresholdKb = intAt(o['indexing_threshold'], 'optimizers_config.indexing_threshold', 0, MAX_INDEXING_THRESHOLD_KB);
  }
  return u;
}

/**
 * A point id for a write: an unsigned integer below 2^52, or a UUID (canonical). Integers from 2^52
 * on are where a collection numbers its UUID points (live-store.ts), so they are refused as ids.
 */
export function writeIdAt(v: unknown, field: string): PointKey {
  if (typeof v === 'string' && UUID.test(v)) return canonicalUuid(v);
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : Number.NaN;
  if (Number.isSafeInteger(n) && n >= 0 && n < UUID_ID_BASE) return n;
  throw invalidArgument(field, `must be an unsigned integer below 2^52 or a UUID, got ${describe(v)}`);
}

function payloadAt(v: unknown, field: string): Payload | null {
  if (isAbsent(v)) return null;
  return { ...objectAt(v, field) };
}

/** Qdrant's upsert body: {points: [{id, vector, payload?}]} or {batch: {ids, vectors, payloads?}}. */
export function parseUpsert(body: Fields, space: VectorSpace): KeyedPoint[] {
  const out: KeyedPoint[] = [];
  const seen = new Map<PointKey, number>();
  const add = (p: KeyedPoint): void => {
    // A repeated id in one request: the last one wins, as if upserted in order.
    const at = seen.get(p.key);
    if (at !== undefined) out[at] = p;
    else {
      seen.set(p.key, out.length);
      out.push(p);
    }
  };
  if (!isAbsent(body['points'])) {
    if (!isAbsent(body['batch'])) throw invalidArgument('batch', 'give either points or batch, not both');
    arrayAt(body['points'], 'points', MAX_UPSERT).forEach((raw, i) => {
      const p = objectAt(raw, `points[${i}]`);
      const v = pointVectorsAt(p['vector'], `points[${i}].vector`, space, true);
      add({
        key: writeIdAt(p['id'], `points[${i}].id`),
        vector: v.vector!,
        payload: payloadAt(p['payload'], `points[${i}].payload`),
        ...(v.sparse !== undefined ? { sparse: v.sparse } : {}),
        ...(v.secondary !== undefined ? { secondary: v.secondary } : {}),
      });
    });
    return out;
  }
  const b = objectAt(body['batch'], 'batch');
  const ids = arrayAt(b['ids'], 'batch.ids', MAX_UPSERT);
  const columns = batchVectorsAt(b['vectors'], space);
  const vectors = arrayAt(columns.dense, `batch.vectors${columns.at}`, MAX_UPSERT);
  if (vectors.length !== ids.length) throw invalidArgument(`batch.vectors${columns.at}`, `${vectors.length} vectors for ${ids.length} ids`);
  const sparse = batchNamedAt(columns.sparse, ids.length, (v, at) => sparseVectorAt(v, at));
  const secondary = batchNamedAt(columns.secondary, ids.length, (v, at, name) => vectorAt(v, at, denseDim(space, name)));
  const payloads = isAbsent(b['payloads']) ? null : arrayAt(b['payloads'], 'batch.payloads', MAX_UPSERT);
  if (payloads && payloads.length !== ids.length) throw invalidArgument('batch.payloads', `${payloads.length} payloads for ${ids.length} ids`);
  ids.forEach((id, i) => {
    add({
      key: writeIdAt(id, `batch.ids[${i}]`),
      vector: vectorAt(vectors[i], `batch.vectors${columns.at}[${i}]`, space.dim),
      payload: payloads ? payloadAt(payloads[i], `batch.payloads[${i}]`) : null,
      ...(sparse[i] !== undefined ? { sparse: sparse[i] } : {}),
      ...(secondary[i] !== undefined ? { secondary: secondary[i] } : {}),
    });
  });
  return out;
}

/**
 * A columnar upsert's vectors: a list of vectors, or Qdrant's {name: list of vectors}, where each
 * sparse name holds a list of {indices, values} and each secondary name a list of vectors (null:
 * that point has none). `at`: the primary column's path below batch.vectors.
 */
function batchVectorsAt(v: unknown, space: VectorSpace): { dense: unknown; at: string; sparse: Map<string, unknown>; secondary: Map<string, unknown> } {
  const sparse = new Map<string, unknown>();
  const secondary = new Map<string, unknown>();
  if (!isPlainObject(v)) {
    if (space.name !== '' && !isAbsent(v)) denseNameAt('', space, 'batch.vectors');
    return { dense: v, at: '', sparse, secondary };
  }
  let dense: unknown;
  for (const name of Object.keys(v)) {
    if (isSparseName(name, space)) sparse.set(name, v[name]);
    else if (denseNameAt(name, space, `batch.vectors.${name}`) !== undefined) secondary.set(name, v[name]);
    else dense = v[name];
  }
  const at = space.name === '' ? '[""]' : `.${space.name}`;
  if (dense === undefined) throw invalidArgument(`batch.vectors${at}`, "required: a point holds the collection's primary dense vector");
  return { dense, at, sparse, secondary };
}

/** Each point's vectors of a columnar upsert's other names (sparse, or secondary), by position (undefined: none). */
function batchNamedAt<V>(
  columns: ReadonlyMap<string, unknown>,
  points: number,
  one: (v: unknown, at: string, name: string) => V,
): Array<Record<string, V> | undefined> {
  const out: Array<Record<string, V> | undefined> = new Array(points).fill(undefined);
  for (const [name, raw] of columns) {
    const list = arrayAt(raw, `batch.vectors.${name}`, MAX_UPSERT);
    if (list.length !== points) throw invalidArgument(`batch.vectors.${name}`, `${list.length} vectors for ${points} ids`);
    list.forEach((v, i) => {
      if (isAbsent(v)) return;
      out[i] = { ...out[i], [name]: one(v, `batch.vectors.${name}[${i}]`, name) };
    });
  }
  return out;
}

/** A vector update: the primary vector and/or other vectors by name. */
export interface VectorUpdate {
  key: PointKey;
  vector?: Float32Array;
  sparse?: Record<string, SparseVector>;
  secondary?: Record<string, Float32Array>;
}

/** Qdrant's update-vectors body: {points: [{id, vector}]}; a repeated id keeps its last vectors. */
export function parseUpdateVectors(body: Fields, space: VectorSpace): VectorUpdate[] {
  noShardKey(body, '');
  const byKey = new Map<PointKey, VectorUpdate>();
  arrayAt(body['points'], 'points', MAX_UPSERT).forEach((raw, i) => {
    const p = objectAt(raw, `points[${i}]`);
    onlyMembers(p, ['id', 'vector'], `points[${i}]`, 'in a vector update');
    const key = writeIdAt(p['id'], `points[${i}].id`);
    const v = pointVectorsAt(p['vector'], `points[${i}].vector`, space, false);
    byKey.delete(key);
    byKey.set(key, {
      key,
      ...(v.vector !== undefined ? { vector: v.vector } : {}),
      ...(v.sparse !== undefined ? { sparse: v.sparse } : {}),
      ...(v.secondary !== undefined ? { secondary: v.secondary } : {}),
    });
  });
  return [...byKey.values()];
}

/**
 * Qdrant's delete-vectors body ({points | filter, vector: [names]}): sparse and secondary vectors are
 * removed; the primary vector is refused, naming it, since a Strata point without it no search could
 * find (delete the point instead). A name the collection does not have is refused as such.
 */
export function parseDeleteVectors(body: Fields, space: VectorSpace): { target: PointSelector; names: string[] } {
  const target = parsePointSelector(body, 'whose vectors to delete');
  const names = arrayAt(body['vector'], 'vector', 1000).map((n, i) => {
    if (typeof n !== 'string') throw invalidArgument(`vector[${i}]`, `must be a vector name, got ${describe(n)}`);
    if (isSparseName(n, space) || denseNameAt(n, space, `vector[${i}]`) !== undefined) return n;
    throw invalidArgument(`vector[${i}]`, "a point's primary dense vector cannot be deleted (no search could find the point): delete the point instead");
  });
  if (names.length === 0) throw invalidArgument('vector', 'required: the names of the sparse or secondary vectors to delete');
  return { target, names: [...new Set(names)] };
}

/**
 * Which points a write selects (delete, clear payload, and the payload writes' selector): Qdrant's
 * `points` (ids) or `filter`, one of them; `what` says what the points are for, in the error.
 */
export function parsePointSelector(body: Fields, what = 'to delete'): PointSelector {
  noShardKey(body, '');
  const hasIds = !isAbsent(body['points']);
  const hasFilter = !isAbsent(body['filter']);
  if (hasIds && hasFilter) throw invalidArgument('filter', 'give either points or filter, not both');
  if (hasFilter) return { filter: filterAt(body['filter'], 'filter')! };
  if (!hasIds) throw invalidArgument('points', `required (or filter): the points ${what}`);
  return { ids: [...new Set(arrayAt(body['points'], 'points', MAX_IDS).map((v, i) => writeIdAt(v, `points[${i}]`)))] };
}

export interface PayloadWrite {
  target: PointSelector;
  payload: Payload;
  /** Qdrant's set_payload `key`: the payload is merged into the object at this key path. */
  key: string | undefined;
}

/** Qdrant's set/overwrite payload body: {payload: {…}, points: [id, …] | filter, key?}. */
export function parsePayload(body: Fields): PayloadWrite {
  const payload = payloadAt(body['payload'], 'payload');
  if (payload === null) throw invalidArgument('payload', 'must be an object');
  const key = optionalString(body['key'], 'key');
  if (key === '') throw invalidArgument('key', 'must be a key path, not empty (leave key out to set top-level keys)');
  return { target: parsePointSelector(body, 'whose payload to set'), payload, key };
}

/** Qdrant's delete-payload body: {keys: [key path, …], points | filter}. */
export function parseDeletePayload(body: Fields): { target: PointSelector; keys: string[] } {
  const keys = arrayAt(body['keys'], 'keys', MAX_SELECTOR_KEYS).map((k, i) => {
    if (typeof k !== 'string' || k === '') throw invalidArgument(`keys[${i}]`, `must be a key path, got ${describe(k)}`);
    return k;
  });
  selectorPaths(keys, 'keys');
  return { target: parsePointSelector(body, 'whose payload keys to delete'), keys };
}

/**
 * Qdrant's `?wait=` flag (default false): true answers once the write is durable and visible to
 * search, false once it is durable. Strata applies a write in the same step that learns it is
 * durable, so both answer at the same moment; the flag only sets the status the answer reports.
 */
export function waitFlag(raw: unknown): boolean {
  if (raw === undefined || raw === 'false' || raw === false) return false;
  if (raw === 'true' || raw === true || raw === '') return true;
  throw invalidArgument('wait', `must be true or false, got ${describe(raw)}`);
}

/** Names a write across retries: behind a shared write log, a write sent again with the same id is applied once. */
export const WRITE_ID_HEADER = 'strata-write-id';
/** Asks a replica to answer only once it has applied its shared write log up to this sequence. */
export const WRITE_SEQ_HEADER = 'strata-write-seq';

/** The strata-write-id header: absent, or 1 to 128 characters of letters, digits and . _ : - */
export function writeIdOf(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(raw))
    throw invalidArgument(WRITE_ID_HEADER, 'must be 1 to 128 letters, digits or . _ : - (one header)');
  return raw;
}

/** The strata-write-seq header: absent, or a positive integer (a shared write log's sequence). */
export function writeSeqOf(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw invalidArgument(WRITE_SEQ_HEADER, `must be a positive integer, got ${describe(raw)}`);
  return n;
}

/** A compaction's report as REST answers it and gRPC's CompactResult carries it (the same fields). */
export interface CompactionView {
  compacted: boolean;
  points: number;
  seconds: number;
  fresh_before: number;
  hidden_before: number;
  fresh_after: number;
  hidden_after: number;
}

export function compactionView(r: CompactionReport): CompactionView {
  return {
    compacted: r.compacted,
    points: r.points,
    seconds: r.seconds,
    fresh_before: r.before.fresh,
    hidden_before: r.before.hidden,
    fresh_after: r.after.fresh,
    hidden_after: r.after.hidden,
  };
}
