// ann-benchmarks HDF5 files: datasets `train` (base vectors), `test` (queries), `neighbors`
// (ground-truth ids) and `distances`, plus a file attribute `distance` naming the metric.
// h5wasm is loaded lazily so that reading any other format never pays for instantiating the wasm
// HDF5 library.
import { resolve } from 'node:path';
import { formatError, storeAsFloat32, valueError } from '../dataset-errors.js';
import { assertReadableFile } from '../file-io.js';
import { chunkRows, report } from '../progress.js';
import type { MetricHint, RowReadOptions } from '../types.js';

type H5 = typeof import('h5wasm/node').default;
type H5File = InstanceType<H5['File']>;
type H5Dataset = InstanceType<H5['Dataset']>;

let loading: Promise<H5> | undefined;

function loadH5(): Promise<H5> {
  loading ??= (async () => {
    const h5 = (await import('h5wasm/node')).default;
    const mod = await h5.ready;
    // By default HDF5 prints a diagnostic stack to stderr and returns a bad id; make failures
    // JavaScript exceptions instead so they can be turned into StrataErrors.
    mod.activate_throwing_error_handler();
    return h5;
  })();
  return loading;
}

const H5T_INTEGER = 0;
const H5T_FLOAT = 1;

type NumericArray = Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;
type BigArray = BigInt64Array | BigUint64Array;

export async function readHdf5Vectors(
  file: string,
  name: string,
  opts: RowReadOptions,
): Promise<{ dim: number; count: number; data: Float32Array; metric: MetricHint | null }> {
  return withH5File(file, async (h5, f) => {
    const ds = getDataset(h5, f, file, name);
    const { rows, dim } = shape2d(ds, file, name);
    const meta = ds.metadata;
    const isFloat = meta.type === H5T_FLOAT && (meta.size === 4 || meta.size === 8);
    const isSmallInt = meta.type === H5T_INTEGER && meta.size <= 4;
    if (meta.vlen || (!isFloat && !isSmallInt)) {
      throw formatError(
        file,
        `dataset "${name}" has unsupported element type ${describeType(ds)}; expected float32, float64 or an integer of at most 32 bits`,
        {
          dataset: name,
          expected: 'float32, float64 or <= 32-bit integer',
          found: describeType(ds),
        },
      );
    }
    const count = Math.min(rows, opts.limit);
    const out = new Float32Array(count * dim);
    const step = chunkRows(dim * meta.size);
    for (let first = 0; first < count; first += step) {
      const rowsHere = Math.min(step, count - first);
      const values = sliceRows(ds, file, name, first, rowsHere, dim);
      if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
        throw formatError(file, `dataset "${name}" returned 64-bit integers; expected float or <= 32-bit integer data`, { dataset: name });
      }
      storeAsFloat32(file, values, values.length, out, first * dim, dim);
      await report(opts.onProgress, first + rowsHere, count);
    }
    return { dim, count, data: out, metric: metricOf(f) };
  });
}

/** Ground truth ids (ann-benchmarks `neighbors`), which must be integers that fit int32. */
export async function readHdf5Ints(file: string, name: string): Promise<{ dim: number; count: number; data: Int32Array }> {
  return withH5File(file, async (h5, f) => {
    const ds = getDataset(h5, f, file, name);
    const { rows, dim } = shape2d(ds, file, name);
    if (ds.metadata.type !== H5T_INTEGER || ds.metadata.vlen) {
      throw formatError(file, `dataset "${name}" has element type ${describeType(ds)}; expected integer ids`, {
        dataset: name,
        expected: 'integer',
        found: describeType(ds),
      });
    }
    const out = new Int32Array(rows * dim);
    const step = chunkRows(dim * ds.metadata.size);
    for (let first = 0; first < rows; first += step) {
      const rowsHere = Math.min(step, rows - first);
      const values = sliceRows(ds, file, name, first, rowsHere, dim);
      const o = first * dim;
      for (let i = 0; i < values.length; i++) {
        const v = Number(values[i]!);
        if (v > 2147483647 || v < -2147483648) {
          const at = o + i;
          const row = Math.floor(at / dim);
          throw valueError(file, `dataset "${name}" row ${row}, column ${at % dim} holds id ${v}, which does not fit int32`, {
            dataset: name,
            row,
            column: at % dim,
            expected: 'int32',
            found: v,
          });
        }
        out[o + i] = v;
      }
    }
    return { dim, count: rows, data: out };
  });
}

async function withH5File<T>(file: string, fn: (h5: H5, f: H5File) => Promise<T>): Promise<T> {
  // h5wasm reports a missing file the same way as a corrupt one; check first for a clearer error.
  await assertReadableFile(file);
  const h5 = await loadH5();
  let f: H5File;
  try {
    f = new h5.File(resolve(file), 'r');
  } catch (e) {
    throw formatError(file, 'is not a readable HDF5 file (the HDF5 library could not open it)', { expected: 'HDF5 file' }, e);
  }
  try {
    return await fn(h5, f);
  } finally {
    f.close();
  }
}

function getDataset(h5: H5, f: H5File, file: string, name: string): H5Dataset {
  let entity: ReturnType<H5File['get']>;
  try {
    entity = f.get(name);
  } catch {
    // A path through a missing group makes HDF5 raise rather than return "not found".
    entity = null;
  }
  if (!(entity instanceof h5.Dataset)) {
    const found = f.keys();
    throw formatError(file, `has no dataset "${name}" (top-level entries: ${found.length ? found.join(', ') : 'none'})`, {
      dataset: name,
      expected: name,
      found: found.join(', '),
    });
  }
  return entity;
}

function shape2d(ds: H5Dataset, file: string, name: string): { rows: number; dim: number } {
  const shape = ds.shape;
  if (shape === null || shape.length !== 2) {
    const found = shape === null ? 'scalar' : `(${shape.join(', ')})`;
    throw formatError(file, `dataset "${name}" has shape ${found}; expected a 2-D array (rows, dim)`, { dataset: name, expected: '(rows, dim)', found });
  }
  const [rows, dim] = shape as [number, number];
  if (rows === 0 || dim === 0) {
    throw formatError(file, `dataset "${name}" has shape (${rows}, ${dim}); expected at least one row and a positive dimension`, {
      dataset: name,
      expected: 'rows >= 1, dim >= 1',
      found: `(${rows}, ${dim})`,
    });
  }
  return { rows, dim };
}

function sliceRows(ds: H5Dataset, file: string, name: string, first: number, rows: number, dim: number): NumericArray | BigArray {
  let v: unknown;
  try {
    v = ds.slice([[first, first + rows]]);
  } catch (e) {
    throw formatError(
      file,
      `dataset "${name}" could not be read at rows ${first}..${first + rows - 1} (corrupt or truncated file?)`,
      { dataset: name, row: first },
      e,
    );
  }
  if (!ArrayBuffer.isView(v) || v instanceof DataView || (v as NumericArray).length !== rows * dim) {
    throw formatError(file, `dataset "${name}" rows ${first}..${first + rows - 1} did not read as ${rows * dim} numbers`, {
      dataset: name,
      row: first,
      expected: rows * dim,
    });
  }
  return v as NumericArray | BigArray;
}

function describeType(ds: H5Dataset): string {
  const m = ds.metadata;
  if (m.vlen) return 'variable-length';
  if (m.type === H5T_FLOAT) return `float${m.size * 8}`;
  if (m.type === H5T_INTEGER) return `${m.signed ? 'int' : 'uint'}${m.size * 8}`;
  return typeof ds.dtype === 'string' ? `HDF5 type ${ds.dtype}` : `HDF5 type class ${m.type}`;
}

const METRICS: Record<string, MetricHint> = {
  euclidean: 'l2',
  l2: 'l2',
  angular: 'cosine',
  cosine: 'cosine',
  dot: 'ip',
  ip: 'ip',
  inner_product: 'ip',
};

/** The `distance` file attribute; metrics the index cannot use (jaccard, hamming) give no hint. */
function metricOf(f: H5File): MetricHint | null {
  if (!('distance' in f.attrs)) return null;
  let v: unknown;
  try {
    v = f.get_attribute('distance', false);
  } catch {
    return null;
  }
  if (v instanceof Uint8Array) v = new TextDecoder().decode(v);
  if (Array.isArray(v) && v.length === 1) v = v[0];
  if (typeof v !== 'string') return null;
  return METRICS[v.trim().toLowerCase()] ?? null;
}
