// The n smallest numbers of many, ascending, without sorting them all: a page of a filtered scroll
// takes the first `limit` ids past its offset from every matching id.

/**
 * The `n` smallest values of `values` that are at least `from`, ascending. One pass keeps those
 * values in a typed array; when more than n remain, a quickselect puts the n smallest first and only
 * they are sorted (a typed array's numeric sort: a comparator sort of a JS array took many times as long).
 */
export function smallestFrom(values: ArrayLike<number>, from: number, n: number): Float64Array {
  const kept = new Float64Array(values.length);
  let m = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v >= from) kept[m++] = v;
  }
  const out = kept.subarray(0, m);
  if (m <= n) return out.sort();
  selectSmallest(out, n);
  return out.subarray(0, n).sort();
}

/** Reorders `a` so that its first k values are its k smallest (k < a.length), in no order. */
export function selectSmallest(a: Float64Array, k: number): void {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    // Median of three as the pivot: sorted or reversed ids do not make it quadratic.
    const mid = (lo + hi) >>> 1;
    const pivot = median3(a[lo]!, a[mid]!, a[hi]!);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    // [lo, j] ≤ pivot ≤ [i, hi], and pivots between: done once the cut after the first k falls
    // between the parts, else on within the part it falls in.
    if (k <= j) hi = j;
    else if (k > i) lo = i;
    else return;
  }
}

function median3(x: number, y: number, z: number): number {
  return Math.max(Math.min(x, y), Math.min(Math.max(x, y), z));
}
