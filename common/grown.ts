// How the typed arrays that hold a row or a value a point grow: half as much again, not double.
// Doubling leaves up to half of a large collection's arrays empty, and these are DRAM that every
// filter or write reads (payload index columns, payload rows, id maps, UUID bytes).

/** The length an array of length n grows to, at least `need`. */
export function grownLength(n: number, need = 0): number {
  return Math.max(need, n + (n >>> 1));
}
