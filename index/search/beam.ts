// The level-0 beam: at most ef entries sorted by distance, a new entry placed after any equal ones,
// each marked once the search takes it for expansion. One sorted array does the work of HNSW's
// candidate min-heap and result max-heap: a candidate that falls out of the best ef could never be
// expanded (the strict order stops at the first candidate beyond the ef-th distance), the next
// candidate is the first entry not taken, and the answer is the beam as it stands. Inserting shifts
// at most ef entries, which for the beams searched here (ef of tens to hundreds) costs less than the
// two heaps' sift steps and their unpredictable branches. The WASM traversal's beam is the twin
// (beamInsert and untakenFrom in index/kernels/traverse.as.ts): the same placement and order.

export class Beam {
  d: Float64Array;
  i: Int32Array;
  /** 1 where the entry was taken for expansion. */
  taken: Uint8Array;
  size = 0;
  /** No entry before it is untaken. */
  cursor = 0;

  constructor(cap: number) {
    this.d = new Float64Array(cap);
    this.i = new Int32Array(cap);
    this.taken = new Uint8Array(cap);
  }

  clear(): void {
    this.size = 0;
    this.cursor = 0;
  }

  /** Room for a beam of width `cap`. */
  ensure(cap: number): void {
    if (this.d.length >= cap) return;
    this.d = new Float64Array(cap);
    this.i = new Int32Array(cap);
    this.taken = new Uint8Array(cap);
  }

  /** The farthest entry's distance (the beam is not empty). */
  last(): number {
    return this.d[this.size - 1]!;
  }

  /** Places (dist, id) in a beam of width ef; the caller checked it belongs (fewer than ef, or nearer than last()). */
  insert(dist: number, id: number, ef: number): void {
    const d = this.d;
    const ids = this.i;
    const taken = this.taken;
    let p = this.size;
    if (p < ef) this.size++;
    else p--;
    while (p > 0 && d[p - 1]! > dist) {
      d[p] = d[p - 1]!;
      ids[p] = ids[p - 1]!;
      taken[p] = taken[p - 1]!;
      p--;
    }
    d[p] = dist;
    ids[p] = id;
    taken[p] = 0;
    if (p < this.cursor) this.cursor = p;
  }

  /** The first entry from `from` not taken, or size. */
  untakenFrom(from: number): number {
    const taken = this.taken;
    let k = from;
    while (k < this.size && taken[k] === 1) k++;
    return k;
  }

  /** Takes the nearest entry not yet taken and returns its position, or -1 when all are taken. */
  take(): number {
    const k = this.untakenFrom(this.cursor);
    this.cursor = k;
    if (k >= this.size) return -1;
    this.taken[k] = 1;
    return k;
  }
}
