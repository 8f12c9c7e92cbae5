// The one bitmap type of the payload indexes: CRoaring's 32-bit roaring bitmap through the `roaring`
// native package, chosen by the measurements in README.md (compact at every density, the fastest
// AND/OR). Every index and the registry build bitmaps here, so the choice can change in one place.
import roaring from 'roaring';

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

/** Bytes the bitmap takes in DRAM (its compact serialised size, which CRoaring's containers match). */
export function bitmapBytes(b: Bitmap): number {
  return b.getSerializationSizeInBytes('croaring');
}
