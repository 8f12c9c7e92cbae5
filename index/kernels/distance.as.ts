// AssemblyScript source of Strata's distance kernels (compiled to WebAssembly with SIMD).
// The module imports the memory of one tier segment, so the vectors it reads never leave the
// segment they live in. No runtime, no allocation, no data segments: instantiating a kernel on a
// memory that already holds an index must not write a single byte of it.

@inline function l2At(a: usize, b: usize, dim: i32): f32 {
  // Four independent accumulators over 16 floats per step: enough in flight to hide the add latency.
  let acc0 = f32x4.splat(0);
  let acc1 = f32x4.splat(0);
  let acc2 = f32x4.splat(0);
  let acc3 = f32x4.splat(0);
  let i = 0;
  const d16 = dim & ~15;
  for (; i < d16; i += 16) {
    const off = <usize>i << 2;
    const pa = a + off;
    const pb = b + off;
    const x0 = f32x4.sub(v128.load(pa), v128.load(pb));
    const x1 = f32x4.sub(v128.load(pa, 16), v128.load(pb, 16));
    const x2 = f32x4.sub(v128.load(pa, 32), v128.load(pb, 32));
    const x3 = f32x4.sub(v128.load(pa, 48), v128.load(pb, 48));
    acc0 = f32x4.add(acc0, f32x4.mul(x0, x0));
    acc1 = f32x4.add(acc1, f32x4.mul(x1, x1));
    acc2 = f32x4.add(acc2, f32x4.mul(x2, x2));
    acc3 = f32x4.add(acc3, f32x4.mul(x3, x3));
  }
  for (; i + 4 <= dim; i += 4) {
    const off = <usize>i << 2;
    const x = f32x4.sub(v128.load(a + off), v128.load(b + off));
    acc0 = f32x4.add(acc0, f32x4.mul(x, x));
  }
  acc0 = f32x4.add(f32x4.add(acc0, acc1), f32x4.add(acc2, acc3));
  let s = f32x4.extract_lane(acc0, 0) + f32x4.extract_lane(acc0, 1) +
    f32x4.extract_lane(acc0, 2) + f32x4.extract_lane(acc0, 3);
  for (; i < dim; i++) {
    const off = <usize>i << 2;
    const t = load<f32>(a + off) - load<f32>(b + off);
    s += t * t;
  }
  return s;
}

@inline function dotAt(a: usize, b: usize, dim: i32): f32 {
  let acc0 = f32x4.splat(0);
  let acc1 = f32x4.splat(0);
  let acc2 = f32x4.splat(0);
  let acc3 = f32x4.splat(0);
  let i = 0;
  const d16 = dim & ~15;
  for (; i < d16; i += 16) {
    const off = <usize>i << 2;
    const pa = a + off;
    const pb = b + off;
    acc0 = f32x4.add(acc0, f32x4.mul(v128.load(pa), v128.load(pb)));
    acc1 = f32x4.add(acc1, f32x4.mul(v128.load(pa, 16), v128.load(pb, 16)));
    acc2 = f32x4.add(acc2, f32x4.mul(v128.load(pa, 32), v128.load(pb, 32)));
    acc3 = f32x4.add(acc3, f32x4.mul(v128.load(pa, 48), v128.load(pb, 48)));
  }
  for (; i + 4 <= dim; i += 4) {
    const off = <usize>i << 2;
    acc0 = f32x4.add(acc0, f32x4.mul(v128.load(a + off), v128.load(b + off)));
  }
  acc0 = f32x4.add(f32x4.add(acc0, acc1), f32x4.add(acc2, acc3));
  let s = f32x4.extract_lane(acc0, 0) + f32x4.extract_lane(acc0, 1) +
    f32x4.extract_lane(acc0, 2) + f32x4.extract_lane(acc0, 3);
  for (; i < dim; i++) {
    const off = <usize>i << 2;
    s += load<f32>(a + off) * load<f32>(b + off);
  }
  return s;
}

/** Squared Euclidean distance between the vectors at byte offsets a and b. */
export function l2(a: usize, b: usize, dim: i32): f32 {
  return l2At(a, b, dim);
}

/** 1 - dot(a, b): hnswlib's inner-product distance (smaller is closer). */
export function ip(a: usize, b: usize, dim: i32): f32 {
  return <f32>1.0 - dotAt(a, b, dim);
}

/**
 * Distances from the query at q to n rows of a row-major block: row k of the batch is the row
 * whose local index is the u32 at ids + 4k, stored at base + index * stride. Results go to out as
 * f32. One call per hop and tier keeps the JS/WASM boundary off the per-vector path.
 */
// Observable sink for touchRows' loads, so the optimiser keeps them.
let touched: u32 = 0;

/**
 * Loads one word of every cache line of the n rows first: the rows are scattered, and these loads
 * are independent, so their misses overlap (memory-level parallelism) instead of arriving one row
 * at a time inside the distance loop, whose loads depend on the loop's progress.
 */
@inline function touchRows(base: usize, stride: usize, ids: usize, n: i32, bytes: usize): void {
  let acc: u32 = 0;
  for (let k = 0; k < n; k++) {
    const row = base + <usize>load<u32>(ids + (<usize>k << 2)) * stride;
    for (let off: usize = 0; off < bytes; off += 64) acc ^= load<u8>(row + off);
  }
  touched ^= acc;
}

export function l2Batch(q: usize, base: usize, stride: usize, ids: usize, n: i32, dim: i32, out: usize): void {
  touchRows(base, stride, ids, n, <usize>dim << 2);
  for (let k = 0; k < n; k++) {
    const row = <usize>load<u32>(ids + (<usize>k << 2));
    store<f32>(out + (<usize>k << 2), l2At(q, base + row * stride, dim));
  }
}

export function ipBatch(q: usize, base: usize, stride: usize, ids: usize, n: i32, dim: i32, out: usize): void {
  touchRows(base, stride, ids, n, <usize>dim << 2);
  for (let k = 0; k < n; k++) {
    const row = <usize>load<u32>(ids + (<usize>k << 2));
    store<f32>(out + (<usize>k << 2), <f32>1.0 - dotAt(q, base + row * stride, dim));
  }
}

// ---- Compact codes -------------------------------------------------------------------------------
// One kernel scores every code kind (docs/codes.md). A code row holds optional per-vector factors
// (scale, additive term, centroid number) and up to four planes of unsigned integers, one value per
// (rotated) dimension: bytes (8 bits), nibbles (4), crumbs (2) and bits (1). A value of B bits is the
// sum of its planes (3 bits = crumb + bit << 2, the bit plane's weights carrying the << 2). The
// query side is prepared once per query into the slot: i16 weights per plane, in the order the
// planes unpack, and a few constants. The estimate is
//   d = T[centroid] + beta + gammaW * scale * (sum_planes dot(w, plane) - mSumW)
// and every plane unpacks with constant shifts only, so 16 dimensions move per SIMD step.
//
// Prepared query header (bytes): 0 planes mask (1 bits, 2 crumbs, 4 nibbles, 8 bytes), 4 dims
// (a multiple of 16), 8 planes offset in the row, 12 scale offset (-1: none), 16 beta offset (-1),
// 20 centroid offset (-1), 24 gammaW f32, 28 constant A f32 (used without centroids), 32 mSumW f64,
// 40 table offset (T, f32 per centroid, from the slot start), 48 |q| f32 (for error bounds, not read
// here), 64.. the i16 weights, plane by plane
// (bytes, nibbles, crumbs, bits), dims × 2 bytes each.

@inline function dotW(acc: v128, vals8: v128, w: usize): v128 {
  return i32x4.add(acc, i32x4.dot_i16x8_s(vals8, v128.load(w)));
}

// Lanes are summed in f64: each lane holds a quarter of the dimensions, which the prepared weights
// keep within i32, but four such lanes together need not fit.
@inline function hsum(acc: v128): f64 {
  return <f64>i32x4.extract_lane(acc, 0) + <f64>i32x4.extract_lane(acc, 1) + <f64>i32x4.extract_lane(acc, 2) + <f64>i32x4.extract_lane(acc, 3);
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

/** Nibbles plane: per 32 dims, byte j holds dims j (low) and 16 + j (high); a 16-dim tail: j and 8 + j. */
@inline function dotNibbles(p: usize, w: usize, dims: i32): f64 {
  let acc = i32x4.splat(0);
  const lowMask = i8x16.splat(0x0f);
  let i = 0;
  for (; i + 32 <= dims; i += 32) {
    const v = v128.load(p + (<usize>i >> 1));
    const lo = v128.and(v, lowMask);
    const hi = i8x16.shr_u(v, 4);
    const wi = w + (<usize>i << 1);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(lo), wi);
    acc = dotW(acc, i16x8.extend_high_i8x16_u(lo), wi + 16);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(hi), wi + 32);
    acc = dotW(acc, i16x8.extend_high_i8x16_u(hi), wi + 48);
  }
  if (i < dims) {
    const v = v128.load64_zero(p + (<usize>i >> 1));
    const wi = w + (<usize>i << 1);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(v128.and(v, lowMask)), wi);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(i8x16.shr_u(v, 4)), wi + 16);
  }
  return hsum(acc);
}

/** Crumbs plane: per 64 dims, byte j holds dim 16s + j in bits 2s; a 16-dim tail block of 4 bytes: 4s + j. */
@inline function dotCrumbs(p: usize, w: usize, dims: i32): f64 {
  let acc = i32x4.splat(0);
  const m = i8x16.splat(3);
  let i = 0;
  // Unrolled by hand with constant shifts: a shift by a loop variable kept the loop and cost ~2x.
  for (; i + 64 <= dims; i += 64) {
    const v = v128.load(p + (<usize>i >> 2));
    const wi = w + (<usize>i << 1);
    const c0 = v128.and(v, m);
    const c1 = v128.and(i8x16.shr_u(v, 2), m);
    const c2 = v128.and(i8x16.shr_u(v, 4), m);
    const c3 = i8x16.shr_u(v, 6);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(c0), wi);
    acc = dotW(acc, i16x8.extend_high_i8x16_u(c0), wi + 16);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(c1), wi + 32);
    acc = dotW(acc, i16x8.extend_high_i8x16_u(c1), wi + 48);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(c2), wi + 64);
    acc = dotW(acc, i16x8.extend_high_i8x16_u(c2), wi + 80);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(c3), wi + 96);
    acc = dotW(acc, i16x8.extend_high_i8x16_u(c3), wi + 112);
  }
  for (; i < dims; i += 16) {
    // Lanes 4..7 of each step are zero (load32_zero), so the weights they meet do not matter.
    const v = v128.load32_zero(p + (<usize>i >> 2));
    const wi = w + (<usize>i << 1);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(v128.and(v, m)), wi);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(v128.and(i8x16.shr_u(v, 2), m)), wi + 8);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(v128.and(i8x16.shr_u(v, 4), m)), wi + 16);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(i8x16.shr_u(v, 6)), wi + 24);
  }
  return hsum(acc);
}

/** One bit of each of 8 bytes, widened to i16 lanes: bit t of byte j is lane j. */
@inline function bitLanes(v: v128, t: i32): v128 {
  return i16x8.extend_low_i8x16_u(v128.and(i8x16.shr_u(v, t), i8x16.splat(1)));
}

/** Bits plane: per 64 dims, byte j holds dim 8t + j in bit t; a 16-dim tail block of 2 bytes: 2t + j. */
@inline function dotBits(p: usize, w: usize, dims: i32): f64 {
  let acc = i32x4.splat(0);
  let i = 0;
  // Unrolled by hand with constant shifts (see dotCrumbs).
  for (; i + 64 <= dims; i += 64) {
    const v = v128.load64_zero(p + (<usize>i >> 3));
    const wi = w + (<usize>i << 1);
    acc = dotW(acc, bitLanes(v, 0), wi);
    acc = dotW(acc, bitLanes(v, 1), wi + 16);
    acc = dotW(acc, bitLanes(v, 2), wi + 32);
    acc = dotW(acc, bitLanes(v, 3), wi + 48);
    acc = dotW(acc, bitLanes(v, 4), wi + 64);
    acc = dotW(acc, bitLanes(v, 5), wi + 80);
    acc = dotW(acc, bitLanes(v, 6), wi + 96);
    acc = dotW(acc, i16x8.extend_low_i8x16_u(i8x16.shr_u(v, 7)), wi + 112);
  }
  for (; i < dims; i += 16) {
    const v = v128.load16_lane(p + (<usize>i >> 3), i32x4.splat(0), 0);
    const wi = w + (<usize>i << 1);
    acc = dotW(acc, bitLanes(v, 0), wi);
    acc = dotW(acc, bitLanes(v, 1), wi + 4);
    acc = dotW(acc, bitLanes(v, 2), wi + 8);
    acc = dotW(acc, bitLanes(v, 3), wi + 12);
    acc = dotW(acc, bitLanes(v, 4), wi + 16);
    acc = dotW(acc, bitLanes(v, 5), wi + 20);
    acc = dotW(acc, bitLanes(v, 6), wi + 24);
    acc = dotW(acc, bitLanes(v, 7), wi + 28);
  }
  return hsum(acc);
}

/**
 * Estimated distances from the query prepared at q to the code rows `ids` (u32 local row numbers
 * at ids), rows at base + id * stride; results to out as f32.
 */
export function codeBatch(q: usize, base: usize, stride: usize, ids: usize, n: i32, out: usize): void {
  const planes = load<u32>(q);
  const dims = load<i32>(q, 4);
  const planesOff = <usize>load<u32>(q, 8);
  const scaleOff = load<i32>(q, 12);
  const betaOff = load<i32>(q, 16);
  const centOff = load<i32>(q, 20);
  const gammaW = <f64>load<f32>(q, 24);
  const constA = <f64>load<f32>(q, 28);
  const mSumW = load<f64>(q, 32);
  const table = q + <usize>load<u32>(q, 40);
  const planeW = <usize>dims << 1;
  touchRows(base, stride, ids, n, stride);
  for (let k = 0; k < n; k++) {
    const row = base + <usize>load<u32>(ids + (<usize>k << 2)) * stride;
    let p = row + planesOff;
    let w = q + 64;
    let dot: f64 = 0;
    if (planes & 8) {
      dot += dotBytes(p, w, dims);
      p += <usize>dims;
      w += planeW;
    }
    if (planes & 4) {
      dot += dotNibbles(p, w, dims);
      p += <usize>dims >> 1;
      w += planeW;
    }
    if (planes & 2) {
      dot += dotCrumbs(p, w, dims);
      p += <usize>dims >> 2;
      w += planeW;
    }
    if (planes & 1) dot += dotBits(p, w, dims);
    const scale = scaleOff >= 0 ? <f64>load<f32>(row + <usize>scaleOff) : 1.0;
    let d = centOff >= 0 ? <f64>load<f32>(table + (<usize>load<u8>(row + <usize>centOff) << 2)) : constA;
    if (betaOff >= 0) d += <f64>load<f32>(row + <usize>betaOff);
    d += gammaW * scale * (dot - mSumW);
    store<f32>(out + (<usize>k << 2), <f32>d);
  }
}
