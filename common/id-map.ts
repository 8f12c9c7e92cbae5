// A map from point ids (non-negative integers below 2^53) to non-negative int32 values, in typed
// arrays: open addressing with linear probing, so that a map of millions of points costs two typed
// arrays and nothing per entry on the V8 heap (a Map costs tens of bytes an entry and is scanned by
// every major GC).

const EMPTY = -1;
const GONE = -2;
/** Grow when this share of slots is used (live or gone). */
const MAX_LOAD = 0.7;

export class IdMap {
  private keys: Float64Array;
  private vals: Int32Array;
  private used = 0;
  size = 0;

  constructor(capacity = 1024) {
    let cap = 16;
    while (cap < capacity / MAX_LOAD) cap *= 2;
    this.keys = new Float64Array(cap).fill(EMPTY);
    this.vals = new Int32Array(cap);
  }

  get(id: number): number | undefined {
    const at = this.find(id);
    return at < 0 ? undefined : this.vals[at];
  }

  has(id: number): boolean {
    return this.find(id) >= 0;
  }

  set(id: number, value: number): void {
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
    const at = this.find(id);
    if (at < 0) return false;
    this.keys[at] = GONE;
    this.size--;
    return true;
  }

  /** Every (id, value), in no particular order; the map must not change meanwhile. */
  forEach(fn: (id: number, value: number) => void): void {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k >= 0) fn(k, this.vals[i]!);
    }
  }

  /** Bytes of the two arrays. */
  bytes(): number {
    return this.keys.byteLength + this.vals.byteLength;
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
