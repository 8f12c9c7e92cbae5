// Vector kernels: squared Euclidean and inner-product distances over full f32 vectors, one at a
// time (l2, ip) or one query against a batch of rows (l2Batch, ipBatch). The JS twins are in
// kernels.ts (jsKernels); test/index/kernels/kernels.test.ts holds them to reference.ts.

@inline export function l2At(a: usize, b: usize, dim: i32): f32 {
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

@inline export function dotAt(a: usize, b: usize, dim: i32): f32 {
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

// Observable sink for touchRows' loads, so the optimiser keeps them.
let touched: u32 = 0;

/**
 * Loads one word of every cache line of the n rows first: the rows are scattered, and these loads
 * are independent, so their misses overlap (memory-level parallelism) instead of arriving one row
 * at a time inside the distance loop, whose loads depend on the loop's progress.
 */
@inline export function touchRows(base: usize, stride: usize, ids: usize, n: i32, bytes: usize): void {
  let acc: u32 = 0;
  for (let k = 0; k < n; k++) {
    const row = base + <usize>load<u32>(ids + (<usize>k << 2)) * stride;
    for (let off: usize = 0; off < bytes; off += 64) acc ^= load<u8>(row + off);
    // A row whose size is not a multiple of the line (codes) usually ends in one more line.
    acc ^= load<u8>(row + bytes - 1);
  }
  touched ^= acc;
}

/** Folds v into the sink, so the loads that produced it are kept (traverse's foreseen-list touches). */
@inline export function keepLoads(v: u32): void {
  touched ^= v;
}

/**
 * Distances from the query at q to n rows of a row-major block: row k of the batch is the row
 * whose local index is the u32 at ids + 4k, stored at base + index * stride. Results go to out as
 * f32. One call per hop and tier keeps the JS/WASM boundary off the per-vector path.
 */
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
