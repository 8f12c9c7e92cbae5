// Binary heaps over parallel typed arrays (distance, id): no per-push allocation on the hot path.
// Comparisons use the distance only, so the order of equal distances depends on the sequence of
// operations alone, never on id values: renumbering nodes cannot change a search's answer.

export class MinHeap {
  d: Float64Array;
  i: Int32Array;
  size = 0;
  constructor(cap: number) {
    this.d = new Float64Array(cap);
    this.i = new Int32Array(cap);
  }
  clear(): void {
    this.size = 0;
  }
  push(dist: number, id: number): void {
    if (this.size === this.d.length) this.grow();
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
  /** Removes the root; read d[0] / i[0] before calling. */
  pop(): void {
    const n = --this.size;
    if (n === 0) return;
    this.siftLast(n);
  }

  /** Moves the entry at index n into the root's place and sifts it down among the first n. */
  private siftLast(n: number): void {
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
  private grow(): void {
    const d = new Float64Array(this.d.length * 2);
    d.set(this.d);
    const i = new Int32Array(this.i.length * 2);
    i.set(this.i);
    this.d = d;
    this.i = i;
  }
}

export class MaxHeap {
  d: Float64Array;
  i: Int32Array;
  size = 0;
  constructor(cap: number) {
    this.d = new Float64Array(cap);
    this.i = new Int32Array(cap);
  }
  clear(): void {
    this.size = 0;
  }
  ensure(cap: number): void {
    if (this.d.length < cap) {
      this.d = new Float64Array(cap);
      this.i = new Int32Array(cap);
    }
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
  pop(): void {
    const n = --this.size;
    if (n === 0) return;
    this.siftLast(n);
  }

  /**
   * Replaces the root (the largest) with an entry below it: the set push-then-pop would leave,
   * in one sift instead of two (the fused traversal's twin: distance.as.ts topReplace).
   */
  replaceTop(dist: number, id: number): void {
    const n = this.size;
    this.d[n] = dist;
    this.i[n] = id;
    this.siftLast(n);
  }

  /** Moves the entry at index n into the root's place and sifts it down among the first n. */
  private siftLast(n: number): void {
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
