// The writable part of a collection: its write-ahead log, the fresh layer (points written while
// serving), the tombstones that hide base points deleted or superseded, and the payloads. A write is
// logged and made durable (wal.ts) before it is applied, and it is applied in log order, whole, in
// one synchronous step: a search, which runs between event-loop turns, sees each write entirely or
// not at all. On open the log is replayed the same way, so the state after a crash is the state
// after the last acknowledged write (and perhaps a few whose acknowledgement was lost with the
// process, but never half of one).
import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { pack, unpack } from 'msgpackr';
import { StrataError } from '../../common/errors.js';
import type { Metric } from '../kernels/kernels.js';
import { WAL_LOG_FILE } from './collection-dir.js';
import { DEFAULT_FRESH, FreshLayer, type FreshOptions } from './fresh-layer.js';
import { type RecoveryReport, storageError, WriteAheadLog } from './wal.js';

export type Payload = Record<string, unknown>;

/** A point's id as users spell it: an integer below 2^52, or a UUID (canonical form). */
export type PointKey = number | string;

/** A point to upsert, by the id users gave it. */
export interface KeyedPoint {
  key: PointKey;
  vector: Float32Array;
  payload: Payload | null;
}

/** Internal ids from here on number a collection's UUID points, in the order they first appear. */
export const UUID_ID_BASE = 2 ** 52;

export interface PointWrite {
  /** The internal id (a UUID point's is assigned by idOfUuid). */
  id: number;
  /** The point's UUID, when it has one (canonical form). */
  uuid?: string | null;
  /** dim floats, unit-normalised for cosine (the edge checks and normalises). */
  vector: Float32Array;
  payload: Payload | null;
}

/** What the live store needs of the collection's base index: which ids it holds. */
export interface BaseIds {
  has(id: number): boolean;
  readonly count: number;
}

/** Log record types (verify-live.ts reads them too). */
export const REC = { upsert: 1, delete: 2, setPayload: 3 } as const;

interface UpsertRecord {
  ids: number[];
  /** The UUID of each point that has one (absent when none does): the id map is in the log. */
  uuids?: Array<string | null>;
  /** The vectors, float32 little-endian, one after another. */
  vectors: Uint8Array;
  payloads: Array<Payload | null>;
}
interface DeleteRecord {
  ids: number[];
}
interface PayloadRecord {
  ids: number[];
  payload: Payload;
  overwrite: boolean;
}

export const WAL_FILE = WAL_LOG_FILE;

export class LiveStore {
  readonly fresh: FreshLayer;
  /** Base ids a search must not return: deleted, or superseded by a fresh copy. */
  readonly tombstones = new Set<number>();
  private readonly payloads = new Map<number, Payload>();
  /** Highest log sequence number applied. */
  appliedLsn = 0n;
  /** Writes applied since open (replayed ones included), for metrics. */
  applied = { upserted: 0, deleted: 0 };
  private readonly uuidIds = new Map<string, number>();
  private readonly idUuids = new Map<number, string>();
  private nextUuidId = UUID_ID_BASE;

  private constructor(
    private readonly wal: WriteAheadLog,
    readonly dim: number,
    readonly metric: Metric,
    private readonly base: BaseIds | null,
    fresh: FreshOptions,
  ) {
    this.fresh = new FreshLayer(dim, metric, fresh);
  }

  /** Opens (or creates) the store in dir and replays its log. */
  static async open(
    dir: string,
    dim: number,
    metric: Metric,
    base: BaseIds | null,
    fresh: FreshOptions = DEFAULT_FRESH,
  ): Promise<{ store: LiveStore; report: RecoveryReport }> {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw storageError(dir, 'create', e);
    }
    const { wal, records, report } = await WriteAheadLog.open(join(dir, WAL_FILE));
    const store = new LiveStore(wal, dim, metric, base, fresh);
    for (const r of records) store.apply(r.type, r.payload, r.lsn);
    return { store, report };
  }

  /** Logs the points and, once durable, applies them; resolves with the write's sequence number. */
  upsert(points: readonly PointWrite[]): Promise<bigint> {
    const vectors = new Uint8Array(points.length * this.dim * 4);
    const f = new Float32Array(vectors.buffer);
    points.forEach((p, i) => f.set(p.vector, i * this.dim));
    const rec: UpsertRecord = { ids: points.map((p) => p.id), vectors, payloads: points.map((p) => p.payload) };
    if (points.some((p) => p.uuid)) rec.uuids = points.map((p) => p.uuid ?? null);
    return this.log(REC.upsert, rec);
  }

  delete(ids: readonly number[]): Promise<bigint> {
    const rec: DeleteRecord = { ids: [...ids] };
    return this.log(REC.delete, rec);
  }

  /** Sets (merges into, or with overwrite replaces) the payload of the existing points among ids. */
  setPayload(ids: readonly number[], payload: Payload, overwrite: boolean): Promise<bigint> {
    const rec: PayloadRecord = { ids: [...ids], payload, overwrite };
    return this.log(REC.setPayload, rec);
  }

  private log(type: number, rec: UpsertRecord | DeleteRecord | PayloadRecord): Promise<bigint> {
    const bytes = pack(rec);
    // The then-callbacks run in the order the appends resolve, which is log order (one flush
    // resolves its records in sequence): writes are applied in the order they are logged.
    return this.wal.append(type, bytes).then((lsn) => {
      this.apply(type, bytes, lsn);
      return lsn;
    });
  }

  /** Applies one logged write, whole (no await inside: nothing interleaves with it). */
  private apply(type: number, bytes: Uint8Array, lsn: bigint): void {
    if (type === REC.upsert) {
      const r = unpack(bytes) as UpsertRecord;
      // The bytes come from a decoder's buffer: copy them to an aligned array before viewing floats.
      const all = new Float32Array(new Uint8Array(r.vectors).buffer);
      r.ids.forEach((id, i) => {
        const uuid = r.uuids?.[i];
        if (uuid) this.mapUuid(uuid, id);
        if (this.base?.has(id)) this.tombstones.add(id);
        this.fresh.upsert(id, all.slice(i * this.dim, (i + 1) * this.dim));
        const p = r.payloads[i];
        if (p) this.payloads.set(id, p);
        else this.payloads.delete(id);
      });
      this.applied.upserted += r.ids.length;
    } else if (type === REC.delete) {
      const r = unpack(bytes) as DeleteRecord;
      for (const id of r.ids) {
        this.fresh.delete(id);
        if (this.base?.has(id)) this.tombstones.add(id);
        this.payloads.delete(id);
      }
      this.applied.deleted += r.ids.length;
    } else if (type === REC.setPayload) {
      const r = unpack(bytes) as PayloadRecord;
      for (const id of r.ids) {
        if (!this.exists(id)) continue;
        this.payloads.set(id, r.overwrite ? { ...r.payload } : { ...(this.payloads.get(id) ?? {}), ...r.payload });
      }
    } else {
      throw new StrataError('STRATA_INDEX_CORRUPT', `${this.wal.file}: record ${lsn} has unknown type ${type}`, { file: this.wal.file, lsn: String(lsn) });
    }
    this.appliedLsn = lsn;
  }

  private mapUuid(uuid: string, id: number): void {
    this.uuidIds.set(uuid, id);
    this.idUuids.set(id, uuid);
    if (id >= this.nextUuidId) this.nextUuidId = id + 1;
  }

  /**
   * The internal id of a UUID point, or null; with `assign`, a UUID not seen before gets the next id
   * at once (so that two writes of it in flight agree), and the write that carries it logs the pair.
   */
  idOfUuid(uuid: string, assign: boolean): number | null {
    const known = this.uuidIds.get(uuid);
    if (known !== undefined || !assign) return known ?? null;
    const id = this.nextUuidId;
    this.mapUuid(uuid, id);
    return id;
  }

  /** The UUID of an internal id, or null (an integer id). */
  uuidOf(id: number): string | null {
    return this.idUuids.get(id) ?? null;
  }

  /** Whether `id` is a live point (fresh, or in the base and not hidden). */
  exists(id: number): boolean {
    return this.fresh.has(id) || (this.base?.has(id) === true && !this.tombstones.has(id));
  }

  /** Whether a base id is still served from the base (not deleted, not superseded). */
  baseLive(id: number): boolean {
    return !this.tombstones.has(id);
  }

  payload(id: number): Payload | null {
    return this.payloads.get(id) ?? null;
  }

  /** Live points: the base's unhidden ones plus the fresh ones. */
  count(): number {
    return (this.base?.count ?? 0) - this.tombstones.size + this.fresh.size;
  }

  /**
   * The log's durable prefix: every write acknowledged so far, whole, and nothing partial (a
   * snapshot of the collection is its config and this).
   */
  logPrefix(): Buffer {
    const n = this.wal.durableBytes;
    const out = Buffer.alloc(n);
    const fd = openSync(this.wal.file, 'r');
    try {
      let done = 0;
      while (done < n) {
        const r = readSync(fd, out, done, n - done, done);
        if (r === 0) throw new StrataError('STRATA_INDEX_CORRUPT', `${this.wal.file}: shorter than its ${n} durable bytes`, { file: this.wal.file });
        done += r;
      }
    } finally {
      closeSync(fd);
    }
    return out;
  }

  close(): Promise<void> {
    return this.wal.close();
  }
}
