// The payload store's sizes, in one place: chunk sizes decide how memory grows (and what a tier
// segment would hold later), the column cap bounds the per-path bookkeeping a payload can create.
export const PAYLOAD_LIMITS = {
  /** Ids per chunk of a per-point array (a power of two): a column touched by few points stays small. */
  idsPerChunk: 4096,
  /** Elements per chunk of an append-only value pool (a power of two). */
  poolChunk: 16384,
  /** Bytes per chunk of a byte arena (strings, JSON text); a longer value gets a chunk of its own. */
  arenaChunk: 1 << 20,
  /** Chunks an arena can address (its addresses are u32: chunk index and offset). */
  arenaChunks: 4096,
  /**
   * Bytes of a store's first memory slab (chunk-memory.ts); each next one doubles, up to the largest,
   * which bounds what a store holds unused (a chunk of a quarter of it or more gets its own slab).
   */
  firstSlab: 1 << 16,
  largestSlab: 1 << 20,
  /** Decoded strings the dictionary keeps on the heap (a power of two), so hot keywords decode once. */
  decodedStrings: 4096,
  /**
   * Typed columns a store creates at most. A top-level key whose paths would need more is kept whole
   * in the point's overflow column (JSON text), so payloads with unbounded key sets stay bounded.
   */
  maxColumns: 1024,
} as const;
