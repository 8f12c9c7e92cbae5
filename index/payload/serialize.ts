// The store as bytes, for compaction and snapshots (README.md has the layout). Only live values are
// written, and strings are renumbered in first-use order, so serialize + deserialize also reclaims
// what rewrites left behind in the pools and the dictionary. Little-endian throughout.
import type { ChunkMemory } from './chunk-memory.js';
import { crc32 } from 'node:zlib';
import { StrataError } from '../../common/errors.js';
import { type Column, type ColumnKind, TAG } from './column.js';
import { type PathNode, PayloadStore } from './store.js';

export const PAYLOAD_MAGIC = 0x444c5053; // "SPLD"
export const PAYLOAD_FORMAT_VERSION = 1;
const HEADER_BYTES = 12;
const KINDS: readonly ColumnKind[] = ['number', 'string', 'bool', 'null', 'json'];

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

class Writer {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  length = 0;
  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): void {
    this.room(1);
    this.buf[this.length++] = v;
  }
  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }
  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }
  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  done(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

function corrupt(why: string): StrataError {
  return new StrataError('STRATA_INDEX_CORRUPT', `payload store: ${why}`);
}

class Reader {
  private at = 0;
  private readonly view: DataView;
  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  private need(n: number): number {
    if (this.at + n > this.buf.length) throw corrupt('truncated');
    const at = this.at;
    this.at += n;
    return at;
  }
  u8(): number {
    return this.buf[this.need(1)]!;
  }
  u32(): number {
    return this.view.getUint32(this.need(4), true);
  }
  f64(): number {
    return this.view.getFloat64(this.need(8), true);
  }
  bytes(): Uint8Array {
    const n = this.u32();
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }
  get done(): boolean {
    return this.at === this.buf.length;
  }
}

/** The store as one checksummed buffer. */
export function serializePayloads(store: PayloadStore): Uint8Array {
  // Live strings are renumbered in first-use order: renumbered[old] is the new code + 1.
  const renumbered = new Uint32Array(store.strings.size);
  const live: number[] = [];
  const code = (old: number): number => {
    if (renumbered[old] === 0) {
      live.push(old);
      renumbered[old] = live.length;
    }
    return renumbered[old]! - 1;
  };
  const body = new Writer();
  const columns: Column[] = [];
  const walk = (n: PathNode): void => {
    columns.push(...n.columns);
    for (const c of n.children.values()) walk(c);
  };
  const { roots, overflow } = store.paths();
  for (const n of roots.values()) walk(n);
  columns.push(overflow);
  body.u32(columns.length);
  for (const col of columns) {
    body.u8(KINDS.indexOf(col.kind));
    body.u32(col.path.length);
    for (const k of col.path) body.bytes(encoder.encode(k));
    body.u32(col.live);
    for (let id = 0; id < store.size; id++) {
      const tag = col.tag.get(id);
      if (tag === TAG.absent) continue;
      body.u32(id);
      body.u8(tag);
      if (col.kind === 'json') body.bytes(encoder.encode(JSON.stringify(col.read(id))));
      else if (tag === TAG.array) {
        const xs = col.rawArray(id);
        body.u32(xs.length);
        for (const x of xs) writeScalar(body, col.kind, x, code);
      } else writeScalar(body, col.kind, col.rawScalar(id), code);
    }
  }
  const head = new Writer();
  head.u32(PAYLOAD_MAGIC);
  head.u32(PAYLOAD_FORMAT_VERSION);
  head.u32(store.size);
  head.u32(live.length);
  for (const old of live) head.bytes(store.strings.utf8(old));
  const out = new Uint8Array(head.length + body.length + 4);
  out.set(head.done(), 0);
  out.set(body.done(), head.length);
  new DataView(out.buffer).setUint32(out.length - 4, crc32(out.subarray(0, out.length - 4)) >>> 0, true);
  return out;
}

/** One encoded scalar: a number's f64, a string's (renumbered) code, a bool's byte; null writes nothing. */
function writeScalar(w: Writer, kind: ColumnKind, x: number, code: (old: number) => number): void {
  if (kind === 'number') w.f64(x);
  else if (kind === 'string') w.u32(code(x));
  else if (kind === 'bool') w.u8(x);
}

/** One encoded scalar, a string's code mapped to the new store's. */
function readScalar(r: Reader, kind: ColumnKind, codes: Uint32Array): number {
  if (kind === 'number') return r.f64();
  if (kind === 'string') {
    const c = r.u32();
    if (c >= codes.length) throw corrupt('string code out of range');
    return codes[c]!;
  }
  if (kind === 'bool') {
    const b = r.u8();
    if (b > 1) throw corrupt('bad bool');
    return b;
  }
  return 0;
}

/** A store from serializePayloads' bytes; STRATA_INDEX_CORRUPT for any damage, STRATA_INDEX_VERSION for a newer format. */
export function deserializePayloads(bytes: Uint8Array, memory?: ChunkMemory): PayloadStore {
  if (bytes.length < HEADER_BYTES + 4) throw corrupt('truncated');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== PAYLOAD_MAGIC) throw corrupt('bad magic number');
  if (crc32(bytes.subarray(0, bytes.length - 4)) >>> 0 !== view.getUint32(bytes.length - 4, true)) throw corrupt('checksum mismatch');
  const version = view.getUint32(4, true);
  if (version !== PAYLOAD_FORMAT_VERSION) {
    throw new StrataError('STRATA_INDEX_VERSION', `payload store: format version ${version}, this build reads ${PAYLOAD_FORMAT_VERSION}`);
  }
  const r = new Reader(bytes.subarray(0, bytes.length - 4));
  r.u32();
  r.u32();
  const size = r.u32();
  const text = (b: Uint8Array): string => {
    try {
      return decoder.decode(b);
    } catch (e) {
      throw corrupt(`bad UTF-8 (${(e as Error).message})`);
    }
  };
  const store = new PayloadStore(memory);
  const count = r.u32();
  if (count > bytes.length) throw corrupt('string count past the buffer');
  const codes = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const utf8 = r.bytes();
    text(utf8);
    codes[i] = store.strings.internUtf8(utf8);
  }
  for (let n = r.u32(); n > 0; n--) {
    const kind = KINDS[r.u8()];
    if (kind === undefined) throw corrupt('unknown column kind');
    const path: string[] = [];
    for (let k = r.u32(); k > 0; k--) path.push(text(r.bytes()));
    if (path.length === 0 && kind !== 'json') throw corrupt('overflow column of a typed kind');
    for (let live = r.u32(); live > 0; live--) {
      const id = r.u32();
      if (id >= size) throw corrupt('id past the store size');
      const tag = r.u8();
      if (kind === 'json') {
        if (tag !== TAG.scalar) throw corrupt('bad tag');
        store.restore(id, path, kind, JSON.parse(text(r.bytes())), false);
      } else if (tag === TAG.array) {
        const vs: number[] = [];
        for (let m = r.u32(); m > 0; m--) vs.push(readScalar(r, kind, codes));
        store.restore(id, path, kind, vs, true);
      } else if (tag === TAG.scalar) store.restore(id, path, kind, readScalar(r, kind, codes), false);
      else throw corrupt('bad tag');
    }
  }
  if (!r.done) throw corrupt('trailing bytes');
  store.size = size;
  return store;
}
