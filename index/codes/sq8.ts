// sq8: every dimension scalar-quantised to 8 bits over its own range (x ≈ lo + step × c). The
// estimate is exact algebra on the reconstruction:
//   l2: |q - x̂|² = Σ(q - lo)² - 2 Σ (q - lo)·step·c + Σ (step·c)²   (the last term stored per row)
//   ip: 1 - q·x̂ = (1 - Σ q·lo) - Σ q·step·c
// so the kernel only computes an integer dot product of the prepared weights with the codes.
import { invalidArgument } from '../../common/errors.js';
import { PREPARED } from '../kernels/prepared-query.js';
import { BOUND_SIGMAS, type Codec, type CodeSpec, pad16, preparedLayout, writePreparedHeader, writeWeights } from './codec.js';
import { packPlanes, unpackPlanes } from './planes.js';

/** Share of values clipped at each end of a dimension's range: a stray outlier must not widen every step. */
const CLIP = 1e-4;

export function trainSq8(vectors: Float32Array, dim: number, metric: 'l2' | 'ip', sampleRows = 100_000): { spec: CodeSpec; params: Float32Array } {
  const n = vectors.length / dim;
  if (n === 0) throw invalidArgument('codes', 'cannot train a code on no vectors');
  const every = Math.max(1, Math.floor(n / sampleRows));
  const m = Math.ceil(n / every);
  const col = new Float32Array(m);
  const params = new Float32Array(2 * dim);
  for (let d = 0; d < dim; d++) {
    for (let r = 0, i = 0; i < n; i += every, r++) col[r] = vectors[i * dim + d]!;
    col.sort();
    const lo = col[Math.floor(CLIP * (m - 1))]!;
    const hi = col[Math.ceil((1 - CLIP) * (m - 1))]!;
    params[d] = lo;
    params[dim + d] = hi > lo ? (hi - lo) / 255 : 1;
  }
  const dims = pad16(dim);
  return { spec: { kind: 'sq8', dim, dims, bits: 8, metric, centroids: 0, stride: dims + (metric === 'l2' ? 4 : 0) }, params };
}

export class Sq8Codec implements Codec {
  readonly queryBytes: number;
  readonly headBytes = 0;
  private readonly lo: Float32Array;
  private readonly step: Float32Array;
  private readonly planesOffset: number;
  private readonly v: Float64Array;
  private readonly codes: Int32Array;
  private readonly rmsStep: number;

  constructor(
    readonly spec: CodeSpec,
    readonly params: Float32Array,
  ) {
    this.lo = params.subarray(0, spec.dim);
    this.step = params.subarray(spec.dim, 2 * spec.dim);
    this.planesOffset = spec.metric === 'l2' ? 4 : 0;
    this.queryBytes = preparedLayout(spec.dims, 0).bytes;
    this.v = new Float64Array(spec.dims);
    this.codes = new Int32Array(spec.dims);
    let ss = 0;
    for (let d = 0; d < spec.dim; d++) ss += this.step[d]! ** 2;
    this.rmsStep = Math.sqrt(ss / spec.dim);
  }

  writeHead(_out: Uint8Array): void {}

  encode(vectors: Float32Array, from: number, count: number, out: Uint8Array): void {
    const { dim, dims, stride, metric } = this.spec;
    const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
    for (let r = 0; r < count; r++) {
      const o = (from + r) * dim;
      let beta = 0;
      this.codes.fill(0);
      for (let d = 0; d < dim; d++) {
        const c = Math.max(0, Math.min(255, Math.round((vectors[o + d]! - this.lo[d]!) / this.step[d]!)));
        this.codes[d] = c;
        beta += (this.step[d]! * c) ** 2;
      }
      if (metric === 'l2') dv.setFloat32(r * stride, beta, true);
      packPlanes(this.codes, 8, dims, out, r * stride + this.planesOffset);
    }
  }

  prepare(q: Float32Array, out: Uint8Array): void {
    const { dim, dims, metric } = this.spec;
    let constA = 0;
    const v = this.v;
    v.fill(0);
    if (metric === 'l2') {
      for (let d = 0; d < dim; d++) {
        const t = q[d]! - this.lo[d]!;
        constA += t * t;
        v[d] = t * this.step[d]!;
      }
    } else {
      constA = 1;
      for (let d = 0; d < dim; d++) {
        constA -= q[d]! * this.lo[d]!;
        v[d] = q[d]! * this.step[d]!;
      }
    }
    const { W } = writeWeights(out, v, 8, dims);
    let qq = 0;
    for (let d = 0; d < dim; d++) qq += q[d]! * q[d]!;
    new DataView(out.buffer, out.byteOffset, out.byteLength).setFloat32(PREPARED.queryNorm, Math.sqrt(qq), true);
    writePreparedHeader(out, {
      bits: 8,
      dims,
      planesOffset: this.planesOffset,
      scaleOffset: -1,
      betaOffset: metric === 'l2' ? 0 : -1,
      centroidOffset: -1,
      gammaW: (metric === 'l2' ? -2 : -1) * W,
      constA,
      mSumW: 0,
      tableOffset: 0,
    });
  }

  /**
   * Each coordinate's rounding error is uniform within half a step and independent of the others,
   * so the cross term a·e (a = q - x̂) has standard deviation √(Σ a_d²·step_d²/12) ≈ |a|·rms(step)/√12
   * (central limit); BOUND_SIGMAS of it bound the estimate's error, twice for l2's 2·a·e.
   */
  errorBound(dv: DataView, _rowAt: number, prepAt: number, estimate: number): number {
    const sd = this.rmsStep / Math.sqrt(12);
    if (this.spec.metric === 'l2') return 2 * BOUND_SIGMAS * Math.sqrt(Math.max(0, estimate)) * sd;
    return BOUND_SIGMAS * dv.getFloat32(prepAt + PREPARED.queryNorm, true) * sd;
  }

  decode(row: Uint8Array): Float64Array {
    const { dim, dims } = this.spec;
    const c = new Int32Array(dims);
    unpackPlanes(row, this.planesOffset, 8, dims, c);
    return Float64Array.from({ length: dim }, (_, d) => this.lo[d]! + this.step[d]! * c[d]!);
  }
}
