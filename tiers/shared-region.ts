// One contiguous shared memory region of a tier. A region is a shared WebAssembly.Memory so that
// (1) worker threads can share it without copies and (2) a WASM kernel instance can address it
// directly. wasm32 caps one memory at 4 GiB, so a tier is a list of regions ("segments").
import { invalidArgument } from '../common/errors.js';

export const WASM_PAGE = 65536;
export const MAX_REGION_BYTES = 65536 * WASM_PAGE; // 4 GiB

export interface SharedRegion {
  readonly memory: WebAssembly.Memory;
  readonly buffer: SharedArrayBuffer;
  readonly bytes: number;
}

export function allocateRegion(bytes: number): SharedRegion {
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw invalidArgument('bytes', `region size must be a positive integer, got ${bytes}`);
  const pages = Math.ceil(bytes / WASM_PAGE);
  if (pages > 65536) throw invalidArgument('bytes', `a region holds at most 4 GiB, asked for ${bytes}`);
  // initial === maximum: the memory never grows, so views taken once stay valid forever.
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  return { memory, buffer: memory.buffer as unknown as SharedArrayBuffer, bytes: pages * WASM_PAGE };
}

/** A region over memory that worker threads received (postMessage/workerData). */
export function adoptRegion(memory: WebAssembly.Memory): SharedRegion {
  const buffer = memory.buffer as unknown as SharedArrayBuffer;
  return { memory, buffer, bytes: buffer.byteLength };
}
