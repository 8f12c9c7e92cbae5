// The k best (score, id) pairs of an exact search over point ids (a sparse search, a secondary
// vector's scan), in a bounded binary heap over typed arrays whose root is the worst kept. Unlike
// heaps.ts, order is total and depends on ids: a higher score is better, and of equal scores the
// smaller id, as Qdrant answers; ids are float64 (a point id is any safe integer), not int32.

export interface SparseHit {
  id: number;
  score: number;
}

export class TopK {
  private readonly scores: Float64Array;
  private readonly ids: Float64Array;
  private size = 0;

  /** Keeps at most `k` pairs; the caller sizes k to what it can offer, never beyond. */
  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.ids = new Float64Array(k);
  }

  offer(score: number, id: number): void {
    if (this.size < this.k) {
      this.siftUp(this.size++, score, id);
    } else if (this.k > 0 && better(score, id, this.scores[0]!, this.ids[0]!)) {
      this.siftDown(0, score, id);
    }
  }

  /** The worst score kept (the k-th best once k are kept). */
  worst(): number {
    return this.scores[0]!;
  }

  /** The pairs kept, best first; empties the heap. */
  drain(): SparseHit[] {
    const out = new Array<SparseHit>(this.size);
    for (let n = this.size; n > 0; n = this.size) {
      out[n - 1] = { id: this.ids[0]!, score: this.scores[0]! };
      this.size--;
      if (this.size > 0) this.siftDown(0, this.scores[this.size]!, this.ids[this.size]!);
    }
    return out;
  }

  /** Puts (score, id) at `k` or above it, moving better parents down. */
  private siftUp(k: number, score: number, id: number): void {
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (!better(this.scores[p]!, this.ids[p]!, score, id)) break;
      this.scores[k] = this.scores[p]!;
      this.ids[k] = this.ids[p]!;
      k = p;
    }
    this.scores[k] = score;
    this.ids[k] = id;
  }

  /** Puts (score, id) at `k` or below it, moving the worse child up. */
  private siftDown(k: number, score: number, id: number): void {
    const n = this.size;
    for (;;) {
      let c = 2 * k + 1;
      if (c >= n) break;
      if (c + 1 < n && better(this.scores[c]!, this.ids[c]!, this.scores[c + 1]!, this.ids[c + 1]!)) c++;
      if (!better(score, id, this.scores[c]!, this.ids[c]!)) break;
      this.scores[k] = this.scores[c]!;
      this.ids[k] = this.ids[c]!;
      k = c;
    }
    this.scores[k] = score;
    this.ids[k] = id;
  }
}

/** Whether (s, i) ranks before (t, j). */
function better(s: number, i: number, t: number, j: number): boolean {
  return s > t || (s === t && i < j);
}
