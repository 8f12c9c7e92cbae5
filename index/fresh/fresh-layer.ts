// The fresh layer of a live collection: points written while serving, in a mutable HNSW graph in
// DRAM (hnswlib-node), searched beside the tiered base index (FreshDiskANN's design). Vectors arrive
// already unit-normalised for cosine, so the graph's 'ip' space gives the base index's distance
// convention (1 - dot; squared L2 for l2) and answers from both merge by distance directly.
//
// hnswlib deletes by marking: a deleted point stays a graph node that searches walk through and
// skip. Once the marked nodes outnumber the live ones (and a thousand), the layer rebuilds its graph
// from the live vectors in the background, a slice per event-loop turn, while the old graph keeps
// answering; writes made meanwhile go to both graphs, and the new one takes over when complete.
import hnswlib from 'hnswlib-node';
import type { Metric } from '../kernels/kernels.js';
import { ipRef, l2Ref } from '../kernels/reference.js';
import { VectorSlab } from './vector-slab.js';
import { TopK } from '../search/top-k.js';

export interface FreshOptions {
  m: number;
  efConstruction: number;
  seed: number;
}

export const DEFAULT_FRESH: FreshOptions = { m: 16, efConstruction: 100, seed: 100 };
const FIRST_CAPACITY = 1024;
/** A rebuild starts when marked-deleted nodes exceed both this and the live points. */
const REBUILD_MIN_DELETED = 1024;
/** Points copied into the new graph per event-loop turn during a rebuild (~20 ms of inserts). */
const REBUILD_SLICE = 256;
/** Vector floats an exact scan reads per event-loop turn (a few milliseconds' work). */
const TURN_FLOATS = 1 << 21;
/** The fewest points an exact scan reads per turn, however long the vectors. */
const MIN_TURN_POINTS = 256;

/**
 * One hnswlib graph and the points it holds, live and marked deleted. hnswlib-node takes 32-bit
 * labels, and point ids go up to 2^53: each point gets the next label here, and answers map back.
 */
class Graph {
  readonly h: hnswlib.HierarchicalNSW;
  private capacity: number;
  private readonly labels = new Map<number, number>();
  private readonly ids: number[] = [];
  readonly deleted = new Set<number>();

  constructor(dim: number, metric: Metric, o: FreshOptions, capacity: number) {
    this.capacity = Math.max(FIRST_CAPACITY, capacity);
    this.h = new hnswlib.HierarchicalNSW(metric === 'l2' ? 'l2' : 'ip', dim);
    this.h.initIndex(this.capacity, o.m, o.efConstruction, o.seed);
  }

  /** Nodes in the graph, deleted ones included. */
  get nodes(): number {
    return this.labels.size;
  }

  /** Nodes hnswlib has allocated room for (it grows by doubling). */
  get room(): number {
    return this.capacity;
  }

  upsert(id: number, v: Float32Array): void {
    let label = this.labels.get(id);
    if (label === undefined) {
      if (this.labels.size >= this.capacity) {
        this.capacity *= 2;
        this.h.resizeIndex(this.capacity);
      }
      label = this.ids.length;
      this.ids.push(id);
      this.labels.set(id, label);
    } else if (this.deleted.delete(id)) this.h.unmarkDelete(label);
    // A label already in the graph is updated in place; a new one is inserted.
    this.h.addPoint(Array.from(v), label);
  }

  delete(id: number): void {
    const label = this.labels.get(id);
    if (label !== undefined && !this.deleted.has(id)) {
      this.h.markDelete(label);
      this.deleted.add(id);
    }
  }

  /** The point id of a graph label. */
  idOf(label: number): number {
    return this.ids[label]!;
  }
}

export class FreshLayer {
  private graph: Graph;
  /** The graph being rebuilt, and the ids still to copy into it. */
  private next: { graph: Graph; todo: number[] } | null = null;
  /** The live fresh points' vectors (what get, scroll, exact search and compaction read), by id. */
  private readonly vectors: VectorSlab;
  /** Rebuilds completed (for metrics and tests). */
  rebuilds = 0;
  /** Resolves when the rebuild running now (if any) has taken over. */
  private rebuilt: Promise<void> = Promise.resolve();

  constructor(
    readonly dim: number,
    readonly metric: Metric,
    private readonly o: FreshOptions = DEFAULT_FRESH,
  ) {
    this.graph = new Graph(dim, metric, o, FIRST_CAPACITY);
    this.vectors = new VectorSlab(dim);
  }

  get size(): number {
    return this.vectors.size;
  }

  /** Whether a rebuild of the graph is under way (the collection reports itself optimizing). */
  get rebuilding(): boolean {
    return this.next !== null;
  }

  /** Nodes of the serving graph, deleted ones included. */
  get graphNodes(): number {
    return this.graph.nodes;
  }

  /** Nodes the serving graph has room for. */
  get graphRoom(): number {
    return this.graph.room;
  }

  has(id: number): boolean {
    return this.vectors.has(id);
  }

  /** A copy of the point's vector, or null when it is not here. */
  vector(id: number): Float32Array | null {
    return this.vectors.copy(id);
  }

  /** Float32s the vectors' slab holds (its room included). */
  get vectorRoom(): number {
    return this.vectors.allocated;
  }

  /** Adds or replaces the point `id` (vector already normalised for cosine). */
  upsert(id: number, v: Float32Array): void {
    this.graph.upsert(id, v);
    this.next?.graph.upsert(id, v);
    this.vectors.set(id, v);
  }

  /** Removes `id`; false when it is not a fresh point. */
  delete(id: number): boolean {
    if (!this.vectors.delete(id)) return false;
    this.graph.delete(id);
    this.next?.graph.delete(id);
    if (this.next === null && this.graph.deleted.size > Math.max(REBUILD_MIN_DELETED, this.vectors.size)) this.startRebuild();
    return true;
  }

  /** Waits for a running rebuild to take over (tests, shutdown). */
  settled(): Promise<void> {
    return this.rebuilt;
  }

  private startRebuild(): void {
    const next = { graph: new Graph(this.dim, this.metric, this.o, Math.ceil(this.vectors.size * 1.25)), todo: this.vectors.ids() };
    this.next = next;
    this.rebuilt = new Promise<void>((resolve) => {
      const step = (): void => {
        // A point written since the rebuild began is in the new graph already (upsert writes both);
        // one deleted since is skipped.
        for (let n = 0; n < REBUILD_SLICE && next.todo.length > 0; n++) {
          const id = next.todo.pop()!;
          const v = this.vectors.copy(id);
          if (v !== null) next.graph.upsert(id, v);
        }
        if (next.todo.length > 0) {
          setImmediate(step);
          return;
        }
        this.graph = next.graph;
        this.next = null;
        this.rebuilds++;
        resolve();
      };
      setImmediate(step);
    });
  }

  /**
   * The k nearest fresh points by the graph walk, nearest first, as (id, distance) in the base
   * index's convention. With `accept`, only points it takes: hnswlib walks through the others, and
   * answers fewer than k when the walk runs out of accepted points it can reach.
   */
  search(q: Float32Array, k: number, ef: number, accept?: (id: number) => boolean): Array<{ id: number; distance: number }> {
    const n = Math.min(k, this.vectors.size);
    if (n === 0) return [];
    const g = this.graph;
    g.h.setEf(Math.max(ef, n));
    const r = accept === undefined ? g.h.searchKnn(Array.from(q), n) : g.h.searchKnn(Array.from(q), n, (label) => accept(g.idOf(label)));
    const out = r.neighbors.map((label, i) => ({ id: g.idOf(label), distance: r.distances[i]! }));
    out.sort((a, b) => a.distance - b.distance || a.id - b.id);
    return out;
  }

  /** The k nearest fresh points by brute force (the exact search mode, and the recall oracle). */
  exact(q: Float32Array, k: number): Array<{ id: number; distance: number }> {
    const best = new TopK(Math.min(k, this.vectors.size));
    this.offerRange(best, this.scorer(q), null, 0, this.vectors.slots);
    return nearest(best, k);
  }

  /**
   * exact, or over `ids` (those still here) when given, in turns of the event loop, a slice of about
   * TURN_FLOATS of vector a turn, so that a scan of many points holds no turn long; `signal` ends it
   * between turns.
   * A write between turns may move a point to another slot, where the scan meets it again: it is
   * answered once, at its nearer reading.
   */
  async exactInTurns(q: Float32Array, k: number, ids: ArrayLike<number> | null, signal?: AbortSignal): Promise<Array<{ id: number; distance: number }>> {
    const step = Math.max(MIN_TURN_POINTS, Math.floor(TURN_FLOATS / this.dim));
    const total = ids === null ? this.vectors.slots : ids.length;
    // Room for points met twice; the answer keeps each id's nearer reading.
    const best = new TopK(Math.min(2 * k, Math.max(total, 1)));
    const score = this.scorer(q);
    for (let from = 0; from < total; from += step) {
      if (from > 0) {
        await new Promise((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
      }
      this.offerRange(best, score, ids, from, from + step);
    }
    return nearest(best, k);
  }

  /**
   * Offers `best` the points of slots [from, to) (`ids` null: every point) or of ids[from, to),
   * each scored by `score` (an id no longer here is skipped). A larger score is nearer: the heap
   * keeps the k best, rather than a sort of every point.
   */
  private offerRange(best: TopK, score: (data: Float32Array, at: number) => number, ids: ArrayLike<number> | null, from: number, to: number): void {
    if (ids === null) {
      this.vectors.forEachIn(from, to, (id, data, at) => best.offer(score(data, at), id));
      return;
    }
    for (let i = from; i < Math.min(to, ids.length); i++) {
      const id = ids[i]!;
      const s = this.vectors.read(id, score);
      if (s !== undefined) best.offer(s, id);
    }
  }

  /** The negated distance to q of the vector at an offset (larger is nearer, as TopK ranks). */
  private scorer(q: Float32Array): (data: Float32Array, at: number) => number {
    const dim = this.dim;
    return this.metric === 'l2' ? (data, at) => -Math.fround(l2Ref(q, 0, data, at, dim)) : (data, at) => -Math.fround(ipRef(q, 0, data, at, dim));
  }

  /** Fresh ids, ascending. */
  ids(): number[] {
    return this.vectors.ids().sort((a, b) => a - b);
  }
}

/** The heap's points nearest first as (id, distance), at most k, each id once (at its nearer reading). */
function nearest(best: TopK, k: number): Array<{ id: number; distance: number }> {
  const seen = new Set<number>();
  const out: Array<{ id: number; distance: number }> = [];
  for (const h of best.drain()) {
    if (out.length === k || seen.has(h.id)) continue;
    seen.add(h.id);
    out.push({ id: h.id, distance: -h.score });
  }
  return out;
}
