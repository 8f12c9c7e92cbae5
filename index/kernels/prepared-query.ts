// The one layout of a prepared query's header: what codeBatch (code-kernel.as.ts) reads and rqPrepare
// (rq-prepare.as.ts) fills in, written on the JS side by index/codes/ (codec.ts writePreparedHeader,
// the codecs' per-query fields). build-wasm.mjs generates the AssemblyScript constants from this table
// (prepared-query.generated.as.ts, not checked in). Self-contained: the build compiles it alone.

/** Byte offset of each header field. i32 unless noted; an offset of -1 means the row has no such field. */
export const PREPARED = {
  /** u32: the row's planes (1 bits, 2 crumbs, 4 nibbles, 8 bytes). */
  planes: 0,
  /** Coded dimensions, a multiple of 16. */
  dims: 4,
  /** u32: the planes' offset in the row. */
  planesOffset: 8,
  scaleOffset: 12,
  betaOffset: 16,
  centroidOffset: 20,
  /** f32: gamma times the weights' scale W. */
  gammaW: 24,
  /** f32: the constant term, used without centroids. */
  constA: 28,
  /** f64: mid times the sum of the weights. */
  mSumW: 32,
  /** u32: the centroid table (f32 per centroid, filled lazily from NaN), from the slot start. */
  tableOffset: 40,
  /** u32: the float query, from the slot start. */
  queryOffset: 44,
  /** f32: |q|, for error bounds (not read by the kernel). */
  queryNorm: 48,
  /** u32: bytes from the centroids (the segment head) back from the rows. */
  headBack: 52,
  /** The float query's dimensions (and each centroid's). */
  dim: 56,
  /** u32: what a table entry is (0: |q - c|², 1: 1 - q·c). */
  tableKind: 60,
  /** The weights: dims × i16, after the header. */
  weights: 64,
} as const;
