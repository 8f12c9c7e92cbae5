// Large answers leave in chunks. Encoding a big answer in one call (JSON.stringify, packr.pack)
// blocks the event loop for as long as it takes — seconds for a hundred megabytes, long enough for a
// liveness probe to fail — and holds the whole encoding in memory. Here the answer is walked as a
// tree: the envelope and its lists are written piece by piece, each point is encoded on its own, and
// after every CHUNK_BYTES the encoder yields to the event loop. The stream is pulled by the socket,
// so a client that reads slowly holds the encoder, not the server's memory.
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Bytes encoded between two turns of the event loop. */
export const CHUNK_BYTES = 64 * 1024;

type Fields = Record<string, unknown>;

function isPlainObject(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/**
 * Lists are written element by element; an object is opened only when it holds a list, at any
 * depth (the envelope, and scroll's {points: […]} result inside it): a list left inside a leaf would
 * be encoded in one call, and by JSON.stringify, which writes a Float32Array as an object.
 */
function holdsList(o: Fields): boolean {
  for (const k in o) {
    const v = o[k];
    if (Array.isArray(v) || (isPlainObject(v) && holdsList(v))) return true;
  }
  return false;
}

function definedEntries(o: Fields): Array<[string, unknown]> {
  return Object.entries(o).filter(([, v]) => v !== undefined);
}

/** A leaf as JSON.stringify writes it, with typed arrays (vectors) written as arrays of numbers. */
function jsonLeaf(v: unknown): string {
  if (ArrayBuffer.isView(v)) return JSON.stringify(Array.from(v as Float32Array));
  if (isPlainObject(v)) {
    const parts = definedEntries(v).map(([k, x]) => `${JSON.stringify(k)}:${jsonLeaf(x)}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function* jsonPieces(v: unknown): Generator<string> {
  if (Array.isArray(v)) {
    yield '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) yield ',';
      yield* jsonPieces(v[i]);
    }
    yield ']';
  } else if (isPlainObject(v) && holdsList(v)) {
    let sep = '{';
    for (const [k, x] of definedEntries(v)) {
      yield `${sep}${JSON.stringify(k)}:`;
      sep = ',';
      yield* jsonPieces(x);
    }
    yield '}'; // a list is defined, so at least one entry was written
  } else {
    yield jsonLeaf(v);
  }
}

function header(n: number, fix: number, b16: number, b32: number): Buffer {
  if (n < 16) return Buffer.of(fix | n);
  if (n < 0x10000) return Buffer.of(b16, n >> 8, n & 0xff);
  const b = Buffer.alloc(5);
  b[0] = b32;
  b.writeUInt32BE(n, 1);
  return b;
}

function* msgpackPieces(v: unknown, pack: (x: unknown) => Buffer): Generator<Buffer> {
  if (Array.isArray(v)) {
    yield header(v.length, 0x90, 0xdc, 0xdd);
    for (const x of v) yield* msgpackPieces(x, pack);
  } else if (isPlainObject(v) && holdsList(v)) {
    const entries = definedEntries(v);
    yield header(entries.length, 0x80, 0xde, 0xdf);
    for (const [k, x] of entries) {
      yield pack(k);
      yield* msgpackPieces(x, pack);
    }
  } else {
    yield pack(v);
  }
}

/**
 * The answer `body` as a stream of chunks: JSON (vectors as arrays of numbers, byte for byte what
 * JSON.stringify writes), or MessagePack when `pack` is given (each leaf packed by it, so the bytes
 * decode to what pack(body) would).
 */
export function chunkedAnswer(body: unknown, pack?: (x: unknown) => Buffer): Readable {
  const pieces: Iterator<string | Buffer> = pack ? msgpackPieces(body, pack) : jsonPieces(body);
  async function* chunks(): AsyncGenerator<Buffer> {
    let parts: Array<string | Buffer> = [];
    let size = 0;
    for (let r = pieces.next(); !r.done; r = pieces.next()) {
      parts.push(r.value);
      size += r.value.length;
      if (size >= CHUNK_BYTES) {
        yield join(parts);
        parts = [];
        size = 0;
        // Let other requests, probes and timers run between chunks.
        await nextTurn();
      }
    }
    if (parts.length > 0) yield join(parts);
  }
  return Readable.from(chunks(), { objectMode: false });
}

function join(parts: Array<string | Buffer>): Buffer {
  return typeof parts[0] === 'string' ? Buffer.from(parts.join(''), 'utf8') : Buffer.concat(parts as Buffer[]);
}
