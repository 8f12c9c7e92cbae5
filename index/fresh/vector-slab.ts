// The vectors of a mutable set of points in one growing Float32Array: each point a slot, a deleted
// point's slot reused by the next one written. Against a typed array per point, it spares each
// point its array's objects (about as many bytes again as a 100-dimension vector's own), and a
// scan over many points reads memory laid out together.

const FIRST_SLOTS = 1024;

export class VectorSlab {
  private data: Float32Array;
  private readonly slotOf = new Map<number, number>();
  /** The id in each slot (-1: free). */
  private readonly idAt: number[] = [];
  private readonly free: number[] = [];

  constructor(readonly dim: number) {
    this.data = new Float32Array(dim * FIRST_SLOTS);
  }

  get size(): number {
    return this.slotOf.size;
  }

  /** Float32s allocated (slots × dim): what the slab holds in memory. */
  get allocated(): number {
    return this.data.length;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** Writes (or overwrites) the vector of `id`. */
  set(id: number, v: Float32Array): void {
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.idAt.length;
      if (slot === this.idAt.length) this.idAt.push(id);
      else this.idAt[slot] = id;
      this.slotOf.set(id, slot);
      if ((slot + 1) * this.dim > this.data.length) {
        const grown = new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
    }
    this.data.set(v, slot * this.dim);
  }

  /** Frees the slot of `id`; false when it has none. */
  delete(id: number): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    this.idAt[slot] = -1;
    this.free.push(slot);
    return true;
  }

  /** A copy of the vector of `id` (a slot may be reused once the point is deleted), or null. */
  copy(id: number): Float32Array | null {
    const slot = this.slotOf.get(id);
    return slot === undefined ? null : this.data.slice(slot * this.dim, (slot + 1) * this.dim);
  }

  /**
   * Calls fn with the array and offset holding `id`'s vector, for reading within the call only
   * (a write may move the array); undefined when `id` has none.
   */
  read<T>(id: number, fn: (data: Float32Array, offset: number) => T): T | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : fn(this.data, slot * this.dim);
  }

  /** Slots handed out so far (free ones included): the range forEachIn walks. */
  get slots(): number {
    return this.idAt.length;
  }

  /** Calls fn for every point in the slots [from, to), with the array and offset of its vector, in slot order. */
  forEachIn(from: number, to: number, fn: (id: number, data: Float32Array, offset: number) => void): void {
    const data = this.data;
    for (let slot = from; slot < Math.min(to, this.idAt.length); slot++) {
      const id = this.idAt[slot]!;
      if (id !== -1) fn(id, data, slot * this.dim);
    }
  }

  /** Every id held, in no order. */
  ids(): number[] {
    return [...this.slotOf.keys()];
  }
}
