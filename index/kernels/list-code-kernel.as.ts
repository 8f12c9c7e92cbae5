// The list-code kernel: listEstimates sums a query's 4-bit lookup table (index/codes/list-codes.ts,
// prepareListLut) over the list codes of 32 neighbours at a time, FastScan-style. Its JS twin is
// listEstimatesJs in index/codes/list-codes.ts; test/index/kernels/list-estimates.test.ts holds
// them equal.
//
// A block is 16 bytes per subspace: byte j holds neighbour j's code in its low nibble and neighbour
// 16 + j's in its high nibble. A subspace's table (16 u8 entries) is one v128, so i8x16.swizzle
// looks up 16 neighbours' nibbles in one instruction (every nibble is below 16, so no lane reads 0).
// The sums stay in u16 lanes: each entry is at most 255, and the caller keeps to at most 256
// subspaces (255 × 256 = 65280 < 65536), so no lane can wrap.
// Nibbles leave their bytes by a mask and a 16-bit shift, never an i8x16 shift: x86 has no byte
// shift, so V8 emulates one with several instructions (see code-kernel.as.ts).

/** acc (8 u16 lanes) plus the low 8 bytes of looked-up entries, widened to u16. */
@inline function addLow(acc: v128, v: v128): v128 {
  return i16x8.add(acc, i16x8.extend_low_i8x16_u(v));
}

/** acc plus the high 8 bytes, widened. */
@inline function addHigh(acc: v128, v: v128): v128 {
  return i16x8.add(acc, i16x8.extend_high_i8x16_u(v));
}

/**
 * For each of `blocks` 32-neighbour blocks at block + b × subspaces × 16, the 32 u16 sums over subspaces of
 * the table at lut (subspaces × 16 u8) looked up with each neighbour's nibble, to out + (b × 32 + j) × 2
 * (neighbour j of block b).
 */
export function listEstimates(lut: usize, block: usize, subspaces: i32, blocks: i32, out: usize): void {
  const mask = i8x16.splat(0x0f);
  const step = <usize>subspaces << 4;
  for (let b = 0; b < blocks; b++) {
    const p = block + <usize>b * step;
    // Neighbours 0..7, 8..15 (low nibbles) and 16..23, 24..31 (high nibbles).
    let a0 = i16x8.splat(0);
    let a1 = i16x8.splat(0);
    let a2 = i16x8.splat(0);
    let a3 = i16x8.splat(0);
    for (let s = 0; s < subspaces; s++) {
      const off = <usize>s << 4;
      const table = v128.load(lut + off);
      const codes = v128.load(p + off);
      const low = i8x16.swizzle(table, v128.and(codes, mask));
      const high = i8x16.swizzle(table, v128.and(i16x8.shr_u(codes, 4), mask));
      a0 = addLow(a0, low);
      a1 = addHigh(a1, low);
      a2 = addLow(a2, high);
      a3 = addHigh(a3, high);
    }
    const o = out + (<usize>b << 6);
    v128.store(o, a0);
    v128.store(o, a1, 16);
    v128.store(o, a2, 32);
    v128.store(o, a3, 48);
  }
}
