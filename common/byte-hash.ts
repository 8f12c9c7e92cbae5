// Hashing and comparing byte runs for the open-addressing tables kept in typed arrays (the payload
// string dictionary, the UUID pairs): FNV-1a over a run, and equality of two runs, both by offset
// so that no view is made per probe.

/** FNV-1a of bytes[from, to). */
export function fnv1a(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** Whether a[aAt, aAt + n) and b[bAt, bAt + n) hold the same bytes. */
export function sameBytesAt(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (a[aAt + k] !== b[bAt + k]) return false;
  return true;
}
