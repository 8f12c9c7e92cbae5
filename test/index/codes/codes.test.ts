// Compact codes: the plane layouts round-trip, the encoders stay within their error bounds, and the
// one code kernel (WASM SIMD and its JS twin) computes the estimate the float64 reference says,
// for every kind, both metrics and dimensions that exercise every plane's tail path.
import { describe, expect, it } from 'vitest';
import { gaussian, mulberry32 } from '../../../common/random.js';
import { headSpan, writeWeights } from '../../../index/codes/codec.js';
import { PREPARED } from '../../../index/kernels/prepared-query.js';
import { CODE_KINDS, type Codec, type CodeKind, trainCodec } from '../../../index/codes/index.js';
import { PLANE, packPlanes, planeSlot, unpackPlanes } from '../../../index/codes/planes.js';
import { RQ_BITS, RqCodec } from '../../../index/codes/rq.js';
import { HADAMARD_ROUNDS, randomRotationParams, Rotation, type RotationKind, rotationParamsLength } from '../../../index/codes/rotation.js';
import { instantiateKernels, jsKernels, type KernelSet } from '../../../index/kernels/kernels.js';
import { allocateRegion } from '../../../tiers/shared-region.js';

function anisotropic(n: number, dim: number, seed: number, clusters = 8): Float32Array {
  const rnd = mulberry32(seed);
  const g = gaussian(rnd);
  const centres = Float32Array.from({ length: clusters * dim }, () => g() * 4);
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(rnd() * clusters);
    for (let d = 0; d < dim; d++) out[i * dim + d] = centres[c * dim + d]! + g() * (1 + d / dim) * (0.5 + rnd());
  }
  return out;
}

function normalize(v: Float32Array, dim: number): Float32Array {
  for (let o = 0; o < v.length; o += dim) {
    let s = 0;
    for (let d = 0; d < dim; d++) s += v[o + d]! ** 2;
    const inv = 1 / Math.sqrt(s);
    for (let d = 0; d < dim; d++) v[o + d] = v[o + d]! * inv;
  }
  return v;
}

const dist = (metric: 'l2' | 'ip', a: ArrayLike<number>, b: ArrayLike<number>, dim: number): number => {
  let s = 0;
  for (let d = 0; d < dim; d++) s += metric === 'l2' ? (a[d]! - b[d]!) ** 2 : a[d]! * b[d]!;
  return metric === 'l2' ? s : 1 - s;
};

/** Runs the code kernel of `kernels` over every row of `codes`; returns the estimates. */
function runKernel(which: 'wasm' | 'js', codec: Codec, codes: Uint8Array, rows: number, q: Float32Array): Float32Array {
  const stride = codec.spec.stride;
  const prepAt = 0;
  const idsAt = Math.ceil(codec.queryBytes / 64) * 64;
  const outAt = idsAt + 4 * rows;
  // The rows follow the code's head (rq's centroids), as in a segment.
  const headAt = Math.ceil((outAt + 4 * rows) / 64) * 64;
  const base = headAt + headSpan(codec.headBytes);
  const region = allocateRegion(base + codes.byteLength + 64);
  const k: KernelSet = which === 'wasm' ? instantiateKernels(region.memory) : jsKernels(region.memory);
  const u8 = new Uint8Array(region.buffer);
  codec.writeHead(u8.subarray(headAt, headAt + codec.headBytes));
  u8.set(codes, base);
  const u32 = new Uint32Array(region.buffer);
  for (let i = 0; i < rows; i++) u32[(idsAt >>> 2) + i] = i;
  codec.prepare(q, u8.subarray(prepAt, prepAt + codec.queryBytes));
  k.codeBatch(prepAt, base, stride, idsAt, rows, outAt);
  return new Float32Array(region.buffer, outAt, rows).slice();
}

describe('plane layouts', () => {
  it('round-trips every bit width at dimensions that leave 16-, 32- and 48-dim tails', () => {
    const rnd = mulberry32(3);
    for (const bits of [1, 2, 3, 4, 8]) {
      for (const dims of [16, 32, 48, 64, 80, 112, 128, 144, 976]) {
        const vals = Int32Array.from({ length: dims }, () => Math.floor(rnd() * (1 << bits)));
        const buf = new Uint8Array(4096);
        packPlanes(vals, bits, dims, buf, 7);
        const back = new Int32Array(dims);
        unpackPlanes(buf, 7, bits, dims, back);
        expect(back).toEqual(vals);
      }
    }
  });

  it('gives every dimension of a plane its own slot', () => {
    for (const kind of [PLANE.bits, PLANE.crumbs, PLANE.nibbles, PLANE.bytes]) {
      for (const dims of [16, 48, 112, 128]) {
        const seen = new Set<string>();
        for (let i = 0; i < dims; i++) {
          const s = planeSlot(kind, i, dims);
          seen.add(`${s.byte}:${s.shift}`);
        }
        expect(seen.size).toBe(dims);
      }
    }
  });
});

describe.each(CODE_KINDS)('%s codes', (kind: CodeKind) => {
  // rq codes rotate with Hadamard rounds since index format 4; format 3's dense rotations still load.
  const rotations: (RotationKind | undefined)[] = kind === 'sq8' ? [undefined] : ['hadamard', 'dense'];
  for (const rotation of rotations)
    for (const metric of ['l2', 'ip'] as const) {
      for (const dim of [8, 24, 100, 128, 140]) {
        it(`${metric}, ${dim} dims${rotation ? `, ${rotation} rotation` : ''}: the WASM and JS kernels give the float64 reference estimate`, () => {
          const n = 600;
          let data = anisotropic(n, dim, dim + (metric === 'l2' ? 1 : 2));
          if (metric === 'ip') data = normalize(data, dim);
          const codec = trainCodec(kind, data, dim, metric, { seed: 5, ...(rotation ? { rotation } : {}) });
          expect(codec.spec.rotation).toBe(rotation);
          const rows = 200;
          const codes = new Uint8Array(rows * codec.spec.stride);
          codec.encode(data, 0, rows, codes);
          const q = data.slice(450 * dim, 451 * dim);
          const wasm = runKernel('wasm', codec, codes, rows, q);
          const js = runKernel('js', codec, codes, rows, q);
          let scale = 0;
          for (let r = 0; r < rows; r++) scale = Math.max(scale, Math.abs(dist(metric, q, data.subarray(r * dim, r * dim + dim), dim)));
          for (let r = 0; r < rows; r++) {
            const row = codes.subarray(r * codec.spec.stride, (r + 1) * codec.spec.stride);
            const rec = codec.decode(row);
            // The estimate keeps |r|² exact where the reconstruction has |r̂|²; both are distances to rec
            // up to that term, so compare against the reference formula on the decoded parts.
            const ref = referenceEstimate(codec, metric, q, data.subarray(r * dim, r * dim + dim), rec);
            expect(Math.abs(wasm[r]! - ref)).toBeLessThan(2e-3 * scale);
            expect(Math.abs(js[r]! - wasm[r]!)).toBeLessThan(1e-4 * scale);
          }
        });
      }
    }

  it('keeps each coordinate within half a step of its grid point, except where the grid is clipped', () => {
    const dim = 64;
    const data = anisotropic(500, dim, 9);
    const codec = trainCodec(kind, data, dim, 'l2', { seed: 5 });
    const codes = new Uint8Array(500 * codec.spec.stride);
    codec.encode(data, 0, 500, codes);
    let worst = 0;
    let mean = 0;
    for (let r = 0; r < 500; r++) {
      const rec = codec.decode(codes.subarray(r * codec.spec.stride, (r + 1) * codec.spec.stride));
      let e = 0;
      let s = 0;
      for (let d = 0; d < dim; d++) {
        e += (rec[d]! - data[r * dim + d]!) ** 2;
        s += data[r * dim + d]! ** 2;
      }
      worst = Math.max(worst, e / s);
      mean += e / s / 500;
    }
    // Relative squared error of the reconstruction: what B bits on a fitted grid can give.
    const bits = kind === 'sq8' ? 8 : RQ_BITS[kind]!;
    expect(mean).toBeLessThan(4 ** -(bits - 1));
    expect(worst).toBeLessThan(1);
  });
});

/** Float64 estimate from a decoded code: the distance to the reconstruction, with rq's exact |r|² term. */
function referenceEstimate(codec: Codec, metric: 'l2' | 'ip', q: Float32Array, _orig: ArrayLike<number>, rec: Float64Array): number {
  const dim = codec.spec.dim;
  return dist(metric, q, rec, dim) + (codec.spec.kind !== 'sq8' && metric === 'l2' ? rqNormCorrection(codec, rec, _orig) : 0);
}

/** rq stores |r|² exactly where the reconstruction has |r̂|²: the estimate differs by |r|² - |r̂|². */
function rqNormCorrection(codec: Codec, rec: Float64Array, orig: ArrayLike<number>): number {
  const dim = codec.spec.dim;
  const params = codec.params;
  const centroidsAt = rotationParamsLength(codec.spec.rotation ?? 'dense', dim, codec.spec.dims);
  // The centroid is the nearest to the original; find it the same way the encoder did.
  let best = 0;
  let bestD = Number.POSITIVE_INFINITY;
  for (let j = 0; j < codec.spec.centroids; j++) {
    let s = 0;
    for (let d = 0; d < dim; d++) s += (orig[d]! - params[centroidsAt + j * dim + d]!) ** 2;
    if (s < bestD) {
      bestD = s;
      best = j;
    }
  }
  let r2 = 0;
  let rh2 = 0;
  for (let d = 0; d < dim; d++) {
    const c = params[centroidsAt + best * dim + d]!;
    r2 += (orig[d]! - c) ** 2;
    rh2 += (rec[d]! - c) ** 2;
  }
  return r2 - rh2;
}

describe('query weights', () => {
  // The kernel adds a small code's products into one i32 (hsumI) and a byte code's lane by lane:
  // with every weight at its limit and every value at its maximum, neither may overflow.
  it.each([2, 3, 4, 8])("%i-bit values: the largest possible dot product fits the kernel's i32 sums at any dimension count", (bits) => {
    for (const dims of [16, 128, 1024, 4096, 8192, 65536]) {
      const out = new Uint8Array(PREPARED.weights + 2 * dims);
      writeWeights(out, new Float64Array(dims).fill(1), bits, dims);
      const w = new Int16Array(out.buffer, PREPARED.weights, dims);
      expect(w[0]).toBeGreaterThan(0);
      const terms = bits <= 4 ? dims : Math.ceil(dims / 4);
      expect(w[0]! * terms * ((1 << bits) - 1)).toBeLessThanOrEqual(2 ** 31 - 1);
    }
  });
});

describe('error bounds', () => {
  it.each(CODE_KINDS)('%s: the true distance lies within the stated bound of the estimate for at least 99 percent of pairs', (kind) => {
    for (const metric of ['l2', 'ip'] as const) {
      const dim = 96;
      let data = anisotropic(2000, dim, 21);
      if (metric === 'ip') data = normalize(data, dim);
      const codec = trainCodec(kind, data, dim, metric, { seed: 3 });
      const rows = 1500;
      const codes = new Uint8Array(rows * codec.spec.stride);
      codec.encode(data, 0, rows, codes);
      let inside = 0;
      let total = 0;
      for (const qi of [1600, 1700, 1800, 1900]) {
        const q = data.slice(qi * dim, (qi + 1) * dim);
        const est = runKernel('wasm', codec, codes, rows, q);
        // The bound reads the prepared query and the row from one memory, as the search does (its
        // centroid table still unfilled here: the bound computes the entries it needs itself).
        const prepAt = 0;
        const rowsAt = Math.ceil(codec.queryBytes / 64) * 64;
        const mem = new Uint8Array(rowsAt + codes.byteLength);
        codec.prepare(q, mem.subarray(prepAt, codec.queryBytes));
        mem.set(codes, rowsAt);
        for (let r = 0; r < rows; r++) {
          const truth = dist(metric, q, data.subarray(r * dim, r * dim + dim), dim);
          const b = codec.errorBound(new DataView(mem.buffer), rowsAt + r * codec.spec.stride, prepAt, est[r]!);
          // A vector that is its own centroid has no residual: a zero bound, and an exact estimate.
          expect(b).toBeGreaterThanOrEqual(0);
          if (Math.abs(truth - est[r]!) <= b + 1e-5 * Math.abs(truth)) inside++;
          total++;
        }
      }
      expect(inside / total).toBeGreaterThanOrEqual(0.99);
    }
  });
});

describe('rotations', () => {
  it.each(['hadamard', 'dense'] as const)('%s: orthogonal on zero-padded inputs (norms and inner products kept), and the transpose inverts it', (kind) => {
    const rnd = mulberry32(11);
    const g = gaussian(rnd);
    // 128 and 64 are one Walsh-Hadamard block; 112, 48 and 208 two overlapping ones (rotation.ts).
    for (const [dim, dims] of [
      [128, 128],
      [100, 112],
      [48, 48],
      [60, 64],
      [200, 208],
    ] as const) {
      const r = new Rotation(kind, dim, dims, randomRotationParams(kind, dim, dims, 9));
      expect(r.params.length).toBe(rotationParamsLength(kind, dim, dims));
      const a = Float64Array.from({ length: dim }, () => g());
      const b = Float64Array.from({ length: dim }, () => g());
      const pa = new Float64Array(dims);
      const pb = new Float64Array(dims);
      r.apply(a, pa);
      r.apply(b, pb);
      const dot = (x: ArrayLike<number>, y: ArrayLike<number>, n: number): number => {
        let t = 0;
        for (let i = 0; i < n; i++) t += x[i]! * y[i]!;
        return t;
      };
      // Signs are exact; a dense matrix is stored in float32.
      const tol = kind === 'hadamard' ? 1e-12 : 1e-6;
      const aa = dot(a, a, dim);
      expect(Math.abs(dot(pa, pa, dims) - aa)).toBeLessThan(tol * aa);
      expect(Math.abs(dot(pa, pb, dims) - dot(a, b, dim))).toBeLessThan(tol * aa);
      const back = new Float64Array(dim);
      r.applyTransposed(pa, back);
      for (let d = 0; d < dim; d++) expect(Math.abs(back[d]! - a[d]!)).toBeLessThan(tol * Math.sqrt(aa));
      // It mixes: a basis vector's energy spreads over the coordinates (a random orthogonal matrix
      // leaves its largest share near 2·ln(dims)/dims).
      const e0 = new Float64Array(dim);
      e0[0] = 1;
      r.apply(e0, pa);
      expect(Math.max(...Array.from(pa, (x) => x * x))).toBeLessThan(16 / dims);
    }
  });

  it('a Hadamard rotation stores HADAMARD_ROUNDS signs per coded dimension, nothing else', () => {
    const p = randomRotationParams('hadamard', 100, 112, 3);
    expect(p.length).toBe(HADAMARD_ROUNDS * 112);
    expect(new Set(p)).toEqual(new Set([-1, 1]));
  });

  it.each(['rq2', 'rq3', 'rq4'] as const)('%s: the one-call WASM query preparation writes what its JS twin does', (kind) => {
    for (const metric of ['l2', 'ip'] as const) {
      for (const dim of [24, 100, 128, 140]) {
        let data = anisotropic(700, dim, dim + 3);
        if (metric === 'ip') data = normalize(data, dim);
        const codec = trainCodec(kind, data, dim, metric, { seed: 2 });
        expect(codec).toBeInstanceOf(RqCodec);
        const rq = codec as RqCodec;
        for (const qi of [650, 660, 699]) {
          const q = data.slice(qi * dim, (qi + 1) * dim);
          const wasm = new Uint8Array(codec.queryBytes);
          const js = new Uint8Array(codec.queryBytes);
          rq.prepare(q, wasm);
          rq.prepareJs(q, js);
          const dw = new DataView(wasm.buffer);
          const dj = new DataView(js.buffer);
          // The fixed header, the table's NaNs and the float query: the same bytes.
          expect(wasm.subarray(0, 24)).toEqual(js.subarray(0, 24));
          expect(wasm.subarray(40, 48)).toEqual(js.subarray(40, 48));
          expect(wasm.subarray(52, 64)).toEqual(js.subarray(52, 64));
          const tail = 64 + 2 * codec.spec.dims;
          expect(wasm.subarray(tail)).toEqual(js.subarray(tail));
          // Weights: the rotation runs in float32 here and float64 there, so a weight may round the
          // other way by one step; the scale and the sums follow.
          const W = Math.abs(dw.getFloat32(24, true));
          expect(W).toBeCloseTo(Math.abs(dj.getFloat32(24, true)), 5);
          let off = 0;
          for (let i = 0; i < codec.spec.dims; i++) off = Math.max(off, Math.abs(dw.getInt16(64 + 2 * i, true) - dj.getInt16(64 + 2 * i, true)));
          expect(off).toBeLessThanOrEqual(1);
          expect(Math.abs(dw.getFloat64(32, true) - dj.getFloat64(32, true))).toBeLessThanOrEqual((codec.spec.dims * ((1 << codec.spec.bits) - 1)) / 2);
          expect(dw.getFloat32(48, true)).toBeCloseTo(dj.getFloat32(48, true), 4);
        }
      }
    }
  });
});
