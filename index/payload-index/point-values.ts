// Each point's values of one index, in typed arrays instead of a Map of small arrays: a point's
// values are encoded as a run of float64 slots in one pool (strings as codes of a dictionary of the
// distinct values), found by the point's start and length. The V8 heap then holds one entry per
// distinct string, never one per point. Rewritten points leave their old run behind; the pool is
// compacted when the dead runs outweigh the live ones.

/** How a kind's value becomes float64 slots and back. */
export interface ValueCodec<T> {
  /** Appends v's slots to `out`. */
  encode(v: T, out: number[]): void;
  /** The value whose slots begin at `at`, and where the next begins. */
  decode(src: Float64Array, at: number): { value: T; next: number };
}

export const NUMBER_CODEC: ValueCodec<number> = {
  encode: (v, out) => {
    out.push(v);
  },
  decode: (src, at) => ({ value: src[at]!, next: at + 1 }),
};

export const BOOL_CODEC: ValueCodec<boolean> = {
  encode: (v, out) => {
    out.push(v ? 1 : 0);
  },
  decode: (src, at) => ({ value: src[at] === 1, next: at + 1 }),
};

/** Strings as codes of a dictionary of the distinct strings seen (kept while the index lives). */
export class StringCodec implements ValueCodec<string> {
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

export class PointValues<T> {
  private start: Int32Array<ArrayBuffer> = new Int32Array(1024);
  /** Values per point (0: none). */
  private count: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private slots: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private pool = new Float64Array(4096);
  private end = 0;
  private dead = 0;
  private readonly scratch: number[] = [];
  /** Points holding at least one value. */
  size = 0;

  constructor(private readonly codec: ValueCodec<T>) {}

  get(id: number): readonly T[] | undefined {
    const n = id < this.count.length ? this.count[id]! : 0;
    if (n === 0) return undefined;
    const out: T[] = new Array(n);
    let at = this.start[id]!;
    for (let i = 0; i < n; i++) {
      const d = this.codec.decode(this.pool, at);
      out[i] = d.value;
      at = d.next;
    }
    return out;
  }

  set(id: number, values: readonly T[]): void {
    this.delete(id);
    if (values.length === 0) return;
    const enc = this.scratch;
    enc.length = 0;
    for (const v of values) this.codec.encode(v, enc);
    if (id >= this.count.length) this.growIds(id + 1);
    if (this.end + enc.length > this.pool.length) this.growPool(this.end + enc.length);
    this.pool.set(enc, this.end);
    this.start[id] = this.end;
    this.slots[id] = enc.length;
    this.count[id] = values.length;
    this.end += enc.length;
    this.size++;
  }

  delete(id: number): boolean {
    if (id >= this.count.length || this.count[id] === 0) return false;
    this.dead += this.slots[id]!;
    this.count[id] = 0;
    this.size--;
    return true;
  }

  /** Each point holding values, in id order (values decoded per call: a text index's holders need only ids). */
  forEach(fn: (values: readonly T[], id: number) => void): void {
    for (let id = 0; id < this.count.length; id++) if (this.count[id]! > 0) fn(this.get(id)!, id);
  }

  /**
   * Every (value, id) pair of points holding numbers, in id order (a point's values in its order),
   * read in place (NUMBER_CODEC): what a range index sorts, without an array per point.
   */
  numberPairs(this: PointValues<number>): { keys: Float64Array<ArrayBuffer>; ids: Uint32Array<ArrayBuffer>; idEnd: number } {
    const { count, start, pool } = this;
    let n = 0;
    let idEnd = 0;
    for (let id = 0; id < count.length; id++) {
      const c = count[id]!;
      if (c === 0) continue;
      n += c;
      idEnd = id + 1;
    }
    const keys = new Float64Array(n);
    const ids = new Uint32Array(n);
    let i = 0;
    for (let id = 0; id < idEnd; id++)
      for (let at = start[id]!, end = at + count[id]!; at < end; at++) {
        keys[i] = pool[at]!;
        ids[i++] = id;
      }
    return { keys, ids, idEnd };
  }

  /**
   * Each point holding numbers, and those of them holding one `test` passes, in id order, read in
   * place (NUMBER_CODEC: a slot a value): no array per point, as forEach makes.
   */
  scanNumbers(this: PointValues<number>, test: (v: number) => boolean): { held: Uint32Array; passing: Uint32Array } {
    // Typed arrays of the size known: growing JS arrays by push cost several times the scan itself.
    const held = new Uint32Array(this.size);
    const passing = new Uint32Array(this.size);
    let h = 0;
    let p = 0;
    const { count, start, pool } = this;
    for (let id = 0; id < count.length; id++) {
      const n = count[id]!;
      if (n === 0) continue;
      held[h++] = id;
      for (let at = start[id]!, end = at + n; at < end; at++)
        if (test(pool[at]!)) {
          passing[p++] = id;
          break;
        }
    }
    return { held: held.subarray(0, h), passing: passing.subarray(0, p) };
  }

  bytes(): number {
    return this.start.byteLength + this.count.byteLength + this.slots.byteLength + this.pool.byteLength;
  }

  private growIds(n: number): void {
    const cap = Math.max(n, 2 * this.count.length);
    const grow = (a: Int32Array): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(cap);
      b.set(a);
      return b;
    };
    this.start = grow(this.start);
    this.count = grow(this.count);
    this.slots = grow(this.slots);
  }

  /** Room for `need` slots: the live runs copied down when the dead ones are most of the pool, else a larger pool. */
  private growPool(need: number): void {
    const live = this.end - this.dead;
    const cap = Math.max(need - this.dead, 2 * live, 4096);
    if (this.dead <= live) {
      // Mostly live: one block copy, the runs where they were (a run-by-run copy of a large pool
      // blocks the event loop for as long as an index build's chunk).
      const pool = new Float64Array(Math.max(need, 2 * this.pool.length));
      pool.set(this.pool.subarray(0, this.end));
      this.pool = pool;
      return;
    }
    const pool = new Float64Array(Math.max(cap, this.pool.length));
    let at = 0;
    for (let id = 0; id < this.count.length; id++) {
      if (this.count[id] === 0) continue;
      const s = this.start[id]!;
      const n = this.slots[id]!;
      pool.set(this.pool.subarray(s, s + n), at);
      this.start[id] = at;
      at += n;
    }
    this.pool = pool;
    this.end = at;
    this.dead = 0;
  }
}
