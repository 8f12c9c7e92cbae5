// Qdrant's score conventions over the engine's hnswlib distances. The engine ranks by squared L2
// (l2) or 1 - dot (ip, cosine on unit vectors); Qdrant users expect Euclid to be the Euclidean
// distance (smaller is better) and Dot / Cosine to be similarities (larger is better).
import { distanceRef, type Metric } from '../../engine/public.js';

export type QdrantDistance = 'Euclid' | 'Dot' | 'Cosine';

export function qdrantDistance(metric: Metric): QdrantDistance {
  return metric === 'l2' ? 'Euclid' : metric === 'ip' ? 'Dot' : 'Cosine';
}

/** qdrantDistance's inverse (a distance Strata does not know reads as Cosine's, as the collection view spells only these three). */
export function metricOfDistance(d: string): Metric {
  return d === 'Euclid' ? 'l2' : d === 'Dot' ? 'ip' : 'cosine';
}

/** The score Qdrant would report for an engine distance. */
export function scoreOf(metric: Metric, distance: number): number {
  // Rounding can leave a squared distance a hair below zero for identical vectors.
  return metric === 'l2' ? Math.sqrt(Math.max(0, distance)) : 1 - distance;
}

/** Qdrant's score_threshold: for distances (Euclid) keep scores at or below it, else at or above. */
export function passesThreshold(metric: Metric, score: number, threshold: number | undefined): boolean {
  if (threshold === undefined) return true;
  return metric === 'l2' ? score <= threshold : score >= threshold;
}

/**
 * Larger is more similar: the score for Dot and Cosine, the Euclidean distance turned round. What
 * MMR, discovery and context queries compare (vectors as stored: unit length for Cosine).
 */
export function similarity(metric: Metric, a: Float32Array, b: Float32Array, dim: number): number {
  const d = distanceRef(metric, a, 0, b, 0, dim);
  return metric === 'l2' ? -Math.sqrt(Math.max(0, d)) : 1 - d;
}
