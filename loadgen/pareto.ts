// The Pareto front of recall vs QPS (ann-benchmarks' plots): the configurations no other one beats on
// both recall and throughput. What is below the front is never worth running.

export interface Point {
  recall: number;
  qps: number;
}

/** Indices of the points on the front, by ascending recall (ties on recall keep the faster point). */
export function paretoFront(points: readonly Point[]): number[] {
  const order = points.map((_, i) => i).filter((i) => Number.isFinite(points[i]!.recall) && Number.isFinite(points[i]!.qps));
  // Best recall first; on equal recall the higher QPS first, so the slower twin is dominated.
  order.sort((a, b) => points[b]!.recall - points[a]!.recall || points[b]!.qps - points[a]!.qps);
  const front: number[] = [];
  let bestQps = -Infinity;
  for (const i of order) {
    if (points[i]!.qps > bestQps) {
      front.push(i);
      bestQps = points[i]!.qps;
    }
  }
  return front.reverse();
}
