// The big-ann-benchmarks "bin" family (.fbin, .u8bin, .i8bin, .ibin): an 8-byte header (u32 count,
// u32 dimension) and then count*dim row-major values. The header fixes the exact file size, so
// any mismatch means a truncated or mislabelled file and is rejected before reading data.
import { checkFinite, formatError } from '../dataset-errors.js';
import { leToHost, withSource, type ByteSource } from '../file-io.js';
import { chunkRows, report } from '../progress.js';
import type { RowReadOptions } from '../types.js';

export type BinElement = 'f32' | 'u8' | 'i8' | 'i32';

const ELEMENT_BYTES: Record<BinElement, number> = { f32: 4, u8: 1, i8: 1, i32: 4 };
const ELEMENT_NAME: Record<BinElement, string> = { f32: 'float32', u8: 'uint8', i8: 'int8', i32: 'int32' };
const HEADER_BYTES = 8;

export interface BinMatrix<T> {
  dim: number;
  count: number;
  data: T;
}

/** .fbin / .u8bin / .i8bin as float32 (integer types widened, since the index works in float32). */
export async function readBinVectors(file: string, elem: 'f32' | 'u8' | 'i8', opts: RowReadOptions): Promise<BinMatrix<Float32Array>> {
  return withSource(file, async (src) => {
    const { count, dim } = await readHeader(src, elem, opts.limit);
    const out = new Float32Array(count * dim);
    const step = chunkRows(dim * ELEMENT_BYTES[elem]);
    if (elem === 'f32') {
      for (let first = 0; first < count; first += step) {
        const rows = Math.min(step, count - first);
        // Read straight into the result: no intermediate copy of the largest array in the process.
        const bytes = new Uint8Array(out.buffer, first * dim * 4, rows * dim * 4);
        await src.readInto(bytes, HEADER_BYTES + first * dim * 4);
        leToHost(bytes, 4);
        checkFinite(file, out, dim, first * dim, (first + rows) * dim);
        await report(opts.onProgress, first + rows, count);
      }
    } else {
      const buf = new Uint8Array(Math.min(step, count) * dim);
      const signed = elem === 'i8' ? new Int8Array(buf.buffer) : null;
      for (let first = 0; first < count; first += step) {
        const rows = Math.min(step, count - first);
        const n = rows * dim;
        await src.readInto(buf.subarray(0, n), HEADER_BYTES + first * dim);
        const values = signed ?? buf;
        const o = first * dim;
        for (let i = 0; i < n; i++) out[o + i] = values[i]!;
        await report(opts.onProgress, first + rows, count);
      }
    }
    return { dim, count, data: out };
  });
}

/** .ibin (ground-truth ids). */
export async function readIbinData(file: string): Promise<BinMatrix<Int32Array>> {
  return withSource(file, async (src) => {
    const { count, dim } = await readHeader(src, 'i32', Infinity);
    const out = new Int32Array(count * dim);
    const bytes = new Uint8Array(out.buffer);
    await src.readInto(bytes, HEADER_BYTES);
    leToHost(bytes, 4);
    return { dim, count, data: out };
  });
}

async function readHeader(src: ByteSource, elem: BinElement, limit: number): Promise<{ count: number; dim: number }> {
  const { file, size } = src;
  if (size < HEADER_BYTES) {
    throw formatError(file, `header is truncated: expected at least ${HEADER_BYTES} bytes (u32 count, u32 dimension), found ${size}`, {
      expected: HEADER_BYTES,
      found: size,
    });
  }
  const head = await src.read(0, HEADER_BYTES);
  const dv = new DataView(head.buffer);
  const n = dv.getUint32(0, true);
  const dim = dv.getUint32(4, true);
  if (n === 0) {
    throw formatError(file, 'header declares 0 rows; expected at least one row', { expected: 'at least one row', found: 0 });
  }
  if (dim === 0) {
    throw formatError(file, 'header declares dimension 0; expected a positive dimension', { expected: 'positive dimension', found: 0 });
  }
  const elemBytes = ELEMENT_BYTES[elem];
  const rowBytes = dim * elemBytes;
  const expected = HEADER_BYTES + n * rowBytes;
  if (size !== expected) {
    const what = `header declares ${n} rows × ${dim} ${ELEMENT_NAME[elem]} values, so the file should be ${expected} bytes (8-byte header + ${n} × ${dim} × ${elemBytes}), but it is ${size} bytes`;
    if (size < expected) {
      const row = Math.floor((size - HEADER_BYTES) / rowBytes);
      throw formatError(file, `${what}: truncated in row ${row}`, { row, expected, found: size });
    }
    throw formatError(file, `${what}: ${size - expected} unexpected trailing bytes (wrong element type or header?)`, { expected, found: size });
  }
  return { count: Math.min(n, limit), dim };
}
