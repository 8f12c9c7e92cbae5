// The one layout of a build thread's level-0 search block, the contract between the WASM search
// (hnsw-search.as.ts) and the HNSW insertion that calls it (index/build/hnsw-insert.ts). build-wasm.mjs
// generates the AssemblyScript constants from this table (insert-control.generated.as.ts, not checked
// in). Self-contained on purpose: the build transpiles this file alone, before the TypeScript build.

/** Byte offset of each field in the block; addresses and counts are u32, distances f32. */
export const INSERT = {
  /** Address of the query's row. */
  query: 0,
  /** Address of row 0, and the bytes from a row to the next. */
  rows: 4,
  rowStride: 8,
  dim: 12,
  /** 0 l2, 1 ip. */
  kind: 16,
  /** Address of node 0's level-0 list ([degree, ids…]), and the bytes from a list to the next. */
  lists: 20,
  listStride: 24,
  /** Most ids a list holds (a torn read's degree is bounded by it). */
  maxDegree: 28,
  ef: 32,
  /** Address of the thread's visited tags (u16 per node) and this search's tag. */
  visited: 36,
  epoch: 40,
  /** The frontier's heap (f32 distances, u32 ids), room for every node. */
  frontierD: 44,
  frontierI: 48,
  /** The best ef's heap (negated distances), room for ef + 1. */
  bestD: 52,
  bestI: 56,
  /** Scratch for one list's unvisited ids and their distances. */
  ids: 60,
  dists: 64,
  /** The entry node and its distance (f32). */
  entry: 68,
  entryD: 72,
  /** Output: the beam's nodes nearest first (ids, f32 distances), room for ef. */
  foundI: 76,
  foundD: 80,
} as const;

export const INSERT_BYTES = 96;
