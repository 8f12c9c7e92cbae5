// Readers for evaluation inputs (ground-truth neighbour ids and distances). They are read whole:
// recall needs every row, and these files are small next to the base vectors.
import { existsSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { formatError } from '../dataset-errors.js';
import { readIbinData } from './bin.js';
import { readFvecsData, readIvecsData } from './fvecs.js';
import { readHdf5Ints } from './hdf5.js';
import type { FloatMatrix, IntMatrix, RowReadOptions } from '../types.js';

const WHOLE_FILE: RowReadOptions = { limit: Infinity, onProgress: undefined };

export async function readIvecs(file: string): Promise<IntMatrix> {
  const m = await readIvecsData(file, WHOLE_FILE);
  return { file, count: m.count, dim: m.dim, data: m.data };
}

/** groundtruth_dist.fvecs, or <stem>_dist.fvecs, in the directory of the ids file (TEXMEX layout): the true distances for tie-aware recall. */
export function distancesFileBeside(gtFile: string): string | null {
  const dir = dirname(gtFile);
  const stem = basename(gtFile).replace(/\.[^.]+$/, '');
  for (const c of [join(dir, `${stem}_dist.fvecs`), join(dir, 'groundtruth_dist.fvecs')]) if (existsSync(c)) return c;
  return null;
}

/** An .fvecs file as a plain matrix, e.g. groundtruth_dist.fvecs or query.fvecs. */
export async function readFvecsMatrix(file: string): Promise<FloatMatrix> {
  const m = await readFvecsData(file, WHOLE_FILE);
  return { file, count: m.count, dim: m.dim, data: m.data };
}

const GROUND_TRUTH_EXTENSIONS = '.ivecs, .ibin, .hdf5, .h5';

/** Ground-truth neighbour ids from .ivecs, .ibin or an ann-benchmarks HDF5 file (default dataset 'neighbors'). */
export async function readGroundTruth(file: string, opts: { hdf5Dataset?: string } = {}): Promise<IntMatrix> {
  const ext = extname(file).toLowerCase();
  switch (ext) {
    case '.ivecs':
      return readIvecs(file);
    case '.ibin': {
      const m = await readIbinData(file);
      return { file, count: m.count, dim: m.dim, data: m.data };
    }
    case '.hdf5':
    case '.h5': {
      const m = await readHdf5Ints(file, opts.hdf5Dataset ?? 'neighbors');
      return { file, count: m.count, dim: m.dim, data: m.data };
    }
    default:
      throw formatError(
        file,
        `cannot tell the ground-truth format from ${ext ? `the extension "${ext}"` : 'a file name without an extension'}; supported extensions: ${GROUND_TRUTH_EXTENSIONS}`,
        {
          expected: GROUND_TRUTH_EXTENSIONS,
          found: ext || '(none)',
        },
      );
  }
}
