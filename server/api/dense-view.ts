// One of a collection's dense vectors as a query stage reads it: the primary (the tiered index's) or
// a secondary one by name, with its length, its distance and each point's stored vector. Scoring,
// re-scoring, MMR and discovery read vectors through this, so that `using` reaches all of them.
import type { Collection, Metric } from '../../engine/public.js';

export interface DenseView {
  /** The secondary vector's name, or undefined for the primary. */
  readonly secondary: string | undefined;
  readonly dim: number;
  readonly metric: Metric;
  /** The point's stored vector (unit-normalised for Cosine), or null when it has none or is gone. */
  vectorOf(id: number): Float32Array | null;
}

export function denseView(c: Collection, secondary: string | undefined): DenseView {
  if (secondary === undefined) return { secondary, dim: c.dim, metric: c.metric, vectorOf: (id) => c.getPoint(id)?.vector ?? null };
  const spec = c.secondaryVectors[secondary]!;
  return { secondary, dim: spec.dim, metric: spec.metric, vectorOf: (id) => c.secondaryVector(id, secondary) };
}
