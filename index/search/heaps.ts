// A binary max-heap over parallel typed arrays (distance, id): no per-push allocation. The exact
// (brute-force) search keeps its best k here, the re-rank its k best exact distances; the level-0
// beam is beam.ts. Comparisons use the distance only, so the order of equal distances depends on
// the sequence of operations alone, never on id values: renumbering nodes cannot change an answer.

export class MaxHeap {
  d: Float64Array;
  i: Int32Array;
  size = 0;
  constructor(cap: number) {
    this.d = new Float64Array(cap);
    this.i = new Int32Array(cap);
  }
  push(dist: number, id: number): void {
    const d = this.d;
    const ids = this.i;
    let k = this.size++;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (d[p]! >= dist) break;
      d[k] = d[p]!;
      ids[k] = ids[p]!;
      k = p;
    }
    d[k] = dist;
    ids[k] = id;
  }
  /** Removes the root (the largest); read d[0] / i[0] before calling. */
  pop(): void {
    const n = --this.size;
    if (n === 0) return;
    const d = this.d;
    const ids = this.i;
    const ld = d[n]!;
    const li = ids[n]!;
    let k = 0;
    for (;;) {
      let c = 2 * k + 1;
      if (c >= n) break;
      if (c + 1 < n && d[c + 1]! > d[c]!) c++;
      if (d[c]! <= ld) break;
      d[k] = d[c]!;
      ids[k] = ids[c]!;
      k = c;
    }
    d[k] = ld;
    ids[k] = li;
  }
}

/**
 * A binary min-heap over parallel typed arrays that grows as needed: the filtered walk's frontier,
 * which has no fixed width (a candidate is kept while it beats the ef-th match, however many that is).
 */
export class MinHeap {
  d = new Float64Array(256);
  i = new Int32Array(256);
  size = 0;
  push(dist: number, id: number): void {
    if (this.size === this.d.length) {
      const d = new Float64Array(2 * this.size);
      const i = new Int32Array(2 * this.size);
      d.set(this.d);
      i.set(this.i);
      this.d = d;
      this.i = i;
    }
    const d = this.d;
    const ids = this.i;
    let k = this.size++;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (d[p]! <= dist) break;
      d[k] = d[p]!;
      ids[k] = ids[p]!;
      k = p;
    }
    d[k] = dist;
    ids[k] = id;
  }
  /** Removes the root (the smallest); read d[0] / i[0] before calling. */
  pop(): void {
    const n = --this.size;
    if (n === 0) return;
    const d = this.d;
    const ids = this.i;
    const ld = d[n]!;
    const li = ids[n]!;
    let k = 0;
    for (;;) {
      let c = 2 * k + 1;
      if (c >= n) break;
      if (c + 1 < n && d[c + 1]! < d[c]!) c++;
      if (d[c]! >= ld) break;
      d[k] = d[c]!;
      ids[k] = ids[c]!;
      k = c;
    }
    d[k] = ld;
    ids[k] = li;
  }
}
