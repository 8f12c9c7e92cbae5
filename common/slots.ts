// A set of short-lived entries held by a long-lived owner (requests in flight, tasks running).
//
// Why not a Map or Set: once the owner's Map or Set lives in V8's old space, entries it took and
// dropped (and what they point to) still outlive the scavenges and are promoted. Measured on Node 20
// with 16 entries live at a time (a one-off probe, docs/benchmarks.md): a Set or Map promoted 5.2–5.5 MB a
// scavenge, paused ~25 ms a scavenge against 0.3, and ran ~5× slower than these slots, which
// promoted nothing. In `strata serve` the in-flight responses and running tasks were such Sets.
// Slots are a plain array whose removed entries are overwritten with null, so nothing stale remains.

export class Slots<T> {
  private readonly items: Array<T | null> = [];
  private readonly free: number[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Holds v; returns its slot, which remove() takes. */
  add(v: T): number {
    const slot = this.free.pop() ?? this.items.length;
    this.items[slot] = v;
    this.count++;
    return slot;
  }

  /** Drops the entry in `slot` (a slot already free is left alone). A freed slot is reused: remove each once. */
  remove(slot: number): void {
    if (this.items[slot] === null || this.items[slot] === undefined) return;
    this.items[slot] = null;
    this.free.push(slot);
    this.count--;
  }

  /** The entries held now (a copy: callers may remove while they walk it). */
  values(): T[] {
    const out: T[] = [];
    for (const v of this.items) if (v !== null) out.push(v);
    return out;
  }
}
