// One named sparse vector of a collection: every point's vector (slot-store.ts) and the inverted
// index from dimension to posting list (posting.ts), answering exact top-k dot-product searches.
// Nothing here is per point on the V8 heap: ids map to slots in an IdMap, vectors and postings sit
// in typed arrays, and the heap holds one Posting per distinct dimension.
//
// Writes only append to postings (and count): a replaced or deleted vector leaves dead entries behind,
// which search skips. Once dead entries or dead slots are more than half of all, the column is
// rebuilt from its live vectors, so the work of compaction is paid for by the writes that made the
// dead ones. Document frequencies (`Posting.live`) are kept exact on every write, so the IDF weight
// is always that of the live points. A search may pause between query terms (searchInTurns),
// holding a scratch of its own meanwhile.
import { IdMap } from '../../common/id-map.js';
import { stepsInOneTurn, stepsInTurns } from '../../common/turns.js';
import { invalidArgument } from '../../common/errors.js';
import { Posting } from './posting.js';
import { SlotStore } from './slot-store.js';
import type { SparseVector } from './sparse-vector.js';
import { type QueryTerm, queryTerms } from './query-terms.js';
import { type SparseHit, TopK } from '../search/top-k.js';

/** A search's scratch mark of a slot: not reached yet, reached and accepted, reached and left out by the filter. */
const UNSEEN = 0;
const ACCEPTED = 1;
const REJECTED = 2;
/**
 * Posting entries worth one lookup of a dimension in a slot's vector (a binary search over its few
 * dozen entries, against a sequential read of the posting).
 */
const LOOKUP_COST = 64;
/** Posting entries left to read per slot seen, below which checking whether the answer is settled costs more than it may save. */
const CHECK_GAIN = 32;
/**
 * Posting entries a search in turns reads before it gives the event loop a turn: a query of many
 * common terms reads millions, and other requests wait while it reads.
 */
export const TURN_READS = 1 << 16;

/** A search's scratch, one entry per slot: the running score, its mark, the slots touched (`used` of them). */
interface Scratch {
  acc: Float64Array;
  seen: Uint8Array;
  touched: Uint32Array;
  used: number;
}

export type { SparseHit } from '../search/top-k.js';

export type SparseModifier = 'none' | 'idf';

/** All points of a column, concatenated in `ids` order: point i's entries are its `lengths[i]` after those of the points before. */
export interface SparseEntries {
  ids: number[];
  lengths: number[];
  indices: Uint32Array;
  values: Float32Array;
}

export class SparseColumn {
  private store = new SlotStore();
  private postings = new Map<number, Posting>();
  private readonly slotOf = new IdMap();
  /** Posting entries and vector lookups searches have read, since the column was made (what pruning saves). */
  reads = 0;
  private deadSlots = 0;
  private deadEntries = 0;
  /** The scratch searches share, or null while one holds it across turns (another then makes its own). */
  private spare: Scratch | null = null;
  /** Moves on every write: a search in turns that sees it move gives up. */
  private version = 0;

  constructor(readonly modifier: SparseModifier) {}

  /** Replaces any vector `id` had; the column keeps copies of v's arrays. */
  set(id: number, v: SparseVector): void {
    checkId(id, 'id');
    checkVector(v, 'vector');
    this.version++;
    const old = this.slotOf.get(id);
    if (old !== undefined) this.kill(old);
    this.slotOf.set(id, this.append(id, v.indices, v.values));
    this.compactIfSparse();
  }

  /** True if `id` had a vector. */
  delete(id: number): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.version++;
    this.kill(slot);
    this.slotOf.delete(id);
    this.compactIfSparse();
    return true;
  }

  /** A copy of id's vector, or null. */
  get(id: number): SparseVector | null {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return null;
    const from = this.store.start(slot);
    const to = from + this.store.length(slot);
    return { indices: this.store.indices.slice(from, to), values: this.store.values.slice(from, to) };
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** Points holding a vector. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Every live vector, ids ascending: what persistence writes. */
  entries(): SparseEntries {
    const slots: number[] = [];
    for (let s = 0; s < this.store.count; s++) if (this.store.isLive(s)) slots.push(s);
    slots.sort((a, b) => this.store.idAt(a) - this.store.idAt(b));
    let total = 0;
    for (const s of slots) total += this.store.length(s);
    const out: SparseEntries = { ids: [], lengths: [], indices: new Uint32Array(total), values: new Float32Array(total) };
    let at = 0;
    for (const s of slots) {
      const from = this.store.start(s);
      const n = this.store.length(s);
      out.ids.push(this.store.idAt(s));
      out.lengths.push(n);
      out.indices.set(this.store.indices.subarray(from, from + n), at);
      out.values.set(this.store.values.subarray(from, from + n), at);
      at += n;
    }
    return out;
  }

  static fromEntries(modifier: SparseModifier, e: SparseEntries): SparseColumn {
    checkEntries(e);
    const column = new SparseColumn(modifier);
    let at = 0;
    for (let i = 0; i < e.ids.length; i++) {
      const n = e.lengths[i]!;
      column.set(e.ids[i]!, { indices: e.indices.subarray(at, at + n), values: e.values.subarray(at, at + n) });
      at += n;
    }
    return column;
  }

  /**
   * Top `k` by score, best first, ties by smaller id first; only points sharing at least one
   * non-zero dimension with the query and for which accept(id) is true (accept undefined: all). Exact.
   * `prune` false reads every posting of the query's terms (the same answers: benchmarks compare).
   */
  search(query: SparseVector, k: number, accept?: (id: number) => boolean, prune = true): SparseHit[] {
    return stepsInOneTurn(this.steps(query, k, accept, prune, Number.POSITIVE_INFINITY));
  }

  /**
   * search, giving the event loop a turn after every `turnReads` posting entries read; null when a
   * write to the column landed meanwhile (the caller asks again). `signal` ends it between turns.
   */
  searchInTurns(
    query: SparseVector,
    k: number,
    accept?: (id: number) => boolean,
    o: { signal?: AbortSignal; turnReads?: number } = {},
  ): Promise<SparseHit[] | null> {
    const version = this.version;
    // Ended early, the generator clears its scratch and gives it back.
    return stepsInTurns(this.steps(query, k, accept, true, o.turnReads ?? TURN_READS), () => this.version !== version, o.signal);
  }

  /** The search, pausing (a yield) after each `turnReads` entries read. */
  private *steps(
    query: SparseVector,
    k: number,
    accept: ((id: number) => boolean) | undefined,
    prune: boolean,
    turnReads: number,
  ): Generator<void, SparseHit[]> {
    checkVector(query, 'query');
    if (!(k >= 1)) return [];
    const want = Math.floor(k);
    const s = this.takeScratch();
    try {
      const n = yield* this.accumulate(s, query, prune ? want : Number.POSITIVE_INFINITY, accept, turnReads);
      const top = new TopK(Math.min(want, n));
      for (let t = 0; t < n; t++) {
        const slot = s.touched[t]!;
        if (s.seen[slot] === ACCEPTED) top.offer(s.acc[slot]!, this.store.idAt(slot));
      }
      return top.drain();
    } catch (e) {
      // Thrown mid-posting (a filter's test): the slots touched are not all counted, so the
      // scratch is not kept.
      s.used = -1;
      throw e;
    } finally {
      this.giveBack(s);
    }
  }

  /** Exact score of one stored point against the query (same weighting as search), or null if id has no vector. */
  score(id: number, query: SparseVector): number | null {
    const slot = this.slotOf.get(id);
    checkVector(query, 'query');
    if (slot === undefined) return null;
    const idx = this.store.indices;
    const end = this.store.start(slot) + this.store.length(slot);
    let i = this.store.start(slot);
    let j = 0;
    let sum = 0;
    while (i < end && j < query.indices.length) {
      const x = idx[i]!;
      const y = query.indices[j]!;
      if (x === y) sum += query.values[j++]! * this.weight(this.postings.get(x)!) * this.store.values[i++]!;
      else if (x < y) i++;
      else j++;
    }
    return sum;
  }

  /** Points whose vector holds dimension `dim` (the postings a query term reads). */
  documentFrequency(dim: number): number {
    return this.postings.get(dim)?.live ?? 0;
  }

  /** Bytes held by the typed arrays (their capacity): vectors, postings, the id map, search scratch. */
  bytes(): number {
    let postings = 0;
    for (const p of this.postings.values()) postings += p.bytes();
    const sp = this.spare;
    const scratch = sp === null ? 0 : sp.acc.byteLength + sp.seen.byteLength + sp.touched.byteLength;
    return this.store.bytes() + postings + this.slotOf.bytes() + scratch;
  }

  /** Qdrant's IDF for a dimension held by `p.live` of the column's points; 1 without the modifier. */
  private weight(p: Posting): number {
    if (this.modifier === 'none') return 1;
    const n = p.live;
    return Math.log(1 + (this.size - n + 0.5) / (n + 0.5));
  }

  /**
   * Adds the query's products into the scratch of every live, accepted slot that holds one of its
   * terms; returns how many slots it touched (rejected ones included, marked so). Terms are read most
   * able to add first (query-terms.ts). Before each, if `k` accepted slots seen are sure to end above
   * anything a point holding only the terms left could reach (their sum so far plus the least those
   * terms can add, strictly above the most they can add), no new slot can enter the answer: the
   * remaining terms are added to the slots seen only, by looking each up in its vector where that
   * is cheaper than reading the posting. Exact: every answer's score is its full dot product.
   */
  private *accumulate(s: Scratch, query: SparseVector, k: number, accept: ((id: number) => boolean) | undefined, turnReads: number): Generator<void, number> {
    const terms = queryTerms(
      query.indices,
      query.values,
      (d) => this.postings.get(d),
      (p) => this.weight(p),
      this.store.count,
    );
    let most = 0;
    let least = 0;
    let left = 0;
    for (const t of terms) {
      most += t.most;
      least += t.least;
      left += t.posting.length;
    }
    let n = 0;
    let open = true;
    // The most any slot can hold so far: the terms read, each at its most.
    let read = 0;
    // A check costs a pass over the slots seen: it is made only where the postings left are longer
    // than that pass, and after one fails, not again until the most left has halved.
    let checkBelow = Number.POSITIVE_INFINITY;
    let turnFrom = this.reads;
    for (const t of terms) {
      if (this.reads - turnFrom >= turnReads) {
        yield;
        turnFrom = this.reads;
      }
      // While no slot can be above the bar (the terms read bound every sum), there is nothing to check.
      if (open && n >= k && left > CHECK_GAIN * n && most <= checkBelow && read - least > most) {
        if (this.settled(s, n, k, least, most)) open = false;
        else checkBelow = most / 2;
      }
      if (open) {
        n = this.admit(s, t, n, accept);
        s.used = n;
        read += t.most;
      } else this.addToSeen(s, t, n);
      most -= t.most;
      least -= t.least;
      left -= t.posting.length;
    }
    return n;
  }

  /** Reads the term's posting into the scratch, admitting new slots (each checked by accept once). */
  private admit(s: Scratch, t: QueryTerm, n: number, accept: ((id: number) => boolean) | undefined): number {
    const { acc, seen, touched } = s;
    const store = this.store;
    const p = t.posting;
    const w = t.weight;
    this.reads += p.length;
    if (accept === undefined) {
      // Every slot is accepted: the loop without the filter's branches.
      for (let e = 0; e < p.length; e++) {
        const slot = p.slots[e]!;
        if (!store.isLive(slot)) continue;
        // Kept in `touched` only when new, without a branch: read after rarer terms, whether a
        // slot is new is a coin toss, and a mispredicted branch costs more than the store.
        touched[n] = slot;
        n += ACCEPTED - seen[slot]!;
        seen[slot] = ACCEPTED;
        acc[slot] = acc[slot]! + w * p.values[e]!;
      }
    } else {
      for (let e = 0; e < p.length; e++) {
        const slot = p.slots[e]!;
        if (!store.isLive(slot)) continue;
        if (seen[slot] === UNSEEN) {
          seen[slot] = accept(store.idAt(slot)) ? ACCEPTED : REJECTED;
          touched[n++] = slot;
        }
        if (seen[slot] === ACCEPTED) acc[slot] = acc[slot]! + w * p.values[e]!;
      }
    }
    return n;
  }

  /** Adds the term to the accepted slots seen: by reading its posting, or by a lookup in each slot's vector, whichever reads less. */
  private addToSeen(s: Scratch, t: QueryTerm, n: number): void {
    const { acc, seen, touched } = s;
    const store = this.store;
    const p = t.posting;
    if (p.length <= n * LOOKUP_COST) {
      this.reads += p.length;
      for (let e = 0; e < p.length; e++) {
        const slot = p.slots[e]!;
        if (seen[slot] === ACCEPTED && store.isLive(slot)) acc[slot] = acc[slot]! + t.weight * p.values[e]!;
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const slot = touched[i]!;
      if (seen[slot] !== ACCEPTED) continue;
      this.reads++;
      const at = store.find(slot, t.dim);
      if (at >= 0) acc[slot] = acc[slot]! + t.weight * store.values[at]!;
    }
  }

  /**
   * Whether `k` accepted slots seen score, whatever the terms left add (at least `least`), strictly
   * above the most a slot not seen could reach with those terms alone (`most`).
   */
  private settled(s: Scratch, n: number, k: number, least: number, most: number): boolean {
    // k slots above the bar is the k-th best above it. The margin is for rounding: sums taken in
    // another order must not decide a near tie.
    const bar = most - least + 1e-9 * (Math.abs(most) + Math.abs(least) + 1);
    let above = 0;
    for (let i = 0; i < n && above < k; i++) {
      const slot = s.touched[i]!;
      if (s.seen[slot] === ACCEPTED && s.acc[slot]! > bar) above++;
    }
    return above >= k;
  }

  /** The shared scratch, sized to the slots, or one of its own while a search in turns holds it. */
  private takeScratch(): Scratch {
    const s = this.spare;
    this.spare = null;
    if (s !== null && s.acc.length >= this.store.count) return s;
    const n = Math.max(this.store.count, 2 * (s?.acc.length ?? 0));
    // One more than the slots: the unfiltered read writes a slot there before it knows it is new.
    return { acc: new Float64Array(n), seen: new Uint8Array(n), touched: new Uint32Array(n + 1), used: 0 };
  }

  /** Clears the slots a search touched and keeps its scratch for the next (the larger of two); one whose count was lost (-1) is dropped. */
  private giveBack(s: Scratch): void {
    if (s.used < 0) return;
    for (let t = 0; t < s.used; t++) {
      const slot = s.touched[t]!;
      s.acc[slot] = 0;
      s.seen[slot] = 0;
    }
    s.used = 0;
    if (this.spare === null || this.spare.acc.length < s.acc.length) this.spare = s;
  }

  private append(id: number, indices: Uint32Array, values: Float32Array): number {
    const slot = this.store.append(id, indices, values);
    for (let i = 0; i < indices.length; i++) {
      let p = this.postings.get(indices[i]!);
      if (p === undefined) {
        p = new Posting();
        this.postings.set(indices[i]!, p);
      }
      p.push(slot, values[i]!);
    }
    return slot;
  }

  /** Marks a slot dead: its postings' entries stay (search skips them), its dimensions' counts drop. */
  private kill(slot: number): void {
    const from = this.store.start(slot);
    const n = this.store.length(slot);
    for (let i = from; i < from + n; i++) this.postings.get(this.store.indices[i]!)!.live--;
    this.store.kill(slot);
    this.deadSlots++;
    this.deadEntries += n;
  }

  private compactIfSparse(): void {
    if (2 * this.deadEntries > this.store.entries || 2 * this.deadSlots > this.store.count) this.compact();
  }

  /** Rebuilds vectors and postings from the live slots alone, in slot order. */
  private compact(): void {
    const old = this.store;
    this.store = new SlotStore(old.count - this.deadSlots, old.entries - this.deadEntries);
    this.postings = new Map();
    for (let s = 0; s < old.count; s++) {
      if (!old.isLive(s)) continue;
      const from = old.start(s);
      const to = from + old.length(s);
      const id = old.idAt(s);
      this.slotOf.set(id, this.append(id, old.indices.subarray(from, to), old.values.subarray(from, to)));
    }
    this.deadSlots = 0;
    this.deadEntries = 0;
    // the scratch was sized to the old slot count: let the next search size it anew
    this.spare = null;
  }
}

function checkId(id: number, field: string): void {
  if (!Number.isSafeInteger(id) || id < 0) throw invalidArgument(field, `a point id must be a non-negative safe integer, not ${id}`);
}

/** What sparseVectorAt guarantees, checked again cheaply: the column's merges rely on it. */
function checkVector(v: SparseVector, field: string): void {
  if (v.values.length !== v.indices.length)
    throw invalidArgument(`${field}.values`, `the lengths differ: ${v.indices.length} indices but ${v.values.length} values`);
  for (let i = 1; i < v.indices.length; i++) {
    if (v.indices[i]! <= v.indices[i - 1]!) throw invalidArgument(`${field}.indices[${i}]`, 'indices must be unique and ascending');
  }
}

function checkEntries(e: SparseEntries): void {
  if (e.lengths.length !== e.ids.length) throw invalidArgument('entries.lengths', `${e.lengths.length} lengths for ${e.ids.length} ids`);
  if (e.values.length !== e.indices.length)
    throw invalidArgument('entries.values', `the lengths differ: ${e.indices.length} indices but ${e.values.length} values`);
  let total = 0;
  for (let i = 0; i < e.ids.length; i++) {
    checkId(e.ids[i]!, `entries.ids[${i}]`);
    if (i > 0 && e.ids[i]! <= e.ids[i - 1]!) throw invalidArgument(`entries.ids[${i}]`, 'ids must be unique and ascending');
    const n = e.lengths[i]!;
    if (!Number.isSafeInteger(n) || n < 0) throw invalidArgument(`entries.lengths[${i}]`, `a length must be a non-negative integer, not ${n}`);
    total += n;
  }
  if (total !== e.indices.length) throw invalidArgument('entries.indices', `${e.indices.length} entries, but the lengths add up to ${total}`);
}
