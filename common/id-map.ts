// A map from point ids (non-negative integers below 2^53) to non-negative int32 values, in typed
// arrays: a direct array while the ids are dense, else open addressing with linear probing, so that a
// map of millions of points costs typed arrays and nothing per entry on the V8 heap (a Map costs tens
// of bytes an entry and is scanned by every major GC).

import { grownLength } from './grown.js';
const EMPTY = -1;
const GONE = -2;
/** Grow when this share of slots is used (live or gone). */
const MAX_LOAD = 0.7;

/**
 * While every id is, above the base of its band, below this many times the map's size (plus
 * DIRECT_FLOOR), the map is a direct array per band indexed by id: four bytes an id up to the
 * largest, against twelve a slot of the hash table, which stays 30–65% full. Ids 0..n, what most
 * collections use, never leave it; nor do ids numbered from a band's base in the order they come.
 */
const DIRECT_SPAN = 4;
const DIRECT_FLOOR = 65_536;

export class IdMap {
  /** Each band's values by id − its base, -1 for none, while the ids are dense; null once hashed. */
  private direct: Int32Array[] | null;
  private keys = new Float64Array(0);
  private vals = new Int32Array(0);
  private used = 0;
  size = 0;

  /**
   * @param capacity the entries expected: ids up to DIRECT_SPAN times it stay direct from the first
   *   (a base's labels come in node order, not id order, so its first id may be its largest)
   * @param bands the ids each direct array starts from, ascending from 0: a caller whose ids come in
   *   several dense runs (a collection's numeric ids from 0, its UUID points' from another base)
   */
  constructor(
    private readonly capacity = 1024,
    private readonly bands: readonly number[] = [0],
  ) {
    this.direct = bands.map(() => new Int32Array(Math.max(16, Math.min(capacity, DIRECT_FLOOR))).fill(EMPTY));
  }

  /** The band an id falls in. */
  private bandOf(id: number): number {
    let b = this.bands.length - 1;
    while (b > 0 && id < this.bands[b]!) b--;
    return b;
  }

  get(id: number): number | undefined {
    const d = this.direct;
    if (d !== null) {
      const b = this.bandOf(id);
      const at = id - this.bands[b]!;
      const v = at < d[b]!.length ? d[b]![at]! : EMPTY;
      return v < 0 ? undefined : v;
    }
    const at = this.find(id);
    return at < 0 ? undefined : this.vals[at];
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  set(id: number, value: number): void {
    if (this.direct !== null) {
      const b = this.bandOf(id);
      const at = id - this.bands[b]!;
      let d = this.direct[b]!;
      if (at >= d.length && at < DIRECT_SPAN * (Math.max(this.size, this.capacity) + 1) + DIRECT_FLOOR) {
        const grown = new Int32Array(grownLength(d.length, at + 1)).fill(EMPTY);
        grown.set(d);
        this.direct[b] = d = grown;
      }
      if (at < d.length) {
        if (d[at]! < 0) this.size++;
        d[at] = value;
        return;
      }
      this.toHashed();
    }
    const mask = this.keys.length - 1;
    let i = slotOf(id, mask);
    let grave = -1;
    for (;;) {
      const k = this.keys[i]!;
      if (k === id) {
        this.vals[i] = value;
        return;
      }
      if (k === EMPTY) break;
      if (k === GONE && grave < 0) grave = i;
      i = (i + 1) & mask;
    }
    if (grave >= 0) i = grave;
    else this.used++;
    this.keys[i] = id;
    this.vals[i] = value;
    this.size++;
    if (this.used > this.keys.length * MAX_LOAD) this.rehash(this.size * 2 > this.keys.length * MAX_LOAD ? this.keys.length * 2 : this.keys.length);
  }

  delete(id: number): boolean {
    if (this.direct !== null) {
      const b = this.bandOf(id);
      const at = id - this.bands[b]!;
      const d = this.direct[b]!;
      if (at >= d.length || d[at]! < 0) return false;
      d[at] = EMPTY;
      this.size--;
      return true;
    }
    const at = this.find(id);
    if (at < 0) return false;
    this.keys[at] = GONE;
    this.size--;
    return true;
  }

  /** Every (id, value), in no particular order; the map must not change meanwhile. */
  forEach(fn: (id: number, value: number) => void): void {
    if (this.direct !== null) {
      this.direct.forEach((d, b) => {
        const base = this.bands[b]!;
        for (let at = 0; at < d.length; at++) if (d[at]! >= 0) fn(base + at, d[at]!);
      });
      return;
    }
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k >= 0) fn(k, this.vals[i]!);
    }
  }

  /** Bytes of the arrays. */
  bytes(): number {
    return (this.direct?.reduce((n, d) => n + d.byteLength, 0) ?? 0) + this.keys.byteLength + this.vals.byteLength;
  }

  /** Leaves the direct arrays for the hash table (an id too far beyond its band's base came). */
  private toHashed(): void {
    const direct = this.direct!;
    this.direct = null;
    let cap = 16;
    while (cap * MAX_LOAD < 2 * (this.size + 1)) cap *= 2;
    this.keys = new Float64Array(cap).fill(EMPTY);
    this.vals = new Int32Array(cap);
    this.used = 0;
    this.size = 0;
    direct.forEach((d, b) => {
      const base = this.bands[b]!;
      for (let at = 0; at < d.length; at++) if (d[at]! >= 0) this.set(base + at, d[at]!);
    });
  }

  private find(id: number): number {
    const mask = this.keys.length - 1;
    let i = slotOf(id, mask);
    for (;;) {
      const k = this.keys[i]!;
      if (k === id) return i;
      if (k === EMPTY) return -1;
      i = (i + 1) & mask;
    }
  }

  private rehash(cap: number): void {
    const keys = this.keys;
    const vals = this.vals;
    this.keys = new Float64Array(cap).fill(EMPTY);
    this.vals = new Int32Array(cap);
    this.used = 0;
    this.size = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i]! >= 0) this.set(keys[i]!, vals[i]!);
  }
}

/** A slot for an id: the low and high words mixed (ids are dense integers, UUID ids start at 2^52). */
function slotOf(id: number, mask: number): number {
  const lo = id >>> 0;
  const hi = Math.floor(id / 4294967296) >>> 0;
  return (Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) >>> 0) & mask;
}
