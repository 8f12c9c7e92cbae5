// The vectors of a sparse column, off the V8 heap: one slot per vector written (its point id, where
// its entries start in the pool and how many), the entries of all of them appended to one pool of
// indices and one of values. Slots are never reused: a replaced or deleted vector's slot is marked
// dead and its entries stay in the pool until the column compacts into a fresh store, so a posting
// naming a slot can always tell whether the vector it points at is still live.

import { sortedIndexOf } from '../../common/lower-bound.js';
const DEAD = -1;
const FIRST_CAPACITY = 16;

export class SlotStore {
  /** Point id per slot, DEAD once replaced or deleted (float64: ids are any safe integer). */
  private ids: Float64Array;
  private starts: Float64Array;
  private lengths: Uint32Array;
  /** Slots written, dead ones included. */
  count = 0;
  indices: Uint32Array;
  values: Float32Array;
  /** Pool entries written, dead ones included. */
  entries = 0;

  constructor(slots = FIRST_CAPACITY, entries = FIRST_CAPACITY) {
    const s = Math.max(slots, FIRST_CAPACITY);
    const e = Math.max(entries, FIRST_CAPACITY);
    this.ids = new Float64Array(s);
    this.starts = new Float64Array(s);
    this.lengths = new Uint32Array(s);
    this.indices = new Uint32Array(e);
    this.values = new Float32Array(e);
  }

  /** Appends a vector for `id`; returns its slot. */
  append(id: number, indices: Uint32Array, values: Float32Array): number {
    if (this.count === this.ids.length) this.growSlots();
    while (this.entries + indices.length > this.indices.length) this.growPool();
    const slot = this.count++;
    this.ids[slot] = id;
    this.starts[slot] = this.entries;
    this.lengths[slot] = indices.length;
    this.indices.set(indices, this.entries);
    this.values.set(values, this.entries);
    this.entries += indices.length;
    return slot;
  }

  kill(slot: number): void {
    this.ids[slot] = DEAD;
  }

  isLive(slot: number): boolean {
    return this.ids[slot]! !== DEAD;
  }

  idAt(slot: number): number {
    return this.ids[slot]!;
  }

  start(slot: number): number {
    return this.starts[slot]!;
  }

  length(slot: number): number {
    return this.lengths[slot]!;
  }

  /** Where `dim` sits among the slot's entries (an index into `indices` and `values`), or -1: a binary search, its indices ascending. */
  find(slot: number, dim: number): number {
    const from = this.starts[slot]!;
    const indices = this.indices;
    const i = sortedIndexOf(this.lengths[slot]!, (j) => indices[from + j]!, dim);
    return i < 0 ? -1 : from + i;
  }

  bytes(): number {
    return this.ids.byteLength + this.starts.byteLength + this.lengths.byteLength + this.indices.byteLength + this.values.byteLength;
  }

  private growSlots(): void {
    const n = 2 * this.ids.length;
    const ids = new Float64Array(n);
    const starts = new Float64Array(n);
    const lengths = new Uint32Array(n);
    ids.set(this.ids);
    starts.set(this.starts);
    lengths.set(this.lengths);
    this.ids = ids;
    this.starts = starts;
    this.lengths = lengths;
  }

  private growPool(): void {
    const n = 2 * this.indices.length;
    const indices = new Uint32Array(n);
    const values = new Float32Array(n);
    indices.set(this.indices);
    values.set(this.values);
    this.indices = indices;
    this.values = values;
  }
}
