// rq2/rq3/rq4: residual codes in the manner of RaBitQ. A vector o is stored as its nearest k-means
// centroid c (one byte), and the residual r = o - c rotated (P, rotation.ts) and quantised to B bits
// per coordinate on a uniform grid centred on zero, with a per-vector scale s fitted by least
// squares over a few clipping widths: P·r ≈ s·x̃ with x̃ = x - m, m = (2^B - 1) / 2.
//
// With a = q - c the estimate keeps every exact term and approximates only the cross term:
//   l2: |q - o|² = |a|² + |r|² - 2 a·r ≈ T[c] + β - 2·s·(Pq·x̃)   with T[c] = |q - c|² per query and
//       β = |r|² + 2·s·(Pc·x̃) stored per vector;
//   ip: 1 - q·o = (1 - q·c) - q·r ≈ T[c] - s·(Pq·x̃)          with T[c] = 1 - q·c.
// P is a random rotation (rotation.ts): Hadamard rounds from index format 4 on, a dense matrix before.
// Its error is the cross term's: |2·(Pa)·e| with e = P·r - s·x̃, which the rotation makes isotropic:
// about 2·|a|·|e|/√dims in spread (docs/codes.md gives the bound and its measured coverage).
import { invalidArgument } from '../../common/errors.js';
import { mulberry32 } from '../../common/random.js';
import { PREPARED } from '../kernels/prepared-query.js';
import { RowScorer } from '../kernels/row-scorer.js';
import {
  BOUND_SIGMAS,
  type Codec,
  headSpan,
  type CodeKind,
  type CodeSpec,
  pad16,
  planesBytes,
  preparedLayout,
  type PreparedHeader,
  weightLimit,
  writePreparedHeader,
  writeWeights,
} from './codec.js';
import { kmeans } from './kmeans.js';
import { packPlanes, unpackPlanes } from './planes.js';
import { RqPreparer } from './rq-prepare.js';
import { randomRotationParams, Rotation, type RotationKind, rotationParamsLength } from './rotation.js';

export const RQ_BITS: Readonly<Record<string, number>> = { rq4: 4, rq3: 3, rq2: 2 };
const MAX_CENTROIDS = 256;
/** Clipping widths tried per vector, in units of its coordinates' RMS. */
const CLIPS: Readonly<Record<number, number[]>> = {
  2: [0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0],
  3: [1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.5, 2.8],
  4: [1.6, 1.9, 2.2, 2.5, 2.7, 3.0, 3.4],
};

export interface RqTrainOptions {
  seed: number;
  /** Rows k-means runs on (a seeded sample). */
  sampleRows?: number;
  iterations?: number;
  /** Coded (rotated) dimensions: a multiple of 16, at least dim; pad16(dim) when absent. */
  dims?: number;
  /** At most this many centroids (the planner's cap when the default count's would not fit the budget). */
  centroids?: number;
  /** hadamard unless asked (dense is what index format 3 made; kept to compare and to test it). */
  rotation?: RotationKind;
  onProgress?: (done: number, total: number) => void;
}

/** Centroids of an rq code trained on `sampleRows` rows: enough points each for a stable mean, at most one byte of centroid number. */
export function rqCentroidCount(sampleRows: number): number {
  return Math.max(1, Math.min(MAX_CENTROIDS, Math.floor(sampleRows / 32)));
}

/** Rows k-means trains on by default (a seeded sample). */
export const RQ_SAMPLE_ROWS = 25_000;

export function rqStride(bits: number, dims: number, metric: 'l2' | 'ip'): number {
  return 4 + (metric === 'l2' ? 4 : 0) + planesBytes(bits, dims) + 2;
}

/** The residual error |e| is stored as |e| / (s·√dims) in one byte, in steps of 1/ERROR_STEPS. */
const ERROR_STEPS = 400;

export function trainRq(vectors: Float32Array, dim: number, metric: 'l2' | 'ip', kind: CodeKind, o: RqTrainOptions): { spec: CodeSpec; params: Float32Array } {
  const bits = RQ_BITS[kind];
  if (bits === undefined) throw invalidArgument('codes', `${kind} is not a residual code`);
  const n = vectors.length / dim;
  if (n === 0) throw invalidArgument('codes', 'cannot train a code on no vectors');
  const sampleRows = Math.min(n, o.sampleRows ?? RQ_SAMPLE_ROWS);
  const rnd = mulberry32(o.seed);
  const sample = new Float32Array(sampleRows * dim);
  for (let i = 0; i < sampleRows; i++) {
    const r = sampleRows === n ? i : Math.floor(rnd() * n);
    sample.set(vectors.subarray(r * dim, r * dim + dim), i * dim);
  }
  const k = Math.min(o.centroids ?? Number.POSITIVE_INFINITY, rqCentroidCount(sampleRows));
  const { centroids } = kmeans(sample, dim, k, o.iterations ?? 12, o.seed);
  const dims = o.dims ?? pad16(dim);
  if (dims % 16 !== 0 || dims < dim)
    throw invalidArgument('codes', `${dims} coded dimensions for ${dim}-d vectors: expected a multiple of 16, at least ${dim}`);
  const rotationKind = o.rotation ?? 'hadamard';
  const rotation = randomRotationParams(rotationKind, dim, dims, o.seed ^ 0x5eed);
  const params = new Float32Array(rotation.length + centroids.length);
  params.set(rotation, 0);
  params.set(centroids, rotation.length);
  return {
    spec: { kind, dim, dims, bits, metric, centroids: centroids.length / dim, stride: rqStride(bits, dims, metric), rotation: rotationKind },
    params,
  };
}

/** Floats of an rq code's parameters: its rotation's, then the centroids. */
export function rqParamsLength(spec: CodeSpec): number {
  return rotationParamsLength(spec.rotation ?? 'dense', spec.dim, spec.dims) + spec.centroids * spec.dim;
}

export class RqCodec implements Codec {
  readonly queryBytes: number;
  readonly headBytes: number;
  private readonly rotation: Rotation;
  private readonly centroids: Float32Array;
  /** Rotated centroids (for β), centroids × dims. */
  private readonly rotatedCentroids: Float64Array;
  /** Dense rotations only: their query product runs through a row kernel. */
  private readonly rotate: RowScorer | null;
  /** Hadamard rotations where WASM runs: the whole query preparation in one call. */
  private readonly preparer: RqPreparer | null;
  private readonly toCentroids: RowScorer;
  private readonly mid: number;
  private readonly levels: number;
  private readonly scaleOffset = 0;
  private readonly betaOffset: number;
  private readonly planesOffset: number;
  private readonly centroidOffset: number;
  private readonly errorOffset: number;
  private readonly tableOffset: number;
  private readonly queryOffset: number;
  private readonly pq: Float64Array;
  private readonly resid: Float64Array;
  private readonly x: Int32Array;
  private readonly bestX: Int32Array;

  constructor(
    readonly spec: CodeSpec,
    readonly params: Float32Array,
  ) {
    const { dim, dims, centroids: k, bits, metric } = spec;
    const kind = spec.rotation ?? 'dense';
    const rotLength = rotationParamsLength(kind, dim, dims);
    this.rotation = new Rotation(kind, dim, dims, params.subarray(0, rotLength));
    this.centroids = params.subarray(rotLength, rotLength + k * dim);
    this.rotate = kind === 'dense' ? new RowScorer(this.rotation.params, dim) : null;
    this.toCentroids = new RowScorer(this.centroids, dim);
    this.levels = (1 << bits) - 1;
    this.mid = this.levels / 2;
    this.betaOffset = metric === 'l2' ? 4 : -1;
    this.planesOffset = metric === 'l2' ? 8 : 4;
    this.centroidOffset = spec.stride - 2;
    this.errorOffset = spec.stride - 1;
    const layout = preparedLayout(dims, k, dim);
    this.queryBytes = layout.bytes;
    this.tableOffset = layout.tableOffset;
    this.queryOffset = layout.queryOffset;
    this.headBytes = 4 * k * dim;
    this.pq = new Float64Array(dims);
    this.resid = new Float64Array(dim);
    this.x = new Int32Array(dims);
    this.bestX = new Int32Array(dims);
    this.rotatedCentroids = new Float64Array(k * dims);
    for (let j = 0; j < k; j++) this.rotatedCentroids.set(this.rotateInto(this.centroids.subarray(j * dim, j * dim + dim)), j * dims);
    this.preparer =
      kind === 'hadamard'
        ? RqPreparer.open(
            {
              dim,
              dims,
              centroids: k,
              queryBytes: this.queryBytes,
              queryOffset: this.queryOffset,
              tableOffset: this.tableOffset,
              limit: weightLimit(bits, dims),
              gammaSign: metric === 'l2' ? -2 : -1,
              mid: this.mid,
              header: this.header(0, 0),
            },
            this.rotation.params,
          )
        : null;
  }

  /** P·v (dims values; valid until the next call). */
  private rotateInto(v: ArrayLike<number>): Float64Array {
    if (this.rotate === null) {
      this.rotation.apply(v, this.pq);
      return this.pq;
    }
    const out = this.rotate.score(v, 'ip');
    for (let i = 0; i < out.length; i++) this.pq[i] = 1 - out[i]!;
    return this.pq;
  }

  /** The prepared header for a query's weight scale W and integer weight sum. */
  private header(W: number, sumW: number): PreparedHeader {
    const { dim, dims, bits, metric } = this.spec;
    return {
      bits,
      dims,
      planesOffset: this.planesOffset,
      scaleOffset: this.scaleOffset,
      betaOffset: this.betaOffset,
      centroidOffset: this.centroidOffset,
      gammaW: (metric === 'l2' ? -2 : -1) * W,
      constA: 0,
      mSumW: this.mid * sumW,
      tableOffset: this.tableOffset,
      lazyTable: { queryOffset: this.queryOffset, headBack: headSpan(this.headBytes), dim, metric },
    };
  }

  encode(vectors: Float32Array, from: number, count: number, out: Uint8Array): void {
    const { dim, dims, stride, bits, metric } = this.spec;
    const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
    const resid = this.resid;
    const x = this.x;
    const bestX = this.bestX;
    const L = this.levels;
    const m = this.mid;
    for (let r = 0; r < count; r++) {
      const o = (from + r) * dim;
      const v = vectors.subarray(o, o + dim);
      const c = this.toCentroids.nearest(v).row;
      let rr = 0;
      for (let d = 0; d < dim; d++) {
        resid[d] = v[d]! - this.centroids[c * dim + d]!;
        rr += resid[d]! ** 2;
      }
      const p = this.rotateInto(resid);
      let ss = 0;
      for (let i = 0; i < dims; i++) ss += p[i]! ** 2;
      const rms = Math.sqrt(ss / dims);
      let bestErr = Number.POSITIVE_INFINITY;
      let bestS = 0;
      if (rms > 0) {
        for (const clip of CLIPS[bits]!) {
          const s0 = (clip * rms) / m;
          let xr = 0;
          let xx = 0;
          for (let i = 0; i < dims; i++) {
            const q = Math.max(0, Math.min(L, Math.round(p[i]! / s0 + m)));
            x[i] = q;
            const t = q - m;
            xr += t * p[i]!;
            xx += t * t;
          }
          // Least-squares scale for this grid point: the residual error is then |p|² - s·(x̃·p).
          const s = xx > 0 ? xr / xx : 0;
          const err = ss - s * xr;
          if (err < bestErr) {
            bestErr = err;
            bestS = s;
            bestX.set(x);
          }
        }
      } else {
        bestX.fill(Math.round(m));
      }
      const at = r * stride;
      dv.setFloat32(at + this.scaleOffset, bestS, true);
      if (metric === 'l2') {
        let cx = 0;
        const pc = this.rotatedCentroids.subarray(c * dims, c * dims + dims);
        for (let i = 0; i < dims; i++) cx += pc[i]! * (bestX[i]! - m);
        dv.setFloat32(at + this.betaOffset, rr + 2 * Math.fround(bestS) * cx, true);
      }
      packPlanes(bestX, bits, dims, out, at + this.planesOffset);
      out[at + this.centroidOffset] = c;
      // Rounded up, so the stored error is never smaller than the true one.
      const ratio = bestS > 0 && bestErr > 0 ? Math.sqrt(bestErr) / (bestS * Math.sqrt(dims)) : 0;
      out[at + this.errorOffset] = Math.min(255, Math.ceil(ratio * ERROR_STEPS));
    }
  }

  writeHead(out: Uint8Array): void {
    new Float32Array(out.buffer, out.byteOffset, this.centroids.length).set(this.centroids);
  }

  prepare(q: Float32Array, out: Uint8Array): void {
    if (this.preparer !== null) {
      this.preparer.prepare(q, out);
      return;
    }
    this.prepareJs(q, out);
  }

  /** The twin of the WASM preparation (rqPrepare in kernels/rq-prepare.as.ts), and the path of dense rotations. */
  prepareJs(q: Float32Array, out: Uint8Array): void {
    const { dim, dims, bits, centroids: k } = this.spec;
    const pq = this.rotateInto(q);
    const { W, sumW } = writeWeights(out, pq, bits, dims);
    let qq = 0;
    for (let i = 0; i < q.length; i++) qq += q[i]! * q[i]!;
    new DataView(out.buffer, out.byteOffset, out.byteLength).setFloat32(PREPARED.queryNorm, Math.sqrt(qq), true);
    // The table is the kernel's to fill (lazyTable below): a query meets few of the centroids, and
    // computing all of them was a fifth of a search.
    new Float32Array(out.buffer, out.byteOffset + this.tableOffset, k).fill(Number.NaN);
    new Float32Array(out.buffer, out.byteOffset + this.queryOffset, dim).set(q);
    writePreparedHeader(out, this.header(W, sumW));
  }

  /** T[c] for the query prepared at prepAt: the kernel's entry once it has filled it, else computed here. */
  private tableEntry(dv: DataView, prepAt: number, c: number): number {
    const t = dv.getFloat32(prepAt + this.tableOffset + 4 * c, true);
    if (!Number.isNaN(t)) return t;
    const { dim } = this.spec;
    const qAt = prepAt + this.queryOffset;
    let s = 0;
    for (let d = 0; d < dim; d++) {
      const qd = dv.getFloat32(qAt + 4 * d, true);
      const cd = this.centroids[c * dim + d]!;
      s += this.spec.metric === 'l2' ? (qd - cd) ** 2 : qd * cd;
    }
    return this.spec.metric === 'l2' ? s : 1 - s;
  }

  /**
   * The estimate misses only the cross term 2·(Pa)·e (l2) or (Pq)·e (ip), with e the rotated
   * residual's quantisation error. The random rotation makes e's direction independent of a's, so
   * their cosine is about N(0, 1/dims): with BOUND_SIGMAS standard deviations the term stays within
   * BOUND_SIGMAS·|a|·|e|/√dims (RaBitQ's argument); |a|² = T[c] for l2 and |q|² for ip.
   */
  errorBound(dv: DataView, rowAt: number, prepAt: number, _estimate: number): number {
    const s = Math.abs(dv.getFloat32(rowAt + this.scaleOffset, true));
    const perDim = (s * dv.getUint8(rowAt + this.errorOffset)) / ERROR_STEPS;
    // The query's weights are rounded to integers (codec.ts): each is off by at most half a unit, which
    // adds |gammaW|·s·Σ ε_i·x̃_i, ε uniform, with |x̃| at most mid·√dims; independent of the
    // residual's error, so the two add in quadrature.
    const weights = BOUND_SIGMAS * Math.abs(dv.getFloat32(prepAt + PREPARED.gammaW, true)) * s * this.mid * Math.sqrt(this.spec.dims / 12);
    const a =
      this.spec.metric === 'l2'
        ? 2 * Math.sqrt(Math.max(0, this.tableEntry(dv, prepAt, dv.getUint8(rowAt + this.centroidOffset))))
        : dv.getFloat32(prepAt + PREPARED.queryNorm, true);
    const main = BOUND_SIGMAS * a * perDim;
    return Math.sqrt(main * main + weights * weights);
  }

  decode(row: Uint8Array): Float64Array {
    const { dim, dims, bits } = this.spec;
    const dv = new DataView(row.buffer, row.byteOffset, row.byteLength);
    const s = dv.getFloat32(this.scaleOffset, true);
    const c = row[this.centroidOffset]!;
    const x = new Int32Array(dims);
    unpackPlanes(row, this.planesOffset, bits, dims, x);
    // r̂ = Pᵀ·(s·x̃): the rotation is orthogonal, so its transpose maps back.
    const y = new Float64Array(dims);
    for (let i = 0; i < dims; i++) y[i] = s * (x[i]! - this.mid);
    const out = new Float64Array(dim);
    this.rotation.applyTransposed(y, out);
    for (let d = 0; d < dim; d++) out[d]! += this.centroids[c * dim + d]!;
    return out;
  }
}
