// The registry of a collection's payload indexes (field key → index), and how a whole filter is
// answered from them: bitmaps combined by must (AND), should (OR), must_not (the live ids ANDNOT) and
// min_should (a count per id), and whatever no index answers exactly handed back as a residual filter
// the planner checks per point with the evaluator. The split is exact: a point matches the filter
// if and only if it is in `bitmap` and matches `residual`.
import type { Condition, Filter, PointId } from '../filter/ast.js';
import type { CompileOptions } from '../filter/evaluate.js';
import { compileReader, type KeyPath, type PathReader, parseKeyPath } from '../filter/key-path.js';
import type { Tokenizer } from '../filter/tokenize.js';
import { parseDatetime } from '../filter/datetime.js';
import { invalidArgument, quoted } from '../../common/errors.js';
import { and, andNot, type Bitmap, bitmapOf, emptyBitmap, orAll } from './bitmap.js';
import { BoolIndex } from './bool-index.js';
import { DatetimeIndex } from './datetime-index.js';
import { allOf, anyOf, atLeast, not, unknown } from './estimate.js';
import { type Cardinality, exactly, type FieldSchema, type IndexableCondition, type PayloadFieldIndex } from './field-index.js';
import { FloatIndex } from './float-index.js';
import { GeoIndex } from './geo-index.js';
import { IntegerIndex } from './integer-index.js';
import { KeywordIndex } from './keyword-index.js';
import { NumericIndex } from './numeric-index.js';
import type { OrderedPairs, RangePairs } from './sorted-values.js';
import { TextIndex } from './text-index.js';
import { UuidIndex } from './uuid-index.js';

/** A point's payload as the evaluator takes it (null or absent: no fields). */
export type Payload = Readonly<Record<string, unknown>> | null | undefined;

export interface IndexOptions {
  /** The tokeniser of a `text` index (required for one). */
  readonly tokenizer?: Tokenizer;
  /** The grid cell side of a `geo` index, in degrees. */
  readonly cellDegrees?: number;
}

export interface FilterAnswer {
  /** The ids that pass the indexed part of the filter (every live id when nothing was indexed). */
  readonly bitmap: Bitmap;
  /** What is left to check per point, or undefined when `bitmap` is the exact answer. */
  readonly residual: Filter | undefined;
}

export interface FieldEntry {
  readonly key: KeyPath;
  /** The top-level key the path starts with: a payload write re-indexes the field when it touches it. */
  readonly top: string;
  readonly read: PathReader;
  readonly index: PayloadFieldIndex;
}

/** The top-level key a key path starts with (its first step is always a key). */
function topKey(path: KeyPath): string {
  const first = path.steps[0]!;
  return first.kind === 'key' ? first.name : '';
}

function makeIndex(schema: FieldSchema, options: IndexOptions, field: string): PayloadFieldIndex {
  switch (schema) {
    case 'keyword':
      return new KeywordIndex();
    case 'uuid':
      return new UuidIndex();
    case 'integer':
      return new IntegerIndex();
    case 'float':
      return new FloatIndex();
    case 'datetime':
      return new DatetimeIndex();
    case 'bool':
      return new BoolIndex();
    case 'geo':
      return new GeoIndex(options.cellDegrees);
    case 'text':
      if (options.tokenizer === undefined) throw invalidArgument(field, 'a text index needs a tokenizer');
      return new TextIndex(options.tokenizer);
  }
}

/** The part of a filter clause an index answered, and what is left of it. */
interface Split {
  /** undefined: no constraint from indexes (every live id). */
  readonly bitmap: Bitmap | undefined;
  readonly residual: Condition | undefined;
}

/** An index being built: see FieldIndexes.draft. */
export interface IndexDraft {
  readonly key: KeyPath;
  add(id: number, payload: Payload): void;
  remove(id: number): void;
  /** The registry's own record of it. */
  readonly entry: FieldEntry;
}

/** The internal ids of points named by id (`has_id`), from whoever numbers them: the collection. */
export type IdResolver = (ids: readonly PointId[]) => Bitmap;

export class FieldIndexes {
  private readonly fields = new Map<string, FieldEntry>();
  private readonly live = emptyBitmap();
  /** Bumped by every write and every index installed or dropped: what shapeSizes is valid for. */
  private writes = 0;
  /**
   * The sizes query() found for conditions on the points' shape (values_count, is_empty, is_null),
   * which an index answers with a scan of its value counts and estimates by the same scan: estimate()
   * after query() on the same filter takes the size instead of scanning again.
   */
  private readonly shapeSizes = new WeakMap<Condition, { writes: number; size: number }>();

  /** With `hasId`, `has_id` conditions are answered exactly (otherwise they stay residual). */
  constructor(private readonly hasId?: IdResolver) {}

  /**
   * Creates the index of `key` (a key path as Qdrant spells it); one index per key. The registry keeps
   * no payloads, so once points are indexed a new index must be given all of them (`existing`).
   */
  createIndex(key: string, schema: FieldSchema, options: IndexOptions = {}, existing?: Iterable<readonly [number, Payload]>): void {
    if (this.live.size > 0 && existing === undefined) throw invalidArgument('field_name', 'points are indexed already: pass them all to build the new index');
    const draft = this.draft(key, schema, options);
    for (const [id, payload] of existing ?? []) draft.add(id, payload);
    this.install(draft);
  }

  /**
   * A new index of `key`, not yet answering filters: its owner fills it point by point (so that a
   * build over many points can yield between chunks) and then installs it.
   */
  draft(key: string, schema: FieldSchema, options: IndexOptions = {}): IndexDraft {
    const path = parseKeyPath(key, 'field_name');
    if (this.fields.has(path.text)) throw invalidArgument('field_name', `${quoted(path.text)} has an index already`);
    const index = makeIndex(schema, options, 'field_schema');
    const read = compileReader(path);
    return {
      key: path,
      add: (id, payload) => index.add(id, read(payload)),
      remove: (id) => index.remove(id),
      entry: { key: path, top: topKey(path), read, index },
    };
  }

  /** Makes a filled draft answer filters; its owner has given it every point's payload now. */
  install(draft: IndexDraft): void {
    if (this.fields.has(draft.key.text)) throw invalidArgument('field_name', `${quoted(draft.key.text)} has an index already`);
    this.fields.set(draft.key.text, draft.entry);
    this.writes++;
  }

  /** Drops the index of `key`; false when there was none. */
  drop(key: string): boolean {
    this.writes++;
    return this.fields.delete(parseKeyPath(key, 'field_name').text);
  }

  /** The indexed keys, with their indexes. */
  entries(): Array<[string, PayloadFieldIndex]> {
    return [...this.fields].map(([k, e]) => [k, e.index]);
  }

  /** Every range index's pairs brought up to date over steps (orderSteps), so that no query sorts them whole. */
  *orderSteps(): Generator<void, void, void> {
    for (const [, index] of this.entries()) yield* orderSteps(index);
  }

  /** orderSteps for the index order_by reads of `key` (nothing where it has none: ordered() says why). */
  *orderStepsOfKey(key: string): Generator<void, void, void> {
    let text: string;
    try {
      text = parseKeyPath(key, 'key').text;
    } catch {
      return;
    }
    const index = this.fields.get(text)?.index;
    if (index !== undefined) yield* orderSteps(index);
  }

  /** orderSteps for the range indexes `filter`'s conditions read (those splitFilter asks), each once. */
  *orderStepsFor(filter: Filter): Generator<void, void, void> {
    const read = new Set<PayloadFieldIndex>();
    const visit = (f: Filter): void => {
      for (const c of [...(f.must ?? []), ...(f.should ?? []), ...(f.must_not ?? []), ...(f.min_should?.conditions ?? [])]) {
        if (c.kind === 'filter') visit(c.filter);
        else {
          const index = this.indexFor(c);
          if (index !== undefined) read.add(index);
        }
      }
    };
    visit(filter);
    for (const index of read) yield* orderSteps(index);
  }

  /**
   * The (value, row) pairs of `key`'s integer, float or datetime index (datetimes in microseconds) in
   * value order, from `start` on in the direction asked: what order_by reads. A key without such an
   * index is a 400 naming `field`, as is a start of the wrong kind.
   */
  ordered(key: string, descending: boolean, start: number | string | undefined, field: string): OrderedPairs {
    const index = this.fields.get(parseKeyPath(key, `${field}.key`).text)?.index;
    if (!(index instanceof NumericIndex || index instanceof DatetimeIndex))
      throw invalidArgument(`${field}.key`, `${quoted(key)} needs an integer, float or datetime payload index to order by (PUT …/index)`);
    let at: number | undefined;
    if (start !== undefined) {
      at = index instanceof DatetimeIndex ? (typeof start === 'string' ? parseDatetime(start) : undefined) : typeof start === 'number' ? start : undefined;
      if (at === undefined)
        throw invalidArgument(`${field}.start_from`, index instanceof DatetimeIndex ? 'must be an RFC 3339 datetime for a datetime index' : 'must be a number');
    }
    return index.ordered(at === undefined ? {} : descending ? { lte: at } : { gte: at });
  }

  get(key: string): PayloadFieldIndex | undefined {
    return this.fields.get(key)?.index;
  }

  /** Indexes a point's payload (a point indexed already is replaced: an update is add again). */
  add(id: number, payload: Payload): void {
    this.writes++;
    this.live.add(id);
    for (const e of this.fields.values()) e.index.add(id, e.read(payload));
  }

  /**
   * Indexes a point's payload again where a write may have changed it: the fields under the top-level
   * keys in `touched` (a set_payload of a flag then costs none of the others' postings).
   */
  update(id: number, payload: Payload, touched: ReadonlySet<string>): void {
    this.writes++;
    for (const e of this.fields.values()) if (touched.has(e.top)) e.index.add(id, e.read(payload));
  }

  /** Whether a write under these top-level keys reaches an indexed field. */
  reaches(touched: ReadonlySet<string>): boolean {
    for (const e of this.fields.values()) if (touched.has(e.top)) return true;
    return false;
  }

  remove(id: number): void {
    this.writes++;
    this.live.remove(id);
    for (const e of this.fields.values()) e.index.remove(id);
  }

  /** Every live id (a copy). */
  all(): Bitmap {
    return this.live.clone();
  }

  /** The evaluator options that make its text matching agree with these indexes. */
  compileOptions(): CompileOptions {
    return {
      textIndex: (key) => {
        const index = this.fields.get(key.text)?.index;
        return index instanceof TextIndex ? index.tokenizer : undefined;
      },
    };
  }

  /** DRAM the indexes hold, per key, in bytes. */
  bytes(): Map<string, number> {
    return new Map([...this.fields].map(([k, e]) => [k, e.index.bytes()]));
  }

  /** The filter split into the ids its indexed part selects and the residual to check per point. */
  query(filter: Filter): FilterAnswer {
    const s = this.splitFilter(filter);
    return { bitmap: s.bitmap ?? this.live.clone(), residual: s.residual === undefined ? undefined : asFilter(s.residual) };
  }

  /**
   * Where a filter of one range condition on a numeric index lies in that index's sorted pairs, with
   * the field; null for any other filter. The one filter users vary per query (a price, a date
   * window) is then resolved without a bitmap in between.
   */
  rangePairs(filter: Filter): { field: string; pairs: RangePairs } | null {
    if ((filter.should?.length ?? 0) > 0 || (filter.must_not?.length ?? 0) > 0 || filter.min_should !== undefined) return null;
    const c = filter.must?.length === 1 ? filter.must[0]! : undefined;
    if (c?.kind !== 'range') return null;
    const index = this.fields.get(c.key.text)?.index;
    return index instanceof NumericIndex ? { field: c.key.text, pairs: index.pairsWithin(c.range) } : null;
  }

  /** Bounds on how many live points match `filter`. */
  estimate(filter: Filter): Cardinality {
    return this.estimateFilter(filter, this.live.size);
  }

  private indexFor(c: Condition): PayloadFieldIndex | undefined {
    return 'key' in c && c.kind !== 'nested' ? this.fields.get(c.key.text)?.index : undefined;
  }

  private splitCondition(c: Condition): Split {
    if (c.kind === 'filter') return this.splitFilter(c.filter);
    if (c.kind === 'has_id' && this.hasId !== undefined) return { bitmap: and(this.hasId(c.ids), this.live), residual: undefined };
    const bitmap = this.indexFor(c)?.filter(c as IndexableCondition, { all: this.live }) ?? null;
    if (bitmap !== null && SHAPE_KINDS.has(c.kind)) this.shapeSizes.set(c, { writes: this.writes, size: bitmap.size });
    return bitmap === null ? { bitmap: undefined, residual: c } : { bitmap, residual: undefined };
  }

  /** The exact ids of a condition, or undefined when part of it needs a check per point. */
  private exact(c: Condition): Bitmap | undefined {
    const s = this.splitCondition(c);
    return s.residual !== undefined ? undefined : (s.bitmap ?? this.live.clone());
  }

  private splitFilter(f: Filter): Split {
    const bitmaps: Bitmap[] = [];
    const rest: { must: Condition[]; must_not: Condition[]; should?: readonly Condition[]; min_should?: Filter['min_should'] } = { must: [], must_not: [] };
    for (const c of f.must ?? []) {
      const s = this.splitCondition(c);
      if (s.bitmap !== undefined) bitmaps.push(s.bitmap);
      if (s.residual !== undefined) rest.must.push(s.residual);
    }
    if (f.must_not !== undefined) {
      const out: Bitmap[] = [];
      for (const c of f.must_not) {
        const b = this.exact(c);
        if (b === undefined) rest.must_not.push(c);
        else out.push(b);
      }
      if (out.length > 0) bitmaps.push(andNot(this.live, orAll(out)));
    }
    if (f.should !== undefined) {
      const bs = f.should.map((c) => this.exact(c));
      if (bs.every((b) => b !== undefined)) bitmaps.push(orAll(bs as Bitmap[]));
      else rest.should = f.should;
    }
    if (f.min_should !== undefined) {
      const bs = f.min_should.conditions.map((c) => this.exact(c));
      if (bs.every((b) => b !== undefined)) bitmaps.push(this.atLeast(bs as Bitmap[], f.min_should.min_count));
      else rest.min_should = f.min_should;
    }
    const bitmap = bitmaps.length === 0 ? undefined : bitmaps.reduce((a, b) => and(a, b));
    const residual: Filter = {
      ...(rest.must.length > 0 ? { must: rest.must } : {}),
      ...(rest.must_not.length > 0 ? { must_not: rest.must_not } : {}),
      ...(rest.should !== undefined ? { should: rest.should } : {}),
      ...(rest.min_should !== undefined ? { min_should: rest.min_should } : {}),
    };
    return { bitmap, residual: Object.keys(residual).length === 0 ? undefined : { kind: 'filter', filter: residual } };
  }

  /** The live ids in at least `k` of the bitmaps. */
  private atLeast(bitmaps: readonly Bitmap[], k: number): Bitmap {
    if (k <= 0) return this.live.clone();
    const counts = new Map<number, number>();
    for (const b of bitmaps) for (const id of b) counts.set(id, (counts.get(id) ?? 0) + 1);
    const hits: number[] = [];
    for (const [id, n] of counts) if (n >= k) hits.push(id);
    return bitmapOf(hits);
  }

  private estimateCondition(c: Condition, total: number): Cardinality {
    if (c.kind === 'filter') return this.estimateFilter(c.filter, total);
    if (c.kind === 'has_id') return { min: 0, exp: Math.min(total, c.ids.length), max: Math.min(total, c.ids.length) };
    const index = this.indexFor(c);
    if (index === undefined) return unknown(total);
    const found = this.shapeSizes.get(c);
    if (found !== undefined && found.writes === this.writes) return exactly(found.size);
    return index.cardinality(c as IndexableCondition, { all: this.live }) ?? unknown(total);
  }

  private estimateFilter(f: Filter, total: number): Cardinality {
    const parts: Cardinality[] = [];
    const each = (cs: readonly Condition[]): Cardinality[] => cs.map((c) => this.estimateCondition(c, total));
    if (f.must !== undefined) parts.push(allOf(each(f.must), total));
    if (f.must_not !== undefined)
      parts.push(
        allOf(
          each(f.must_not).map((c) => not(c, total)),
          total,
        ),
      );
    if (f.should !== undefined) parts.push(anyOf(each(f.should), total));
    if (f.min_should !== undefined) parts.push(atLeast(each(f.min_should.conditions), f.min_should.min_count, total));
    return parts.length === 0 ? exactly(total) : allOf(parts, total);
  }
}

/** Conditions an index answers from the points' value counts (FieldIndexBase), estimated by the same scan. */
const SHAPE_KINDS: ReadonlySet<Condition['kind']> = new Set(['values_count', 'is_empty', 'is_null']);

/** A residual condition as a filter (unwrapping the nested-filter form the split builds). */
function asFilter(c: Condition): Filter {
  return c.kind === 'filter' ? c.filter : { must: [c] };
}

/** An index's pairs brought up to date over steps, when it keeps sorted pairs (integer, float, datetime). */
export function* orderSteps(index: PayloadFieldIndex): Generator<void, void, void> {
  if (index instanceof NumericIndex || index instanceof DatetimeIndex) yield* index.orderSteps();
}
