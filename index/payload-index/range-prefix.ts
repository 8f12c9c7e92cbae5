// Node bitsets of a sorted index's prefixes, so that a wide range becomes word operations instead
// of one bit set per point. Checkpoint k holds the nodes of the first k/CHECKPOINTS of the pairs in
// value order; a range [from, to) is the checkpoint nearest `to` less the one nearest `from`, with
// the pairs between each checkpoint and its end set or cleared one by one (at most half a step each).
// That subtraction needs every node at one position at most: only for a field of one value per
// point. Rows served by no base node (the fresh layer's) are listed apart, by position.

import { lowerBound } from '../../common/lower-bound.js';

/** Prefix bitsets per index: memory is CHECKPOINTS bits per node. */
export const CHECKPOINTS = 8;

export class RangePrefix {
  /** CHECKPOINTS + 1 bitsets of `words` words each: checkpoint k covers positions [0, at(k)). */
  private readonly bits: Uint32Array;
  readonly words: number;
  /** Positions (value order) whose row has no base node, ascending. */
  private readonly freshAt: Uint32Array;

  /**
   * @param ids each pair's row, in value order (one pair per row)
   * @param nodeOfRow each row's base node, or -1
   */
  constructor(
    private readonly ids: Uint32Array,
    private readonly nodeOfRow: Int32Array,
    nodes: number,
  ) {
    this.words = (nodes + 31) >>> 5;
    const w = this.words;
    this.bits = new Uint32Array((CHECKPOINTS + 1) * w);
    const fresh: number[] = [];
    const run = this.bits.subarray(0, w);
    for (let k = 1; k <= CHECKPOINTS; k++) {
      for (let i = this.at(k - 1); i < this.at(k); i++) {
        const node = nodeOfRow[ids[i]!]!;
        if (node >= 0) run[node >>> 5]! |= 1 << (node & 31);
        else fresh.push(i);
      }
      this.bits.copyWithin(k * w, 0, w);
    }
    this.bits.fill(0, 0, w);
    this.freshAt = Uint32Array.from(fresh);
  }

  /** The first position checkpoint k does not cover. */
  private at(k: number): number {
    return Math.floor((this.ids.length * k) / CHECKPOINTS);
  }

  /** The checkpoint whose end is nearest position p. */
  private nearest(p: number): number {
    return Math.min(CHECKPOINTS, Math.max(0, Math.round((p * CHECKPOINTS) / Math.max(1, this.ids.length))));
  }

  bytes(): number {
    return this.bits.byteLength + this.freshAt.byteLength;
  }

  /** Sets in out[at, at + words) the nodes of positions [from, to), which must be zero there. */
  fill(from: number, to: number, out: Uint32Array, at: number): void {
    if (from >= to) return;
    const w = this.words;
    const a = this.nearest(from);
    const b = this.nearest(to);
    // The ends' corrections must not meet: a range within one step is set directly.
    if (b <= a || this.at(b) < from || this.at(a) > to) {
      this.adjust(from, to, out, at);
      return;
    }
    const bits = this.bits;
    const hi = b * w;
    const lo = a * w;
    for (let j = 0; j < w; j++) out[at + j] = bits[hi + j]! & ~bits[lo + j]!;
    // Now [at(a), at(b)): move both ends to from and to.
    this.adjust(from, this.at(a), out, at);
    this.adjust(this.at(b), to, out, at);
  }

  /** Positions [p, q) set (p < q) or [q, p) cleared (q < p). */
  private adjust(p: number, q: number, out: Uint32Array, at: number): void {
    const set = p < q;
    const end = set ? q : p;
    for (let i = set ? p : q; i < end; i++) {
      const node = this.nodeOfRow[this.ids[i]!]!;
      if (node < 0) continue;
      if (set) out[at + (node >>> 5)]! |= 1 << (node & 31);
      else out[at + (node >>> 5)]! &= ~(1 << (node & 31));
    }
  }

  /** The rows of positions [from, to) that no base node serves, in position order. */
  freshRows(from: number, to: number): number[] {
    const out: number[] = [];
    const f = this.freshAt;
    for (let i = lowerBound(f.length, (j) => f[j]!, from); i < f.length && f[i]! < to; i++) out.push(this.ids[f[i]!]!);
    return out;
  }
}
