// The code kinds behind one interface: train one from vectors, or rebuild one from stored parameters.
import { invalidArgument } from '../../common/errors.js';
import { CODE_KINDS, type Codec, type CodeKind, type CodeSpec, pad16 } from './codec.js';
import type { RotationKind } from './rotation.js';
import { RQ_BITS, RQ_SAMPLE_ROWS, RqCodec, rqCentroidCount, trainRq } from './rq.js';
import { Sq8Codec, trainSq8 } from './sq8.js';

export { CODE_KINDS, type Codec, type CodeKind, type CodeSpec } from './codec.js';

export interface TrainOptions {
  seed: number;
  /** Coded dimensions of rq codes (codeDims); the narrowest padding when absent. */
  dims?: number;
  /** rq codes: at most this many centroids. */
  centroids?: number;
  /** rq codes' rotation: hadamard unless asked (rotation.ts). */
  rotation?: RotationKind;
  onProgress?: (done: number, total: number) => void;
}

export function parseCodeKind(text: string): CodeKind | 'none' | 'auto' {
  if (text === 'none' || text === 'auto' || (CODE_KINDS as readonly string[]).includes(text)) return text as CodeKind | 'none' | 'auto';
  throw invalidArgument('codes', `unknown code "${text}", expected auto, none, ${CODE_KINDS.join(', ')}`);
}

export function trainCodec(kind: CodeKind, vectors: Float32Array, dim: number, metric: 'l2' | 'ip', o: TrainOptions): Codec {
  const t = kind === 'sq8' ? trainSq8(vectors, dim, metric) : trainRq(vectors, dim, metric, kind, o);
  return createCodec(t.spec, t.params);
}

export function createCodec(spec: CodeSpec, params: Float32Array): Codec {
  if (spec.kind === 'sq8') return new Sq8Codec(spec, params);
  if (RQ_BITS[spec.kind] !== undefined) return new RqCodec(spec, params);
  throw invalidArgument('codes', `unknown code kind ${String(spec.kind)}`);
}

/**
 * Coded dimensions of a kind for dim-d vectors: padded to 16, or with `wide` (rq2/rq3 only) to 64
 * when that adds at most a fifth. A crumb code's last block costs the kernel the same four steps
 * whatever its width (planes.ts), so the wider padding buys precision — the rotation spreads the
 * vector over more coded coordinates, each with its own bits — for bytes only (100-d angular:
 * recall@10 at ef 30 0.949 → 0.956 at equal speed, docs/codes.md).
 */
export function codeDims(kind: CodeKind, dim: number, wide: boolean): number {
  const narrow = pad16(dim);
  if (!wide || (kind !== 'rq3' && kind !== 'rq2')) return narrow;
  const w = Math.ceil(dim / 64) * 64;
  return w * 5 <= narrow * 6 ? w : narrow;
}

/** Bytes per code row of a kind, before training (the planner's arithmetic). */
export function codeRowBytes(kind: CodeKind, dim: number, metric: 'l2' | 'ip', wide = false): number {
  const dims = codeDims(kind, dim, wide);
  if (kind === 'sq8') return dims + (metric === 'l2' ? 4 : 0);
  const bits = RQ_BITS[kind]!;
  return 4 + (metric === 'l2' ? 4 : 0) + (bits * dims) / 8 + 2;
}

/**
 * DRAM a code takes besides its rows, before training (the planner charges it): rq's centroids,
 * which the code store's head holds and the kernel reads to fill a query's table lazily; sq8 has
 * none (its offsets and steps travel in each prepared query). The rotation's signs and the prepared
 * queries are per-thread scratch, like the traversal lanes, not index data.
 */
export function codeHeadBytes(kind: CodeKind, count: number, dim: number, centroids = codeCentroids(kind, count)): number {
  return kind === 'sq8' ? 0 : 4 * centroids * dim;
}

/** Centroids a code of `count` vectors trains by default (rq; 0 for sq8). */
export function codeCentroids(kind: CodeKind, count: number): number {
  return kind === 'sq8' ? 0 : rqCentroidCount(Math.min(count, RQ_SAMPLE_ROWS));
}

/**
 * Fewest centroids the planner will cut an rq code to so that it fits a budget. On SIFT 10k
 * (recall@10 at ef 32, 10% budget): 256 centroids 0.948, 64 0.946, 32 0.942, while rq2 with 256
 * gave 0.934; below 16 a centroid's residuals get as wide as the data's spread.
 */
export const MIN_CENTROIDS = 16;
