// QPS-recall curves as the benches compare them: at equal recall, read off each curve.

/** QPS where a curve (points in ascending ef) first reaches `target` recall, linearly between the two points that bracket it; null if it never does. */
export function qpsAtRecall(curve: ReadonlyArray<{ recall: number; qps: number }>, target: number): number | null {
  for (let i = 0; i < curve.length; i++) {
    const p = curve[i]!;
    if (p.recall < target) continue;
    if (i === 0) return p.qps;
    const a = curve[i - 1]!;
    return a.qps + ((target - a.recall) / (p.recall - a.recall)) * (p.qps - a.qps);
  }
  return null;
}
