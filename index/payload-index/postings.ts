// Value → bitmap of the points holding it: the inverted list behind keyword, uuid, text and geo cells.
import { type Bitmap, bitmapBytes, emptyBitmap, orAll } from './bitmap.js';
import { MAP_ENTRY_BYTES } from './field-index-base.js';

export class Postings<K> {
  private readonly lists = new Map<K, Bitmap>();

  /** Adds `id` under every key (repeats are one). */
  add(id: number, keys: Iterable<K>): void {
    for (const k of keys) {
      let b = this.lists.get(k);
      if (b === undefined) {
        b = emptyBitmap();
        this.lists.set(k, b);
      }
      b.add(id);
    }
  }

  remove(id: number, keys: Iterable<K>): void {
    for (const k of keys) {
      const b = this.lists.get(k);
      if (b === undefined) continue;
      b.remove(id);
      if (b.isEmpty) this.lists.delete(k);
    }
  }

  /** The points holding `key` (a copy). */
  get(key: K): Bitmap {
    return this.lists.get(key)?.clone() ?? emptyBitmap();
  }

  /** How many points hold `key`. */
  count(key: K): number {
    return this.lists.get(key)?.size ?? 0;
  }

  /** The points holding any of `keys`. */
  any(keys: Iterable<K>): Bitmap {
    const found: Bitmap[] = [];
    for (const k of keys) {
      const b = this.lists.get(k);
      if (b !== undefined) found.push(b);
    }
    return orAll(found);
  }

  entries(): IterableIterator<[K, Bitmap]> {
    return this.lists.entries();
  }

  bytes(): number {
    let n = this.lists.size * MAP_ENTRY_BYTES;
    for (const b of this.lists.values()) n += bitmapBytes(b);
    return n;
  }
}
