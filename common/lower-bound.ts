// The one binary search over an ascending sequence, for every sorted list that needs a start.

/** First i in 0..n whose value at(i) (ascending in i) is at least x; n when none is. */
export function lowerBound(n: number, at: (i: number) => number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Position of x in the ascending sequence at(0..n), or -1 when it is not there. */
export function sortedIndexOf(n: number, at: (i: number) => number, x: number): number {
  const i = lowerBound(n, at, x);
  return i < n && at(i) === x ? i : -1;
}
