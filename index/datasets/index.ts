// Public surface of the dataset readers and writers; other folders import from here only.
export type { DatasetFormat, Dataset, ReadOptions, IntMatrix, FloatMatrix, MetricHint, ProgressCallback } from './types.js';
export { DATASET_FORMATS } from './types.js';
export { detectFormat, SUPPORTED_EXTENSIONS } from './detect.js';
export { readDataset } from './read-dataset.js';
export { readIvecs, readFvecsMatrix, readGroundTruth } from './ground-truth.js';
export { writeFvecs, writeIvecs, writeFbin } from './writers.js';
