// Each point's values of one index, in typed arrays instead of a Map of small arrays. A point
// holding one value of a kind with a head type (a bool, a dictionary code, a number) keeps it in a
// column of that type, indexed by the point: one byte of state and one, four or eight of value. A
// point holding several values, or a value of several slots (a location, a token list), keeps them
// as a run of slots in one pool (u32 for kinds with an integer head, else float64; strings as codes
// of a dictionary of the distinct values), found by the point's start. The V8 heap then holds one
// entry per distinct string, never one per point. Rewritten points leave their old run behind; the
// pool is compacted when the dead runs outweigh the live ones.

import { grownLength } from '../../common/grown.js';
/** The typed column a kind's single values fit (u8: 0..255, u32: 0..2³²−1, both integers; f64: any). */
export type HeadType = 'u8' | 'u32' | 'f64';

/** How a kind's value becomes float64 slots and back. */
export interface ValueCodec<T> {
  /** Appends v's slots to `out`. */
  encode(v: T, out: number[]): void;
  /** The value whose slots begin at `at`, and where the next begins. */
  decode(src: Float64Array, at: number): { value: T; next: number };
  /** Where every value is one slot that fits it: the column a point's single value is kept in. */
  readonly head?: HeadType;
  /** Every slot is an integer in 0..2³²−1 (a token list's length and codes): runs take u32 slots. */
  readonly intSlots?: boolean;
}

export const NUMBER_CODEC: ValueCodec<number> = {
  encode: (v, out) => {
    out.push(v);
  },
  decode: (src, at) => ({ value: src[at]!, next: at + 1 }),
  head: 'f64',
};

/** A point's value counts (an array's length, 0 for null): small non-negative integers. */
export const COUNT_CODEC: ValueCodec<number> = { ...NUMBER_CODEC, head: 'u32' };

export const BOOL_CODEC: ValueCodec<boolean> = {
  encode: (v, out) => {
    out.push(v ? 1 : 0);
  },
  decode: (src, at) => ({ value: src[at] === 1, next: at + 1 }),
  head: 'u8',
};

/** Strings as codes of a dictionary of the distinct strings seen (kept while the index lives). */
export class StringCodec implements ValueCodec<string> {
  readonly head = 'u32';
  private readonly codes = new Map<string, number>();
  private readonly strings: string[] = [];
  code(s: string): number {
    let c = this.codes.get(s);
    if (c === undefined) {
      c = this.strings.length;
      this.strings.push(s);
      this.codes.set(s, c);
    }
    return c;
  }
  encode(v: string, out: number[]): void {
    out.push(this.code(v));
  }
  decode(src: Float64Array, at: number): { value: string; next: number } {
    return { value: this.strings[src[at]!]!, next: at + 1 };
  }
  /** Bytes of the dictionary, roughly (a Map entry and the string per distinct value). */
  bytes(): number {
    let n = 0;
    for (const s of this.strings) n += 64 + 2 * s.length;
    return n;
  }
}

/** A list of tokens (a text value): its length, then each token's code. */
export class TokensCodec implements ValueCodec<readonly string[]> {
  readonly intSlots = true;
  private readonly words = new StringCodec();
  encode(v: readonly string[], out: number[]): void {
    out.push(v.length);
    for (const t of v) out.push(this.words.code(t));
  }
  decode(src: Float64Array, at: number): { value: readonly string[]; next: number } {
    const n = src[at]!;
    const value: string[] = new Array(n);
    for (let i = 0; i < n; i++) value[i] = this.words.decode(src, at + 1 + i).value;
    return { value, next: at + 1 + n };
  }
}

export const GEO_CODEC: ValueCodec<{ lon: number; lat: number }> = {
  encode: (v, out) => {
    out.push(v.lon, v.lat);
  },
  decode: (src, at) => ({ value: { lon: src[at]!, lat: src[at + 1]! }, next: at + 2 }),
};

/** The room a column or the pool grows to (grownLength), never under 1,024. */
function grown(n: number): number {
  return grownLength(n, 1024);
}

type HeadArray = Uint8Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

function headArray(type: HeadType | undefined, n: number): HeadArray | null {
  if (type === 'u8') return new Uint8Array(n);
  if (type === 'u32') return new Uint32Array(n);
  if (type === 'f64') return new Float64Array(n);
  return null;
}

/** A point's state: no value, its one value in the head column, its values in a pool run. */
const NONE = 0;
const HEAD = 1;
const RUN = 2;

/**
 * A run's first slot: in a float64 pool it packs the value count and the slot count (count · 2³² +
 * slots); in a u32 pool it is the slot count (a kind with an integer head has a slot a value).
 */
const PACK = 2 ** 32;

export class PointValues<T> {
  private state = new Uint8Array(1024);
  private head: HeadArray | null;
  /** Each run point's run start in the pool; made at the first run (a field of single values has none). */
  private start: Int32Array<ArrayBuffer> | null = null;
  /** Runs of kinds with integer slots in u32 slots (a dictionary code takes four bytes, not eight). */
  private readonly narrow: boolean;
  private pool: Float64Array<ArrayBuffer> | Uint32Array<ArrayBuffer>;
  private end = 0;
  private dead = 0;
  private readonly scratch: number[] = [];
  private readonly one = new Float64Array(1);
  /** Points holding at least one value. */
  size = 0;

  constructor(private readonly codec: ValueCodec<T>) {
    this.head = headArray(codec.head, this.state.length);
    this.narrow = codec.head === 'u8' || codec.head === 'u32' || codec.intSlots === true;
    this.pool = this.poolOf(0);
  }

  private poolOf(n: number): Float64Array<ArrayBuffer> | Uint32Array<ArrayBuffer> {
    return this.narrow ? new Uint32Array(n) : new Float64Array(n);
  }

  /** Values in the run at `at`, of a kind with a slot a value (numbers, counts). */
  private countAt(at: number): number {
    return this.narrow ? this.pool[at]! : Math.floor(this.pool[at]! / PACK);
  }

  /** Slots of the run at `at`, its first included. */
  private slotsAt(at: number): number {
    return 1 + (this.narrow ? this.pool[at]! : this.pool[at]! % PACK);
  }

  get(id: number): readonly T[] | undefined {
    const s = id < this.state.length ? this.state[id]! : NONE;
    if (s === NONE) return undefined;
    if (s === HEAD) {
      this.one[0] = this.head![id]!;
      return [this.codec.decode(this.one, 0).value];
    }
    const at = this.start![id]!;
    const pool = this.pool;
    // A u32 run is read as float64 slots, as the codec decodes them.
    const src = pool instanceof Uint32Array ? Float64Array.from(pool.subarray(at + 1, at + this.slotsAt(at))) : pool;
    const end = pool instanceof Uint32Array ? src.length : at + this.slotsAt(at);
    const out: T[] = [];
    for (let i = pool instanceof Uint32Array ? 0 : at + 1; i < end; ) {
      const d = this.codec.decode(src, i);
      out.push(d.value);
      i = d.next;
    }
    return out;
  }

  set(id: number, values: readonly T[]): void {
    this.delete(id);
    if (values.length === 0) return;
    const enc = this.scratch;
    enc.length = 0;
    for (const v of values) this.codec.encode(v, enc);
    if (id >= this.state.length) this.growIds(id + 1);
    this.size++;
    if (this.head !== null && values.length === 1) {
      this.head[id] = enc[0]!;
      this.state[id] = HEAD;
      return;
    }
    if (this.start === null) this.start = new Int32Array(this.state.length);
    if (this.end + 1 + enc.length > this.pool.length) this.growPool(this.end + 1 + enc.length);
    // (A pool copied down moved the end: the run goes where it is now.)
    const at = this.end;
    this.pool[at] = this.narrow ? enc.length : values.length * PACK + enc.length;
    this.pool.set(enc, at + 1);
    this.start[id] = at;
    this.state[id] = RUN;
    this.end = at + 1 + enc.length;
  }

  delete(id: number): boolean {
    const s = id < this.state.length ? this.state[id]! : NONE;
    if (s === NONE) return false;
    if (s === RUN) this.dead += this.slotsAt(this.start![id]!);
    this.state[id] = NONE;
    this.size--;
    return true;
  }

  /** Each point holding values, in id order (values decoded per call: a text index's holders need only ids). */
  forEach(fn: (values: readonly T[], id: number) => void): void {
    for (let id = 0; id < this.state.length; id++) if (this.state[id] !== NONE) fn(this.get(id)!, id);
  }

  /**
   * Every (value, id) pair of points holding numbers, in id order (a point's values in its order),
   * read in place (NUMBER_CODEC): what a range index sorts, without an array per point.
   */
  numberPairs(this: PointValues<number>): { keys: Float64Array<ArrayBuffer>; ids: Uint32Array<ArrayBuffer>; idEnd: number } {
    const { state, head, start, pool } = this;
    let n = 0;
    let idEnd = 0;
    for (let id = 0; id < state.length; id++) {
      const s = state[id]!;
      if (s === NONE) continue;
      n += s === HEAD ? 1 : this.countAt(start![id]!);
      idEnd = id + 1;
    }
    const keys = new Float64Array(n);
    const ids = new Uint32Array(n);
    let i = 0;
    for (let id = 0; id < idEnd; id++) {
      const s = state[id]!;
      if (s === HEAD) {
        keys[i] = head![id]!;
        ids[i++] = id;
      } else if (s === RUN) {
        const at = start![id]!;
        for (let v = at + 1, e = v + this.countAt(at); v < e; v++) {
          keys[i] = pool[v]!;
          ids[i++] = id;
        }
      }
    }
    return { keys, ids, idEnd };
  }

  /**
   * Each point holding numbers, and those of them holding one `test` passes, in id order, read in
   * place (a slot a value): no array per point, as forEach makes.
   */
  scanNumbers(this: PointValues<number>, test: (v: number) => boolean): { held: Uint32Array; passing: Uint32Array } {
    // Typed arrays of the size known: growing JS arrays by push cost several times the scan itself.
    const held = new Uint32Array(this.size);
    const passing = new Uint32Array(this.size);
    let h = 0;
    let p = 0;
    const { state, head, start, pool } = this;
    for (let id = 0; id < state.length; id++) {
      const s = state[id]!;
      if (s === NONE) continue;
      held[h++] = id;
      if (s === HEAD) {
        if (test(head![id]!)) passing[p++] = id;
        continue;
      }
      const at = start![id]!;
      for (let v = at + 1, e = v + this.countAt(at); v < e; v++)
        if (test(pool[v]!)) {
          passing[p++] = id;
          break;
        }
    }
    return { held: held.subarray(0, h), passing: passing.subarray(0, p) };
  }

  bytes(): number {
    return this.state.byteLength + (this.head?.byteLength ?? 0) + (this.start?.byteLength ?? 0) + this.pool.byteLength;
  }

  private growIds(n: number): void {
    const cap = Math.max(n, grown(this.state.length));
    const state = new Uint8Array(cap);
    state.set(this.state);
    this.state = state;
    if (this.head !== null) {
      const head = headArray(this.codec.head, cap)!;
      head.set(this.head);
      this.head = head;
    }
    if (this.start !== null) {
      const start = new Int32Array(cap);
      start.set(this.start);
      this.start = start;
    }
  }

  /** Room for `need` slots: the live runs copied down when the dead ones are most of the pool, else a larger pool. */
  private growPool(need: number): void {
    const live = this.end - this.dead;
    if (this.dead <= live) {
      // Mostly live: one block copy, the runs where they were (a run-by-run copy of a large pool
      // blocks the event loop for as long as an index build's chunk).
      const pool = this.poolOf(Math.max(need, grown(this.pool.length)));
      pool.set(this.pool.subarray(0, this.end));
      this.pool = pool;
      return;
    }
    const pool = this.poolOf(Math.max(need - this.dead, grown(live), this.pool.length));
    const start = this.start!;
    let at = 0;
    for (let id = 0; id < this.state.length; id++) {
      if (this.state[id] !== RUN) continue;
      const s = start[id]!;
      const n = this.slotsAt(s);
      pool.set(this.pool.subarray(s, s + n), at);
      start[id] = at;
      at += n;
    }
    this.pool = pool;
    this.end = at;
    this.dead = 0;
  }
}
