// Writers for the interchange formats Strata emits (sampled base sets, query sets, ground truth).
// Rows are encoded a chunk at a time so writing a large matrix never needs a second full-size copy.
import { open } from 'node:fs/promises';
import { invalidArgument } from '../common/errors.js';
import { leToHost } from './file-io.js';
import { chunkRows } from './progress.js';

export async function writeFvecs(file: string, vectors: Float32Array, dim: number): Promise<void> {
  const count = rowsOf('vectors', vectors, Float32Array, dim);
  await writeVecs(file, vectors, count, dim);
}

export async function writeIvecs(file: string, data: Int32Array, dim: number): Promise<void> {
  const count = rowsOf('data', data, Int32Array, dim);
  await writeVecs(file, data, count, dim);
}

export async function writeFbin(file: string, vectors: Float32Array, dim: number): Promise<void> {
  const count = rowsOf('vectors', vectors, Float32Array, dim);
  if (count > 0xffffffff) throw invalidArgument('vectors', `.fbin stores the row count as u32; ${count} rows do not fit`);
  const step = chunkRows(dim * 4);
  const handle = await open(file, 'w');
  try {
    const header = new Uint8Array(8);
    const dv = new DataView(header.buffer);
    dv.setUint32(0, count, true);
    dv.setUint32(4, dim, true);
    await handle.write(header, 0, 8, 0);
    const buf = new Uint8Array(Math.min(step, count) * dim * 4);
    const f32 = new Float32Array(buf.buffer);
    for (let first = 0; first < count; first += step) {
      const rows = Math.min(step, count - first);
      const n = rows * dim;
      f32.set(vectors.subarray(first * dim, first * dim + n));
      leToHost(buf.subarray(0, n * 4), 4);
      await writeAll(handle, buf.subarray(0, n * 4), 8 + first * dim * 4);
    }
  } finally {
    await handle.close();
  }
}

async function writeVecs(file: string, values: Float32Array | Int32Array, count: number, dim: number): Promise<void> {
  const rowBytes = 4 + dim * 4;
  const step = chunkRows(rowBytes);
  const handle = await open(file, 'w');
  try {
    const buf = new Uint8Array(Math.min(step, count) * rowBytes);
    // Same-typed view so Int32 ids and Float32 values are copied bit for bit.
    const view = values instanceof Float32Array ? new Float32Array(buf.buffer) : new Int32Array(buf.buffer);
    const dims = new Int32Array(buf.buffer);
    const stride = rowBytes / 4;
    for (let first = 0; first < count; first += step) {
      const rows = Math.min(step, count - first);
      for (let r = 0; r < rows; r++) {
        dims[r * stride] = dim;
        view.set(values.subarray((first + r) * dim, (first + r + 1) * dim), r * stride + 1);
      }
      const bytes = buf.subarray(0, rows * rowBytes);
      leToHost(bytes, 4);
      await writeAll(handle, bytes, first * rowBytes);
    }
  } finally {
    await handle.close();
  }
}

async function writeAll(handle: import('node:fs/promises').FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    done += bytesWritten;
  }
}

function rowsOf(field: string, values: Float32Array | Int32Array, type: Float32ArrayConstructor | Int32ArrayConstructor, dim: number): number {
  if (!(values instanceof type)) throw invalidArgument(field, `expected a ${type.name}`);
  if (!Number.isSafeInteger(dim) || dim < 1) throw invalidArgument('dim', `expected a positive integer, found ${String(dim)}`);
  if (values.length === 0 || values.length % dim !== 0) {
    throw invalidArgument(field, `length ${values.length} is not a positive multiple of dim ${dim}`, { expected: `multiple of ${dim}`, found: values.length });
  }
  return values.length / dim;
}
