// A collection's secondary dense vector (a named vector beside the one the collection's base holds),
// in two parts as the collection's own vectors are: the tiered base its last compaction built
// (named-base.ts), and the points written since in a mutable graph in DRAM (fresh/dense-column.ts).
// A write to a point the base holds hides the base's copy; a search asks both parts and merges.
import { DenseColumn, type DenseEntries, type DenseHit, type DensePlan, type DenseSearch } from '../fresh/dense-column.js';
import type { FreshOptions } from '../fresh/fresh-layer.js';
import type { Metric } from '../kernels/kernels.js';
import { normalizeRows } from '../kernels/reference.js';
import { FILTER_PLAN } from '../search/query-state.js';
import type { BaseQuery, NamedBase, TierBytes } from './named-base.js';

/** Runs a base's part of a search; what it answers must be what `NamedBase.run` would. */
export type BaseRunner = (base: NamedBase, query: BaseQuery, signal?: AbortSignal) => Promise<DenseHit[]>;

const localRun: BaseRunner = (base, query, signal) => base.run(query, signal);

/** Filters whose base bitsets a column keeps (a bitset is a bit a base node). */
const FILTER_BITS_KEPT = 8;

export class NamedColumn {
  /** Made at the first write after a base came: an empty graph holds room for a thousand points. */
  private freshPart: DenseColumn | null = null;
  /** Ids whose copy in the base is stale: rewritten since (in fresh), or removed. */
  private hidden = new Set<number>();
  /** Ids written since a compaction's cut (null: none running). */
  private touched: Set<number> | null = null;
  /** The base's live nodes while some are hidden (an unfiltered search's bitset), built when first asked. */
  private liveBits: { bits: Uint32Array; count: number } | null = null;
  /**
   * The base's live nodes of recent filters' matches, by the matches' key (FilterMatches.key), least
   * recently used first: made a table lookup a match, which costs more than the walk for a broad filter.
   */
  private readonly filterBits = new Map<string, { bits: Uint32Array; count: number }>();

  constructor(
    readonly dim: number,
    readonly metric: Metric,
    private readonly o: FreshOptions,
    private base: NamedBase | null = null,
  ) {
    if (base === null) this.freshPart = new DenseColumn(dim, metric, o);
  }

  /** The fresh part, made now if it was not. */
  private get fresh(): DenseColumn {
    this.freshPart ??= new DenseColumn(this.dim, this.metric, this.o);
    return this.freshPart;
  }

  private get freshSize(): number {
    return this.freshPart?.size ?? 0;
  }

  /** Points holding this vector. */
  get size(): number {
    return this.freshSize + (this.base === null ? 0 : this.base.count - this.hidden.size);
  }

  /** Points written since the base was built, and base copies hidden: what a compaction would fold in. */
  get changed(): number {
    return this.freshSize + this.hidden.size;
  }

  /** The tiered base, or null (no compaction has built one). */
  get tiered(): NamedBase | null {
    return this.base;
  }

  set(id: number, v: Float32Array): void {
    this.touch(id);
    this.fresh.set(id, v);
  }

  delete(id: number): void {
    this.touch(id);
    this.freshPart?.delete(id);
  }

  private touch(id: number): void {
    this.touched?.add(id);
    if (this.base?.has(id) === true && !this.hidden.has(id)) {
      this.hidden.add(id);
      this.liveBits = null;
      this.filterBits.clear();
    }
  }

  /** The point's vector as kept (normalised for cosine), or null when it has none. */
  get(id: number): Float32Array | null {
    const v = this.freshPart?.get(id) ?? null;
    if (v !== null || this.hidden.has(id)) return v;
    return this.base?.vector(id) ?? null;
  }

  /**
   * The k nearest points to `query` (of the filter's matches, when given), nearest first: the base's
   * (its live nodes) and the fresh part's, merged. `run` runs the base's part (by default here: a
   * walk or scan in one synchronous call, an exact search over turns). `stale`: while the base's
   * part was out, a compaction swapped a new base in, or a write hid answers it had and left it
   * short, so points may be missing; the caller asks again.
   */
  async search(query: Float32Array, k: number, o: DenseSearch, run: BaseRunner = localRun): Promise<{ hits: DenseHit[]; plan: DensePlan; stale: boolean }> {
    const base = this.base;
    if (base === null) return { ...(await this.fresh.search(query, k, o)), stale: false };
    const q = Float32Array.from(query);
    if (this.metric === 'cosine') normalizeRows(q, this.dim);
    const nodes = this.baseNodes(base, o.filter);
    const b = base.query(q, k, o.ef, nodes?.bits ?? null, nodes?.count ?? base.count, o.exact === true);
    const plan: DensePlan = b.exact ? 'exact' : b.plan === FILTER_PLAN.SCAN ? 'scan' : 'graph';
    let hits = await run(base, b, o.signal);
    if (this.base !== base) return { hits, plan, stale: true };
    // A write while the base searched hides the copies it answered with: they go, and a search left
    // short by it is stale too.
    const got = hits.length;
    if (this.hidden.size > 0) hits = hits.filter((h) => !this.hidden.has(h.id));
    const short = hits.length < got && got === b.k;
    const fresh = this.freshSize === 0 ? [] : (await this.fresh.search(query, k, o)).hits;
    const merged = hits.concat(fresh).sort((x, y) => x.distance - y.distance || x.id - y.id);
    if (merged.length > k) merged.length = k;
    return { hits: merged, plan, stale: short || this.base !== base };
  }

  /** The base's nodes a search may answer from (live, and matching the filter), or null: all of them. */
  private baseNodes(base: NamedBase, filter: DenseSearch['filter']): { bits: Uint32Array; count: number } | null {
    if (filter === undefined) {
      if (this.hidden.size === 0) return null;
      this.liveBits ??= this.allBut(base, this.hidden);
      return this.liveBits;
    }
    const key = filter.key;
    if (key === undefined) return this.collect(base, filter.ids());
    let nodes = this.filterBits.get(key);
    if (nodes !== undefined) this.filterBits.delete(key);
    else {
      nodes = this.collect(base, filter.ids());
      if (this.filterBits.size >= FILTER_BITS_KEPT) this.filterBits.delete(this.filterBits.keys().next().value!);
    }
    this.filterBits.set(key, nodes);
    return nodes;
  }

  /** Every node of the base but those of `hidden`'s ids. */
  private allBut(base: NamedBase, hidden: ReadonlySet<number>): { bits: Uint32Array; count: number } {
    const bits = base.emptyBits().fill(0xffffffff);
    // Bits past the last node stay clear: a walk reads the bitset as its matches.
    if (base.count % 32 !== 0) bits[bits.length - 1] = 2 ** (base.count % 32) - 1;
    let count = base.count;
    for (const id of hidden) {
      const n = base.node(id)!;
      bits[n >>> 5]! &= ~(1 << (n & 31));
      count--;
    }
    return { bits, count };
  }

  private collect(base: NamedBase, ids: ArrayLike<number>): { bits: Uint32Array; count: number } {
    const bits = base.emptyBits();
    const hidden = this.hidden.size > 0 ? this.hidden : null;
    let count = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const n = base.node(id);
      if (n === undefined || hidden?.has(id) === true) continue;
      bits[n >>> 5]! |= 1 << (n & 31);
      count++;
    }
    return { bits, count };
  }

  /** Bytes held by tier: the base's as laid out, the fresh part's and the hidden set's in DRAM. */
  tierBytes(): TierBytes {
    const b = this.base?.tierBytes() ?? { dram: 0, cxl: 0 };
    return { dram: b.dram + (this.freshPart?.bytes ?? 0) + 16 * this.hidden.size, cxl: b.cxl };
  }

  /** Bytes held, both tiers. */
  get bytes(): number {
    const t = this.tierBytes();
    return t.dram + t.cxl;
  }

  /** Every point's vector as kept: the base's live ones, then the fresh ones. */
  entries(): DenseEntries {
    const f = this.freshPart?.entries() ?? { ids: [], vectors: new Float32Array(0) };
    const base = this.base;
    if (base === null) return f;
    const index = base.opened.index;
    const labels = index.labels;
    const ids: number[] = [];
    const nodes: number[] = [];
    for (let n = 0; n < labels.length; n++)
      if (!this.hidden.has(labels[n]!)) {
        ids.push(labels[n]!);
        nodes.push(n);
      }
    const vectors = new Float32Array((ids.length + f.ids.length) * this.dim);
    // Read in place from the node's tier (one copy, not a copy of a copy).
    nodes.forEach((n, i) => vectors.set(index.vectorOf(n), i * this.dim));
    vectors.set(f.vectors, ids.length * this.dim);
    return { ids: [...ids, ...f.ids], vectors };
  }

  /** Fills the fresh part with saved entries (a state saved before compactions built bases for it). */
  fill(e: DenseEntries): Promise<void> {
    return this.fresh.fill(e);
  }

  /** A compaction's cut: every point's vector now (what its base will hold); writes from here on are noted. */
  beginCut(): DenseEntries {
    this.touched = new Set();
    return this.entries();
  }

  abortCut(): void {
    this.touched = null;
  }

  /**
   * Swaps in the base a compaction built from the cut (synchronous, with the live store's rebase):
   * the fresh part keeps only points written since the cut, and the new base hides exactly those.
   */
  rebase(base: NamedBase | null): void {
    const touched = this.touched ?? new Set<number>();
    this.touched = null;
    const kept = [...touched].flatMap((id) => {
      const v = this.freshPart?.get(id) ?? null;
      return v === null ? [] : [{ id, v }];
    });
    const fresh = kept.length > 0 || base === null ? new DenseColumn(this.dim, this.metric, this.o) : null;
    for (const { id, v } of kept) fresh!.adopt(id, v);
    const hidden = new Set<number>();
    for (const id of touched) if (base?.has(id) === true) hidden.add(id);
    this.base?.close();
    this.base = base;
    this.freshPart = fresh;
    this.hidden = hidden;
    this.liveBits = null;
    this.filterBits.clear();
  }

  close(): void {
    this.base?.close();
  }
}
