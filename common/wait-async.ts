/**
 * Atomics.waitAsync (V8 ≥ 8.7, Node ≥ 16), missing from TypeScript's ES2022 library: how an event
 * loop waits for a thread's answer in shared memory without blocking.
 */
export const waitAsync = (
  Atomics as unknown as { waitAsync(a: Int32Array, index: number, value: number): { async: true; value: Promise<string> } | { async: false; value: string } }
).waitAsync;
