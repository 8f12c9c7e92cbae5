// Shapes shared by the readers, writers, generators and ground truth in this folder, kept apart so
// format modules do not import each other.

export type DatasetFormat = 'fvecs' | 'bvecs' | 'fbin' | 'u8bin' | 'i8bin' | 'npy' | 'hdf5' | 'jsonl';

export const DATASET_FORMATS: readonly DatasetFormat[] = ['fvecs', 'bvecs', 'fbin', 'u8bin', 'i8bin', 'npy', 'hdf5', 'jsonl'];

export type { Metric } from '../common/metric.js';
import type { Metric } from '../common/metric.js';

/** The metric a file itself declares. */
export type MetricHint = Metric;

export interface Dataset {
  file: string;
  format: DatasetFormat;
  dim: number;
  count: number;
  /** count*dim values, row-major. */
  vectors: Float32Array;
  /** External ids when the file carries them (JSONL "id"); null means ids are 0-based row numbers. */
  ids: Float64Array | null;
  /** The metric the file itself declares (ann-benchmarks HDF5 `distance` attribute), else null. */
  metric: MetricHint | null;
}

export type ProgressCallback = (rowsDone: number, rowsTotal: number) => void;

export interface ReadOptions {
  /** Overrides detection by file extension. */
  format?: DatasetFormat;
  /** HDF5 dataset holding the base vectors; default 'train'. */
  hdf5Dataset?: string;
  /** Read at most this many rows. */
  limit?: number;
  onProgress?: ProgressCallback;
}

export interface IntMatrix {
  file: string;
  count: number;
  dim: number;
  data: Int32Array;
}

export interface FloatMatrix {
  file: string;
  count: number;
  dim: number;
  data: Float32Array;
}

/** What format readers share: the dispatcher validates options once, then hands these down. */
export interface RowReadOptions {
  limit: number;
  onProgress: ProgressCallback | undefined;
}
