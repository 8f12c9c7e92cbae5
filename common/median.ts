// The one median the benches report repetitions by (alternating runs, the middle one), so that an
// even count of repetitions means the same thing in every bench.
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new RangeError('median of no values');
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
