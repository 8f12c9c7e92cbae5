// Format detection is by extension only: the binary vector formats have no magic number (fvecs,
// fbin) so sniffing contents could not tell them apart reliably.
import { extname } from 'node:path';
import { formatError } from '../dataset-errors.js';
import type { DatasetFormat } from '../types.js';

const BY_EXTENSION: Readonly<Record<string, DatasetFormat>> = {
  '.fvecs': 'fvecs',
  '.bvecs': 'bvecs',
  '.fbin': 'fbin',
  '.u8bin': 'u8bin',
  '.i8bin': 'i8bin',
  '.npy': 'npy',
  '.hdf5': 'hdf5',
  '.h5': 'hdf5',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
};

export const SUPPORTED_EXTENSIONS: readonly string[] = Object.keys(BY_EXTENSION);

export function detectFormat(file: string): DatasetFormat {
  const ext = extname(file).toLowerCase();
  const format = BY_EXTENSION[ext];
  if (format === undefined) {
    const list = SUPPORTED_EXTENSIONS.join(', ');
    throw formatError(
      file,
      `cannot tell the dataset format from ${ext ? `the extension "${ext}"` : 'a file name without an extension'}; supported extensions: ${list} (or pass the format explicitly)`,
      {
        expected: list,
        found: ext || '(none)',
      },
    );
  }
  return format;
}
