// The live query load of a collection: the last RECENT_QUERIES query vectors searched (as searched:
// normalised for cosine), in a ring. A compaction profiles its new layout with them, so the hottest
// neighbour lists of the load that is actually coming in go to DRAM.

/** Query vectors a collection keeps of its live load (the profile of its next layout). */
export const RECENT_QUERIES = 1000;

export class RecentQueries {
  /** Allocated on the first query: read-only collections never record. */
  private ring: Float32Array | null = null;
  private next = 0;
  private count = 0;

  constructor(private readonly dim: number) {}

  record(v: Float32Array): void {
    this.ring ??= new Float32Array(RECENT_QUERIES * this.dim);
    this.ring.set(v, this.next * this.dim);
    this.next = (this.next + 1) % RECENT_QUERIES;
    this.count = Math.min(RECENT_QUERIES, this.count + 1);
  }

  /** The recorded queries (a copy, oldest first), count × dim. */
  copy(): Float32Array {
    const n = this.count;
    const dim = this.dim;
    const out = new Float32Array(n * dim);
    const ring = this.ring;
    if (ring === null) return out;
    const first = n < RECENT_QUERIES ? 0 : this.next;
    for (let i = 0; i < n; i++) {
      const r = (first + i) % RECENT_QUERIES;
      out.set(ring.subarray(r * dim, (r + 1) * dim), i * dim);
    }
    return out;
  }
}
