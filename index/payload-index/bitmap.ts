// The one bitmap type of the payload indexes: CRoaring's 32-bit roaring bitmap through the `roaring`
// native package, chosen by the measurements in README.md (compact at every density, the fastest
// AND/OR). Every index and the registry build bitmaps here, so the choice can change in one place.
import { createRequire } from 'node:module';
import type roaringModule from 'roaring';

/**
 * roaring finds its native binding through node-pre-gyp, which parses process.argv as its own
 * command line: a Strata flag it takes for one of its own (`--dir`) sends it looking for roaring's
 * package.json under that directory, and the import throws. It is loaded with a bare argv instead.
 */
function loadRoaring(): typeof roaringModule {
  const argv = process.argv;
  process.argv = argv.slice(0, 2);
  try {
    return createRequire(import.meta.url)('roaring') as typeof roaringModule;
  } finally {
    process.argv = argv;
  }
}

const roaring = loadRoaring();

export type Bitmap = InstanceType<typeof roaring.RoaringBitmap32>;

const { RoaringBitmap32 } = roaring;

export function emptyBitmap(): Bitmap {
  return new RoaringBitmap32();
}

/** A bitmap of `ids` (any order, repeats allowed). */
export function bitmapOf(ids: Iterable<number> | Uint32Array): Bitmap {
  return new RoaringBitmap32(ids);
}

export function and(a: Bitmap, b: Bitmap): Bitmap {
  return RoaringBitmap32.and(a, b);
}

export function or(a: Bitmap, b: Bitmap): Bitmap {
  return RoaringBitmap32.or(a, b);
}

export function andNot(a: Bitmap, b: Bitmap): Bitmap {
  return RoaringBitmap32.andNot(a, b);
}

/** The union of many bitmaps (empty for none). */
export function orAll(bitmaps: readonly Bitmap[]): Bitmap {
  return bitmaps.length === 0 ? emptyBitmap() : RoaringBitmap32.orMany(bitmaps as Bitmap[]);
}

/** A bitmap from roaring's portable serialisation (dense-bits.ts writes it). */
export function bitmapFromPortable(buf: Buffer): Bitmap {
  return RoaringBitmap32.deserialize(buf, 'portable');
}

/** Bytes the bitmap takes in DRAM (its compact serialised size, which CRoaring's containers match). */
export function bitmapBytes(b: Bitmap): number {
  return b.getSerializationSizeInBytes('croaring');
}

/**
 * The ids of a bitmap, ascending. Into an array made here: roaring's own allocation of the result
 * costs some thirty times the copy (bench: half a millisecond for 50,000 ids).
 */
export function idsOf(b: Bitmap): Uint32Array {
  return b.toUint32Array(new Uint32Array(b.size));
}
