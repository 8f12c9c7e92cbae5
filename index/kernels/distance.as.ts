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
    // A row whose size is not a multiple of the line (codes) usually ends in one more line.
    acc ^= load<u8>(row + bytes - 1);
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
// sum of its planes (3 bits = crumb + bit << 2). The query side is prepared once per query into the
// slot: integer weights in natural dimension order (one i16 per dimension, met by the value
// assembled from its planes) and a few constants. The estimate is
//   d = T[centroid] + beta + gammaW * scale * (dot(w, value) - mSumW)
// and every plane unpacks with constant shifts only, so 16 dimensions move per SIMD step.
//
// Prepared query header (bytes): 0 planes mask (1 bits, 2 crumbs, 4 nibbles, 8 bytes), 4 dims
// (a multiple of 16), 8 planes offset in the row, 12 scale offset (-1: none), 16 beta offset (-1),
// 20 centroid offset (-1), 24 gammaW f32, 28 constant A f32 (used without centroids), 32 mSumW f64,
// 40 table offset (T, f32 per centroid, from the slot start), 44 float query offset (from the slot
// start), 48 |q| f32 (for error bounds, not read here), 52 bytes from the centroids to the rows
// (the segment head holds the centroids, f32, dim each), 56 dim, 60 table kind (0: |q - c|²,
// 1: 1 - q·c), 64.. the weights (dims × i16). The table starts as NaN: the kernel fills an entry
// the first time it meets a row of that centroid, since a query meets only the centroids near its path.

@inline function dotW(acc: v128, vals8: v128, w: usize): v128 {
  return i32x4.add(acc, i32x4.dot_i16x8_s(vals8, v128.load(w)));
}

// Lanes are summed in f64: each lane holds a quarter of the dimensions, which the prepared weights
// keep within i32, but four such lanes together need not fit.
@inline function hsum(acc: v128): f64 {
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
  const dims = load<i32>(q, 4);
  const planesOff = <usize>load<u32>(q, 8);
  const scaleOff = load<i32>(q, 12);
  const betaOff = load<i32>(q, 16);
  const centOff = load<i32>(q, 20);
  const gammaW = <f64>load<f32>(q, 24);
  const constA = <f64>load<f32>(q, 28);
  const mSumW = load<f64>(q, 32);
  const table = q + <usize>load<u32>(q, 40);
  const qf = q + <usize>load<u32>(q, 44);
  const lazyBack = <usize>load<u32>(q, 52);
  const lazyDim = load<i32>(q, 56);
  const lazyIp = load<u32>(q, 60) == 1;
  const w = q + 64;
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

// ---- Fused traversal ----------------------------------------------------------------------------
// A whole traversal run to completion in WASM: the entry point, greedy descent through the upper
// layers, then the level-0 beam of width ef. It serves an index whose traversal records (codes, or
// vectors without codes), neighbour lists, upper layers and a searcher's lane (visited tags, heaps,
// scratch) share one memory (index/tiered/fused-region.ts). Twin of the JS steps in
// index/search/traversal.ts (next/apply for ENTRY, UPPER and LEVEL0, expand, foresee): the same
// requests, pops, pushes and comparisons in the same order, so both return the same answers;
// test/index/search/fused-beam.test.ts holds them to it. It only counts memory accesses: fused-beam.ts
// prices the counts with the one accountant.
// Control block (byte offsets), written by FusedBeam (index/search/fused-beam.ts, its B table):
const B_KIND: usize = 0; // 0 codes, 1 l2, 2 ip
const B_DIM: usize = 4;
const B_STRIDE: usize = 8; // traversal record bytes
const B_SPLIT: usize = 12; // first node whose traversal record is in the second (CXL) segment
const B_Q0: usize = 16; // prepared query of each traversal segment
const B_BASE0: usize = 20; // address of the segment's first record
const B_Q1: usize = 24;
const B_BASE1: usize = 28;
const B_ADJ_SPLIT: usize = 32; // first node whose neighbour list is in the CXL segment
const B_ADJ0: usize = 36;
const B_ADJ1: usize = 40;
const B_ADJ_STRIDE: usize = 44;
const B_EF: usize = 48;
const B_ENTRY: usize = 52;
const B_MAX_LEVEL: usize = 56;
const B_PREFETCH: usize = 60;
const B_MLP: usize = 64; // f64
const B_VISITED: usize = 72; // u8 tag per node
const B_EPOCH: usize = 76;
// 80, 84: free
const B_BEAM: usize = 88; // the beam: cap f32 distances, then cap u32 ids
const B_BEAM_CAP: usize = 92;
const B_SCRATCH: usize = 96; // 6 arrays of maxDegree words: request, ids and results per segment, distances
const B_MAX_DEG: usize = 100;
const B_UP_IDS: usize = 104; // upper layers (upper-layers.ts): sorted ids, their offsets, the links
const B_UP_COUNT: usize = 108;
const B_UP_OFFSETS: usize = 112;
const B_UP_LINKS: usize = 116;
const B_MAX_M: usize = 120;
const B_GEN: usize = 124; // lane generation, bumped by the caller around a traversal (list-pool.ts LANE_GEN)
// Outputs.
// 128: free
const O_BEAM_N: usize = 132; // the beam's size; its arrays hold it sorted, nearest first
const O_HOPS: usize = 136;
const O_HITS: usize = 140;
const O_ISSUED: usize = 144;
const O_DIST: usize = 148; // [2] distances per traversal segment
const O_GROUPS: usize = 156; // [2] f64: sum over requests of ceil(n / mlp)
const O_MISS: usize = 172; // [2] neighbour-list reads whose latency was paid
const O_MISS_B: usize = 180; // [2] their bytes
const O_HID: usize = 188; // [2] reads foreseen (latency hidden)
const O_HID_B: usize = 196;
const O_WASTE_B: usize = 204; // [2] bytes of foreseen lists never used
const O_COUNTED: usize = 212; // counted reads whose counter is in a CXL record (a line written back)
const O_END: usize = 216; // the outputs above are zeroed at the start of a traversal
// The promotion pool (list-pool.ts): copies of CXL-range lists in DRAM, found by node through a
// linear-probing table of u64 entries (node + 1, slot).
const B_POOL_TABLE: usize = 216; // 0: no pool
const B_POOL_CAP: usize = 220;
const B_POOL_LISTS: usize = 224;
const B_COUNT_LISTS: usize = 228; // 1: this traversal counts its CXL-range list reads (one in COUNT_EVERY)
// A list's count word: degree in the low half, access counter in the high half (list-pool.ts).
const DEGREE_MASK: u32 = 0xffff;
const BEAM_CONTROL_BYTES: usize = 256;

// The beam (Beam of index/search/beam.ts over lane memory): at most ef entries sorted by distance,
// a new one placed after any equal ones; an entry's id carries TAKEN once the search took it for
// expansion (node ids stay below 2^31). One sorted array replaces HNSW's candidate min-heap and
// result max-heap: a candidate that falls out of the best ef could never be expanded anyway (the
// strict order stops at the first candidate beyond the ef-th distance), the next candidate is the
// first entry not taken, and the answer leaves already sorted.
const TAKEN: u32 = 0x80000000;
let beamD: usize = 0;
let beamI: usize = 0;
let beamN: i32 = 0;
/** No entry before it is untaken. */
let beamCursor: i32 = 0;

/** The first entry from `from` not taken, or beamN. */
@inline function untakenFrom(from: i32): i32 {
  let k = from;
  while (k < beamN && (load<u32>(beamI + (<usize>k << 2)) & TAKEN) != 0) k++;
  return k;
}

/** Places (d, id) in the beam of width ef (the caller checked it belongs: fewer than ef, or nearer than the last). */
@inline function beamInsert(d: f32, id: u32, ef: i32): void {
  let p = beamN;
  if (beamN < ef) beamN++;
  else p--;
  while (p > 0) {
    const dp = load<f32>(beamD + (<usize>(p - 1) << 2));
    if (dp <= d) break;
    store<f32>(beamD + (<usize>p << 2), dp);
    store<u32>(beamI + (<usize>p << 2), load<u32>(beamI + (<usize>(p - 1) << 2)));
    p--;
  }
  store<f32>(beamD + (<usize>p << 2), d);
  store<u32>(beamI + (<usize>p << 2), id);
  if (p < beamCursor) beamCursor = p;
}

@inline function addU32(at: usize, v: u32): void {
  store<u32>(at, load<u32>(at) + v);
}

@inline function distances(b: usize, q: usize, base: usize, ids: usize, n: i32, out: usize): void {
  const kind = load<u32>(b, B_KIND);
  if (kind == 0) codeBatch(q, base, <usize>load<u32>(b, B_STRIDE), ids, n, out);
  else if (kind == 1) l2Batch(q, base, <usize>load<u32>(b, B_STRIDE), ids, n, load<i32>(b, B_DIM), out);
  else ipBatch(q, base, <usize>load<u32>(b, B_STRIDE), ids, n, load<i32>(b, B_DIM), out);
}

/**
 * Distances of the m nodes of the request array (scratch 0) into the distance array (scratch 5), in
 * request order: one kernel call per traversal segment the request touches (Scorer.stage,
 * computeLocal and gather are the twin), counted per segment.
 */
function score(b: usize, m: i32): void {
  const maxDeg = <usize>load<u32>(b, B_MAX_DEG);
  const order = <usize>load<u32>(b, B_SCRATCH);
  const ids0 = order + (maxDeg << 2);
  const ids1 = ids0 + (maxDeg << 2);
  const out0 = ids1 + (maxDeg << 2);
  const out1 = out0 + (maxDeg << 2);
  const dist = out1 + (maxDeg << 2);
  const split = load<u32>(b, B_SPLIT);
  const mlp = load<f64>(b, B_MLP);
  if (load<u32>(b, B_BASE1) == 0) {
    // One traversal segment (no CXL part: codes always): the request is already its id list.
    distances(b, <usize>load<u32>(b, B_Q0), <usize>load<u32>(b, B_BASE0), order, m, dist);
    addU32(b + O_DIST, m);
    store<f64>(b + O_GROUPS, load<f64>(b + O_GROUPS) + Math.ceil(<f64>m / mlp));
    return;
  }
  let m0: i32 = 0;
  let m1: i32 = 0;
  for (let j = 0; j < m; j++) {
    const nb = load<u32>(order + (<usize>j << 2));
    if (nb < split) {
      store<u32>(ids0 + (<usize>m0 << 2), nb);
      m0++;
    } else {
      store<u32>(ids1 + (<usize>m1 << 2), nb - split);
      m1++;
    }
  }
  if (m0 > 0) {
    distances(b, <usize>load<u32>(b, B_Q0), <usize>load<u32>(b, B_BASE0), ids0, m0, out0);
    addU32(b + O_DIST, m0);
    store<f64>(b + O_GROUPS, load<f64>(b + O_GROUPS) + Math.ceil(<f64>m0 / mlp));
  }
  if (m1 > 0) {
    distances(b, <usize>load<u32>(b, B_Q1), <usize>load<u32>(b, B_BASE1), ids1, m1, out1);
    addU32(b + O_DIST + 4, m1);
    store<f64>(b + O_GROUPS + 8, load<f64>(b + O_GROUPS + 8) + Math.ceil(<f64>m1 / mlp));
  }
  let i0: usize = 0;
  let i1: usize = 0;
  for (let j = 0; j < m; j++) {
    let d: f32;
    if (load<u32>(order + (<usize>j << 2)) < split) {
      d = load<f32>(out0 + (i0 << 2));
      i0++;
    } else {
      d = load<f32>(out1 + (i1 << 2));
      i1++;
    }
    store<f32>(dist + (<usize>j << 2), d);
  }
}

/**
 * The pool slot holding node's list, or -1 (ListPool.position is the twin). An entry is read whole
 * (one aligned 8-byte load), so a hit always pairs a node with its own slot.
 */
@inline function poolSlot(table: usize, cap: u32, node: u32): i32 {
  let j = <u32>((<u64>(node * 0x9e3779b1) * <u64>cap) >> 32);
  for (let probes: u32 = 0; probes < cap; probes++) {
    const e = load<u64>(table + (<usize>j << 3));
    const key = <u32>e;
    if (key == 0) return -1;
    if (key == node + 1) return <i32>(e >> 32);
    j = j + 1 == cap ? 0 : j + 1;
  }
  return -1;
}

/** The tier listOf found its list in (0: the DRAM prefix or a pool slot, 1: the CXL home). */
let listTier: usize = 0;

/** Address of node's level-0 list: the DRAM prefix, a pool tenant's slot, or its CXL home (sets listTier). */
@inline function listOf(node: u32, split: u32, adj0: usize, adj1: usize, stride: usize, poolTable: usize, poolCap: u32, poolLists: usize): usize {
  if (node < split) {
    listTier = 0;
    return adj0 + <usize>node * stride;
  }
  if (poolTable != 0) {
    const s = poolSlot(poolTable, poolCap, node);
    if (s >= 0) {
      listTier = 0;
      return poolLists + <usize>s * stride;
    }
  }
  listTier = 1;
  return adj1 + <usize>(node - split) * stride;
}

/** Position of node in the sorted upper ids (upperIndexOf in upper-layers.ts is the twin). */
@inline function upperIndex(ids: usize, count: i32, node: u32): i32 {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = load<u32>(ids + (<usize>mid << 2));
    if (v == node) return mid;
    if (v < node) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Bytes of the level-0 list at `list` (its degree word and neighbours). */
@inline function listBytes(list: usize): u32 {
  return ((load<u32>(list) & DEGREE_MASK) + 1) << 2;
}

/** Appends the neighbour at `at` to the request at `order` (m so far) unless visited, marking it; the new m. */
@inline function visit(at: usize, visited: usize, epoch: u8, order: usize, m: usize): usize {
  const nb = load<u32>(at);
  const tag = visited + <usize>nb;
  if (load<u8>(tag) == epoch) return m;
  store<u8>(tag, epoch);
  store<u32>(order + (m << 2), nb);
  return m + 1;
}

/** Runs the traversal described by the control block at b; the answer is the beam, sorted (see the block). */
export function traverse(b: usize): void {
  for (let o: usize = O_BEAM_N; o < O_END; o += 4) store<u32>(b + o, 0);
  const maxDeg = <usize>load<u32>(b, B_MAX_DEG);
  const order = <usize>load<u32>(b, B_SCRATCH);
  const dist = order + 5 * (maxDeg << 2);

  // Entry point and greedy descent (Traversal.next/apply, ENTRY and UPPER).
  let cur = load<u32>(b, B_ENTRY);
  store<u32>(order, cur);
  score(b, 1);
  let curDist = load<f32>(dist);
  const upIds = <usize>load<u32>(b, B_UP_IDS);
  const upCount = load<i32>(b, B_UP_COUNT);
  const upOffsets = <usize>load<u32>(b, B_UP_OFFSETS);
  const upLinks = <usize>load<u32>(b, B_UP_LINKS);
  const maxM = <usize>load<u32>(b, B_MAX_M);
  for (let level = load<i32>(b, B_MAX_LEVEL); level > 0; ) {
    const at = upLinks + ((<usize>load<u32>(upOffsets + (<usize>upperIndex(upIds, upCount, cur) << 2)) + <usize>(level - 1) * (1 + maxM)) << 2);
    const n = load<u32>(at);
    addU32(b + O_HOPS, 1);
    // Upper layers always live in DRAM.
    addU32(b + O_MISS, 1);
    addU32(b + O_MISS_B, (n + 1) << 2);
    if (n == 0) {
      level--;
      continue;
    }
    for (let j: usize = 0; j < <usize>n; j++) store<u32>(order + (j << 2), load<u32>(at + ((j + 1) << 2)));
    score(b, <i32>n);
    let changed = false;
    for (let j: usize = 0; j < <usize>n; j++) {
      const d = load<f32>(dist + (j << 2));
      if (d < curDist) {
        curDist = d;
        cur = load<u32>(order + (j << 2));
        changed = true;
      }
    }
    if (!changed) level--;
  }

  // Level-0 beam (Traversal.startLevel0, expand, foresee and apply's LEVEL0 case).
  const adjSplit = load<u32>(b, B_ADJ_SPLIT);
  const adj0 = <usize>load<u32>(b, B_ADJ0);
  const adj1 = <usize>load<u32>(b, B_ADJ1);
  const adjStride = <usize>load<u32>(b, B_ADJ_STRIDE);
  const ef = load<i32>(b, B_EF);
  const prefetch = load<u32>(b, B_PREFETCH) != 0;
  const visited = <usize>load<u32>(b, B_VISITED);
  const epoch = load<u8>(b, B_EPOCH);
  beamD = <usize>load<u32>(b, B_BEAM);
  beamI = beamD + (<usize>load<u32>(b, B_BEAM_CAP) << 2);
  store<u8>(visited + <usize>cur, epoch);
  beamN = 0;
  beamCursor = 0;
  beamInsert(curDist, cur, ef);
  let lowerBound = curDist;
  const poolTable = <usize>load<u32>(b, B_POOL_TABLE);
  const poolCap = load<u32>(b, B_POOL_CAP);
  const poolLists = <usize>load<u32>(b, B_POOL_LISTS);
  const countLists = poolTable != 0 && load<u32>(b, B_COUNT_LISTS) != 0;
  let foreseen: i64 = -1;
  let foreseenD: f32 = 0;
  let foreseenList: usize = 0;
  let foreseenTier: usize = 0;
  let sink: u32 = 0;
  for (;;) {
    // The candidate taken one step ahead is expanded first (relaxed order: Traversal.expand is the
    // twin), unless the strict order would never expand it; then the first entry not taken.
    let c: u32 = 0;
    let hit = false;
    if (foreseen >= 0) {
      if (foreseenD <= lowerBound) {
        c = <u32>foreseen;
        hit = true;
      } else addU32(b + O_WASTE_B + (foreseenTier << 2), listBytes(foreseenList));
      foreseen = -1;
    }
    if (!hit) {
      beamCursor = untakenFrom(beamCursor);
      if (beamCursor >= beamN) break;
      c = load<u32>(beamI + (<usize>beamCursor << 2));
      store<u32>(beamI + (<usize>beamCursor << 2), c | TAKEN);
    }
    addU32(b + O_HOPS, 1);
    // A foreseen list was looked up when it was taken (its slot cannot be refilled while this
    // traversal runs): only a list not foreseen is looked up here.
    let list = foreseenList;
    let tier = foreseenTier;
    if (!hit) {
      list = listOf(c, adjSplit, adj0, adj1, adjStride, poolTable, poolCap, poolLists);
      tier = listTier;
    }
    const word = load<u32>(list);
    const deg = word & DEGREE_MASK;
    if (countLists && c >= adjSplit && word < 0xffff0000) {
      // Counted where the list lives: the slot copy (DRAM) or the home record (a CXL line dirtied).
      store<u32>(list, word + 0x10000);
      if (tier == 1) addU32(b + O_COUNTED, 1);
    }
    const bytes = (deg + 1) << 2;
    if (hit) {
      addU32(b + O_HITS, 1);
      addU32(b + O_HID + (tier << 2), 1);
      addU32(b + O_HID_B + (tier << 2), bytes);
    } else {
      addU32(b + O_MISS + (tier << 2), 1);
      addU32(b + O_MISS_B + (tier << 2), bytes);
    }
    const k = prefetch ? untakenFrom(beamCursor) : beamN;
    if (k < beamN) {
      // CXL-ANNS foreseeing (Traversal.foresee is the twin): the next candidate is taken now and
      // its list fetched while this step scores.
      const f = load<u32>(beamI + (<usize>k << 2));
      store<u32>(beamI + (<usize>k << 2), f | TAKEN);
      foreseen = <i64>f;
      foreseenD = load<f32>(beamD + (<usize>k << 2));
      foreseenList = listOf(f, adjSplit, adj0, adj1, adjStride, poolTable, poolCap, poolLists);
      foreseenTier = listTier;
      addU32(b + O_ISSUED, 1);
    }
    // Unvisited neighbours to the request, four a turn: V8 checks the stack at every loop turn,
    // which in a body this small was a fifth of the traversal's time.
    let m: usize = 0;
    let j: usize = 1;
    for (; j + 3 <= <usize>deg; j += 4) {
      m = visit(list + (j << 2), visited, epoch, order, m);
      m = visit(list + ((j + 1) << 2), visited, epoch, order, m);
      m = visit(list + ((j + 2) << 2), visited, epoch, order, m);
      m = visit(list + ((j + 3) << 2), visited, epoch, order, m);
    }
    for (; j <= <usize>deg; j++) m = visit(list + (j << 2), visited, epoch, order, m);
    if (foreseen >= 0) {
      // Touch every line of the foreseen list's record (a 132-byte record spans three) with loads
      // nothing here waits for. WASM has no prefetch, and a load that misses holds retirement once
      // the reorder buffer fills, so these go out just before the scoring touches its rows: the
      // misses then overlap one another instead of stalling the hop twice. Reading the degree first
      // to touch only the list's own lines made every later instruction wait for the miss.
      for (let off: usize = 0; off < adjStride; off += 64) sink ^= load<u8>(foreseenList + off);
      sink ^= load<u8>(foreseenList + adjStride - 1);
    }
    if (m == 0) continue;
    score(b, <i32>m);
    for (let jj: usize = 0; jj < m; jj++) {
      const d = load<f32>(dist + (jj << 2));
      if (beamN < ef || d < lowerBound) {
        beamInsert(d, load<u32>(order + (jj << 2)), ef);
        lowerBound = load<f32>(beamD + (<usize>(beamN - 1) << 2));
      }
    }
  }
  if (prefetch && foreseen >= 0) addU32(b + O_WASTE_B + (foreseenTier << 2), listBytes(foreseenList));
  touched ^= sink;
  // The beam leaves sorted, nearest first: only the TAKEN marks go.
  for (let k = 0; k < beamN; k++) store<u32>(beamI + (<usize>k << 2), load<u32>(beamI + (<usize>k << 2)) & ~TAKEN);
  store<i32>(b + O_BEAM_N, beamN);
}


// --- Query preparation for rq codes with a Hadamard rotation (codes/rotation.ts, codes/rq.ts) ---

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
  const w = prep + 64;
  for (let d = 0; d < dims; d += 8) {
    const at = work + (<usize>d << 2);
    const a = i32x4.trunc_sat_f32x4_s(f32x4.nearest(f32x4.mul(v128.load(at), inv)));
    const c = i32x4.trunc_sat_f32x4_s(f32x4.nearest(f32x4.mul(v128.load(at, 16), inv)));
    sum = i32x4.add(sum, i32x4.add(a, c));
    v128.store(w + (<usize>d << 1), i16x8.narrow_i32x4_s(a, c));
  }
  // Each lane holds a quarter of the weights (in range by the limit); four together are summed in f64.
  const sumW = hsum(sum);
  store<f32>(prep + 24, gammaSign * W);
  store<f64>(prep + 32, mid * sumW);
  store<f32>(prep + 48, <f32>Math.sqrt(<f64>qq));
  const table = prep + tableOffset;
  for (let c = 0; c < centroids; c++) store<f32>(table + (<usize>c << 2), NaN);
}
