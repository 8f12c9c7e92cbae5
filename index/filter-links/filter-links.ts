// A base's filter links: for each block of a payload index (blocks.ts), a neighbour list per point
// of the block, linking it to its nearest points within the block (level 0 of an HNSW graph built on
// the block alone, build-links.ts). A filter the blocks cover is walked on its matches only, through
// these lists and the matching part of the base's own lists (index/search/traversal.ts LINKED): the
// block's links keep the matches connected where the base graph reaches them only through
// non-matching points. Members are DRAM (the lookup); the lists are cold and priced as CXL reads.
import type { LinkBlock } from './blocks.js';

export interface LinkBlockEntry {
  readonly block: LinkBlock;
  /** The block graph's entry point (a base node). */
  readonly entry: number;
  /** The block's members are members[from, from + count), ascending; its lists the same records of `lists`. */
  readonly from: number;
  readonly count: number;
}

export class FilterLinks {
  /** u32 words per list record: the degree, then `degree` base node ids. */
  readonly stride: number;

  constructor(
    /** Links each list can hold (2 × payload_m). */
    readonly degree: number,
    readonly payloadM: number,
    readonly blocks: readonly LinkBlockEntry[],
    readonly members: Uint32Array,
    readonly lists: Uint32Array,
  ) {
    this.stride = 1 + degree;
  }

  /** The word offset of node's list in block b's records, or -1 when node is not in the block. */
  listOf(b: number, node: number): number {
    const e = this.blocks[b]!;
    const m = this.members;
    let lo = e.from;
    let hi = e.from + e.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = m[mid]!;
      if (v === node) return mid * this.stride;
      if (v < node) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** DRAM (the members, searched per expansion) and CXL (the lists) bytes. */
  bytes(): { dram: number; cxl: number } {
    return { dram: this.members.byteLength, cxl: this.lists.byteLength };
  }
}
