// Drawing topics (clusters) for generated rows: real collections have a few large topics and a long
// tail of small ones, so every generator picks them by weight rather than uniformly.

/** Weights 1 / (i + 1)^s: Zipf-like sizes, the largest topic (n)^s times the smallest. */
export function zipfWeights(n: number, s: number): Float64Array {
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = 1 / (i + 1) ** s;
  return w;
}

/** Draws index i with probability weights[i] / Σ weights (inverse CDF by binary search). */
export function weightedPicker(weights: ArrayLike<number>, rnd: () => number): () => number {
  const n = weights.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += weights[i]!;
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) cdf[i] = acc += weights[i]! / sum;
  return () => {
    const u = rnd();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
