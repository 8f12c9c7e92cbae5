// Roaring bitmaps to and from dense bitsets (one bit per id in a Uint32Array), through CRoaring's
// portable serialisation (the format of RoaringFormatSpec, which every roaring library reads). A
// filter matching a large share of the points is what the planner turns into a bitset over base
// nodes per query, and crossing the native boundary once as a buffer is many times cheaper than
// asking roaring for the ids one array at a time, either way.
import type { Bitmap } from './bitmap.js';
import { bitmapFromPortable } from './bitmap.js';

/** The portable format's cookies: without run containers (a container count follows), and with. */
const COOKIE_NO_RUNS = 12346;
const COOKIE_RUNS = 12347;
/** From this many containers the run-cookie form carries an offset header too. */
const OFFSETS_FROM = 4;
/** Up to this cardinality a container is an array of 16-bit values; above it, a bitset of 2^16 bits. */
const ARRAY_MAX = 4096;
/** 32-bit words per container's bitset (2^16 bits). */
const CONTAINER_WORDS = 2048;

/** Calls `fn` with each set bit of a dense bitset, ascending. */
export function forEachBit(dense: Uint32Array, fn: (bit: number) => void): void {
  for (let w = 0; w < dense.length; w++) {
    let x = dense[w]!;
    while (x !== 0) {
      const low = x & -x;
      x ^= low;
      fn((w << 5) | (31 - Math.clz32(low)));
    }
  }
}

/** The set bits of `b` in a dense bitset of at least `bits` bits (`out` is reused when given, and cleared). */
export function bitsOf(b: Bitmap, bits: number, out?: Uint32Array): Uint32Array {
  const words = Math.max((bits + 31) >>> 5, b.size === 0 ? 0 : (b.maximum() >>> 5) + 1);
  const dense = out !== undefined && out.length >= words ? out.fill(0) : new Uint32Array(words);
  if (b.size === 0) return dense;
  const buf = b.serialize('portable');
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const cookie = view.getUint32(0, true);
  let n: number;
  let at: number;
  let runs: Uint8Array | null = null;
  if ((cookie & 0xffff) === COOKIE_RUNS) {
    n = (cookie >>> 16) + 1;
    runs = buf.subarray(4, 4 + ((n + 7) >>> 3));
    at = 4 + runs.length;
  } else if (cookie === COOKIE_NO_RUNS) {
    n = view.getUint32(4, true);
    at = 8;
  } else {
    throw new Error(`roaring's portable serialisation changed: cookie ${cookie}`);
  }
  const header = at;
  at += 4 * n;
  if (runs === null || n >= OFFSETS_FROM) at += 4 * n;
  for (let c = 0; c < n; c++) {
    const key = view.getUint16(header + 4 * c, true);
    const card = view.getUint16(header + 4 * c + 2, true) + 1;
    const base = key << 16;
    if (runs !== null && (runs[c >>> 3]! & (1 << (c & 7))) !== 0) {
      const count = view.getUint16(at, true);
      at += 2;
      for (let r = 0; r < count; r++, at += 4) {
        const start = base + view.getUint16(at, true);
        setRange(dense, start, start + view.getUint16(at + 2, true) + 1);
      }
    } else if (card <= ARRAY_MAX) {
      for (let i = 0; i < card; i++, at += 2) {
        const id = base + view.getUint16(at, true);
        dense[id >>> 5]! |= 1 << (id & 31);
      }
    } else {
      // Little-endian 64-bit words are little-endian 32-bit word pairs in the same order.
      const w0 = base >>> 5;
      for (let w = 0; w < CONTAINER_WORDS; w++, at += 4) dense[w0 + w] = view.getUint32(at, true);
    }
  }
  return dense;
}

/** The bitmap of the set bits of `dense`. */
export function bitmapOfBits(dense: Uint32Array): Bitmap {
  const containers = Math.ceil(dense.length / CONTAINER_WORDS);
  const cards = new Uint32Array(containers);
  let n = 0;
  for (let c = 0; c < containers; c++) {
    let card = 0;
    const end = Math.min(dense.length, (c + 1) * CONTAINER_WORDS);
    for (let w = c * CONTAINER_WORDS; w < end; w++) card += popcount(dense[w]!);
    cards[c] = card;
    if (card > 0) n++;
  }
  let size = 8 + 8 * n;
  for (let c = 0; c < containers; c++) if (cards[c]! > 0) size += cards[c]! <= ARRAY_MAX ? 2 * cards[c]! : 4 * CONTAINER_WORDS;
  const buf = Buffer.alloc(size);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  view.setUint32(0, COOKIE_NO_RUNS, true);
  view.setUint32(4, n, true);
  let slot = 0;
  let at = 8 + 8 * n;
  for (let c = 0; c < containers; c++) {
    const card = cards[c]!;
    if (card === 0) continue;
    view.setUint16(8 + 4 * slot, c, true);
    view.setUint16(8 + 4 * slot + 2, card - 1, true);
    view.setUint32(8 + 4 * n + 4 * slot, at, true);
    slot++;
    const w0 = c * CONTAINER_WORDS;
    const end = Math.min(dense.length, w0 + CONTAINER_WORDS);
    if (card <= ARRAY_MAX) {
      for (let w = w0; w < end; w++) {
        let x = dense[w]!;
        while (x !== 0) {
          const low = x & -x;
          view.setUint16(at, ((w - w0) << 5) | (31 - Math.clz32(low)), true);
          at += 2;
          x ^= low;
        }
      }
    } else {
      for (let w = w0; w < end; w++, at += 4) view.setUint32(at, dense[w]!, true);
      at += 4 * (w0 + CONTAINER_WORDS - end);
    }
  }
  return bitmapFromPortable(buf);
}

function setRange(dense: Uint32Array, from: number, to: number): void {
  for (let id = from; id < to; ) {
    if ((id & 31) === 0 && id + 32 <= to) {
      dense[id >>> 5] = -1 >>> 0;
      id += 32;
    } else {
      dense[id >>> 5]! |= 1 << (id & 31);
      id++;
    }
  }
}

/** Set bits in a 32-bit word. */
export function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
