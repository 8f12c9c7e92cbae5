// Public surface of datasets/: readers, writers, generators and exact ground truth; other folders
// import from here only.
export type { DatasetFormat, Dataset, ReadOptions, IntMatrix, FloatMatrix, Metric, MetricHint, ProgressCallback } from './types.js';
export { DATASET_FORMATS } from './types.js';
export { detectFormat, SUPPORTED_EXTENSIONS } from './readers/detect.js';
export { readDataset } from './readers/read-dataset.js';
export { distancesFileBeside, readIvecs, readFvecsMatrix, readGroundTruth } from './readers/ground-truth-files.js';
export { writeFvecs, writeIvecs, writeFbin } from './writers.js';
export { bruteForceKnn, bruteForceKnnWhere, type GroundTruth, type MaskedGroundTruth } from './ground-truth.js';
export { judgeAnswer, TIE_TOLERANCE, type Judgement, type TruthRow } from './recall.js';
export { generateClustered, type ClusterMembership, type ClusteredSpec, type GeneratedSet } from './generate/clustered.js';
export { generateEmbedding, type EmbeddingSpec } from './generate/embedding.js';
export { GENERATOR_KINDS, generateSet, type GenerateSpec, type GeneratorKind } from './generate/kinds.js';
export { estimateLid, lidFromDistances, type LidEstimate, type LidOptions } from './lid.js';
export { writeGeneratedSet, writeTexmexSet, type WrittenSet } from './generate/write-set.js';
export { GLOVE_100, parseWordVectors, splitRows, type WordVectors } from './real/word-vectors.js';
export { checkIntegrity, fileIntegrity, readPackageFile, tarballName, type PinnedFile } from './real/fetch-package.js';
export { writeWordSet, type WordSetOptions, type WrittenWordSet } from './real/write-word-set.js';
export { readPayloadLines, type PayloadObject } from './readers/payloads.js';
export { clusterLabel, SELECTIVITY_TAGS, selectivityTags, wordAttributes, type Payload } from './filtered/attributes.js';
export { CLUSTER_FIELDS, WORD_FIELDS, type FieldSpec, type FieldSpecs } from './filtered/fields.js';
export {
  clusterFamilies,
  FILTER_CASES_SCHEMA,
  PRICE_SPAN,
  wordFamilies,
  type FamilyKind,
  type FilterCases,
  type FilterFamily,
  type FilterJson,
} from './filtered/families.js';
export { writeFilteredClusteredSet, writeFilteredWordSet, type WrittenFilteredSet } from './filtered/write-filtered-set.js';
