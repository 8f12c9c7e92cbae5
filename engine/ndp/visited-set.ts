// Visited nodes of one in-flight query. A near-data search thread runs dozens of queries at once, so
// a per-query tag array over all nodes (4 bytes × nodes × queries) would not scale; an open-address
// set sized to what one search visits (a few thousand nodes) does.

export class VisitedSet {
  private keys: Int32Array;
  private mask: number;
  private size = 0;

  constructor(capacityPow2 = 4096) {
    this.keys = new Int32Array(capacityPow2).fill(-1);
    this.mask = capacityPow2 - 1;
  }

  clear(): void {
    this.keys.fill(-1);
    this.size = 0;
  }

  /** Adds v; returns false if it was there already. */
  add(v: number): boolean {
    let h = Math.imul(v, 0x9e3779b1) & this.mask;
    const keys = this.keys;
    for (;;) {
      const k = keys[h]!;
      if (k === v) return false;
      if (k === -1) break;
      h = (h + 1) & this.mask;
    }
    keys[h] = v;
    if (++this.size * 2 > keys.length) this.grow();
    return true;
  }

  private grow(): void {
    const old = this.keys;
    this.keys = new Int32Array(old.length * 2).fill(-1);
    this.mask = this.keys.length - 1;
    this.size = 0;
    for (const v of old) if (v !== -1) this.add(v);
  }
}
