// Curves of a measure against recall as the benches compare them: at equal recall, read off each curve.

/**
 * The value where a curve (points in ascending ef) first reaches `target` recall, linearly between
 * the two points that bracket it; null if it never does. A curve whose first point reaches the target
 * already answers that point's value: start the ef grid low enough that it does not.
 */
export function atRecall<P extends { recall: number }>(curve: readonly P[], target: number, value: (p: P) => number): number | null {
  for (let i = 0; i < curve.length; i++) {
    const p = curve[i]!;
    if (p.recall < target) continue;
    if (i === 0) return value(p);
    const a = curve[i - 1]!;
    return value(a) + ((target - a.recall) / (p.recall - a.recall)) * (value(p) - value(a));
  }
  return null;
}

/** QPS where a curve first reaches `target` recall (atRecall). */
export function qpsAtRecall(curve: ReadonlyArray<{ recall: number; qps: number }>, target: number): number | null {
  return atRecall(curve, target, (p) => p.qps);
}
