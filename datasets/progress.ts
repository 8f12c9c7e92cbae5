// Readers work in chunks of this many rows: big enough that per-chunk overhead vanishes, small
// enough that a progress bar moves and chunk buffers stay modest.
import type { ProgressCallback } from './types.js';

export const CHUNK_ROWS = 65536;

// Chunk buffers are also capped in bytes so very wide rows (e.g. 960-d GIST) do not balloon them.
const CHUNK_BYTES = 32 * 1024 * 1024;

export function chunkRows(rowBytes: number): number {
  return Math.max(1, Math.min(CHUNK_ROWS, Math.floor(CHUNK_BYTES / Math.max(1, rowBytes))));
}

/**
 * Reports progress and then yields to the event loop, because the parsing loops are synchronous
 * and a progress bar can only repaint between them. Without a callback there is nothing to
 * repaint, so no yield either.
 */
export async function report(onProgress: ProgressCallback | undefined, done: number, total: number): Promise<void> {
  if (onProgress === undefined) return;
  onProgress(done, total);
  await new Promise<void>((resolve) => setImmediate(resolve));
}
