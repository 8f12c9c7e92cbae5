// `strata build <input>` entry point: pick a reader by format, normalise options once, and return
// every format in the same shape (float32 rows, optional ids and metric hint).
import { invalidArgument } from '../../common/errors.js';
import { readBinVectors } from './bin.js';
import { detectFormat } from './detect.js';
import { readBvecsData, readFvecsData } from './fvecs.js';
import { readHdf5Vectors } from './hdf5.js';
import { readJsonlData } from './jsonl.js';
import { readNpyData } from './npy.js';
import { DATASET_FORMATS, type Dataset, type ReadOptions, type RowReadOptions } from '../types.js';

export async function readDataset(file: string, opts: ReadOptions = {}): Promise<Dataset> {
  if (typeof file !== 'string' || file === '') throw invalidArgument('file', 'expected a dataset file path');
  if (opts.format !== undefined && !DATASET_FORMATS.includes(opts.format)) {
    throw invalidArgument('format', `unknown dataset format ${JSON.stringify(opts.format)}; expected one of ${DATASET_FORMATS.join(', ')}`, {
      found: String(opts.format),
    });
  }
  if (opts.limit !== undefined && !(Number.isSafeInteger(opts.limit) && opts.limit >= 1)) {
    throw invalidArgument('limit', `expected a positive integer number of rows, found ${String(opts.limit)}`, { found: String(opts.limit) });
  }
  if (opts.hdf5Dataset !== undefined && (typeof opts.hdf5Dataset !== 'string' || opts.hdf5Dataset === '')) {
    throw invalidArgument('hdf5Dataset', 'expected a non-empty dataset name');
  }
  const format = opts.format ?? detectFormat(file);
  const rowOpts: RowReadOptions = { limit: opts.limit ?? Infinity, onProgress: opts.onProgress };

  const base = { file, format, ids: null, metric: null } as const;
  switch (format) {
    case 'fvecs': {
      const m = await readFvecsData(file, rowOpts);
      return { ...base, dim: m.dim, count: m.count, vectors: m.data };
    }
    case 'bvecs': {
      const m = await readBvecsData(file, rowOpts);
      return { ...base, dim: m.dim, count: m.count, vectors: m.data };
    }
    case 'fbin':
    case 'u8bin':
    case 'i8bin': {
      const elem = format === 'fbin' ? 'f32' : format === 'u8bin' ? 'u8' : 'i8';
      const m = await readBinVectors(file, elem, rowOpts);
      return { ...base, dim: m.dim, count: m.count, vectors: m.data };
    }
    case 'npy': {
      const m = await readNpyData(file, rowOpts);
      return { ...base, dim: m.dim, count: m.count, vectors: m.data };
    }
    case 'hdf5': {
      const m = await readHdf5Vectors(file, opts.hdf5Dataset ?? 'train', rowOpts);
      return { ...base, dim: m.dim, count: m.count, vectors: m.data, metric: m.metric };
    }
    case 'jsonl': {
      const m = await readJsonlData(file, rowOpts);
      return { ...base, dim: m.dim, count: m.count, vectors: m.data, ids: m.ids };
    }
  }
}
