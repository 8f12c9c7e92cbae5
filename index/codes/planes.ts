// Where each dimension's value sits in a code's planes. The layouts are chosen so that the WASM
// kernel (codeBatch in kernels/code-kernel.as.ts) unpacks 16 dimensions per SIMD step with constant
// shifts only, and meets the query weights in natural dimension order. This file is the one
// definition of those layouts: the encoder writes through it, the JS kernel and the tests read
// through it. Dimensions are padded to a multiple of 16.

/** Plane kinds, as bits of the prepared query's plane mask. */
export const PLANE = { bits: 1, crumbs: 2, nibbles: 4, bytes: 8 } as const;
export type PlaneKind = (typeof PLANE)[keyof typeof PLANE];
/** The order planes follow each other in a code row (and weights in a prepared query). */
export const PLANE_ORDER: readonly PlaneKind[] = [PLANE.bytes, PLANE.nibbles, PLANE.crumbs, PLANE.bits];
export const PLANE_BITS: Readonly<Record<number, number>> = { [PLANE.bits]: 1, [PLANE.crumbs]: 2, [PLANE.nibbles]: 4, [PLANE.bytes]: 8 };

/** The planes that make a value of `bits` bits, and the power of two each plane's value is worth. */
export function planesFor(bits: number): Array<{ kind: PlaneKind; shift: number }> {
  switch (bits) {
    case 8:
      return [{ kind: PLANE.bytes, shift: 0 }];
    case 4:
      return [{ kind: PLANE.nibbles, shift: 0 }];
    case 3:
      return [
        { kind: PLANE.crumbs, shift: 0 },
        { kind: PLANE.bits, shift: 2 },
      ];
    case 2:
      return [{ kind: PLANE.crumbs, shift: 0 }];
    case 1:
      return [{ kind: PLANE.bits, shift: 0 }];
    default:
      throw new RangeError(`no plane layout for ${bits}-bit values`);
  }
}

export function planeMask(bits: number): number {
  return planesFor(bits).reduce((m, p) => m | p.kind, 0);
}

/** Bytes of one plane of `dims` (padded) dimensions. */
export function planeBytes(kind: PlaneKind, dims: number): number {
  return (dims * PLANE_BITS[kind]!) / 8;
}

/** Byte offset (from the plane's start) and bit shift of dimension i in a plane of `dims` dimensions. */
export function planeSlot(kind: PlaneKind, i: number, dims: number): { byte: number; shift: number } {
  switch (kind) {
    case PLANE.bytes:
      return { byte: i, shift: 0 };
    case PLANE.nibbles: {
      // 32-dim blocks: byte j holds j (low) and 16 + j (high); a 16-dim tail: j and 8 + j.
      const blockStart = i - (i % 32);
      if (blockStart + 32 <= dims) {
        const r = i - blockStart;
        return { byte: blockStart / 2 + (r % 16), shift: r < 16 ? 0 : 4 };
      }
      const r = i - blockStart;
      return { byte: blockStart / 2 + (r % 8), shift: r < 8 ? 0 : 4 };
    }
    case PLANE.crumbs: {
      // Blocks of w = 64 dims (the last one 16, 32 or 48 wide), q = w / 4 lanes per SIMD step:
      // byte j holds dim q·s + j in bits 2s. A tail thus costs the kernel what a full block does,
      // not twice as much per dimension, and its unused lanes read as zero.
      const { start, q } = crumbBlock(i, dims);
      const r = i - start;
      return { byte: start / 4 + (r % q), shift: 2 * Math.floor(r / q) };
    }
    default: {
      // bits: in the same blocks, h = w / 8 bytes: byte j holds dim h·t + j in bit t, so that a byte
      // and its copy shifted by one bit put the bits of step s's lanes in bit 2s, as the crumbs are.
      const { start, q } = crumbBlock(i, dims);
      const h = q / 2;
      const r = i - start;
      return { byte: start / 8 + (r % h), shift: Math.floor(r / h) };
    }
  }
}

/** The 64-dim block (or the narrower last one) dimension i of a crumb or bit plane sits in. */
function crumbBlock(i: number, dims: number): { start: number; q: number } {
  const start = i - (i % 64);
  return { start, q: Math.min(64, dims - start) / 4 };
}

const MASK: Readonly<Record<number, number>> = { [PLANE.bits]: 1, [PLANE.crumbs]: 3, [PLANE.nibbles]: 15, [PLANE.bytes]: 255 };

/** The value of dimension i in the plane starting at byte p of u8. */
export function planeValue(u8: Uint8Array, p: number, kind: number, i: number, dims: number): number {
  const { byte, shift } = planeSlot(kind as PlaneKind, i, dims);
  return (u8[p + byte]! >>> shift) & MASK[kind]!;
}

/** Writes `values` (one per dimension, each below 2^bits) as the planes of `bits`, at byte p of u8. */
export function packPlanes(values: ArrayLike<number>, bits: number, dims: number, u8: Uint8Array, p: number): void {
  let at = p;
  for (const { kind, shift } of planesFor(bits).sort((a, b) => PLANE_ORDER.indexOf(a.kind) - PLANE_ORDER.indexOf(b.kind))) {
    const bytes = planeBytes(kind, dims);
    u8.fill(0, at, at + bytes);
    for (let i = 0; i < dims; i++) {
      const v = (values[i]! >>> shift) & MASK[kind]!;
      const s = planeSlot(kind, i, dims);
      u8[at + s.byte] = u8[at + s.byte]! | (v << s.shift);
    }
    at += bytes;
  }
}

/** Reads the values back (the reference decoder the tests hold the kernel to). */
export function unpackPlanes(u8: Uint8Array, p: number, bits: number, dims: number, out: Int32Array): void {
  out.fill(0, 0, dims);
  let at = p;
  for (const { kind, shift } of planesFor(bits).sort((a, b) => PLANE_ORDER.indexOf(a.kind) - PLANE_ORDER.indexOf(b.kind))) {
    for (let i = 0; i < dims; i++) out[i] = out[i]! + (planeValue(u8, at, kind, i, dims) << shift);
    at += planeBytes(kind, dims);
  }
}

export function codeBitsBytes(bits: number, dims: number): number {
  return planesFor(bits).reduce((a, p) => a + planeBytes(p.kind, dims), 0);
}
