// Nodes one query has visited. A search thread may run dozens of queries at once (near-data mode),
// so a tag array over all nodes per query (4 bytes × nodes × queries) would not scale; an
// open-address set sized to what one search visits (a few thousand nodes) does, and stays in L1.
// Slots carry the generation that wrote them, so starting the next query is one increment, not a
// fill of the whole table.

export class VisitedSet {
  private keys: Int32Array;
  private gens: Uint32Array;
  private mask: number;
  private gen = 1;
  private size = 0;

  constructor(capacityPow2 = 4096) {
    this.keys = new Int32Array(capacityPow2);
    this.gens = new Uint32Array(capacityPow2);
    this.mask = capacityPow2 - 1;
  }

  clear(): void {
    this.size = 0;
    if (++this.gen === 0xffffffff) {
      this.gens.fill(0);
      this.gen = 1;
    }
  }

  /** Adds v; returns false if it was there already. */
  add(v: number): boolean {
    const keys = this.keys;
    const gens = this.gens;
    const gen = this.gen;
    const mask = this.mask;
    let h = (Math.imul(v, 0x9e3779b1) >>> 0) & mask;
    for (;;) {
      if (gens[h] !== gen) break;
      if (keys[h] === v) return false;
      h = (h + 1) & mask;
    }
    keys[h] = v;
    gens[h] = gen;
    if (++this.size * 2 > keys.length) this.grow();
    return true;
  }

  has(v: number): boolean {
    let h = (Math.imul(v, 0x9e3779b1) >>> 0) & this.mask;
    for (;;) {
      if (this.gens[h] !== this.gen) return false;
      if (this.keys[h] === v) return true;
      h = (h + 1) & this.mask;
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldGens = this.gens;
    const oldGen = this.gen;
    this.keys = new Int32Array(oldKeys.length * 2);
    this.gens = new Uint32Array(oldKeys.length * 2);
    this.mask = this.keys.length - 1;
    this.gen = 1;
    this.size = 0;
    for (let i = 0; i < oldKeys.length; i++) if (oldGens[i] === oldGen) this.add(oldKeys[i]!);
  }
}

/**
 * Dense twin of VisitedSet for the local searcher, which runs one query at a time per thread: a
 * 2-byte tag per node (hnswlib's VisitedList) is one load and one store per neighbour, no hashing
 * or probing. Used only while nodes × 2 bytes stays small (see QueryState), since every in-flight
 * query would need its own.
 */
export class DenseVisited {
  private readonly tags: Uint16Array;
  private gen = 1;

  constructor(nodes: number) {
    this.tags = new Uint16Array(nodes);
  }

  clear(): void {
    if (++this.gen === 0x10000) {
      this.tags.fill(0);
      this.gen = 1;
    }
  }

  /** Adds v; returns false if it was there already. */
  add(v: number): boolean {
    if (this.tags[v] === this.gen) return false;
    this.tags[v] = this.gen;
    return true;
  }

  has(v: number): boolean {
    return this.tags[v] === this.gen;
  }
}
