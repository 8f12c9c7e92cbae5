// A collection's secondary dense vector (a named vector beside the one the tiered index holds): its
// points in a mutable HNSW graph in DRAM (the fresh layer's), with the vectors they were written with.
// It is not tiered: all of it counts against DRAM. A filtered search picks its plan by how many
// points the filter matches (fresh-filtered.ts).
import type { Metric } from '../kernels/kernels.js';
import { normalizeRows } from '../kernels/reference.js';
import { DEFAULT_FRESH, FreshLayer, type FreshOptions } from './fresh-layer.js';
import { type FilteredPlan, type FilterMatches, type FreshHit, searchMatching } from './fresh-filtered.js';

/** Points inserted into the graph per event-loop turn while a column is filled from saved entries. */
const FILL_SLICE = 256;
/** A point's bytes besides its vectors and links: the map entries that find it here and in hnswlib's label map. */
const PER_POINT_OVERHEAD = 150;

export type DensePlan = 'graph' | 'scan' | 'exact';

export interface DenseSearch {
  ef: number;
  /** Only the points a filter matches (absent: every point). */
  filter?: FilterMatches;
  /** Every point scored. */
  exact?: boolean;
  /** The filtered plan to run instead of the planner's choice (benchmarks compare them). */
  plan?: FilteredPlan;
  /** Ends a scan between event-loop turns. */
  signal?: AbortSignal;
}

export type DenseHit = FreshHit;

/** All points of a column: point i's vector is `vectors[i*dim, (i+1)*dim)`. */
export interface DenseEntries {
  ids: number[];
  vectors: Float32Array;
}

export class DenseColumn {
  private readonly layer: FreshLayer;

  constructor(
    readonly dim: number,
    readonly metric: Metric,
    private readonly o: FreshOptions = DEFAULT_FRESH,
  ) {
    this.layer = new FreshLayer(dim, metric, o);
  }

  get size(): number {
    return this.layer.size;
  }

  /** A copy of `v` as the column keeps and compares it: unit-normalised for cosine. */
  private prepared(v: Float32Array): Float32Array {
    const out = Float32Array.from(v);
    if (this.metric === 'cosine') normalizeRows(out, this.dim);
    return out;
  }

  /** Adds or replaces the vector of point `id` (of length dim: the edge checked it). */
  set(id: number, v: Float32Array): void {
    this.layer.upsert(id, this.prepared(v));
  }

  /** Adds a vector as this column keeps it (normalised already: another column's). */
  adopt(id: number, kept: Float32Array): void {
    this.layer.upsert(id, kept);
  }

  delete(id: number): void {
    this.layer.delete(id);
  }

  /** The point's vector as kept (normalised for cosine), or null when it has none. */
  get(id: number): Float32Array | null {
    return this.layer.vector(id);
  }

  /**
   * The k nearest points to `query` (of the filter's matches, when given), nearest first: by the
   * graph walk at `ef`, or every point scored when `exact`. Never fewer than k while k points match.
   * A scan runs in turns of the event loop (FreshLayer.exactInTurns); a walk is one native call.
   */
  async search(query: Float32Array, k: number, o: DenseSearch): Promise<{ hits: DenseHit[]; plan: DensePlan }> {
    const { ef, filter } = o;
    const q = this.prepared(query);
    if (o.exact === true) return { hits: await this.layer.exactInTurns(q, k, filter?.ids() ?? null, o.signal), plan: 'exact' };
    if (filter === undefined) return { hits: this.layer.search(q, k, ef), plan: 'graph' };
    return searchMatching(this.layer, q, k, ef, filter, {
      ...(o.plan !== undefined ? { plan: o.plan } : {}),
      ...(o.signal !== undefined ? { signal: o.signal } : {}),
    });
  }

  /**
   * Bytes held, estimated from the settings: the graph's room (hnswlib allocates each node's vector,
   * level 0's 2m links and its label ahead, growing by doubling), the slab of the vectors reads and
   * compactions use (its room too), and per point the map entries that find it (secondary-bench
   * measures the estimate against the process's memory).
   */
  get bytes(): number {
    // hnswlib's vector, level-0 links and label, its per-node lock, level and upper-layer pointer.
    const node = 4 * this.dim + 4 * (2 * this.o.m + 1) + 8 + 52;
    return this.layer.graphRoom * node + 4 * this.layer.vectorRoom + this.layer.graphNodes * PER_POINT_OVERHEAD;
  }

  entries(): DenseEntries {
    const ids = this.layer.ids();
    const vectors = new Float32Array(ids.length * this.dim);
    ids.forEach((id, i) => vectors.set(this.layer.vector(id)!, i * this.dim));
    return { ids, vectors };
  }

  /**
   * Fills this column with saved entries (vectors as kept: normalised already), a slice of points
   * per event-loop turn: a graph of many points takes seconds to build, and a snapshot may be
   * restored while the server serves.
   */
  async fill(e: DenseEntries): Promise<void> {
    const dim = this.dim;
    for (let from = 0; from < e.ids.length; from += FILL_SLICE) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      for (let i = from; i < Math.min(from + FILL_SLICE, e.ids.length); i++) this.layer.upsert(e.ids[i]!, e.vectors.subarray(i * dim, (i + 1) * dim));
    }
  }
}
