// AssemblyScript source of Strata's distance kernels (compiled to WebAssembly with SIMD).
// The module imports the memory of one tier segment, so the vectors it reads never leave the
// segment they live in. No runtime, no allocation, no data segments: instantiating a kernel on a
// memory that already holds an index must not write a single byte of it.
//
// The module's entry: it exports what JS calls, each job in its own file.
export { l2, ip, l2Batch, ipBatch } from './vector-kernels.as';
export { codeBatch } from './code-kernel.as';
export { listEstimates } from './list-code-kernel.as';
export { traverse } from './traverse.as';
export { scanMatches } from './scan.as';
export { rqPrepare } from './rq-prepare.as';
export { searchLevel0 } from './hnsw-search.as';
