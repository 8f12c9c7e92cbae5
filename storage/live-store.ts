// The writable part of a collection: its write-ahead log, the fresh layer (points written while
// serving), the tombstones that hide base points deleted or superseded, and the payloads. A write is
// logged and made durable (wal.ts) before it is applied, and it is applied in log order, whole, in
// one synchronous step: a search, which runs between event-loop turns, sees each write entirely or
// not at all. On open the log is replayed the same way, so the state after a crash is the state
// after the last acknowledged write (and perhaps a few whose acknowledgement was lost with the
// process, but never half of one).
import { ChunkMemory } from '../index/payload/chunk-memory.js';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { pack, unpack } from 'msgpackr';
import { createDir } from '../common/durable-fs.js';
import { stepSpent, stepsInTurns } from '../common/turns.js';
import { StrataError, errorMessage } from '../common/errors.js';
import type { Metric } from '../index/kernels/kernels.js';
import { WAL_LOG_FILE } from './collection-dir.js';
import { DEFAULT_FRESH, FreshLayer, type FreshOptions } from '../index/fresh/fresh-layer.js';
import type { IndexSpec, PayloadIndexParams } from '../index/payload-index/params.js';
import { type PayloadSelector, selectorPaths } from '../index/payload/selector.js';
import { parseKeyPath } from '../index/filter/key-path.js';
import { type BasePayloadSource, CAPTURE_ROWS, PointPayloads } from './point-payloads.js';
import { UUID_ID_BASE } from './point-ids.js';
import { UuidIds } from './uuid-ids.js';
import { type RecoveryReport, WriteAheadLog } from './wal.js';
import { SparseColumn } from '../index/sparse/sparse-column.js';
import type { SparseVector } from '../index/sparse/sparse-vector.js';
import type { SecondaryParams, SparseParams } from './collection-dir.js';
import type { DenseEntries } from '../index/fresh/dense-column.js';
import type { NamedBase } from '../index/named/named-base.js';
import { NamedColumn } from '../index/named/named-column.js';
import { type DenseRecord, type DenseState, denseByPosition, denseEntriesOf, denseRecordOf } from './dense-records.js';
import { entriesOf, type SparseRecord, type SparseState, sparseByPosition, sparseRecordOf, sparseStateOf } from './sparse-records.js';

export type Payload = Record<string, unknown>;

/** A point's id as users spell it: an integer below 2^52, or a UUID (canonical form). */
export type PointKey = number | string;

/** A point to upsert, by the id users gave it. */
export interface KeyedPoint {
  key: PointKey;
  vector: Float32Array;
  payload: Payload | null;
  /** Its sparse vectors by name (absent: none). */
  sparse?: Readonly<Record<string, SparseVector>>;
  /** Its secondary dense vectors by name (absent: none). */
  secondary?: Readonly<Record<string, Float32Array>>;
}

export type { BasePayloadSource };

export { UUID_ID_BASE };

export interface PointWrite {
  /** The internal id (a UUID point's is assigned by idOfUuid). */
  id: number;
  /** The point's UUID, when it has one (canonical form). */
  uuid?: string | null;
  /** dim floats, unit-normalised for cosine (the edge checks and normalises). */
  vector: Float32Array;
  payload: Payload | null;
  /** Its sparse vectors by name: an upsert replaces the point whole, so a name left out has none after it. */
  sparse?: Readonly<Record<string, SparseVector>>;
  /** Its secondary dense vectors by name, likewise. */
  secondary?: Readonly<Record<string, Float32Array>>;
}

/** A vector update: a new dense vector and/or sparse and secondary vectors by name; the point's other vectors and payload stay. */
export interface VectorsWrite {
  id: number;
  vector?: Float32Array;
  sparse?: Readonly<Record<string, SparseVector>>;
  secondary?: Readonly<Record<string, Float32Array>>;
}

/** A collection's vectors besides the tiered one, by name: sparse ones and secondary dense ones. */
export interface SideVectors {
  sparse?: Readonly<Record<string, SparseParams>>;
  secondary?: Readonly<Record<string, SecondaryParams>>;
  /** The tiered bases a compaction built of secondary vectors, by name (absent: none). */
  bases?: ReadonlyMap<string, NamedBase>;
}

/** What the live store needs of the collection's base index: which ids it holds, and at which node. */
export interface BaseIds {
  has(id: number): boolean;
  /** The node serving `id` in the base, or undefined. */
  node(id: number): number | undefined;
  /** Every id the base holds, with its node (or those of nodes [from, to)). */
  forEach(fn: (id: number, node: number) => void, from?: number, to?: number): void;
  readonly count: number;
}

/** What a compaction saves beside its base (the points themselves are in the base). */
export interface LiveState {
  /** Each point's payload; read from a file, parsed a part at a time as it is iterated. */
  payloads: Iterable<[number, Payload]>;
  /** The payload indexes (absent in states saved before there were any). */
  indexes?: IndexSpec[];
  uuids: Array<[string, number]>;
  nextUuidId: number;
  sharedSeq: number;
  /** The sparse vectors (absent in states saved before there were any). */
  sparse?: SparseState;
  /**
   * The secondary dense vectors, in states saved before compactions built a tiered base of each
   * (read, no longer written: engine/compaction.ts).
   */
  secondary?: DenseState;
}

/**
 * A live state as bytes (the compaction state file, snapshots): MessagePack with the payloads as
 * JSON text, because msgpackr renames a `__proto__` key on decode (kriszyp/msgpackr#159) and JSON
 * keeps it as an own member. The text is in parts (`payloadsParts`: UTF-8, each the pairs of a JSON
 * array without its brackets), so that a writer encodes and a reader parses a part at a time; states
 * saved before hold one `payloadsJson` array.
 */
export function encodeLiveState(s: LiveState): Uint8Array {
  const { payloads, ...rest } = s;
  const pairs = Array.isArray(payloads) ? payloads : [...payloads];
  const parts: Uint8Array[] = [];
  for (let at = 0; at < pairs.length; at += CAPTURE_ROWS) parts.push(payloadPart(pairs.slice(at, at + CAPTURE_ROWS)));
  return encodeStateParts(rest, parts);
}

/** One part of a state's payloads (encodeLiveState): the pairs' JSON text without its brackets, as UTF-8. */
export function payloadPart(pairs: ReadonlyArray<readonly [number, Payload]>): Uint8Array {
  return Buffer.from(JSON.stringify(pairs).slice(1, -1), 'utf8');
}

/** encodeLiveState of a state whose payloads are parts already (a compaction's capture: PointPayloads.captureSteps). */
export function encodeStateParts(rest: StateBesidesPayloads, parts: readonly Uint8Array[]): Uint8Array {
  return pack({ ...rest, payloadsParts: parts });
}

export function decodeLiveState(bytes: Uint8Array): LiveState {
  const o = unpack(bytes) as LiveState & { payloadsJson?: string; payloadsParts?: unknown };
  const { payloadsJson, payloadsParts, ...rest } = o;
  if (payloadsJson !== undefined) return { ...rest, payloads: JSON.parse(payloadsJson) as Array<[number, Payload]> };
  if (!Array.isArray(payloadsParts) || !payloadsParts.every((p) => p instanceof Uint8Array))
    throw new StrataError('STRATA_INDEX_CORRUPT', "a live state's payloads are neither JSON text nor parts of it", {});
  return { ...rest, payloads: pairsInParts(payloadsParts as Uint8Array[]) };
}

/** The pairs of a state's payload parts, each part parsed when iteration reaches it. */
function pairsInParts(parts: readonly Uint8Array[]): Iterable<[number, Payload]> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  return {
    *[Symbol.iterator]() {
      for (const part of parts) yield* JSON.parse(`[${utf8.decode(part)}]`) as Array<[number, Payload]>;
    },
  };
}

/** A live state but its payloads. */
export type StateBesidesPayloads = Omit<LiveState, 'payloads'>;

/** What a compaction's cut (LiveStore.beginCut) gives it. */
export interface Cut {
  lsn: bigint;
  freshIds: number[];
  state: StateBesidesPayloads;
  /** The payloads at the cut in parts (payloadPart), read in steps (run it to its end, or abortCut). */
  payloads: Generator<void, Uint8Array[], void>;
  secondary: Map<string, DenseEntries>;
}

/** The live state of a store with no payload, no UUID and no shared-log position. */
export function emptyLiveState(): LiveState {
  return { payloads: [], indexes: [], uuids: [], nextUuidId: UUID_ID_BASE, sharedSeq: 0 };
}

/** Log record types (verify-live.ts reads them too). */
export const REC = {
  upsert: 1,
  delete: 2,
  setPayload: 3,
  origin: 4,
  deletePayload: 5,
  clearPayload: 6,
  payloadIndex: 7,
  updateVectors: 8,
  deleteVectors: 9,
} as const;
const KNOWN_TYPES: ReadonlySet<number> = new Set(Object.values(REC));

/**
 * Most points one payload write or delete step applies (set, overwrite, delete keys, clear, delete
 * points, by ids or by filter; engine/collection.ts), and a restore's payloads per turn. Such a step
 * only re-indexes the fields it touches, far cheaper a point than an upsert's graph insert, but a
 * filter may select every point: in steps, a write of a million points holds the event loop a step
 * at a time.
 */
export const PAYLOAD_STEP_POINTS = 10_000;

/**
 * A replicated write log kept by a log service (engine/replication: NATS JetStream), which the
 * replicas of a shard follow. A write is published there, and every replica — the one that
 * published it too — applies it when it arrives, in the log's order; the store never orders writes
 * itself.
 */
export interface SharedLog {
  /**
   * Stores one record durably in the log service; resolves with its sequence number there. A record
   * published again with the same writeId (a retried or hedged write) is stored once: the log
   * service drops the copy and answers with the first one's sequence.
   */
  publish(type: number, bytes: Uint8Array, writeId?: string): Promise<number>;
  /**
   * Delivers every record from sequence `from` on, in order, to `deliver` (sequences rise, with gaps
   * where the log holds other collections' records), until close.
   */
  follow(from: number, deliver: (type: number, bytes: Uint8Array, seq: number) => void): void;
  /** The sequence of the last record the log holds for this collection (0: none). */
  last(): Promise<number>;
  close(): Promise<void>;
}

/** A write the shared log has not delivered back yet: it answers once this replica applied it. */
interface Awaited {
  seq: number;
  resolve: () => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** How long a write published to the shared log waits to come back before it fails (the log holds it). */
export const SHARED_LOG_WAIT_MS = 30_000;

/** Fields every record may carry: `seq`, its sequence in the shared log, when it came from one. */
interface Logged {
  seq?: number;
}

/** Payloads travel in records as JSON text (see encodeLiveState); records logged before carry them as MessagePack. */
interface UpsertRecord extends Logged {
  /** Internal ids; -1 for a UUID the publisher had not seen (numbered when applied, in log order). */
  ids: number[];
  /** The UUID of each point that has one (absent when none does): the id map is in the log. */
  uuids?: Array<string | null>;
  /** The vectors, float32 little-endian, one after another. */
  vectors: Uint8Array;
  payloads?: Array<Payload | null>;
  payloadsJson?: string;
  sparse?: SparseRecord;
  secondary?: DenseRecord;
}
/** New vectors for existing points, their payloads kept (a point gone when it applies is skipped). */
interface VectorsRecord extends Logged {
  ids: number[];
  /** float32 little-endian, one after another: of every id, or of the positions in denseAt. */
  vectors: Uint8Array;
  /** Positions in ids whose dense vector is new (absent: every id's). */
  denseAt?: number[];
  sparse?: SparseRecord;
  secondary?: DenseRecord;
}
/** Sparse or secondary vectors removed from existing points. */
interface DeleteVectorsRecord extends Logged {
  ids: number[];
  names: string[];
}
interface DeleteRecord extends Logged {
  ids: number[];
}
interface PayloadRecord extends Logged {
  ids: number[];
  payload?: Payload;
  payloadJson?: string;
  overwrite: boolean;
  /** Applied to the object at this key path instead of the whole payload. */
  key?: string;
}
interface PayloadKeysRecord extends Logged {
  ids: number[];
  /** Key paths to delete; absent: the whole payload (clear). */
  keys?: string[];
}
interface IndexRecord extends Logged {
  field: string;
  /** The index to create; absent: drop the field's index. */
  params?: PayloadIndexParams;
}
type AnyRecord = UpsertRecord | VectorsRecord | DeleteVectorsRecord | DeleteRecord | PayloadRecord | PayloadKeysRecord | IndexRecord;

export const WAL_FILE = WAL_LOG_FILE;

export class LiveStore {
  /** Points written since the base was built (replaced whole when a compaction swaps a new base in). */
  fresh: FreshLayer;
  /** Base ids a search must not return: deleted, or superseded by a fresh copy. */
  tombstones = new Set<number>();
  /** Ids upserted or deleted since a compaction's cut (null: no compaction running). */
  private touched: Set<number> | null = null;
  /** Payload values and payload indexes, by row (point-payloads.ts). */
  readonly payloads: PointPayloads;
  /** The sparse vectors, by name (index/sparse/): searched exactly through their inverted indexes. */
  readonly sparse: Map<string, SparseColumn>;
  /** The secondary dense vectors, by name (index/named/named-column.ts): each a tiered base and a fresh graph of its own. */
  readonly secondary: Map<string, NamedColumn>;
  /** Highest log sequence number applied. */
  appliedLsn = 0n;
  /** Writes applied since open (replayed ones included), for metrics. */
  applied = { upserted: 0, deleted: 0 };
  /** UUID points' ids both ways, off the V8 heap. */
  private readonly uuids = new UuidIds();
  private nextUuidId = UUID_ID_BASE;
  /** The shared log this store follows, or null (its own log orders its writes). */
  private shared: SharedLog | null = null;
  /** Sequence in the shared log of the last record applied (0: none). */
  sharedSeq = 0;
  /** The log's last sequence when this store began following it: behind it, the store is catching up. */
  private catchUpTo = 0;
  private readonly awaiting: Awaited[] = [];
  /** Set when a record of the shared log could not be applied: the store follows no further. */
  private followFailure: StrataError | null = null;

  private constructor(
    private readonly wal: WriteAheadLog,
    readonly dim: number,
    readonly metric: Metric,
    private base: BaseIds | null,
    private readonly freshOptions: FreshOptions,
    payloadMemory: ChunkMemory,
    side: SideVectors,
  ) {
    this.fresh = new FreshLayer(dim, metric, freshOptions);
    this.sparse = new Map(Object.entries(side.sparse ?? {}).map(([name, p]) => [name, new SparseColumn(p.modifier)]));
    this.secondary = new Map(
      Object.entries(side.secondary ?? {}).map(([name, p]) => [name, new NamedColumn(p.dim, p.metric, freshOptions, side.bases?.get(name) ?? null)]),
    );
    this.payloads = new PointPayloads(
      (pid) => (typeof pid === 'number' ? pid : this.idOfUuid(pid, false)),
      (id) => this.uuidOf(id) ?? id,
      payloadMemory,
    );
  }

  /** A row for every point of the base, PAYLOAD_STEP_POINTS a turn (open: the store is nobody else's yet). */
  private async placeBase(base: BaseIds): Promise<void> {
    for (let from = 0; from < base.count; from += PAYLOAD_STEP_POINTS) {
      this.payloads.placeBase((fn) => base.forEach(fn, from, from + PAYLOAD_STEP_POINTS));
      await nextTurn();
    }
  }

  /**
   * Opens (or creates) the store in dir and replays its log. After a compaction (`compacted`), the
   * records up to its cut are in the base already: only later ones are replayed, over the payloads
   * and UUID pairs the compaction saved.
   */
  static async open(
    dir: string,
    dim: number,
    metric: Metric,
    base: BaseIds | null,
    fresh: FreshOptions = DEFAULT_FRESH,
    compacted: { cutLsn: bigint; state: LiveState } | null = null,
    basePayloads: BasePayloadSource | null = null,
    payloadMemory: ChunkMemory = new ChunkMemory(),
    side: SideVectors = {},
  ): Promise<{ store: LiveStore; report: RecoveryReport }> {
    createDir(dir);
    const { wal, records, report, cutAt } = await WriteAheadLog.open(join(dir, WAL_FILE));
    // A log whose head was cut relies on the compacted base that holds those records.
    if (cutAt > (compacted?.cutLsn ?? 0n)) {
      await wal.close();
      throw new StrataError(
        'STRATA_INDEX_CORRUPT',
        `${wal.file}: its records up to ${cutAt} were dropped after a compaction, but the compacted base ${compacted ? `holds only up to ${compacted.cutLsn}` : 'is missing'}`,
        { file: wal.file, cutAt: String(cutAt) },
      );
    }
    const store = new LiveStore(wal, dim, metric, base, fresh, payloadMemory, side);
    if (base !== null) await store.placeBase(base);
    // The store is nobody else's until this returns: its restore and replay give the event loop a
    // turn between steps (a collection restored while the server serves the others).
    if (compacted) {
      await store.restore(compacted.state);
      store.appliedLsn = compacted.cutLsn;
    } else if (basePayloads !== null) store.payloads.seed(basePayloads);
    for (const r of records) {
      if (compacted !== null && r.lsn <= compacted.cutLsn) continue;
      store.apply(r.type, r.payload, r.lsn);
      // A record is one step of a write (engine/collection.ts: WRITE_STEP_POINTS, PAYLOAD_STEP_POINTS).
      await nextTurn();
    }
    // A crash between a compaction and the cut of its log leaves the head: cut it now (a log that
    // cannot be written keeps it; replay skips it either way).
    if (compacted !== null && cutAt < compacted.cutLsn && records.length > 0 && records[0]!.lsn <= compacted.cutLsn)
      await store.cutLog(compacted.cutLsn).catch(() => 0);
    // The range indexes' pairs sorted now, over turns, rather than whole by the first query.
    await stepsInTurns(store.payloads.orderSteps(), () => false);
    return { store, report };
  }

  /**
   * Drops the log's records up to `cut`, which a durable compacted base holds (WriteAheadLog
   * truncateThrough); writes wait meanwhile. Resolves with the bytes removed.
   */
  cutLog(cut: bigint): Promise<number> {
    return this.wal.truncateThrough(cut);
  }

  /** Bytes the log's cuts removed since open. */
  get logCutBytes(): number {
    return this.wal.cutBytes;
  }

  /**
   * What a compaction saves beside its base: the payloads, the UUID pairs and the shared log's
   * position (the secondary vectors go into tiered bases of their own).
   */
  liveState(): LiveState {
    return { payloads: this.payloads.entries(), ...this.stateBesidesPayloads() };
  }

  private stateBesidesPayloads(): StateBesidesPayloads {
    return {
      indexes: this.payloads.indexSpecs(),
      uuids: this.uuidPairs(),
      nextUuidId: this.nextUuidId,
      sharedSeq: this.sharedSeq,
      ...(this.sparse.size > 0 ? { sparse: sparseStateOf(this.sparse) } : {}),
    };
  }

  private async restore(s: LiveState): Promise<void> {
    // A step of PAYLOAD_STEP_POINTS payloads, or fewer large ones (STEP_MS).
    let restored = 0;
    let since = performance.now();
    for (const [id, p] of s.payloads) {
      this.payloads.upsert(id, p);
      if (++restored % PAYLOAD_STEP_POINTS === 0 || (restored % 64 === 0 && stepSpent(since))) {
        await nextTurn();
        since = performance.now();
      }
    }
    // Each index built a chunk of rows per turn, then installed.
    for (const spec of s.indexes ?? []) {
      await this.payloads.prepareIndex(spec);
      this.payloads.createIndex(spec);
    }
    for (const [uuid, id] of s.uuids) this.mapUuid(uuid, id);
    this.nextUuidId = Math.max(this.nextUuidId, s.nextUuidId);
    this.sharedSeq = Math.max(this.sharedSeq, s.sharedSeq);
    for (const [name, saved] of Object.entries(s.sparse ?? {})) {
      const col = this.sparse.get(name);
      // A name the config no longer has is left out (none can be dropped today).
      if (col !== undefined) this.sparse.set(name, SparseColumn.fromEntries(col.modifier, entriesOf(saved)));
    }
    // The graphs are built again, in turns of the event loop (the column is empty until this store opens).
    for (const [name, saved] of Object.entries(s.secondary ?? {})) await this.secondary.get(name)?.fill(denseEntriesOf(saved));
  }

  /**
   * A compaction's cut: the state now (writes applied up to `lsn`) is what the new base will hold;
   * from here on, every id a write touches is noted, so that rebase() keeps exactly those in the
   * fresh layer and hides exactly those in the new base. Synchronous: no write applies in between.
   * The payloads are read afterwards, in steps (`payloads`), as they stood at the cut.
   */
  beginCut(): Cut {
    if (this.touched !== null) throw new StrataError('STRATA_INVALID_ARGUMENT', 'a compaction is running already', { field: 'compact' });
    this.touched = new Set();
    const secondary = new Map([...this.secondary].map(([name, col]) => [name, col.beginCut()]));
    this.payloads.beginCapture();
    return {
      lsn: this.appliedLsn,
      freshIds: this.fresh.ids(),
      state: this.stateBesidesPayloads(),
      payloads: this.payloads.captureSteps(payloadPart),
      secondary,
    };
  }

  /** The compaction failed: the store goes on as it was. */
  abortCut(): void {
    this.payloads.endCapture();
    this.touched = null;
    for (const col of this.secondary.values()) col.abortCut();
  }

  /**
   * Swaps in the base a compaction built from the state at its cut (synchronous, with the
   * collection's own swap): the fresh layer keeps only points written since the cut, and the new
   * base hides only ids written since the cut (each secondary vector likewise, over the base built of
   * it, or none when no point had it). The old fresh graph and tombstones are dropped. `ahead`: the
   * rows' nodes placeSteps computed over turns.
   */
  rebase(base: BaseIds, named: ReadonlyMap<string, NamedBase>, ahead: Int32Array): void {
    for (const [name, col] of this.secondary) col.rebase(named.get(name) ?? null);
    const touched = this.touched ?? new Set<number>();
    this.touched = null;
    const fresh = new FreshLayer(this.dim, this.metric, this.freshOptions);
    const tombstones = new Set<number>();
    for (const id of touched) {
      const v = this.fresh.vector(id);
      if (v) fresh.upsert(id, v);
      if (base.has(id)) tombstones.add(id);
    }
    this.fresh = fresh;
    this.tombstones = tombstones;
    this.base = base;
    // Every id written since the cut is served from the fresh layer or gone, so from no base node.
    this.payloads.placeAhead(ahead, touched);
  }

  /**
   * Each payload row's node in the base a compaction is about to swap in (`nodeOf`), computed a step
   * at a time while writes go on, for rebase to apply: a row whose point is written meanwhile is one
   * the cut notes, and rebase places it apart.
   */
  placeSteps(nodeOf: (id: number) => number | undefined): Generator<void, Int32Array, void> {
    if (this.touched === null) throw new StrataError('STRATA_INVALID_ARGUMENT', 'placing rows ahead needs an open compaction cut', { field: 'compact' });
    return this.payloads.placeSteps(nodeOf);
  }

  /** Whether a compaction's cut is open (between beginCut and rebase or abortCut). */
  get cutOpen(): boolean {
    return this.touched !== null;
  }

  /**
   * Logs the points and, once durable, applies them; resolves with the write's sequence number (in
   * the shared log when there is one). `writeId` names the write across retries (shared log only).
   */
  upsert(points: readonly PointWrite[], writeId?: string): Promise<bigint> {
    const vectors = new Uint8Array(points.length * this.dim * 4);
    const f = new Float32Array(vectors.buffer);
    points.forEach((p, i) => f.set(p.vector, i * this.dim));
    const rec: UpsertRecord = { ids: points.map((p) => p.id), vectors, payloadsJson: JSON.stringify(points.map((p) => p.payload)) };
    if (points.some((p) => p.uuid)) rec.uuids = points.map((p) => p.uuid ?? null);
    const sparse = sparseRecordOf(points.map((p) => p.sparse));
    if (sparse !== undefined) rec.sparse = sparse;
    const secondary = denseRecordOf(points.map((p) => p.secondary));
    if (secondary !== undefined) rec.secondary = secondary;
    return this.log(REC.upsert, rec, writeId);
  }

  /** Replaces the given vectors of the existing points among the writes (unit-normalised for cosine), keeping the rest and their payloads. */
  updateVectors(writes: readonly VectorsWrite[], writeId?: string): Promise<bigint> {
    const denseAt = writes.flatMap((w, i) => (w.vector !== undefined ? [i] : []));
    const bytes = new Uint8Array(denseAt.length * this.dim * 4);
    const f = new Float32Array(bytes.buffer);
    denseAt.forEach((i, j) => f.set(writes[i]!.vector!, j * this.dim));
    const rec: VectorsRecord = { ids: writes.map((w) => w.id), vectors: bytes };
    if (denseAt.length < writes.length) rec.denseAt = denseAt;
    const sparse = sparseRecordOf(writes.map((w) => w.sparse));
    if (sparse !== undefined) rec.sparse = sparse;
    const secondary = denseRecordOf(writes.map((w) => w.secondary));
    if (secondary !== undefined) rec.secondary = secondary;
    return this.log(REC.updateVectors, rec, writeId);
  }

  /** Removes the named sparse and secondary vectors from the existing points among ids. */
  deleteVectors(ids: readonly number[], names: readonly string[], writeId?: string): Promise<bigint> {
    const rec: DeleteVectorsRecord = { ids: [...ids], names: [...names] };
    return this.log(REC.deleteVectors, rec, writeId);
  }

  delete(ids: readonly number[], writeId?: string): Promise<bigint> {
    const rec: DeleteRecord = { ids: [...ids] };
    return this.log(REC.delete, rec, writeId);
  }

  /** Sets (merges into, or with overwrite replaces) the payload of the existing points among ids; with `key`, at that key path. */
  setPayload(ids: readonly number[], payload: Payload, overwrite: boolean, writeId?: string, key?: string): Promise<bigint> {
    // Checked before it is logged: a record that fails to apply would stop every replay.
    if (key !== undefined) selectorPaths([key], 'key');
    const rec: PayloadRecord = { ids: [...ids], payloadJson: JSON.stringify(payload), overwrite, ...(key !== undefined ? { key } : {}) };
    return this.log(REC.setPayload, rec, writeId);
  }

  /** Deletes key paths from the payloads of the points among ids; without keys, clears them. */
  deletePayload(ids: readonly number[], keys: readonly string[] | null, writeId?: string): Promise<bigint> {
    if (keys !== null) selectorPaths(keys, 'keys');
    const rec: PayloadKeysRecord = { ids: [...ids], ...(keys !== null ? { keys: [...keys] } : {}) };
    return this.log(keys === null ? REC.clearPayload : REC.deletePayload, rec, writeId);
  }

  /** Creates (params) or drops (null) the payload index of `field`. */
  async payloadIndex(field: string, params: PayloadIndexParams | null, writeId?: string): Promise<bigint> {
    const rec: IndexRecord = { field, ...(params !== null ? { params } : {}) };
    if (params === null) {
      parseKeyPath(field, 'field_name');
      return this.log(REC.payloadIndex, rec, writeId);
    }
    const spec = { field, params };
    this.payloads.checkIndex(spec);
    // Built before it is logged, a chunk per turn: applying the record then only installs it.
    await this.payloads.prepareIndex(spec);
    try {
      return await this.log(REC.payloadIndex, rec, writeId);
    } finally {
      this.payloads.discardIndex(spec);
    }
  }

  /** Why this store refuses writes (its log is read-only, a write to it failed, or it stopped following its shared log), or null. */
  get writeRefusal(): StrataError | null {
    return this.wal.refusal ?? this.followFailure;
  }

  /** Whether writes go through a shared log (a UUID point's number is then assigned when applied). */
  get replicated(): boolean {
    return this.shared !== null;
  }

  /**
   * From now on, writes go through `log` and this store applies what the log delivers, from the record
   * after the last one it applied (kept in its own log: a restarted replica catches up from there);
   * with `fromNow` (a collection just created), from the log's current end.
   */
  async follow(log: SharedLog, fromNow = false): Promise<void> {
    this.shared = log;
    this.catchUpTo = await log.last();
    // A collection created now starts at the log's end: records already under its name belong to
    // an earlier collection of that name (deleted since), never to this one. The start is logged
    // here (an origin record), so a restart resumes from it rather than from the stream's start.
    if (fromNow && this.catchUpTo > this.sharedSeq) {
      const bytes = pack({ seq: this.catchUpTo } satisfies Logged);
      this.apply(REC.origin, bytes, await this.wal.append(REC.origin, bytes));
    }
    log.follow(this.sharedSeq + 1, (type, bytes, seq) => this.receive(type, bytes, seq));
  }

  /**
   * Still applying what the shared log held when this store began following it (a replica
   * restarted after others took writes): it must not count as ready, or it would answer stale reads.
   */
  get catchingUp(): { at: number; to: number } | null {
    return this.shared !== null && this.sharedSeq < this.catchUpTo ? { at: this.sharedSeq, to: this.catchUpTo } : null;
  }

  /** A record from the shared log: logged here with its sequence (durably, in order), then applied. */
  private receive(type: number, bytes: Uint8Array, seq: number): void {
    if (this.followFailure !== null) return;
    let mine: Uint8Array;
    try {
      // Checked before it reaches this store's own log: a record it cannot apply must not be logged
      // (a restart would then refuse the log), nor skipped (the replicas would part ways).
      if (!KNOWN_TYPES.has(type)) throw new Error(`unknown record type ${type}`);
      const rec = unpack(bytes) as Logged;
      rec.seq = seq;
      mine = pack(rec);
    } catch (e) {
      this.stopFollowing(seq, e);
      return;
    }
    this.wal.append(type, mine).then(
      (lsn) => {
        try {
          this.apply(type, mine, lsn);
        } catch (e) {
          this.stopFollowing(seq, e);
          return;
        }
        while (this.awaiting.length > 0 && this.awaiting[0]!.seq <= seq) {
          const w = this.awaiting.shift()!;
          clearTimeout(w.timer);
          w.resolve();
        }
      },
      (e: Error) => this.failAwaiting(e),
    );
  }

  /** Stops applying the shared log at a record it cannot apply: writes are refused from then on, reads go on. */
  private stopFollowing(seq: number, e: unknown): void {
    this.followFailure = new StrataError(
      'STRATA_WRITE_LOG',
      `record ${seq} of the shared write log cannot be applied (${errorMessage(e)}): this replica stopped following it`,
      { seq: String(seq) },
      { cause: e },
    );
    this.failAwaiting(this.followFailure);
  }

  private failAwaiting(e: Error): void {
    for (const w of this.awaiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(e);
    }
  }

  private log(type: number, rec: AnyRecord, writeId?: string): Promise<bigint> {
    const bytes = pack(rec);
    if (this.shared !== null) return this.publish(this.shared, type, bytes, writeId);
    // The then-callbacks run in the order the appends resolve, which is log order (one flush
    // resolves its records in sequence): writes are applied in the order they are logged.
    return this.wal.append(type, bytes).then((lsn) => {
      this.apply(type, bytes, lsn);
      return lsn;
    });
  }

  /**
   * Publishes a write to the shared log; resolves with its sequence there once this replica has
   * applied it (read-your-writes).
   */
  private async publish(log: SharedLog, type: number, bytes: Uint8Array, writeId?: string): Promise<bigint> {
    if (this.followFailure !== null) throw this.followFailure;
    const seq = await log.publish(type, bytes, writeId);
    // It may have stopped following while the log took the write: it will not apply it.
    if (this.followFailure !== null) throw this.followFailure;
    await this.appliedUpTo(seq);
    return BigInt(seq);
  }

  /**
   * Resolves once this replica has applied the shared log up to `seq` (at once without a shared
   * log: there is nothing to wait for); fails with STRATA_WRITE_LOG past SHARED_LOG_WAIT_MS.
   */
  waitForSeq(seq: number): Promise<void> {
    return this.shared === null ? Promise.resolve() : this.appliedUpTo(seq);
  }

  private appliedUpTo(seq: number): Promise<void> {
    if (seq <= this.sharedSeq) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = this.awaiting.findIndex((w) => w.timer === timer);
        if (at >= 0) this.awaiting.splice(at, 1);
        reject(
          new StrataError('STRATA_WRITE_LOG', `this replica has not applied the shared log up to ${seq} within ${SHARED_LOG_WAIT_MS} ms`, {
            seq: String(seq),
          }),
        );
      }, SHARED_LOG_WAIT_MS);
      const w: Awaited = { seq, resolve, reject, timer };
      // Kept in sequence order: publishes may be acknowledged out of order.
      let i = this.awaiting.length;
      while (i > 0 && this.awaiting[i - 1]!.seq > seq) i--;
      this.awaiting.splice(i, 0, w);
    });
  }

  /** Applies one logged write, whole (no await inside: nothing interleaves with it). */
  private apply(type: number, bytes: Uint8Array, lsn: bigint): void {
    const rec = unpack(bytes) as Logged;
    if (type === REC.upsert) {
      const r = rec as UpsertRecord;
      // The bytes come from a decoder's buffer: copy them to an aligned array before viewing floats.
      const all = new Float32Array(new Uint8Array(r.vectors).buffer);
      const payloads = r.payloadsJson !== undefined ? (JSON.parse(r.payloadsJson) as Array<Payload | null>) : (r.payloads ?? []);
      const sparse = sparseByPosition(r.sparse);
      const secondary = denseByPosition(r.secondary);
      r.ids.forEach((given, i) => {
        const uuid = r.uuids?.[i];
        // -1: a UUID numbered here, in log order, so every replica gives it the same number.
        const id = given >= 0 ? given : this.idOfUuid(uuid!, true)!;
        if (uuid) this.mapUuid(uuid, id);
        this.touched?.add(id);
        if (this.base?.has(id)) this.tombstones.add(id);
        this.fresh.upsert(id, all.slice(i * this.dim, (i + 1) * this.dim));
        this.payloads.upsert(id, payloads[i] ?? null);
        // The point is replaced whole: a sparse vector it does not give is gone.
        for (const [name, col] of this.sparse) {
          const v = sparse[i]?.get(name);
          if (v === undefined) col.delete(id);
          else col.set(id, v);
        }
        for (const [name, col] of this.secondary) {
          const v = secondary[i]?.get(name);
          if (v === undefined) col.delete(id);
          else col.set(id, v);
        }
        // Its vector is served from the fresh layer now.
        this.payloads.placeNode(id, -1);
      });
      this.applied.upserted += r.ids.length;
    } else if (type === REC.updateVectors) {
      const r = rec as VectorsRecord;
      const all = new Float32Array(new Uint8Array(r.vectors).buffer);
      const sparse = sparseByPosition(r.sparse);
      const secondary = denseByPosition(r.secondary);
      // Where each position's dense vector sits among the record's (every position's, without denseAt).
      const slot = r.denseAt === undefined ? null : new Map(r.denseAt.map((i, j) => [i, j]));
      r.ids.forEach((id, i) => {
        if (!this.exists(id)) return;
        for (const [name, v] of sparse[i] ?? []) this.sparse.get(name)?.set(id, v);
        for (const [name, v] of secondary[i] ?? []) this.secondary.get(name)?.set(id, v);
        const j = slot === null ? i : slot.get(i);
        if (j === undefined) return;
        this.touched?.add(id);
        if (this.base?.has(id)) this.tombstones.add(id);
        this.fresh.upsert(id, all.slice(j * this.dim, (j + 1) * this.dim));
        // The payload stays; the vector is served from the fresh layer now.
        this.payloads.placeNode(id, -1);
      });
      this.applied.upserted += r.ids.length;
    } else if (type === REC.deleteVectors) {
      const r = rec as DeleteVectorsRecord;
      for (const id of r.ids)
        if (this.exists(id))
          for (const name of r.names) {
            this.sparse.get(name)?.delete(id);
            this.secondary.get(name)?.delete(id);
          }
    } else if (type === REC.delete) {
      const r = rec as DeleteRecord;
      for (const id of r.ids) {
        this.fresh.delete(id);
        this.touched?.add(id);
        if (this.base?.has(id)) this.tombstones.add(id);
        this.payloads.remove(id);
        for (const col of this.sparse.values()) col.delete(id);
        for (const col of this.secondary.values()) col.delete(id);
      }
      this.applied.deleted += r.ids.length;
    } else if (type === REC.origin) {
      // Only its sequence (below): where this collection's part of the shared log begins.
    } else if (type === REC.setPayload) {
      const r = rec as PayloadRecord;
      const payload = r.payloadJson !== undefined ? (JSON.parse(r.payloadJson) as Payload) : (r.payload ?? {});
      this.payloads.write(
        r.ids.filter((id) => this.exists(id)),
        payload,
        r.overwrite,
        r.key,
      );
    } else if (type === REC.deletePayload || type === REC.clearPayload) {
      const r = rec as PayloadKeysRecord;
      const ids = r.ids.filter((id) => this.exists(id));
      if (r.keys === undefined) for (const id of ids) this.payloads.clear(id);
      else this.payloads.deleteKeys(ids, r.keys);
    } else if (type === REC.payloadIndex) {
      const r = rec as IndexRecord;
      if (r.params === undefined) this.payloads.dropIndex(r.field);
      else this.payloads.createIndex({ field: r.field, params: r.params });
    } else {
      throw new StrataError('STRATA_INDEX_CORRUPT', `${this.wal.file}: record ${lsn} has unknown type ${type}`, { file: this.wal.file, lsn: String(lsn) });
    }
    this.appliedLsn = lsn;
    if (rec.seq !== undefined && rec.seq > this.sharedSeq) this.sharedSeq = rec.seq;
  }

  private mapUuid(uuid: string, id: number): void {
    this.uuids.set(uuid, id);
    if (id >= this.nextUuidId) this.nextUuidId = id + 1;
  }

  /** The UUID pairs, as the saved state keeps them. */
  private uuidPairs(): Array<[string, number]> {
    const pairs: Array<[string, number]> = [];
    this.uuids.forEach((uuid, id) => pairs.push([uuid, id]));
    return pairs;
  }

  /**
   * The internal id of a UUID point, or null; with `assign`, a UUID not seen before gets the next id
   * at once (so that two writes of it in flight agree), and the write that carries it logs the pair.
   */
  idOfUuid(uuid: string, assign: boolean): number | null {
    const known = this.uuids.get(uuid);
    if (known !== undefined || !assign) return known ?? null;
    const id = this.nextUuidId;
    this.mapUuid(uuid, id);
    return id;
  }

  /** The UUID of an internal id, or null (an integer id). */
  uuidOf(id: number): string | null {
    return this.uuids.uuidOf(id);
  }

  /** Whether `id` is a live point (fresh, or in the base and not hidden). */
  exists(id: number): boolean {
    return this.fresh.has(id) || (this.base?.has(id) === true && !this.tombstones.has(id));
  }

  /** Whether a base id is still served from the base (not deleted, not superseded). */
  baseLive(id: number): boolean {
    return !this.tombstones.has(id);
  }

  /** A point's payload as `selector` asks; null for a point with none (or `false`). */
  payload(id: number, selector: PayloadSelector = true): Payload | null {
    return this.payloads.shown(id, selector);
  }

  /** Live points: the base's unhidden ones plus the fresh ones. */
  count(): number {
    return (this.base?.count ?? 0) - this.tombstones.size + this.fresh.size;
  }

  /**
   * The log's durable prefix: every write acknowledged so far, whole, and nothing partial (a
   * snapshot of the collection is its config and this), as the log file opened now and the length
   * of that prefix. Read through the descriptor, it stays that prefix when the log is later cut
   * (a new file takes the name). The caller closes it.
   */
  openLogPrefix(): { fd: number; length: number; file: string } {
    return { fd: openSync(this.wal.file, 'r'), length: this.wal.durableBytes, file: this.wal.file };
  }

  async close(): Promise<void> {
    await this.shared?.close();
    this.shared = null;
    for (const col of this.secondary.values()) col.close();
    return this.wal.close();
  }
}
