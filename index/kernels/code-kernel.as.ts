// The code kernel: codeBatch scores every compact code kind (docs/codes.md) against a query
// prepared by index/codes/codec.ts (or rqPrepare, rq-prepare.as.ts). Its JS twin is codeBatch in
// kernels.ts (jsKernels); test/index/kernels/kernels.test.ts holds them equal.
import {
  P_BETA_OFFSET,
  P_CENTROID_OFFSET,
  P_CONST_A,
  P_DIM,
  P_DIMS,
  P_GAMMA_W,
  P_HEAD_BACK,
  P_M_SUM_W,
  P_PLANES,
  P_PLANES_OFFSET,
  P_QUERY_OFFSET,
  P_SCALE_OFFSET,
  P_TABLE_KIND,
  P_TABLE_OFFSET,
  P_WEIGHTS,
} from './prepared-query.generated.as';
import { dotAt, l2At, touchRows } from './vector-kernels.as';

// ---- Compact codes -------------------------------------------------------------------------------
// One kernel scores every code kind (docs/codes.md). A code row holds optional per-vector factors
// (scale, additive term, centroid number) and up to four planes of unsigned integers, one value per
// (rotated) dimension: bytes (8 bits), nibbles (4), crumbs (2) and bits (1). A value of B bits is the
// sum of its planes (3 bits = crumb + bit << 2). The query side is prepared once per query into the
// slot: integer weights in natural dimension order (one i16 per dimension, met by the value
// assembled from its planes) and a few constants. The estimate is
//   d = T[centroid] + beta + gammaW * scale * (dot(w, value) - mSumW)
// and every plane unpacks with constant shifts only, so 16 dimensions move per SIMD step.
//
// The prepared query's header is laid out by index/kernels/prepared-query.ts (its fields, the weights
// after it). The centroid table starts as NaN: the kernel fills an entry
// the first time it meets a row of that centroid, since a query meets only the centroids near its path.

@inline function dotW(acc: v128, vals8: v128, w: usize): v128 {
  return i32x4.add(acc, i32x4.dot_i16x8_s(vals8, v128.load(w)));
}

// Lanes are summed in f64: each lane holds a quarter of the dimensions, which the prepared weights
// keep within i32, but four such lanes together need not fit.
@inline export function hsum(acc: v128): f64 {
  return <f64>i32x4.extract_lane(acc, 0) + <f64>i32x4.extract_lane(acc, 1) + <f64>i32x4.extract_lane(acc, 2) + <f64>i32x4.extract_lane(acc, 3);
}

// Small values: the whole sum fits i32 (weightLimit), so the lanes add as integers in the vector.
@inline function hsumI(acc: v128): f64 {
  const s = i32x4.add(acc, i8x16.shuffle(acc, acc, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
  return <f64>i32x4.extract_lane(i32x4.add(s, i8x16.shuffle(s, s, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3)), 0);
}

/** Bytes plane: byte i is dimension i. */
@inline function dotBytes(p: usize, w: usize, dims: i32): f64 {
  let acc = i32x4.splat(0);
  for (let i = 0; i < dims; i += 16) {
    const v = v128.load(p + <usize>i);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(v), w + (<usize>i << 1));
    acc = dotW(acc, i16x8.extend_high_i8x16_u(v), w + (<usize>(i + 8) << 1));
  }
  return hsum(acc);
}

// ---- Small values (at most 4 bits) ------------------------------------------------------------
// A value of the rq codes is assembled into one byte per dimension (rq3: crumb | bit << 2) and meets
// one i16 weight per dimension, in natural order: widened to i16 (one instruction on x86) and
// multiplied-and-paired into i32 lanes by i32x4.dot_i16x8_s (pmaddwd). That is fewer instructions than
// i8 weights with extmul, whose high half V8 lowers to several, and the query keeps 15 bits of
// precision instead of 7. A crumb block shorter than 64 dims (the last, when dims are not a multiple
// of 64) is laid out like a full one with fewer lanes per step (planes.ts), so it costs no more.
// Values leave their bytes by 16-bit shifts and a mask, never by i8x16 shifts: x86 has no byte
// shift, so V8 emulates one with several instructions, and the mask is needed anyway (measured: rq3
// searches +22% on the 100-d angular set when the byte shifts went).

/** acc plus the dot of 16 small values (one per byte) with their 16 i16 weights at w. */
@inline function dot16(acc: v128, vals: v128, w: usize): v128 {
  return dotW(dotW(acc, i16x8.extend_low_i8x16_u(vals), w), i16x8.extend_high_i8x16_u(vals), w + 16);
}

/** Nibbles (rq4): dot of the values with i16 weights w (natural order). */
@inline function dotNibbles8(p: usize, w: usize, dims: i32): f64 {
  let acc = i32x4.splat(0);
  const lowMask = i8x16.splat(0x0f);
  let i = 0;
  for (; i + 32 <= dims; i += 32) {
    const v = v128.load(p + (<usize>i >> 1));
    const wi = w + (<usize>i << 1);
    acc = dot16(dot16(acc, v128.and(v, lowMask), wi), v128.and(i16x8.shr_u(v, 4), lowMask), wi + 32);
  }
  if (i < dims) {
    // A 16-dim tail: byte j holds dims j (low) and 8 + j (high); the halves side by side are the
    // 16 values in order.
    const v = v128.load64_zero(p + (<usize>i >> 1));
    const vals = i8x16.shuffle(v128.and(v, lowMask), v128.and(i16x8.shr_u(v, 4), lowMask), 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    acc = dot16(acc, vals, w + (<usize>i << 1));
  }
  return hsumI(acc);
}

/**
 * acc plus one crumb block's four SIMD steps (planes.ts: block width w, q = w / 4 lanes a step):
 * lane j of step s is dim q·s + j, its crumb in bits 2s of byte j of v and, with bits, its bit in
 * bit 2s of lane j of d; lanes from q on are zero in both. Step s meets the weights from dim q·s,
 * 2q bytes further each step (a narrow step's zero lanes meet the next step's weights, and the last
 * step's the prepared query's slack: times zero). Narrow steps (q ≤ 8) widen only their low half.
 */
@inline function crumbSteps(acc: v128, v: v128, d: v128, wi: usize, q: usize, withBits: bool): v128 {
  const m = i8x16.splat(3);
  const four = i8x16.splat(4);
  let c0 = v128.and(v, m);
  let c1 = v128.and(i16x8.shr_u(v, 2), m);
  let c2 = v128.and(i16x8.shr_u(v, 4), m);
  let c3 = v128.and(i16x8.shr_u(v, 6), m);
  if (withBits) {
    c0 = v128.or(c0, v128.and(i16x8.shl(d, 2), four));
    c1 = v128.or(c1, v128.and(d, four));
    c2 = v128.or(c2, v128.and(i16x8.shr_u(d, 2), four));
    c3 = v128.or(c3, v128.and(i16x8.shr_u(d, 4), four));
  }
  const st = q << 1;
  if (q > 8) return dot16(dot16(dot16(dot16(acc, c0, wi), c1, wi + st), c2, wi + 2 * st), c3, wi + 3 * st);
  acc = dotW(dotW(acc, i16x8.extend_low_i8x16_u(c0), wi), i16x8.extend_low_i8x16_u(c1), wi + st);
  return dotW(dotW(acc, i16x8.extend_low_i8x16_u(c2), wi + 2 * st), i16x8.extend_low_i8x16_u(c3), wi + 3 * st);
}

/**
 * Crumbs (rq2), or crumbs and bits (rq3, withBits): the bit plane follows the crumb plane and is
 * worth 4. A block's h = q / 2 bit bytes hold dim h·t + j in bit t of byte j, so the bytes beside a
 * copy shifted by one bit (lanes 0..h-1, then h..2h-1) put the bit of lane j of step s in bit 2s.
 * Tails (16, 32 or 48 dims) load only their own bytes, so their unused lanes are zero.
 */
@inline function dotCrumbs8(p: usize, w: usize, dims: i32, withBits: bool): f64 {
  let acc = i32x4.splat(0);
  const zero = i32x4.splat(0);
  const pb = p + (<usize>dims >> 2);
  let i = 0;
  for (; i + 64 <= dims; i += 64) {
    const v = v128.load(p + (<usize>i >> 2));
    let d = zero;
    if (withBits) {
      const b = v128.load64_zero(pb + (<usize>i >> 3));
      d = i8x16.shuffle(b, i16x8.shr_u(b, 1), 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    }
    acc = crumbSteps(acc, v, d, w + (<usize>i << 1), 16, withBits);
  }
  const t = dims - i;
  if (t == 0) return hsumI(acc);
  const pc = p + (<usize>i >> 2);
  const pt = pb + (<usize>i >> 3);
  const wi = w + (<usize>i << 1);
  let d = zero;
  if (t == 48) {
    const v = v128.load32_lane(pc + 8, v128.load64_zero(pc), 2);
    if (withBits) {
      const b = v128.load16_lane(pt + 4, v128.load32_zero(pt), 2);
      d = i8x16.shuffle(b, i16x8.shr_u(b, 1), 0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 15, 15, 15, 15);
    }
    acc = crumbSteps(acc, v, d, wi, 12, withBits);
  } else if (t == 32) {
    const v = v128.load64_zero(pc);
    if (withBits) {
      const b = v128.load32_zero(pt);
      d = i8x16.shuffle(b, i16x8.shr_u(b, 1), 0, 1, 2, 3, 16, 17, 18, 19, 15, 15, 15, 15, 15, 15, 15, 15);
    }
    acc = crumbSteps(acc, v, d, wi, 8, withBits);
  } else {
    const v = v128.load32_zero(pc);
    if (withBits) {
      const b = v128.load16_lane(pt, zero, 0);
      d = i8x16.shuffle(b, i16x8.shr_u(b, 1), 0, 1, 16, 17, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
    }
    acc = crumbSteps(acc, v, d, wi, 4, withBits);
  }
  return hsumI(acc);
}

/**
 * Estimated distances from the query prepared at q to the code rows `ids` (u32 local row numbers
 * at ids), rows at base + id * stride; results to out as f32.
 */
export function codeBatch(q: usize, base: usize, stride: usize, ids: usize, n: i32, out: usize): void {
  const planes = load<u32>(q);
  touchRows(base, stride, ids, n, stride);
  // One loop per plane layout, so that no row pays a test of its layout (each call site's kind is a
  // constant, and the optimiser keeps only its branch).
  if ((planes & 8) != 0) codeRows(q, base, stride, ids, n, out, 0);
  else if (planes == 4) codeRows(q, base, stride, ids, n, out, 1);
  else if ((planes & 1) != 0) codeRows(q, base, stride, ids, n, out, 2);
  else codeRows(q, base, stride, ids, n, out, 3);
}

/** codeBatch's row loop for one plane layout (0 bytes, 1 nibbles, 2 crumbs and bits, 3 crumbs). */
@inline function codeRows(q: usize, base: usize, stride: usize, ids: usize, n: i32, out: usize, kind: i32): void {
  const dims = load<i32>(q, P_DIMS);
  const planesOff = <usize>load<u32>(q, P_PLANES_OFFSET);
  const scaleOff = load<i32>(q, P_SCALE_OFFSET);
  const betaOff = load<i32>(q, P_BETA_OFFSET);
  const centOff = load<i32>(q, P_CENTROID_OFFSET);
  const gammaW = <f64>load<f32>(q, P_GAMMA_W);
  const constA = <f64>load<f32>(q, P_CONST_A);
  const mSumW = load<f64>(q, P_M_SUM_W);
  const table = q + <usize>load<u32>(q, P_TABLE_OFFSET);
  const qf = q + <usize>load<u32>(q, P_QUERY_OFFSET);
  const lazyBack = <usize>load<u32>(q, P_HEAD_BACK);
  const lazyDim = load<i32>(q, P_DIM);
  const lazyIp = load<u32>(q, P_TABLE_KIND) == 1;
  const w = q + P_WEIGHTS;
  for (let k = 0; k < n; k++) {
    const row = base + <usize>load<u32>(ids + (<usize>k << 2)) * stride;
    const p = row + planesOff;
    const dot = kind == 0 ? dotBytes(p, w, dims) : kind == 1 ? dotNibbles8(p, w, dims) : dotCrumbs8(p, w, dims, kind == 2);
    const scale = scaleOff >= 0 ? <f64>load<f32>(row + <usize>scaleOff) : 1.0;
    let d = constA;
    if (centOff >= 0) {
      const at = table + (<usize>load<u8>(row + <usize>centOff) << 2);
      let t = load<f32>(at);
      if (t != t) {
        // First row of this centroid for this query: fill its table entry (see the header notes).
        const cp = base - lazyBack + <usize>load<u8>(row + <usize>centOff) * (<usize>lazyDim << 2);
        t = lazyIp ? <f32>1.0 - dotAt(qf, cp, lazyDim) : l2At(qf, cp, lazyDim);
        store<f32>(at, t);
      }
      d = <f64>t;
    }
    if (betaOff >= 0) d += <f64>load<f32>(row + <usize>betaOff);
    d += gammaW * scale * (dot - mSumW);
    store<f32>(out + (<usize>k << 2), <f32>d);
  }
}
