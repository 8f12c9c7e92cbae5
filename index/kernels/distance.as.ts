// AssemblyScript source of Strata's distance kernels (compiled to WebAssembly with SIMD).
// The module imports the memory of one tier segment, so the vectors it reads never leave the
// segment they live in. No runtime, no allocation, no data segments: instantiating a kernel on a
// memory that already holds an index must not write a single byte of it.

@inline function l2At(a: usize, b: usize, dim: i32): f32 {
  let acc0 = f32x4.splat(0);
  let acc1 = f32x4.splat(0);
  let i = 0;
  const d8 = dim & ~7;
  for (; i < d8; i += 8) {
    const off = <usize>i << 2;
    const x0 = f32x4.sub(v128.load(a + off), v128.load(b + off));
    const x1 = f32x4.sub(v128.load(a + off, 16), v128.load(b + off, 16));
    acc0 = f32x4.add(acc0, f32x4.mul(x0, x0));
    acc1 = f32x4.add(acc1, f32x4.mul(x1, x1));
  }
  acc0 = f32x4.add(acc0, acc1);
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
  let i = 0;
  const d8 = dim & ~7;
  for (; i < d8; i += 8) {
    const off = <usize>i << 2;
    acc0 = f32x4.add(acc0, f32x4.mul(v128.load(a + off), v128.load(b + off)));
    acc1 = f32x4.add(acc1, f32x4.mul(v128.load(a + off, 16), v128.load(b + off, 16)));
  }
  acc0 = f32x4.add(acc0, acc1);
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
export function l2Batch(q: usize, base: usize, stride: usize, ids: usize, n: i32, dim: i32, out: usize): void {
  for (let k = 0; k < n; k++) {
    const row = <usize>load<u32>(ids + (<usize>k << 2));
    store<f32>(out + (<usize>k << 2), l2At(q, base + row * stride, dim));
  }
}

export function ipBatch(q: usize, base: usize, stride: usize, ids: usize, n: i32, dim: i32, out: usize): void {
  for (let k = 0; k < n; k++) {
    const row = <usize>load<u32>(ids + (<usize>k << 2));
    store<f32>(out + (<usize>k << 2), <f32>1.0 - dotAt(q, base + row * stride, dim));
  }
}
