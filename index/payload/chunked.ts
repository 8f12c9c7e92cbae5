// Growable typed arrays over fixed-size chunks, allocated on first write from the store's memory
// (chunk-memory.ts: the CXL tier's slabs): memory grows by chunks, with no V8 object per element.
import { StrataError } from '../../common/errors.js';
import type { ChunkMemory } from './chunk-memory.js';
import { PAYLOAD_LIMITS } from './limits.js';

type Typed = Float64Array | Uint32Array | Uint8Array;

/** An array indexed by a dense u32, reading 0 where nothing was written. */
export class ChunkedArray<A extends Typed> {
  private readonly chunks: (A | undefined)[] = [];
  private readonly shift: number;
  private readonly mask: number;

  constructor(
    private readonly make: (length: number) => A,
    readonly chunkLength: number,
  ) {
    this.shift = Math.log2(chunkLength);
    this.mask = chunkLength - 1;
  }

  get(i: number): number {
    const c = this.chunks[i >>> this.shift];
    return c === undefined ? 0 : c[i & this.mask]!;
  }

  set(i: number, v: number): void {
    const k = i >>> this.shift;
    let c = this.chunks[k];
    if (c === undefined) {
      c = this.make(this.chunkLength);
      this.chunks[k] = c;
    }
    c[i & this.mask] = v;
  }

  /** Bytes allocated. */
  bytes(): number {
    let n = 0;
    for (const c of this.chunks) if (c !== undefined) n += c.byteLength;
    return n;
  }
}

export const f64Array = (mem: ChunkMemory, chunk: number) =>
  new ChunkedArray((n) => {
    const at = mem.take(8 * n);
    return new Float64Array(at.buffer, at.byteOffset, n);
  }, chunk);
export const u32Array = (mem: ChunkMemory, chunk: number) =>
  new ChunkedArray((n) => {
    const at = mem.take(4 * n);
    return new Uint32Array(at.buffer, at.byteOffset, n);
  }, chunk);
export const u8Array = (mem: ChunkMemory, chunk: number) => new ChunkedArray((n) => bytesFrom(mem, n), chunk);

function bytesFrom(mem: ChunkMemory, n: number): Uint8Array {
  const at = mem.take(n);
  return new Uint8Array(at.buffer, at.byteOffset, n);
}

/** An append-only pool of numbers: `append` returns the index of the first element appended. */
export class Pool<A extends Typed> {
  length = 0;
  constructor(readonly items: ChunkedArray<A>) {}
  append(v: number): number {
    this.items.set(this.length, v);
    return this.length++;
  }
}

/**
 * Append-only bytes addressed by a u32: chunk index in the high bits, offset in the low ones. A value
 * never crosses a chunk, so reading it is one subarray.
 */
export class ByteArena {
  private readonly chunks: Uint8Array[] = [];
  private used = PAYLOAD_LIMITS.arenaChunk;

  constructor(private readonly mem: ChunkMemory) {}

  /** Reserves `length` bytes and returns their address; write them through `view`. */
  reserve(length: number): number {
    if (this.used + length > (this.chunks[this.chunks.length - 1]?.length ?? 0)) {
      if (this.chunks.length >= PAYLOAD_LIMITS.arenaChunks) {
        throw new StrataError('STRATA_PAYLOAD_TOO_LARGE', `the payload store holds at most ${PAYLOAD_LIMITS.arenaChunks} arena chunks`);
      }
      this.chunks.push(bytesFrom(this.mem, Math.max(PAYLOAD_LIMITS.arenaChunk, length)));
      this.used = 0;
    }
    const at = ((this.chunks.length - 1) * PAYLOAD_LIMITS.arenaChunk + this.used) >>> 0;
    this.used += length;
    return at;
  }

  view(address: number, length: number): Uint8Array {
    const chunk = this.chunks[Math.floor(address / PAYLOAD_LIMITS.arenaChunk)]!;
    const at = address % PAYLOAD_LIMITS.arenaChunk;
    return chunk.subarray(at, at + length);
  }

  /** Appends bytes; returns their address. */
  append(bytes: Uint8Array): number {
    const at = this.reserve(bytes.length);
    this.view(at, bytes.length).set(bytes);
    return at;
  }

  bytes(): number {
    let n = 0;
    for (const c of this.chunks) n += c.byteLength;
    return n;
  }
}
