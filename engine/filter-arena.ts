// Shared memory for filtered searches' bitsets of matching base nodes: the main thread writes one
// per filter (engine/filter-plan.ts), tasks name it by offset, and every search thread reads it in
// place. A bitset is one bit per node, so tasks stay small whatever the filter; the ring's slots
// could not carry them. Allocations are reference-counted: the filter cache holds one, each search
// out on the threads another, and the words are reused once the last lets go.
import { StrataError } from '../common/errors.js';

/**
 * A filter's allocation: the bitset (a word per 32 base nodes), then its value runs
 * (index/tiered/value-runs.ts) as their count and three words each, which the scan reads first,
 * then the filter-link blocks covering it (index/filter-links/) as their count and one word each.
 */
export function filterWords(nodes: number, runs: number, links = 0): number {
  return bitsetWords(nodes) + 1 + 3 * runs + 1 + links;
}

export const bitsetWords = (nodes: number): number => (nodes + 31) >>> 5;

/** The runs block of the allocation at `at` for a base of `nodes`: its count, then the runs. */
export function runsOf(words: Uint32Array, at: number, nodes: number): Uint32Array {
  const r = at + bitsetWords(nodes);
  return words.subarray(r, r + 1 + 3 * words[r]!);
}

/** Where the link blocks of the allocation at `at` start: after its runs block, already written. */
function linksAt(words: Uint32Array, at: number, nodes: number): number {
  const r = at + bitsetWords(nodes);
  return r + 1 + 3 * words[r]!;
}

/** The link blocks of the allocation at `at`: their ids. */
export function linksOf(words: Uint32Array, at: number, nodes: number): Uint32Array {
  const l = linksAt(words, at, nodes);
  return words.subarray(l + 1, l + 1 + words[l]!);
}

/** Writes the link blocks after the runs block already written at `at`. */
export function writeLinks(words: Uint32Array, at: number, nodes: number, blocks: readonly number[]): void {
  const l = linksAt(words, at, nodes);
  words[l] = blocks.length;
  words.set(blocks, l + 1);
}

/** The arena's default size: a bitset of a 10M-point base is 1.25 MB, so dozens in flight. */
export const DEFAULT_FILTER_ARENA_BYTES = 64 * 1024 * 1024;

export class FilterArena {
  readonly buffer: SharedArrayBuffer;
  readonly words: Uint32Array;
  /** Free ranges [start, length) in words, sorted by start, never adjacent (merged). */
  private readonly free: Array<[number, number]>;
  private readonly lengths = new Map<number, number>();
  private readonly refs = new Map<number, number>();

  constructor(bytes = DEFAULT_FILTER_ARENA_BYTES) {
    this.buffer = new SharedArrayBuffer(Math.ceil(bytes / 4) * 4);
    this.words = new Uint32Array(this.buffer);
    this.free = [[0, this.words.length]];
  }

  /** Words in use now. */
  get used(): number {
    let n = 0;
    for (const len of this.lengths.values()) n += len;
    return n;
  }

  /** A zeroed range of `n` words, held once; STRATA_OVERLOADED when the arena has no room (filters in flight hold it all). */
  alloc(n: number): number {
    const len = Math.max(1, n);
    const i = this.free.findIndex(([, l]) => l >= len);
    if (i < 0)
      throw new StrataError(
        'STRATA_OVERLOADED',
        `too many filtered searches in flight: their bitsets fill the ${this.buffer.byteLength}-byte filter arena`,
        {},
      );
    const [start, l] = this.free[i]!;
    if (l === len) this.free.splice(i, 1);
    else this.free[i] = [start + len, l - len];
    this.words.fill(0, start, start + len);
    this.lengths.set(start, len);
    this.refs.set(start, 1);
    return start;
  }

  /** Words of the allocation at `at`. */
  lengthOf(at: number): number {
    this.refCount(at);
    return this.lengths.get(at)!;
  }

  retain(at: number): void {
    this.refs.set(at, this.refCount(at) + 1);
  }

  /** Lets go of one hold; the last frees the range. */
  release(at: number): void {
    const refs = this.refCount(at) - 1;
    if (refs > 0) {
      this.refs.set(at, refs);
      return;
    }
    const len = this.lengths.get(at)!;
    this.refs.delete(at);
    this.lengths.delete(at);
    let i = 0;
    while (i < this.free.length && this.free[i]![0] < at) i++;
    this.free.splice(i, 0, [at, len]);
    // Merge with the next range, then with the previous one.
    const next = this.free[i + 1];
    if (next !== undefined && at + len === next[0]) {
      this.free[i] = [at, len + next[1]];
      this.free.splice(i + 1, 1);
    }
    const prev = this.free[i - 1];
    if (prev !== undefined && prev[0] + prev[1] === at) {
      prev[1] += this.free[i]![1];
      this.free.splice(i, 1);
    }
  }

  private refCount(at: number): number {
    const r = this.refs.get(at);
    if (r === undefined) throw new StrataError('STRATA_INTERNAL', `filter arena: no allocation at word ${at}`, {});
    return r;
  }
}
