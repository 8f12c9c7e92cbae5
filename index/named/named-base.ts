// A secondary dense vector's tiered base: the index a compaction built of that vector's points, laid
// out as the collection's own base is (codes and the hottest lists in DRAM, full vectors and the
// other lists in the CXL tier). A search of it is prepared here (BaseQuery) and run by a local
// searcher on the calling thread, or by whoever holds the base too (the engine's search threads).
// Its labels are the points' ids.
import type { DenseHit } from '../fresh/dense-column.js';
import { SCAN_BELOW } from '../fresh/fresh-filtered.js';
import { indexMemoryParts } from '../format/memory-parts.js';
import type { OpenedIndex } from '../open-index.js';
import { defaultRerank } from '../search/bounds.js';
import { FILTER_PLAN } from '../search/query-state.js';
import { type NodeFilter, Searcher, type SearcherOptions } from '../search/searcher.js';

/**
 * Ids up to this many times the point count (plus a little) find their node in a table indexed by
 * id (4 bytes a slot, a few nanoseconds a lookup); sparser ones, and UUID points', in a map (tens of
 * bytes a point, and a filter's ids are looked up one by one each search).
 */
const TABLE_SPREAD = 4;
const TABLE_SLACK = 1024;
/** Nodes an exact search reads per event-loop turn (a multiple of 32: whole bitset words). */
export const EXACT_SLICE = 1 << 15;

/**
 * One search of a base, as its caller prepared it: where it runs is the caller's choice (here, by
 * `NamedBase.run`, or on the engine's search threads, whose answer is the same).
 */
export interface BaseQuery {
  /** The query, prepared (unit-normalised for cosine). */
  q: Float32Array;
  /** Hits wanted: at most the nodes asked for. */
  k: number;
  ef: number;
  /** The nodes asked for (null: every node). */
  bits: Uint32Array | null;
  matched: number;
  /** FILTER_PLAN: NONE without bits, else SCAN or GRAPH by the matches' share. */
  plan: number;
  exact: boolean;
}

/** Bytes of a base by tier, as its manifest lays the stores and the DRAM-only parts out. */
export interface TierBytes {
  dram: number;
  cxl: number;
}

export class NamedBase {
  /** Node by id: a table when the ids are dense enough (`nodeTable`), else a map. */
  private readonly nodeTable: Int32Array | null;
  private readonly nodeMap: Map<number, number> | null;
  /** The local searcher, made at the first search run here: a base the search threads hold never needs its slot and lane. */
  private local: Searcher | null = null;

  constructor(
    readonly opened: OpenedIndex,
    private readonly o: SearcherOptions,
    /** Nodes an exact search reads per turn (a multiple of 32). */
    private readonly exactSlice = EXACT_SLICE,
  ) {
    const labels = opened.index.labels;
    let max = -1;
    let integers = true;
    for (let n = 0; n < labels.length; n++) {
      const id = labels[n]!;
      if (id > max) max = id;
      if (!Number.isInteger(id) || id < 0) integers = false;
    }
    if (integers && max < TABLE_SPREAD * labels.length + TABLE_SLACK) {
      const table = new Int32Array(max + 1).fill(-1);
      for (let n = 0; n < labels.length; n++) table[labels[n]!] = n;
      this.nodeTable = table;
      this.nodeMap = null;
    } else {
      this.nodeTable = null;
      this.nodeMap = new Map();
      for (let n = 0; n < labels.length; n++) this.nodeMap.set(labels[n]!, n);
    }
  }

  private get searcher(): Searcher {
    this.local ??= new Searcher(this.opened.index, this.o);
    return this.local;
  }

  get dir(): string {
    return this.opened.dir;
  }

  get count(): number {
    return this.opened.index.meta.count;
  }

  has(id: number): boolean {
    return this.node(id) !== undefined;
  }

  /** The node holding point `id`, or undefined. */
  node(id: number): number | undefined {
    const t = this.nodeTable;
    if (t === null) return this.nodeMap!.get(id);
    const n = id >= 0 && id < t.length ? t[id]! : -1;
    return n >= 0 ? n : undefined;
  }

  /** Bytes of the lookup from id to node (DRAM). */
  get lookupBytes(): number {
    return this.nodeTable !== null ? this.nodeTable.byteLength : 40 * this.count;
  }

  /** A copy of the point's vector as kept (normalised for cosine), read from its tier; null when not here. */
  vector(id: number): Float32Array | null {
    const n = this.node(id);
    return n === undefined ? null : Float32Array.from(this.opened.index.vectorOf(n));
  }

  /** An empty bitset over the base's nodes (bit n of word n >> 5). */
  emptyBits(): Uint32Array {
    return new Uint32Array(Math.ceil(this.count / 32));
  }

  /**
   * A search of the base: the nodes set in `bits` (`matched` of them; null: every node), with the
   * plan their share calls for: few matches have their codes scored, many are found by the walk
   * (which scans when it reaches fewer than k).
   */
  query(q: Float32Array, k: number, ef: number, bits: Uint32Array | null, matched: number, exact: boolean): BaseQuery {
    const plan = bits === null ? FILTER_PLAN.NONE : matched < SCAN_BELOW * this.count ? FILTER_PLAN.SCAN : FILTER_PLAN.GRAPH;
    return { q, k: Math.min(k, bits === null ? this.count : matched), ef, bits, matched, plan, exact };
  }

  /** Runs a query on this thread: a walk or scan in one synchronous call, an exact search over turns. */
  async run(b: BaseQuery, signal?: AbortSignal): Promise<DenseHit[]> {
    if (b.k === 0) return [];
    if (b.exact) return this.exact(b.q, b.k, b.bits, signal);
    const filter: NodeFilter | null = b.bits === null ? null : { bits: b.bits, matched: b.matched, plan: b.plan };
    return this.hitsOf(this.searcher.search(b.q, b.k, Math.max(b.ef, b.k), defaultRerank(b.k), true, filter));
  }

  /**
   * The exact k nearest of the nodes set in `bits` (null: every node), every full vector read: in
   * slices of `exactSlice` nodes, one per event-loop turn, so that a base of many points holds no
   * turn long; `signal` ends it between turns.
   */
  async exact(q: Float32Array, k: number, bits: Uint32Array | null, signal?: AbortSignal): Promise<DenseHit[]> {
    const best: DenseHit[] = [];
    for (let from = 0; from < this.count; from += this.exactSlice) {
      if (from > 0) {
        await new Promise((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
      }
      // The slice's nodes among those asked for (whole words: the slice is a multiple of 32).
      const slice = this.emptyBits();
      const to = Math.min(this.count, from + this.exactSlice);
      let any = false;
      for (let w = from >>> 5; w < (to + 31) >>> 5; w++) {
        const word = bits === null ? 0xffffffff : bits[w]!;
        slice[w] = word;
        any ||= word !== 0;
      }
      if (!any) continue;
      // Bits past the last node may be set: the searcher's exact scan stops at the count (and reads no `matched`).
      best.push(...this.hitsOf(this.searcher.exact(q, k, { bits: slice, matched: 0, plan: FILTER_PLAN.NONE })));
      best.sort((a, b) => a.distance - b.distance || a.id - b.id).splice(k);
    }
    return best;
  }

  private hitsOf(r: { ids: Int32Array; distances: Float32Array }): DenseHit[] {
    const labels = this.opened.index.labels;
    return Array.from(r.ids, (node, i) => ({ id: labels[node]!, distance: r.distances[i]! }));
  }

  /** Bytes held by tier: the index's parts as its manifest lays them out (format/memory-parts.ts), and the id lookup in DRAM. */
  tierBytes(): TierBytes {
    const out: TierBytes = { dram: this.lookupBytes, cxl: 0 };
    for (const x of indexMemoryParts(this.opened.manifest)) out[x.tier] += x.bytes;
    return out;
  }

  /**
   * Releases the local searcher's slot and lane (a compaction replaced the base, or the store
   * closed). An exact search still reading over turns goes on with them: nothing takes a slot of
   * this base any more (the search threads that hold it took theirs when they started).
   */
  close(): void {
    this.local?.close();
  }
}
