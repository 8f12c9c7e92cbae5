// A collection's UUID points and their internal ids, both ways, in typed arrays: each UUID's 16 bytes
// at its id's offset from UUID_ID_BASE (ids are numbered from there in the order UUIDs first come),
// and an open-addressing table from the bytes back to the offset. Two Maps of strings held a string
// and two entries a point on the V8 heap, which every major GC scans: the UUIDs LangChain and
// LlamaIndex write by default made that most points.
import { fnv1a, sameBytesAt } from '../common/byte-hash.js';
import { StrataError } from '../common/errors.js';
import { grownLength } from '../common/grown.js';
import { UUID_ID_BASE } from './point-ids.js';

const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Where each byte's two hex digits start in the canonical 8-4-4-4-12 form. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** Grow the table when this share of its slots is used. */
const MAX_LOAD = 0.5;

export class UuidIds {
  /** 16 bytes an offset (id − UUID_ID_BASE). */
  private bytes = new Uint8Array(16 * 1024);
  /** 1 where an offset holds a UUID. */
  private held = new Uint8Array(1024);
  /** offset + 1 per slot, 0 for none. */
  private table = new Int32Array(2048);
  private readonly key = new Uint8Array(16);
  size = 0;

  /** The internal id of a canonical UUID, or undefined (for any other string too, as a Map would answer). */
  get(uuid: string): number | undefined {
    if (!CANONICAL.test(uuid)) return undefined;
    this.parse(uuid);
    const at = this.table[this.slot()]!;
    return at === 0 ? undefined : UUID_ID_BASE + at - 1;
  }

  /** Pairs a canonical UUID with its internal id (from UUID_ID_BASE on). */
  set(uuid: string, id: number): void {
    const offset = id - UUID_ID_BASE;
    if (!Number.isInteger(offset) || offset < 0 || offset >= 2 ** 31 - 1)
      throw new StrataError('STRATA_INTERNAL', `UUID point id ${id} is outside the UUID range`, { id: String(id) });
    if (!CANONICAL.test(uuid)) throw new StrataError('STRATA_INTERNAL', `not a canonical UUID: ${JSON.stringify(uuid)}`, {});
    if (offset >= this.held.length) this.grow(offset + 1);
    this.parse(uuid);
    const i = this.slot();
    if (this.table[i] === 0) this.size++;
    this.table[i] = offset + 1;
    this.bytes.set(this.key, 16 * offset);
    this.held[offset] = 1;
    if (this.size > this.table.length * MAX_LOAD) this.rehash(this.table.length * 2);
  }

  /** The canonical UUID of an internal id, or null (an integer id, or none given). */
  uuidOf(id: number): string | null {
    const offset = id - UUID_ID_BASE;
    if (!(offset >= 0 && offset < this.held.length) || this.held[offset] === 0) return null;
    const b = this.bytes;
    const o = 16 * offset;
    let s = '';
    for (let k = 0; k < 16; k++) {
      if (k === 4 || k === 6 || k === 8 || k === 10) s += '-';
      s += HEX[b[o + k]!]!;
    }
    return s;
  }

  /** Every (uuid, id) pair, in id order. */
  forEach(fn: (uuid: string, id: number) => void): void {
    for (let offset = 0; offset < this.held.length; offset++) if (this.held[offset] === 1) fn(this.uuidOf(UUID_ID_BASE + offset)!, UUID_ID_BASE + offset);
  }

  /** Bytes of the arrays. */
  byteLength(): number {
    return this.bytes.byteLength + this.held.byteLength + this.table.byteLength;
  }

  /** A canonical UUID's 16 bytes into `key` (its callers have tested the form, once). */
  private parse(uuid: string): void {
    for (let k = 0; k < 16; k++) this.key[k] = Number.parseInt(uuid.slice(HEX_AT[k]!, HEX_AT[k]! + 2), 16);
  }

  /** The slot holding `key`, or the empty slot where it would go. */
  private slot(): number {
    const mask = this.table.length - 1;
    for (let i = fnv1a(this.key) & mask; ; i = (i + 1) & mask) {
      const at = this.table[i]!;
      if (at === 0 || sameBytesAt(this.bytes, 16 * (at - 1), this.key, 0, 16)) return i;
    }
  }

  private grow(n: number): void {
    const cap = grownLength(this.held.length, n);
    const held = new Uint8Array(cap);
    held.set(this.held);
    const bytes = new Uint8Array(16 * cap);
    bytes.set(this.bytes);
    this.held = held;
    this.bytes = bytes;
  }

  private rehash(cap: number): void {
    const old = this.table;
    this.table = new Int32Array(cap);
    const mask = cap - 1;
    for (const at of old) {
      if (at === 0) continue;
      let i = fnv1a(this.bytes, 16 * (at - 1), 16 * at) & mask;
      while (this.table[i] !== 0) i = (i + 1) & mask;
      this.table[i] = at;
    }
  }
}
