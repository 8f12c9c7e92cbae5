// The TEXMEX "vecs" family (.fvecs, .ivecs, .bvecs): each row is an int32 LE dimension followed by
// that many f32 / i32 / u8 values, with no file header. Because every row repeats its dimension, a
// file with mixed dimensions or a cut-off tail is only detectable by walking the row headers.
import { checkFinite, dimensionError, formatError } from '../dataset-errors.js';
import { withSource, leToHost, type ByteSource } from '../file-io.js';
import { chunkRows, report } from '../progress.js';
import type { RowReadOptions } from '../types.js';

export type VecsElement = 'f32' | 'i32' | 'u8';

const ELEMENT_BYTES: Record<VecsElement, number> = { f32: 4, i32: 4, u8: 1 };
const ELEMENT_NAME: Record<VecsElement, string> = { f32: 'float32', i32: 'int32', u8: 'uint8' };

export interface VecsMatrix<T> {
  dim: number;
  count: number;
  data: T;
}

export async function readFvecsData(file: string, opts: RowReadOptions): Promise<VecsMatrix<Float32Array>> {
  return withSource(file, (src) =>
    walkVecs(src, 'f32', opts, (count, dim) => wordRows(new Float32Array(count * dim), dim, (out, from, to) => checkFinite(file, out, dim, from, to))),
  );
}

export async function readIvecsData(file: string, opts: RowReadOptions): Promise<VecsMatrix<Int32Array>> {
  return withSource(file, (src) => walkVecs(src, 'i32', opts, (count, dim) => wordRows(new Int32Array(count * dim), dim)));
}

/**
 * The sink of a 4-byte element type (.fvecs, .ivecs): each row's values are copied past its
 * dimension word; `check` sees the copied range [from, to) of `out`.
 */
function wordRows<T extends Float32Array | Int32Array>(out: T, dim: number, check?: (out: T, from: number, to: number) => void): Sink<T> {
  const Ctor = out.constructor as new (buffer: ArrayBufferLike, byteOffset: number, length: number) => T;
  return {
    out,
    copy(chunk, firstRow, rows, rowBytes) {
      const view = new Ctor(chunk.buffer, chunk.byteOffset, chunk.length / 4);
      const stride = rowBytes / 4;
      for (let r = 0; r < rows; r++) out.set(view.subarray(r * stride + 1, (r + 1) * stride), (firstRow + r) * dim);
      check?.(out, firstRow * dim, (firstRow + rows) * dim);
    },
  };
}

/** .bvecs rows are uint8; they are widened to float32 because the index works in float32. */
export async function readBvecsData(file: string, opts: RowReadOptions): Promise<VecsMatrix<Float32Array>> {
  return withSource(file, (src) =>
    walkVecs(src, 'u8', opts, (count, dim) => {
      const out = new Float32Array(count * dim);
      return {
        out,
        copy(chunk, firstRow, rows, rowBytes) {
          for (let r = 0; r < rows; r++) {
            const s = r * rowBytes + 4;
            const o = (firstRow + r) * dim;
            for (let j = 0; j < dim; j++) out[o + j] = chunk[s + j]!;
          }
        },
      };
    }),
  );
}

interface Sink<T> {
  out: T;
  /** Copies `rows` validated rows (headers included in `chunk`) starting at row `firstRow`. */
  copy(chunk: Uint8Array, firstRow: number, rows: number, rowBytes: number): void;
}

async function walkVecs<T>(
  src: ByteSource,
  elem: VecsElement,
  opts: RowReadOptions,
  makeSink: (count: number, dim: number) => Sink<T>,
): Promise<VecsMatrix<T>> {
  const { file, size } = src;
  const elemBytes = ELEMENT_BYTES[elem];
  if (size === 0) {
    throw formatError(file, 'is empty; expected at least one row', { expected: 'at least one row', found: '0 bytes' });
  }
  if (size < 4) {
    throw formatError(file, `row 0 is truncated: expected at least 4 bytes for its dimension, found ${size}`, {
      row: 0,
      expected: 4,
      found: size,
    });
  }
  const head = await src.read(0, 4);
  const dim = new DataView(head.buffer).getInt32(0, true);
  if (dim <= 0) {
    throw formatError(file, `row 0 declares dimension ${dim}; expected a positive dimension`, {
      row: 0,
      expected: 'positive dimension',
      found: dim,
    });
  }
  const rowBytes = 4 + dim * elemBytes;
  // Assume every row has row 0's dimension; the header walk below proves it or names the first
  // row that breaks it.
  const fullRows = Math.floor(size / rowBytes);
  const tailBytes = size - fullRows * rowBytes;
  const truncated = (row: number): Error => {
    const hint = row === 0 ? ' (is this really a vecs file of this element type?)' : '';
    return formatError(
      file,
      `row ${row} is truncated: dimension ${dim} needs ${rowBytes} bytes per row (4-byte dimension + ${dim} ${ELEMENT_NAME[elem]} values), found ${tailBytes} (file size ${size} bytes)${hint}`,
      { row, expected: rowBytes, found: tailBytes },
    );
  };
  // Row 0's dimension sizes every buffer below: a garbage header (say 2^30) must not get that far.
  if (fullRows === 0) throw truncated(0);
  const count = Math.min(fullRows, opts.limit);
  const sink = makeSink(count, dim);

  const step = chunkRows(rowBytes);
  const buf = new Uint8Array(Math.min(step, Math.max(count, 1)) * rowBytes);
  const dv = new DataView(buf.buffer);
  for (let first = 0; first < count; first += step) {
    const rows = Math.min(step, count - first);
    const chunk = buf.subarray(0, rows * rowBytes);
    await src.readInto(chunk, first * rowBytes);
    for (let r = 0; r < rows; r++) {
      const d = dv.getInt32(r * rowBytes, true);
      if (d !== dim) throw mixedDimension(file, first + r, dim, d);
    }
    if (elemBytes === 4) leToHost(chunk, 4);
    sink.copy(chunk, first, rows, rowBytes);
    await report(opts.onProgress, first + rows, count);
  }

  // Leftover bytes only matter if the caller wanted the rows that contain them.
  if (count === fullRows && tailBytes !== 0) {
    const tail = await src.read(fullRows * rowBytes, tailBytes);
    if (tailBytes >= 4) {
      const d = new DataView(tail.buffer).getInt32(0, true);
      if (d !== dim) throw mixedDimension(file, fullRows, dim, d);
    }
    throw truncated(fullRows);
  }
  return { dim, count, data: sink.out };
}

function mixedDimension(file: string, row: number, expected: number, found: number) {
  return dimensionError(file, `row ${row} has dimension ${found}, expected ${expected} (the dimension of row 0)`, {
    row,
    expected,
    found,
  });
}
