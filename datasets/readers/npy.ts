// NumPy .npy: magic "\x93NUMPY", version byte pair, a little-endian header length (u16 in v1, u32
// in v2/v3) and a Python-literal header dict. Only what a vector file needs is accepted: a 2-D,
// C-ordered array of float32, float64 (narrowed to float32), uint8 or int8.
import { checkFinite, formatError, storeAsFloat32 } from '../dataset-errors.js';
import { leToHost, withSource, type ByteSource } from '../file-io.js';
import { parsePyLiteral, PyLiteralError, type PyValue } from './npy-header.js';
import { chunkRows, report } from '../progress.js';
import type { RowReadOptions } from '../types.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

type NpyElement = 'f4' | 'f8' | 'u1' | 'i1';
const ELEMENT_BYTES: Record<NpyElement, number> = { f4: 4, f8: 8, u1: 1, i1: 1 };
const SUPPORTED = "'<f4', '<f8', '|u1', '|i1'";

export interface NpyHeader {
  element: NpyElement;
  descr: string;
  rows: number;
  dim: number;
  dataOffset: number;
}

export async function readNpyData(file: string, opts: RowReadOptions): Promise<{ dim: number; count: number; data: Float32Array }> {
  return withSource(file, async (src) => {
    const h = await readNpyHeader(src);
    const count = Math.min(h.rows, opts.limit);
    const { dim } = h;
    const out = new Float32Array(count * dim);
    const elemBytes = ELEMENT_BYTES[h.element];
    const step = chunkRows(dim * elemBytes);
    // float32 goes straight into the result; other types are staged in a reused chunk buffer
    // (fresh, so 8-byte aligned even when the header length is odd).
    const stage = h.element === 'f4' ? null : new Uint8Array(Math.min(step, count) * dim * elemBytes);
    for (let first = 0; first < count; first += step) {
      const rows = Math.min(step, count - first);
      const n = rows * dim;
      const o = first * dim;
      const pos = h.dataOffset + o * elemBytes;
      if (stage === null) {
        const bytes = new Uint8Array(out.buffer, o * 4, n * 4);
        await src.readInto(bytes, pos);
        leToHost(bytes, 4);
        checkFinite(file, out, dim, o, o + n);
      } else {
        const bytes = stage.subarray(0, n * elemBytes);
        await src.readInto(bytes, pos);
        if (h.element === 'f8') {
          leToHost(bytes, 8);
          storeAsFloat32(file, new Float64Array(stage.buffer, 0, n), n, out, o, dim);
        } else {
          const values = h.element === 'i1' ? new Int8Array(stage.buffer, 0, n) : bytes;
          for (let i = 0; i < n; i++) out[o + i] = values[i]!;
        }
      }
      await report(opts.onProgress, first + rows, count);
    }
    return { dim, count, data: out };
  });
}

export async function readNpyHeader(src: ByteSource): Promise<NpyHeader> {
  const { file, size } = src;
  if (size < 10) {
    throw formatError(file, `is ${size} bytes, too short for an .npy header (at least 10 bytes)`, { expected: 'at least 10 bytes', found: size });
  }
  const pre = await src.read(0, Math.min(size, 12));
  if (!MAGIC.every((b, k) => pre[k] === b)) {
    throw formatError(file, `is not an .npy file: expected the magic bytes \\x93NUMPY, found ${describeBytes(pre.subarray(0, 6))}`, {
      expected: '\\x93NUMPY',
      found: describeBytes(pre.subarray(0, 6)),
    });
  }
  const major = pre[6]!;
  const minor = pre[7]!;
  if (major < 1 || major > 3 || minor !== 0) {
    throw formatError(file, `has .npy format version ${major}.${minor}; expected 1.0, 2.0 or 3.0`, {
      expected: '1.0, 2.0 or 3.0',
      found: `${major}.${minor}`,
    });
  }
  const lenBytes = major === 1 ? 2 : 4;
  if (size < 8 + lenBytes) {
    throw formatError(file, `header is truncated: expected ${8 + lenBytes} bytes before the header dict, found ${size}`, {
      expected: 8 + lenBytes,
      found: size,
    });
  }
  const dv = new DataView(pre.buffer);
  const headerLen = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
  const headerStart = 8 + lenBytes;
  const dataOffset = headerStart + headerLen;
  if (dataOffset > size) {
    throw formatError(file, `header is truncated: it declares ${headerLen} header bytes but the file ends after ${size - headerStart}`, {
      expected: dataOffset,
      found: size,
    });
  }
  const raw = await src.read(headerStart, headerLen);
  // v3 exists only to allow UTF-8 in field names; v1/v2 headers are latin-1.
  const text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(raw);

  let dict: PyValue;
  try {
    dict = parsePyLiteral(text);
  } catch (e) {
    if (!(e instanceof PyLiteralError)) throw e;
    throw formatError(
      file,
      `has a malformed .npy header (${e.message}): ${JSON.stringify(text.trim())}`,
      {
        expected: 'a Python dict literal',
        found: text.trim(),
      },
      e,
    );
  }
  if (dict === null || typeof dict !== 'object' || Array.isArray(dict)) {
    throw formatError(file, `.npy header is not a dict: ${JSON.stringify(text.trim())}`, { expected: 'dict', found: text.trim() });
  }
  const { descr, fortran_order: fortran, shape } = dict;
  if (descr === undefined || fortran === undefined || shape === undefined) {
    const missing = ['descr', 'fortran_order', 'shape'].filter((k) => !(k in dict)).join(', ');
    throw formatError(file, `.npy header lacks ${missing}`, { expected: 'descr, fortran_order, shape', found: Object.keys(dict).join(', ') });
  }

  const descrText = typeof descr === 'string' ? descr : null;
  const element = descrText === null ? null : elementOf(descrText);
  if (element === null || descrText === null) {
    const found = typeof descr === 'string' ? descr : 'a structured dtype';
    const why = typeof descr === 'string' && descr.startsWith('>') ? ' (big-endian)' : '';
    throw formatError(file, `has unsupported .npy dtype ${JSON.stringify(found)}${why}; expected one of ${SUPPORTED}`, {
      expected: SUPPORTED,
      found,
    });
  }
  if (fortran !== false) {
    throw formatError(file, 'stores a Fortran-ordered (column-major) array; expected fortran_order False (save np.ascontiguousarray(x))', {
      expected: 'fortran_order False',
      found: `fortran_order ${String(fortran)}`,
    });
  }
  if (!Array.isArray(shape) || shape.length !== 2 || !shape.every((s): s is number => typeof s === 'number' && Number.isSafeInteger(s) && s >= 0)) {
    const found = Array.isArray(shape) ? `(${shape.map(String).join(', ')}${shape.length === 1 ? ',' : ''})` : String(shape);
    throw formatError(file, `has .npy shape ${found}; expected a 2-D array (rows, dim)`, { expected: '(rows, dim)', found });
  }
  const [rows, dim] = shape as [number, number];
  if (rows === 0 || dim === 0) {
    throw formatError(file, `has .npy shape (${rows}, ${dim}); expected at least one row and a positive dimension`, {
      expected: 'rows >= 1, dim >= 1',
      found: `(${rows}, ${dim})`,
    });
  }
  const elemBytes = ELEMENT_BYTES[element];
  const expected = rows * dim * elemBytes;
  const actual = size - dataOffset;
  if (actual !== expected) {
    const what = `.npy shape (${rows}, ${dim}) of ${descrText} needs ${expected} data bytes, but the file holds ${actual}`;
    if (actual < expected) {
      const row = Math.floor(actual / (dim * elemBytes));
      throw formatError(file, `${what}: truncated in row ${row}`, { row, expected, found: actual });
    }
    throw formatError(file, `${what}: ${actual - expected} unexpected trailing bytes`, { expected, found: actual });
  }
  return { element, descr: descrText, rows, dim, dataOffset };
}

function elementOf(descr: string): NpyElement | null {
  // Byte order is meaningless for one-byte types, so any prefix is fine there.
  if (/^[|<>=]?u1$/.test(descr)) return 'u1';
  if (/^[|<>=]?i1$/.test(descr)) return 'i1';
  if (descr === '<f4') return 'f4';
  if (descr === '<f8') return 'f8';
  return null;
}

function describeBytes(b: Uint8Array): string {
  return Array.from(b, (x) => (x >= 0x20 && x < 0x7f ? String.fromCharCode(x) : `\\x${x.toString(16).padStart(2, '0')}`)).join('');
}
