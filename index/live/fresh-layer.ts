// The fresh layer of a live collection: points written while serving, in a mutable HNSW graph in
// DRAM (hnswlib-node), searched beside the tiered base index (FreshDiskANN's design). Vectors arrive
// already unit-normalised for cosine, so the graph's 'ip' space gives the base index's distance
// convention (1 - dot; squared L2 for l2) and answers from both merge by distance directly.
import hnswlib from 'hnswlib-node';
import type { Metric } from '../kernels/kernels.js';

export interface FreshOptions {
  m: number;
  efConstruction: number;
  seed: number;
}

export const DEFAULT_FRESH: FreshOptions = { m: 16, efConstruction: 100, seed: 100 };
const FIRST_CAPACITY = 1024;

export class FreshLayer {
  private readonly graph: hnswlib.HierarchicalNSW;
  private capacity = FIRST_CAPACITY;
  /** The live fresh points' vectors (what get, scroll and compaction read), by id. */
  private readonly vectors = new Map<number, Float32Array>();
  /** Labels ever added to the graph (a deleted one stays, marked, and is revived by an upsert). */
  private readonly inGraph = new Set<number>();

  constructor(
    readonly dim: number,
    readonly metric: Metric,
    o: FreshOptions = DEFAULT_FRESH,
  ) {
    this.graph = new hnswlib.HierarchicalNSW(metric === 'l2' ? 'l2' : 'ip', dim);
    this.graph.initIndex(this.capacity, o.m, o.efConstruction, o.seed);
  }

  get size(): number {
    return this.vectors.size;
  }

  has(id: number): boolean {
    return this.vectors.has(id);
  }

  vector(id: number): Float32Array | null {
    return this.vectors.get(id) ?? null;
  }

  /** Adds or replaces the point `id` (vector already normalised for cosine). */
  upsert(id: number, v: Float32Array): void {
    if (this.inGraph.size >= this.capacity) {
      this.capacity *= 2;
      this.graph.resizeIndex(this.capacity);
    }
    // hnswlib revives a marked-deleted label on addPoint and updates an existing one in place.
    this.graph.addPoint(Array.from(v), id);
    this.inGraph.add(id);
    this.vectors.set(id, v);
  }

  /** Removes `id`; false when it is not a fresh point. */
  delete(id: number): boolean {
    if (!this.vectors.delete(id)) return false;
    this.graph.markDelete(id);
    return true;
  }

  /** The k nearest fresh points, nearest first, as (id, distance) in the base index's convention. */
  search(q: Float32Array, k: number, ef: number): Array<{ id: number; distance: number }> {
    const n = Math.min(k, this.vectors.size);
    if (n === 0) return [];
    this.graph.setEf(Math.max(ef, n));
    const r = this.graph.searchKnn(Array.from(q), n);
    const out = r.neighbors.map((id, i) => ({ id, distance: r.distances[i]! }));
    out.sort((a, b) => a.distance - b.distance || a.id - b.id);
    return out;
  }

  /** The k nearest fresh points by brute force (the exact search mode, and the recall oracle). */
  exact(q: Float32Array, k: number): Array<{ id: number; distance: number }> {
    const out: Array<{ id: number; distance: number }> = [];
    for (const [id, v] of this.vectors) {
      let s = 0;
      if (this.metric === 'l2') for (let i = 0; i < v.length; i++) s += (q[i]! - v[i]!) ** 2;
      else {
        for (let i = 0; i < v.length; i++) s += q[i]! * v[i]!;
        s = 1 - s;
      }
      out.push({ id, distance: Math.fround(s) });
    }
    out.sort((a, b) => a.distance - b.distance || a.id - b.id);
    return out.slice(0, k);
  }

  /** Fresh ids, ascending. */
  ids(): number[] {
    return [...this.vectors.keys()].sort((a, b) => a - b);
  }
}
