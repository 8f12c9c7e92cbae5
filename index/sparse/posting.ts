// One dimension's posting list: the (slot, value) of every vector holding the dimension, appended in
// two growable typed arrays, so the heap holds one object per dimension, never one per point. A
// deleted or replaced vector's entry stays until the column compacts (the column knows which slots
// are dead); `live` counts the others, which is the dimension's document frequency.

const FIRST_CAPACITY = 4;

export class Posting {
  slots = new Uint32Array(FIRST_CAPACITY);
  values = new Float32Array(FIRST_CAPACITY);
  /** Entries written, dead ones included. */
  length = 0;
  /** Entries whose slot is live: the vectors holding this dimension now. */
  live = 0;
  /** The largest and smallest value ever pushed: bounds of every live one (a compaction tightens them). */
  maxValue = Number.NEGATIVE_INFINITY;
  minValue = Number.POSITIVE_INFINITY;

  push(slot: number, value: number): void {
    if (this.length === this.slots.length) this.grow();
    this.slots[this.length] = slot;
    this.values[this.length] = value;
    this.length++;
    this.live++;
    if (value > this.maxValue) this.maxValue = value;
    if (value < this.minValue) this.minValue = value;
  }

  bytes(): number {
    return this.slots.byteLength + this.values.byteLength;
  }

  private grow(): void {
    const slots = new Uint32Array(2 * this.slots.length);
    const values = new Float32Array(2 * this.values.length);
    slots.set(this.slots);
    values.set(this.values);
    this.slots = slots;
    this.values = values;
  }
}
