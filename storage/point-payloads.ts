// The payloads of a collection's points and their payload indexes, numbered by row: every live point
// has a dense row (u32, reused after a delete), because the columnar store and the bitmaps want small
// dense numbers and point ids run to 2^53. A point keeps its row across upserts and compactions, so
// the bitmaps never move; `nodeOfRow` says where the point's vector is served from in the base index
// (-1: the fresh layer, or not yet placed), which the planner turns into a bitset over base nodes.
import { invalidArgument, quoted, StrataError } from '../common/errors.js';
import { stepsInOneTurn, stepsInTurns } from '../common/turns.js';
import { grownLength } from '../common/grown.js';
import { IdMap } from '../common/id-map.js';
import { ID_BANDS } from './point-ids.js';
import type { Filter, PointId } from '../index/filter/ast.js';
import { compile } from '../index/filter/evaluate.js';
import { parseKeyPath } from '../index/filter/key-path.js';
import { filterKey } from '../index/filter/to-json.js';
import { andNot, type Bitmap, bitmapOf, idsOf, or } from '../index/payload-index/bitmap.js';
import type { FilterMatches } from '../index/fresh/fresh-filtered.js';
import type { Cardinality, FacetValue } from '../index/payload-index/field-index.js';
import { FieldIndexes, type IndexDraft, orderSteps } from '../index/payload-index/field-indexes.js';
import type { RangePairs } from '../index/payload-index/sorted-values.js';
import { keywordValueCounts } from '../index/payload-index/index-bytes.js';
import { type BlockRows, chooseBlockSteps } from '../index/filter-links/blocks.js';
import { checkIndexParams, type IndexSpec, indexOptions, type PayloadIndexParams } from '../index/payload-index/params.js';
import { filterPoint } from '../index/payload/filter-view.js';
import { type PayloadSelector, selectorPaths, selectPayload } from '../index/payload/selector.js';
import { ChunkMemory, type ValuesPlacement } from '../index/payload/chunk-memory.js';
import { type Payload, PayloadStore } from '../index/payload/store.js';

/** A filter's exact answer over rows, and how it was found. */
export interface RowMatch {
  rows: Bitmap;
  /** The indexes' estimate before the exact count. */
  estimate: Cardinality;
  /** Part of the filter was checked per point (no index answers it). */
  residual: boolean;
}

/** Hands each (id, payload) a built base carries to `each`; returns its payload indexes (null: it has no payload file). */
export type BasePayloadSource = (each: (id: number, payload: Payload) => void) => IndexSpec[] | null;

/** Rows an index build visits between two turns of the event loop. */
const BUILD_CHUNK = 4096;

/** Rows whose payload a residual filter check reads between two yields (matchSteps). */
const RESIDUAL_STEP_ROWS = 8192;

/** Rows placeSteps maps between two yields: a hash lookup each. */
const PLACE_STEP_ROWS = 65_536;

/** Rows a capture (beginCapture) reads between two yields: a part of a saved state's payloads (live-store.ts encodeLiveState). */
export const CAPTURE_ROWS = 4096;

/**
 * A capture of every payload as it stood when it began (a compaction's cut), read in steps while
 * writes go on: a write to a row not read yet keeps the row's payload first (copy on write).
 */
interface Capture {
  /** Each row's point at the start (-1: a free row). */
  readonly ids: Float64Array;
  /** Payloads kept before a write changed them, by row. */
  readonly before: Map<number, Payload>;
  /** Rows below this are read already. */
  at: number;
}

/** An index built ahead of its log record: the rows written since it read them are read again when it is installed. */
interface Prepared {
  readonly draft: IndexDraft;
  readonly dirty: Set<number>;
  /** Every row read: only then may createIndex install it. */
  done: boolean;
  built?: Promise<void>;
}

/** How the store learns which internal id a filter's `has_id` names (UUIDs are the live store's to number). */
export type IdOf = (id: PointId) => number | null;

/**
 * Bytes of a collection's payloads: the values (in the CXL tier, where `valuesPlacement` says); the
 * rows' bookkeeping and the string dictionary's hash table, which filters and writes probe; each
 * index (the last two in DRAM).
 */
export interface PayloadBytes {
  values: number;
  valuesPlacement: ValuesPlacement;
  rows: number;
  indexes: Record<string, number>;
}

export class PointPayloads {
  private readonly store: PayloadStore;
  private readonly indexes: FieldIndexes;
  private readonly specs = new Map<string, PayloadIndexParams>();
  private readonly rows = new IdMap(1024, ID_BANDS);
  private ids = new Float64Array(1024);
  /** The base node serving each row's point, or -1. */
  private nodes = new Int32Array(1024).fill(-1);
  private readonly freeRows: number[] = [];
  private rowEnd = 0;
  /** See placement. */
  private placements = 0;
  /** Index builds by field and schema (see prepareIndex). */
  private readonly prepared = new Map<string, Prepared>();
  /** Bumped by every change: a filter answer cached with one version holds while it stays. */
  version = 0;
  /** The capture running, if any (beginCapture). */
  private capture: Capture | null = null;
  /** Bumped when an index is made or dropped: a filter's split between indexes and residual may change. */
  private indexEpoch = 0;
  /** The rows written during each residual check running over steps (matchSteps). */
  private readonly checking = new Set<Set<number>>();
  /** Filters' answers, as matchSteps found them at a version (match() reads them). */
  private readonly settled = new WeakMap<Filter, { version: number; match: RowMatch }>();

  /** memory: where the values live (index/payload/chunk-memory.ts); the rows and indexes stay in DRAM, where filters read them. */
  constructor(
    private readonly idOf: IdOf,
    private readonly externalId: (id: number) => PointId,
    memory: ChunkMemory = new ChunkMemory(),
  ) {
    this.store = new PayloadStore(memory);
    this.indexes = new FieldIndexes((ids) => this.rowsOfIds(ids));
  }

  /** One past the highest row in use: the size of a bitset over rows. */
  get rowCount(): number {
    return this.rowEnd;
  }

  /** Live points (rows in use). */
  get points(): number {
    return this.rows.size;
  }

  has(id: number): boolean {
    return this.rows.has(id);
  }

  /** The internal id of a row in use. */
  idOfRow(row: number): number {
    return this.ids[row]!;
  }

  /** The base node of each row (-1: none); a view, valid until the next write. */
  get nodeOfRow(): Int32Array {
    return this.nodes;
  }

  /** Records where a point's vector is served from in the base (-1: not there, or hidden). */
  placeNode(id: number, node: number): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    this.nodes[row] = node;
    this.placements++;
  }

  /** A row, without payload, for every point of a base (`forEach` gives each id and its node). */
  placeBase(forEach: (fn: (id: number, node: number) => void) => void): void {
    forEach((id, node) => {
      this.upsert(id, null);
      this.placeNode(id, node);
    });
  }

  /** The payloads and indexes a built base carries (strata build --payloads), over its placed points. */
  seed(source: BasePayloadSource): void {
    const specs = source((id, payload) => {
      if (!this.has(id))
        throw new StrataError('STRATA_INDEX_CORRUPT', `the base's payload file names point ${id}, which the base does not hold`, { id: String(id) });
      this.upsert(id, payload);
    });
    for (const spec of specs ?? []) this.createIndex(spec);
  }

  /** Every point placed anew: `nodeOf` gives each id's base node, or -1 (a compaction swapped the base). */
  placeAll(nodeOf: (id: number) => number): void {
    this.rows.forEach((id, row) => {
      this.nodes[row] = nodeOf(id);
    });
    this.placements++;
    this.version++;
  }

  /**
   * Each row's node in a base about to be swapped in (`nodeOf`; undefined: not there), computed in
   * steps while writes go on, for placeAhead to apply in one quick step. A row whose point a write
   * moves meanwhile must be named to placeAhead: its entry here may be stale.
   */
  *placeSteps(nodeOf: (id: number) => number | undefined, rowsPerStep = PLACE_STEP_ROWS): Generator<void, Int32Array, void> {
    const ahead = new Int32Array(this.rowEnd).fill(-1);
    for (let from = 0; from < ahead.length; from += rowsPerStep) {
      // Read afresh each step: a write between two steps may have grown the arrays.
      const ids = this.ids;
      for (let row = from, to = Math.min(ahead.length, from + rowsPerStep); row < to; row++) {
        const id = ids[row]!;
        if (id >= 0) ahead[row] = nodeOf(id) ?? -1;
      }
      yield;
    }
    return ahead;
  }

  /**
   * Places every point as placeSteps computed, the points of `moved` (upserted, updated or deleted
   * since those steps began: their rows may be new, reused or freed) served from no base node.
   */
  placeAhead(ahead: Int32Array, moved: Iterable<number>): void {
    const end = this.rowEnd;
    const nodes = this.nodes;
    const ids = this.ids;
    // Rows never shrink, and a row added since the steps began is a moved point's, placed below.
    nodes.set(ahead);
    for (let row = 0; row < end; row++) if (ids[row]! < 0) nodes[row] = -1;
    for (const id of moved) {
      const row = this.rows.get(id);
      if (row !== undefined) nodes[row] = -1;
    }
    this.placements++;
    this.version++;
  }

  /** A point written whole (an upsert): its payload replaced, or cleared with null. */
  upsert(id: number, payload: Readonly<Payload> | null): void {
    const row = this.rowFor(id);
    this.keep(row);
    if (payload === null) this.store.clear(row);
    else this.store.set(row, payload);
    this.reindex(row, payload);
  }

  /** A point deleted: its row is freed. */
  remove(id: number): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    this.keep(row);
    this.store.clear(row);
    this.indexes.remove(row);
    this.markDirty(row);
    this.rows.delete(id);
    this.nodes[row] = -1;
    this.placements++;
    this.ids[row] = -1;
    this.freeRows.push(row);
    this.version++;
  }

  /**
   * Qdrant's set_payload (top-level keys replaced) or, with `overwrite`, overwrite_payload, on each of
   * `ids` that has a row; with `key`, the same applied to the object at that key path (created when
   * missing).
   */
  write(ids: Iterable<number>, payload: Readonly<Payload>, overwrite: boolean, key?: string): void {
    const path = key === undefined ? null : selectorPaths([key], 'key')[0]!;
    // What the write may change: the keys it merges, or the one its key path starts with.
    const touched = path !== null ? new Set([path[0]!]) : overwrite ? null : new Set(Object.keys(payload));
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row === undefined) continue;
      this.keep(row);
      this.writeRow(row, payload, overwrite, path);
      this.reindexKeys(row, touched);
    }
  }

  private writeRow(row: number, payload: Readonly<Payload>, overwrite: boolean, path: readonly string[] | null): void {
    if (path === null && !overwrite) this.store.merge(row, payload);
    else if (path === null) this.store.set(row, payload);
    else {
      const whole = this.store.get(row);
      let o: Payload = whole;
      for (const k of path) {
        const next = Object.hasOwn(o, k) ? o[k] : undefined;
        const child: Payload = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as Payload) : {};
        o[k] = child;
        o = child;
      }
      if (overwrite) for (const k of Object.keys(o)) delete o[k];
      Object.assign(o, payload);
      this.store.set(row, whole);
    }
  }

  /** Qdrant's delete_payload on each of `ids` that has a row: the key paths (plain keys, `a.b`) removed. */
  deleteKeys(ids: Iterable<number>, keys: readonly string[]): void {
    const paths = selectorPaths(keys, 'keys');
    const touched = new Set(paths.map((p) => p[0]!));
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row === undefined) continue;
      this.keep(row);
      for (const path of paths) this.store.deletePath(row, path);
      this.reindexKeys(row, touched);
    }
  }

  /** Qdrant's clear_payload. */
  clear(id: number): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    this.keep(row);
    this.store.clear(row);
    this.reindex(row, null);
  }

  /** The payload of a point as `selector` asks, or null (no such point, or `false`). */
  get(id: number, selector: PayloadSelector = true): Payload | null {
    const row = this.rows.get(id);
    if (row === undefined) return null;
    return selectPayload(this.store, row, selector);
  }

  /** The payload as answers show it: null for none (no point, `false`, or a whole payload that is empty). */
  shown(id: number, selector: PayloadSelector = true): Payload | null {
    const p = this.get(id, selector);
    return p === null || (selector === true && Object.keys(p).length === 0) ? null : p;
  }

  /** Every point with a non-empty payload: what a compaction saves. */
  entries(): Array<[number, Payload]> {
    const out: Array<[number, Payload]> = [];
    this.rows.forEach((id, row) => {
      const p = this.store.get(row);
      if (Object.keys(p).length > 0) out.push([id, p]);
    });
    return out;
  }

  /**
   * Begins a capture of every point's payload as it stands now, which captureSteps reads while writes
   * go on (one at a time; endCapture drops it).
   */
  beginCapture(): void {
    if (this.capture !== null) throw new StrataError('STRATA_INTERNAL', 'a payload capture is running already', {});
    this.capture = { ids: this.ids.slice(0, this.rowEnd), before: new Map(), at: 0 };
  }

  /**
   * The capture's payloads, entries()'s pairs in parts (`part`: live-store.ts payloadPart), a part a
   * step of `rowsPerStep` rows, in row order; the capture ends with it.
   */
  *captureSteps(part: (pairs: Array<[number, Payload]>) => Uint8Array, rowsPerStep = CAPTURE_ROWS): Generator<void, Uint8Array[], void> {
    const c = this.capture;
    if (c === null) throw new StrataError('STRATA_INTERNAL', 'no payload capture is running', {});
    try {
      const parts: Uint8Array[] = [];
      while (c.at < c.ids.length) {
        const end = Math.min(c.ids.length, c.at + rowsPerStep);
        const pairs: Array<[number, Payload]> = [];
        for (let row = c.at; row < end; row++) {
          const id = c.ids[row]!;
          if (id < 0) continue;
          const p = c.before.get(row) ?? this.store.get(row);
          c.before.delete(row);
          if (Object.keys(p).length > 0) pairs.push([id, p]);
        }
        c.at = end;
        if (pairs.length > 0) parts.push(part(pairs));
        yield;
      }
      return parts;
    } finally {
      // Only its own: an abandoned capture read on may end after another has begun.
      if (this.capture === c) this.capture = null;
    }
  }

  /** Drops the capture, if one runs (a compaction abandoned). */
  endCapture(): void {
    this.capture = null;
  }

  /** Keeps a row's payload before a write changes it, while a capture has not read the row. */
  private keep(row: number): void {
    const c = this.capture;
    if (c === null || row < c.at || row >= c.ids.length || c.ids[row]! < 0 || c.before.has(row)) return;
    c.before.set(row, this.store.get(row));
  }

  /** Refuses an index request before it is logged: bad parameters, or another index on the key. */
  checkIndex(spec: IndexSpec): void {
    parseKeyPath(spec.field, 'field_name');
    const params = checkIndexParams(spec.params, 'field_schema');
    const had = this.specs.get(spec.field);
    if (had !== undefined && !sameParams(had, params))
      throw invalidArgument('field_name', `${quoted(spec.field)} has an index of another schema already (${had.type}): delete it first`);
  }

  /**
   * Creates the index of `field` over every point now (checked by checkIndex when it was asked); the
   * same index again is kept, another one on the key replaces it (the later of two requests that
   * raced past the check).
   */
  createIndex(spec: IndexSpec): void {
    const params = spec.params;
    const had = this.specs.get(spec.field);
    if (had !== undefined) {
      if (sameParams(had, params)) return;
      this.dropIndex(spec.field);
    }
    const key = preparedKey(spec);
    const ready = this.prepared.get(key);
    if (ready !== undefined) this.prepared.delete(key);
    if (ready?.done === true) {
      for (const row of ready.dirty) {
        ready.draft.remove(row);
        if (this.ids[row]! >= 0) ready.draft.add(row, this.store.get(row));
      }
      this.indexes.install(ready.draft);
    } else {
      this.indexes.createIndex(spec.field, params.type, indexOptions(params), this.allRows());
    }
    this.specs.set(spec.field, params);
    this.indexEpoch++;
    this.version++;
  }

  /**
   * Builds the index `spec` asks for over every point, a chunk of rows per turn of the event loop,
   * so that creating one over many points blocks nothing; createIndex then installs it, reading
   * again only the rows written since. Until createIndex or discardIndex, writes keep marking the rows they touch.
   */
  prepareIndex(spec: IndexSpec): Promise<void> {
    const key = preparedKey(spec);
    const running = this.prepared.get(key);
    if (running?.built !== undefined) return running.built;
    const had = this.specs.get(spec.field);
    if (had !== undefined && sameParams(had, spec.params)) return Promise.resolve();
    const job: Prepared = { draft: this.indexes.draft(spec.field, spec.params.type, indexOptions(spec.params)), dirty: new Set(), done: false };
    this.prepared.set(key, job);
    job.built = this.fill(key, job);
    return job.built;
  }

  private async fill(key: string, job: Prepared): Promise<void> {
    const end = this.rowEnd;
    for (let row = 0; row < end; row++) {
      if (row % BUILD_CHUNK === BUILD_CHUNK - 1) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        // Built by createIndex meanwhile, or discarded: nothing left to do.
        if (this.prepared.get(key) !== job) return;
      }
      if (this.ids[row]! >= 0 && !job.dirty.has(row)) job.draft.add(row, this.store.get(row));
    }
    // Its pairs sorted too, a step at a time, or its first range query would sort them all at once.
    if ((await stepsInTurns(orderSteps(job.draft.entry.index), () => this.prepared.get(key) !== job)) === null) return;
    job.done = true;
  }

  /** Every range index's pairs brought up to date a step at a time (FieldIndexes.orderSteps). */
  orderSteps(): Generator<void, void, void> {
    return this.indexes.orderSteps();
  }

  /** The pairs of the range indexes `filter` reads, brought up to date a step at a time. */
  orderStepsFor(filter: Filter): Generator<void, void, void> {
    return this.indexes.orderStepsFor(filter);
  }

  /** The pairs order_by reads of `key`, brought up to date a step at a time. */
  orderStepsOfKey(key: string): Generator<void, void, void> {
    return this.indexes.orderStepsOfKey(key);
  }

  /** Forgets an index build whose record was never applied (its write failed). */
  discardIndex(spec: IndexSpec): void {
    this.prepared.delete(preparedKey(spec));
  }

  dropIndex(field: string): void {
    this.indexes.drop(field);
    this.specs.delete(field);
    this.indexEpoch++;
    this.version++;
  }

  /** The indexes, as created. */
  indexSpecs(): IndexSpec[] {
    return [...this.specs].map(([field, params]) => ({ field, params }));
  }

  /** Each index's schema, parameters and the points it holds a value for. */
  schema(): Record<string, { data_type: PayloadIndexParams['type']; params?: PayloadIndexParams; points: number }> {
    const out: Record<string, { data_type: PayloadIndexParams['type']; params?: PayloadIndexParams; points: number }> = {};
    for (const [field, index] of this.indexes.entries()) {
      const params = this.specs.get(field)!;
      out[field] = { data_type: params.type, ...(params.type === 'text' ? { params } : {}), points: index.pointsIndexed };
    }
    return out;
  }

  /** Bytes of the payload values and of each index. */
  bytes(): PayloadBytes {
    const valuesPlacement = this.store.memory.placement();
    return {
      values: valuesPlacement.bytes,
      valuesPlacement,
      rows: this.rows.bytes() + this.ids.byteLength + this.nodes.byteLength + this.store.strings.tableBytes(),
      indexes: Object.fromEntries(this.indexBytes()),
    };
  }

  /** DRAM of each payload index, by field. */
  indexBytes(): Map<string, number> {
    return this.indexes.bytes();
  }

  /** Where the values are, as last verified (verifyValues). */
  valuesPlacement(): ValuesPlacement {
    return this.store.memory.placement();
  }

  /** Checks where the values' pages are (a bound store: every page's policy, then its node); see bytes(). */
  verifyValues(): void {
    this.store.memory.verify();
  }

  /**
   * The rows matching `filter`, exactly: the indexes' bitmap, then the residual checked per point
   * (or as matchSteps found them, while nothing has changed since).
   */
  match(filter: Filter): RowMatch {
    return stepsInOneTurn(this.matchSteps(filter, Number.POSITIVE_INFINITY));
  }

  /**
   * match(), the residual checked `rowsPerStep` rows a step, so that a filter no index answers does
   * not hold the event loop for every point. A write between two steps marks the rows it touches;
   * at the end the indexes are asked again, and the rows written since are checked again. The answer
   * (any answer) is kept for match() while nothing changes.
   */
  *matchSteps(filter: Filter, rowsPerStep = RESIDUAL_STEP_ROWS): Generator<void, RowMatch, void> {
    const settled = this.settled.get(filter);
    if (settled !== undefined && settled.version === this.version) return settled.match;
    // After many writes a range index sorts its pairs afresh: over steps here, not in the query below.
    yield* this.indexes.orderStepsFor(filter);
    const epoch = this.indexEpoch;
    const answer = this.indexes.query(filter);
    if (answer.residual === undefined) return this.settle(filter, { rows: answer.bitmap, estimate: this.indexes.estimate(filter), residual: false });
    const test = compile(answer.residual, this.indexes.compileOptions());
    const holds = (row: number): boolean => this.ids[row]! >= 0 && test(filterPoint(this.store, row, this.externalId(this.ids[row]!)));
    const written = new Set<number>();
    this.checking.add(written);
    try {
      const rows = idsOf(answer.bitmap);
      // Kept in place in the candidates' array (a JS array grown by push costs more than the check).
      let n = 0;
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        if (holds(row)) rows[n++] = row;
        if ((i + 1) % rowsPerStep === 0) yield;
      }
      let matched = bitmapOf(rows.subarray(0, n));
      if (written.size > 0 || this.indexEpoch !== epoch) {
        // An index made or dropped meanwhile splits the filter otherwise: checked again whole, in this step.
        if (this.indexEpoch !== epoch) return stepsInOneTurn(this.matchSteps(filter, Number.POSITIVE_INFINITY));
        // Only a written row can have left or joined the indexes' part (no index was made or dropped).
        const now = this.indexes.query(filter).bitmap;
        const rewritten = [...written].sort((a, b) => a - b);
        matched = or(andNot(matched, bitmapOf(rewritten)), bitmapOf(rewritten.filter((row) => now.has(row) && holds(row))));
      }
      return this.settle(filter, { rows: matched, estimate: this.indexes.estimate(filter), residual: true });
    } finally {
      this.checking.delete(written);
    }
  }

  /** Keeps a filter's answer for match() while nothing changes (the same filter object: one request's). */
  private settle(filter: Filter, match: RowMatch): RowMatch {
    this.settled.set(filter, { version: this.version, match });
    return match;
  }

  /**
   * Where a filter of one range condition on a numeric index lies in its sorted pairs (rows in value
   * order, valid until the next write), with the indexes' estimate; null for any other filter (match).
   */
  rangeRows(filter: Filter): { field: string; pairs: RangePairs; estimate: Cardinality } | null {
    const r = this.indexes.rangePairs(filter);
    return r === null ? null : { ...r, estimate: this.indexes.estimate(filter) };
  }

  /**
   * Qdrant's order_by: the first `limit` points (matching `filter`) by their values of `key` (its
   * integer, float or datetime index), each once at its first value met, ascending or descending,
   * from `start` on; ties by id. Errors name `field`.
   */
  orderBy(
    o: { key: string; descending: boolean; start: number | string | undefined },
    limit: number,
    filter: Filter | undefined,
    field: string,
  ): Array<{ id: number; value: number }> {
    const pairs = this.indexes.ordered(o.key, o.descending, o.start, field);
    const test = filter === undefined ? null : this.predicate(filter);
    const seen = new Set<number>();
    const out: Array<{ id: number; value: number }> = [];
    const step = o.descending ? -1 : 1;
    // Pairs of equal value are in row order; a run of them is gathered first, so ties go by id.
    for (let i = o.descending ? pairs.to - 1 : pairs.from; out.length < limit && i >= pairs.from && i < pairs.to; ) {
      const value = pairs.keys[i]!;
      const run: number[] = [];
      for (; i >= pairs.from && i < pairs.to && pairs.keys[i] === value; i += step) {
        const id = this.idOfRow(pairs.ids[i]!);
        if (!seen.has(id)) {
          seen.add(id);
          if (test === null || test(id)) run.push(id);
        }
      }
      for (const id of run.sort((a, b) => a - b)) if (out.length < limit) out.push({ id, value });
    }
    return out;
  }

  /** Bumped whenever a row's base node changes: what a cache over nodeOfRow keys on. */
  get placement(): number {
    return this.placements;
  }

  /**
   * Qdrant's facet: each value of `key`'s index with the points (matching `filter`, when given)
   * holding it. A key with no index that counts values (keyword, uuid, integer, bool) is refused.
   */
  facet(key: string, filter: Filter | undefined): Array<[FacetValue, number]> {
    const index = this.indexes.get(parseKeyPath(key, 'key').text);
    if (index?.facet === undefined)
      throw invalidArgument('key', `${quoted(key)} needs a keyword, uuid, integer or bool payload index to be faceted (PUT …/index)`);
    return index.facet(filter === undefined ? null : this.match(filter).rows);
  }

  /** Points per value of every keyword index (value runs are sized by them: index/tiered/value-runs.ts). */
  keywordValueCounts(): number[] {
    return keywordValueCounts(this.indexes);
  }

  /**
   * The filter-link blocks of the payload indexes (index/filter-links/blocks.ts chooseBlockSteps:
   * yielding between fields and values) over the points of a build, `labels` (each position's point
   * id): a point not among them is in no block.
   */
  *linkBlockSteps(labels: Float64Array): Generator<void, BlockRows[], void> {
    const position = new Int32Array(this.rowEnd).fill(-1);
    for (let i = 0; i < labels.length; i++) {
      const row = this.rows.get(labels[i]!);
      // A row freed or taken since is a hint gone stale, no more: a linked walk checks each point.
      if (row !== undefined && row < position.length) position[row] = i;
      if ((i + 1) % CAPTURE_ROWS === 0) yield;
    }
    return yield* chooseBlockSteps(this.indexes, (row) => (row < position.length ? position[row]! : -1), labels.length);
  }

  /** A test of one point against `filter` on its payload now (compiled once): what a search re-checks after a write. */
  predicate(filter: Filter): (id: number) => boolean {
    const test = compile(filter, this.indexes.compileOptions());
    return (id) => {
      const row = this.rows.get(id);
      return row !== undefined && test(filterPoint(this.store, row, this.externalId(id)));
    };
  }

  /**
   * Whether a point matches `filter`, answered from the filter's rows as the indexes give them
   * (match, once): cheap per point, for a search that asks of many (a sparse search's candidates).
   */
  matcher(filter: Filter): (id: number) => boolean {
    return this.matches(filter).accept;
  }

  /** The points matching `filter`, resolved once: a test by id, how many, and their ids (ascending row order). */
  matches(filter: Filter): FilterMatches {
    const { rows } = this.match(filter);
    const version = this.version;
    // Listed once, when first asked: a search may ask twice (its tiered base's part and its fresh part).
    let ids: Float64Array | null = null;
    let key: string | null = null;
    return {
      // The filter as written and the payloads' version: the same points while nothing changes.
      get key(): string {
        key ??= `${version}:${filterKey(filter)}`;
        return key;
      },
      accept: (id) => {
        const row = this.rows.get(id);
        return row !== undefined && rows.has(row);
      },
      count: rows.size,
      ids: () => {
        if (ids === null) {
          const at = idsOf(rows);
          ids = new Float64Array(at.length);
          for (let i = 0; i < at.length; i++) ids[i] = this.ids[at[i]!]!;
        }
        return ids;
      },
    };
  }

  /** The ids of the points matching `filter`, in ascending row order. */
  matchingIds(filter: Filter): number[] {
    return Array.from(this.matches(filter).ids());
  }

  private rowFor(id: number): number {
    const known = this.rows.get(id);
    if (known !== undefined) return known;
    const row = this.freeRows.pop() ?? this.rowEnd++;
    if (row >= this.ids.length) this.grow(row + 1);
    this.rows.set(id, row);
    this.ids[row] = id;
    this.nodes[row] = -1;
    return row;
  }

  private grow(n: number): void {
    const cap = grownLength(this.ids.length, n);
    const ids = new Float64Array(cap).fill(-1);
    ids.set(this.ids);
    const nodes = new Int32Array(cap).fill(-1);
    nodes.set(this.nodes);
    this.ids = ids;
    this.nodes = nodes;
    this.placements++;
  }

  private reindex(row: number, payload?: Readonly<Payload> | null): void {
    this.markDirty(row);
    if (this.specs.size === 0) this.indexes.add(row, null);
    else this.indexes.add(row, payload === undefined ? this.store.get(row) : payload);
    this.version++;
  }

  /**
   * reindex after a write under the top-level keys `touched` (null: any): only the indexed fields
   * under them are read again, and none when the write reaches no indexed field.
   */
  private reindexKeys(row: number, touched: ReadonlySet<string> | null): void {
    if (touched === null) {
      this.reindex(row);
      return;
    }
    this.markDirty(row);
    if (this.indexes.reaches(touched)) this.indexes.update(row, this.store.get(row), touched);
    this.version++;
  }

  private markDirty(row: number): void {
    for (const job of this.prepared.values()) job.dirty.add(row);
    for (const written of this.checking) written.add(row);
  }

  private *allRows(): IterableIterator<[number, Payload]> {
    for (let row = 0; row < this.rowEnd; row++) if (this.ids[row]! >= 0) yield [row, this.store.get(row)];
  }

  private rowsOfIds(ids: readonly PointId[]): Bitmap {
    const rows: number[] = [];
    for (const pid of ids) {
      const id = this.idOf(pid);
      const row = id === null ? undefined : this.rows.get(id);
      if (row !== undefined) rows.push(row);
    }
    return bitmapOf(rows);
  }
}

/** Two requests for the same index (parameters compared as logged). */
function sameParams(a: PayloadIndexParams, b: PayloadIndexParams): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function preparedKey(spec: IndexSpec): string {
  return `${spec.field}\u0000${JSON.stringify(spec.params)}`;
}
