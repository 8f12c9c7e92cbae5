// Embedding-like vectors for angular (cosine) search: what text and image embeddings look like to an
// index, rather than well-separated Gaussian blobs. Each trait below changes how hard graph search
// or a quantisation code finds the data, so each is imitated:
// - many topics of uneven size (thousands, Zipf-like weights), at uneven distances from each other;
// - within and between topics, a spread that decays across directions (σ_i ∝ i^-decay) in a random
//   orthogonal basis: few directions carry most of the variance, and no coordinate is special;
// - one mean direction shared by every vector: real embeddings fill a cone, not the whole sphere,
//   so cosines between unrelated vectors are well above 0;
// - uneven norms (lognormal), which cosine ignores and inner product does not.
// The shape gives a local intrinsic dimensionality near 20 (GloVe-100's) at 10,000 to 100,000 rows of
// 100 to 128 dimensions, where Gaussian clusters (clustered.ts) measure about 50; datasets/lid.ts
// measures it, and datasets/README.md records what was measured.
import { gaussian, mulberry32, randomOrthogonal } from '../../common/random.js';
import type { GeneratedSet } from './clustered.js';
import { weightedPicker, zipfWeights } from './sampling.js';

export interface EmbeddingSpec {
  count: number;
  dim: number;
  /** Topic centres; default 3,000 (at most one per row). */
  topics?: number;
  seed: number;
}

/** The shape of the distribution; fixed rather than options, chosen for the intrinsic dimensionality above. */
export const EMBEDDING_SHAPE = {
  /** σ_i ∝ i^-decay over the rotated directions. */
  decay: 0.55,
  /** Length of the shared mean direction, against a unit spread of the topic centres: unrelated rows have a cosine of about 0.3. */
  mean: 0.8,
  /** Spread of a topic's rows around its centre, against the centres' spread (each topic ×/÷ a lognormal factor). */
  within: 0.7,
  withinJitter: 0.3,
  /** Zipf exponent of the topic sizes. */
  zipf: 0.8,
  /** σ of log(norm): a coefficient of variation of the norms of about 0.4. */
  logNorm: 0.38,
} as const;

export const DEFAULT_TOPICS = 3000;

export function generateEmbedding(spec: EmbeddingSpec, queryCount: number): GeneratedSet {
  const { count, dim, seed } = spec;
  const topics = Math.max(1, Math.min(spec.topics ?? DEFAULT_TOPICS, count));
  const shape = EMBEDDING_SHAPE;
  const rnd = mulberry32(seed);
  const g = gaussian(rnd);
  const basis = randomOrthogonal(dim, g);
  // σ_i scaled so that a draw has unit expected squared length, whatever dim is
  const sigma = new Float64Array(dim);
  let total = 0;
  for (let i = 0; i < dim; i++) {
    sigma[i] = (i + 1) ** -shape.decay;
    total += sigma[i]! ** 2;
  }
  for (let i = 0; i < dim; i++) sigma[i] = sigma[i]! / Math.sqrt(total);

  const coeffs = new Float64Array(dim);
  /** out += scale · Σ_i σ_i z_i basis_i: one anisotropic Gaussian draw in the rotated basis. */
  const addDraw = (out: Float64Array, scale: number): void => {
    for (let i = 0; i < dim; i++) coeffs[i] = g() * sigma[i]! * scale;
    for (let i = 0; i < dim; i++) {
      const c = coeffs[i]!;
      const row = i * dim;
      for (let j = 0; j < dim; j++) out[j] = out[j]! + c * basis[row + j]!;
    }
  };

  const mean = new Float64Array(dim);
  let m2 = 0;
  for (let j = 0; j < dim; j++) {
    mean[j] = g();
    m2 += mean[j]! ** 2;
  }
  for (let j = 0; j < dim; j++) mean[j] = (mean[j]! / Math.sqrt(m2)) * shape.mean;
  const centres = new Float64Array(topics * dim);
  const spread = new Float64Array(topics);
  const centre = new Float64Array(dim);
  for (let t = 0; t < topics; t++) {
    centre.set(mean);
    addDraw(centre, 1);
    centres.set(centre, t * dim);
    spread[t] = shape.within * Math.exp(shape.withinJitter * g());
  }
  const pick = weightedPicker(zipfWeights(topics, shape.zipf), rnd);

  const row = new Float64Array(dim);
  const fill = (out: Float32Array, rows: number): void => {
    for (let r = 0; r < rows; r++) {
      const t = pick();
      row.set(centres.subarray(t * dim, (t + 1) * dim));
      addDraw(row, spread[t]!);
      let s = 0;
      for (let j = 0; j < dim; j++) s += row[j]! * row[j]!;
      const scale = Math.exp(shape.logNorm * g()) / Math.sqrt(s);
      for (let j = 0; j < dim; j++) out[r * dim + j] = row[j]! * scale;
    }
  };
  const base = new Float32Array(count * dim);
  fill(base, count);
  const queries = new Float32Array(queryCount * dim);
  fill(queries, queryCount);
  return { base, queries, dim, metric: 'cosine' };
}
