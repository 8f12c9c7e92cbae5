// What the server may use of the engine and of the layers beneath it. The server imports this module
// and no other engine, storage or index module (test/layout.test.ts holds the rule), so those layers
// can rearrange their files without the server following; each name here is re-exported from its one
// home, nothing is defined twice.
export type * from './types.js';
export { FRESH_PLANS, PLAN_NAMES } from './types.js';
export type { Collection, OrderBy } from './collection.js';
export type { CollectionMemory, MemoryPart } from './collection-memory.js';
export type { CompactionReport, Engine } from './engine.js';
export type { AliasAction } from './aliases.js';
export { checkCollectionName, MAX_COLLECTION_NAME_BYTES } from './engine.js';

// Collections and points as storage keeps them: the config, ids, payloads, where UUID ids are numbered from.
export type { CollectionConfig, SecondaryParams, SparseParams } from '../storage/collection-dir.js';
export type { KeyedPoint, Payload, PointKey } from '../storage/live-store.js';
export { UUID_ID_BASE } from '../storage/live-store.js';

// Search parameters, their bounds and the counters a search reports.
export type { ValuesPlacement } from '../index/payload/chunk-memory.js';
export type { Metric } from '../index/kernels/kernels.js';
export { distanceRef, normalizeRows } from '../index/kernels/reference.js';
export { compileReader, parseKeyPath, type PathReader } from '../index/filter/key-path.js';
export { checkEf, checkIntIn, checkK, checkQueryVector, checkRerank, MAX_EF, MAX_K, MAX_RERANK } from '../index/search/bounds.js';
export type { SearchStats } from '../index/search/stats.js';
export { STAT } from '../index/search/stats.js';

// Which shard a point id belongs to: the router must agree with the shard map `strata build --shards` wrote.
export { shardOf } from '../index/build/build-shards.js';
export { MAX_PAYLOAD_M } from '../index/build/link-blocks.js';

// Sparse vectors (Qdrant's sparse_vectors): checked once at the edge, searched by the collection.
export type { SparseVector } from '../index/sparse/sparse-vector.js';
export { MAX_SPARSE_NONZEROS, sparseVectorAt } from '../index/sparse/sparse-vector.js';
export type { SparseHit } from '../index/sparse/sparse-column.js';

// Filters and payload selectors: parsed once at the edge, into the types the engine takes.
export type { Filter } from '../index/filter/ast.js';
export { parseFilter } from '../index/filter/parse.js';
export type { PayloadSelector } from '../index/payload/selector.js';
export { selectorPaths } from '../index/payload/selector.js';
export type { FacetValue, FieldSchema } from '../index/payload-index/field-index.js';
export { FIELD_SCHEMAS } from '../index/payload-index/params.js';
