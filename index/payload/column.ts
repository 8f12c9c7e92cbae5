// One typed column: the values of one flattened key path that have one kind, for every point. A
// point's value is a scalar (kept in a per-point slot) or an array of that kind (kept in an
// append-only pool, the point holding start and length); the `json` kind keeps the value as JSON
// text (UTF-8): MessagePack (msgpackr) would turn a `__proto__` key into `__proto_`, JSON.parse keeps
// it as data. A point's tag says which: so a column read allocates nothing but the value it returns.
import type { ChunkMemory } from './chunk-memory.js';
import { ByteArena, type ChunkedArray, f64Array, Pool, u8Array, u32Array } from './chunked.js';
import { PAYLOAD_LIMITS } from './limits.js';
import type { StringDictionary } from './strings.js';

export type ColumnKind = 'number' | 'string' | 'bool' | 'null' | 'json';

/** A scalar a typed column holds. */
export type Scalar = number | string | boolean | null;

export const TAG = { absent: 0, scalar: 1, array: 2 } as const;

type Slots = ChunkedArray<Float64Array | Uint32Array | Uint8Array>;

const ids = PAYLOAD_LIMITS.idsPerChunk;
const pooled = PAYLOAD_LIMITS.poolChunk;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function slotsFor(kind: ColumnKind, mem: ChunkMemory, chunk: number): Slots | undefined {
  if (kind === 'number') return f64Array(mem, chunk);
  if (kind === 'string' || kind === 'json') return u32Array(mem, chunk);
  if (kind === 'bool') return u8Array(mem, chunk);
  return undefined;
}

export class Column {
  readonly tag: ChunkedArray<Uint8Array>;
  private readonly scalar: Slots | undefined;
  /** json: the byte length per point (the address is in `scalar`). */
  private readonly jsonLength: ChunkedArray<Uint32Array> | undefined;
  private readonly json: ByteArena | undefined;
  /** Arrays: allocated when the first point holds one. */
  private arrays:
    | { start: ChunkedArray<Uint32Array>; length: ChunkedArray<Uint32Array>; pool: Pool<Float64Array | Uint32Array | Uint8Array> | undefined }
    | undefined;
  /** Points holding a value here. */
  live = 0;
  /** Pool elements no point refers to any more (rewritten arrays): reclaimed by serialize + deserialize. */
  dead = 0;

  constructor(
    readonly path: readonly string[],
    readonly kind: ColumnKind,
    private readonly strings: StringDictionary,
    private readonly mem: ChunkMemory,
  ) {
    this.tag = u8Array(mem, ids);
    this.scalar = slotsFor(kind, mem, ids);
    if (kind === 'json') {
      this.jsonLength = u32Array(mem, ids);
      this.json = new ByteArena(mem);
    }
  }

  has(id: number): boolean {
    return this.tag.get(id) !== TAG.absent;
  }

  private encode(v: Scalar): number {
    if (this.kind === 'string') return this.strings.intern(v as string);
    if (this.kind === 'bool') return v ? 1 : 0;
    return v as number;
  }

  private decode(x: number): Scalar {
    if (this.kind === 'string') return this.strings.text(x);
    if (this.kind === 'bool') return x === 1;
    if (this.kind === 'null') return null;
    return x;
  }

  /** Stores a scalar of this column's kind (for `json`: any JSON value); `raw`: already encoded (a string's code). */
  setScalar(id: number, v: unknown, raw = false): void {
    this.remove(id);
    if (this.kind === 'json') {
      const bytes = encoder.encode(JSON.stringify(v));
      this.scalar!.set(id, this.json!.append(bytes));
      this.jsonLength!.set(id, bytes.length);
    } else if (this.scalar !== undefined) this.scalar.set(id, raw ? (v as number) : this.encode(v as Scalar));
    this.tag.set(id, TAG.scalar);
    this.live++;
  }

  /** Stores a non-empty array of scalars of this column's kind; `raw`: already encoded. */
  setArray(id: number, vs: readonly unknown[], raw = false): void {
    this.remove(id);
    if (this.arrays === undefined) {
      const pool = slotsFor(this.kind, this.mem, pooled);
      this.arrays = { start: u32Array(this.mem, ids), length: u32Array(this.mem, ids), pool: pool && new Pool(pool) };
    }
    const a = this.arrays;
    const start = a.pool?.length ?? 0;
    if (a.pool !== undefined) for (const v of vs) a.pool.append(raw ? (v as number) : this.encode(v as Scalar));
    a.start.set(id, start);
    a.length.set(id, vs.length);
    this.tag.set(id, TAG.array);
    this.live++;
  }

  /** A typed column's stored scalar of a point, encoded (a string's code, a bool's 0 or 1, 0 for null). */
  rawScalar(id: number): number {
    return this.scalar?.get(id) ?? 0;
  }

  /** A typed column's stored array of a point, encoded. */
  rawArray(id: number): number[] {
    const a = this.arrays!;
    const start = a.start.get(id);
    const out = new Array<number>(a.length.get(id));
    for (let i = 0; i < out.length; i++) out[i] = a.pool?.items.get(start + i) ?? 0;
    return out;
  }

  remove(id: number): void {
    const t = this.tag.get(id);
    if (t === TAG.absent) return;
    if (t === TAG.array) this.dead += this.arrays!.length.get(id);
    this.tag.set(id, TAG.absent);
    this.live--;
  }

  /** The value of a point (undefined when it has none here), built fresh. */
  read(id: number): unknown {
    const t = this.tag.get(id);
    if (t === TAG.absent) return undefined;
    if (t === TAG.scalar) {
      if (this.kind === 'json') return JSON.parse(decoder.decode(this.json!.view(this.scalar!.get(id), this.jsonLength!.get(id))));
      return this.decode(this.scalar?.get(id) ?? 0);
    }
    const a = this.arrays!;
    const start = a.start.get(id);
    const n = a.length.get(id);
    const out = new Array<Scalar>(n);
    for (let i = 0; i < n; i++) out[i] = this.decode(a.pool?.items.get(start + i) ?? 0);
    return out;
  }

  /** Bytes allocated by this column (the shared string dictionary not included). */
  bytes(): number {
    let n = this.tag.bytes() + (this.scalar?.bytes() ?? 0) + (this.jsonLength?.bytes() ?? 0) + (this.json?.bytes() ?? 0);
    if (this.arrays !== undefined) n += this.arrays.start.bytes() + this.arrays.length.bytes() + (this.arrays.pool?.items.bytes() ?? 0);
    return n;
  }
}

/** The column kind and shape a leaf value goes to; `json` for what no typed column holds. */
export function classify(v: unknown): { kind: ColumnKind; array: boolean } {
  if (Array.isArray(v)) {
    if (v.length === 0) return { kind: 'json', array: false };
    const k = scalarKind(v[0]);
    if (k === undefined) return { kind: 'json', array: false };
    for (let i = 1; i < v.length; i++) if (scalarKind(v[i]) !== k) return { kind: 'json', array: false };
    return { kind: k, array: true };
  }
  return { kind: scalarKind(v) ?? 'json', array: false };
}

function scalarKind(v: unknown): Exclude<ColumnKind, 'json'> | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    default:
      return undefined;
  }
}
