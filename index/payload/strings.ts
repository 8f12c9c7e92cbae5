// The string dictionary: every distinct string once, as UTF-8 in a byte arena, found again through
// an open-addressing hash table in one Uint32Array. Codes are dense u32 in first-seen order, so a
// keyword column stores four bytes a point and equal strings compare as equal codes.
import type { ChunkMemory } from './chunk-memory.js';
import { ByteArena, type ChunkedArray, u32Array } from './chunked.js';
import { PAYLOAD_LIMITS } from './limits.js';
import { fnv1a, sameBytesAt } from '../../common/byte-hash.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class StringDictionary {
  private readonly arena: ByteArena;
  private readonly address: ChunkedArray<Uint32Array>;
  private readonly length: ChunkedArray<Uint32Array>;
  /** code + 1 per slot, 0 for an empty slot. */
  private table = new Uint32Array(1024);
  private scratch = new Uint8Array(256);
  size = 0;

  /** The strings' bytes live in mem; the hash table, which every write and lookup probes, on the heap. */
  constructor(mem: ChunkMemory) {
    this.arena = new ByteArena(mem);
    this.address = u32Array(mem, PAYLOAD_LIMITS.poolChunk);
    this.length = u32Array(mem, PAYLOAD_LIMITS.poolChunk);
  }

  private encode(s: string): Uint8Array {
    // UTF-8 takes at most three bytes per UTF-16 unit.
    if (this.scratch.length < s.length * 3) this.scratch = new Uint8Array(s.length * 3);
    const { written } = encoder.encodeInto(s, this.scratch);
    return this.scratch.subarray(0, written);
  }

  private bytesOf(code: number): Uint8Array {
    return this.arena.view(this.address.get(code), this.length.get(code));
  }

  /** The slot holding `bytes`, or the empty slot where they would go. */
  private slot(bytes: Uint8Array): number {
    const mask = this.table.length - 1;
    for (let i = fnv1a(bytes) & mask; ; i = (i + 1) & mask) {
      const c = this.table[i]!;
      if (c === 0) return i;
      const held = this.bytesOf(c - 1);
      if (held.length === bytes.length && sameBytesAt(held, 0, bytes, 0, bytes.length)) return i;
    }
  }

  /** The code of `s`, added if new. */
  intern(s: string): number {
    return this.internUtf8(this.encode(s));
  }

  /** The code of the string of these UTF-8 bytes, added if new. */
  internUtf8(bytes: Uint8Array): number {
    const i = this.slot(bytes);
    const found = this.table[i]!;
    if (found !== 0) return found - 1;
    const code = this.size++;
    this.address.set(code, this.arena.append(bytes));
    this.length.set(code, bytes.length);
    this.table[i] = code + 1;
    if (this.size * 2 > this.table.length) this.grow();
    return code;
  }

  /** The code of `s`, or -1 when no point holds it (what an equality filter would look up). */
  find(s: string): number {
    const c = this.table[this.slot(this.encode(s))]!;
    return c - 1;
  }

  /**
   * Decoded strings, direct-mapped by code: a keyword read again is not decoded again, and the heap
   * holds at most PAYLOAD_LIMITS.decodedStrings of them whatever the dictionary's size.
   */
  private readonly cachedCode = new Int32Array(PAYLOAD_LIMITS.decodedStrings).fill(-1);
  private readonly cachedText = new Array<string>(PAYLOAD_LIMITS.decodedStrings);

  text(code: number): string {
    const slot = code & (PAYLOAD_LIMITS.decodedStrings - 1);
    if (this.cachedCode[slot] === code) return this.cachedText[slot]!;
    const s = decoder.decode(this.bytesOf(code));
    this.cachedCode[slot] = code;
    this.cachedText[slot] = s;
    return s;
  }

  /** The UTF-8 bytes of a code's string (a view: copy it to keep it). */
  utf8(code: number): Uint8Array {
    return this.bytesOf(code);
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    const mask = this.table.length - 1;
    for (const c of old) {
      if (c === 0) continue;
      let i = fnv1a(this.bytesOf(c - 1)) & mask;
      while (this.table[i] !== 0) i = (i + 1) & mask;
      this.table[i] = c;
    }
  }

  bytes(): number {
    return this.arena.bytes() + this.address.bytes() + this.length.bytes() + this.table.byteLength;
  }

  /** Of bytes(), the hash table's: on the heap, not in the store's memory. */
  tableBytes(): number {
    return this.table.byteLength;
  }
}
