// Query preparation for rq codes with a Hadamard rotation (index/codes/rotation.ts, index/codes/rq.ts),
// driven by index/codes/rq-prepare.ts. Its JS twin is RqCodec.prepareJs (index/codes/rq.ts).
import { hsum } from './code-kernel.as';
import { P_GAMMA_W, P_M_SUM_W, P_QUERY_NORM, P_WEIGHTS } from './prepared-query.generated.as';


/** Normalised Walsh-Hadamard transform of the p floats at x (p a power of two, at least 16). */
@inline function fwhtBlock(x: usize, p: i32): void {
  // Strides 1 and 2 stay inside a vector: each is a lane swap plus a signed add.
  const s1 = f32x4(1, -1, 1, -1);
  const s2 = f32x4(1, 1, -1, -1);
  for (let i = 0; i < p; i += 4) {
    const at = x + (<usize>i << 2);
    let a = v128.load(at);
    a = f32x4.add(v128.shuffle<f32>(a, a, 1, 0, 3, 2), f32x4.mul(a, s1));
    a = f32x4.add(v128.shuffle<f32>(a, a, 2, 3, 0, 1), f32x4.mul(a, s2));
    v128.store(at, a);
  }
  for (let h = 4; h < p; h <<= 1) {
    for (let i = 0; i < p; i += h << 1) {
      for (let j = i; j < i + h; j += 4) {
        const pa = x + (<usize>j << 2);
        const pb = pa + (<usize>h << 2);
        const a = v128.load(pa);
        const c = v128.load(pb);
        v128.store(pa, f32x4.add(a, c));
        v128.store(pb, f32x4.sub(a, c));
      }
    }
  }
  const scale = f32x4.splat(<f32>(1.0 / Math.sqrt(<f64>p)));
  for (let i = 0; i < p; i += 4) {
    const at = x + (<usize>i << 2);
    v128.store(at, f32x4.mul(v128.load(at), scale));
  }
}

/**
 * Prepares the float query at prep + queryOffset (dim floats) for codeBatch, in place: rotates it
 * (rounds of the signs at `signs`, then a Walsh-Hadamard transform of [0, p) and of [dims - p, dims),
 * p the largest power of two ≤ dims; `work` holds dims floats), quantises the rotated query to i16
 * weights at prep + 64 (weight = W × integer, W = max |value| / limit), and writes the header's
 * per-query fields (24: gammaSign·W, 32: mid·Σ weights, 48: |q|) and a table of `centroids` NaNs at
 * prep + tableOffset. The fixed header fields are the caller's. Twin: RqCodec.prepare's JS path.
 */
export function rqPrepare(prep: usize, signs: usize, work: usize, dim: i32, dims: i32, rounds: i32, queryOffset: usize, tableOffset: usize, centroids: i32, limit: f32, gammaSign: f32, mid: f64): void {
  const q = prep + queryOffset;
  let qq: f32 = 0;
  for (let d = 0; d < dims; d++) {
    const v: f32 = d < dim ? load<f32>(q + (<usize>d << 2)) : 0;
    qq += v * v;
    store<f32>(work + (<usize>d << 2), v);
  }
  let p = 16;
  while (p * 2 <= dims) p <<= 1;
  for (let r = 0; r < rounds; r++) {
    const s = signs + (<usize>(r * dims) << 2);
    for (let d = 0; d < dims; d += 4) {
      const at = work + (<usize>d << 2);
      v128.store(at, f32x4.mul(v128.load(at), v128.load(s + (<usize>d << 2))));
    }
    fwhtBlock(work, p);
    if (p < dims) fwhtBlock(work + (<usize>(dims - p) << 2), p);
  }
  let vmax = f32x4.splat(0);
  for (let d = 0; d < dims; d += 4) vmax = f32x4.max(vmax, f32x4.abs(v128.load(work + (<usize>d << 2))));
  const m = max(max(f32x4.extract_lane(vmax, 0), f32x4.extract_lane(vmax, 1)), max(f32x4.extract_lane(vmax, 2), f32x4.extract_lane(vmax, 3)));
  const W: f32 = m > 0 ? m / limit : 1;
  const inv = f32x4.splat(<f32>1.0 / W);
  let sum = i32x4.splat(0);
  const w = prep + P_WEIGHTS;
  for (let d = 0; d < dims; d += 8) {
    const at = work + (<usize>d << 2);
    const a = i32x4.trunc_sat_f32x4_s(f32x4.nearest(f32x4.mul(v128.load(at), inv)));
    const c = i32x4.trunc_sat_f32x4_s(f32x4.nearest(f32x4.mul(v128.load(at, 16), inv)));
    sum = i32x4.add(sum, i32x4.add(a, c));
    v128.store(w + (<usize>d << 1), i16x8.narrow_i32x4_s(a, c));
  }
  // Each lane holds a quarter of the weights (in range by the limit); four together are summed in f64.
  const sumW = hsum(sum);
  store<f32>(prep + P_GAMMA_W, gammaSign * W);
  store<f64>(prep + P_M_SUM_W, mid * sumW);
  store<f32>(prep + P_QUERY_NORM, <f32>Math.sqrt(<f64>qq));
  const table = prep + tableOffset;
  for (let c = 0; c < centroids; c++) store<f32>(table + (<usize>c << 2), NaN);
}
