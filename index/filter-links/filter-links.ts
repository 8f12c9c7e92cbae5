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
  /**
   * Each node's memberships, the members inverted: node c's are [nodeFrom[c], nodeFrom[c + 1]) of
   * memberBlock (ascending) and memberList (the list's word offset). A walk finds a node's lists in
   * the covering blocks from its few memberships, not by a search of every covering block.
   */
  private readonly nodeFrom: Uint32Array;
  private readonly memberBlock: Uint32Array;
  private readonly memberList: Uint32Array;
  /** The most blocks one node is a member of (what listsIn may write). */
  readonly maxMemberships: number;

  constructor(
    /** Links each list can hold (2 × payload_m). */
    readonly degree: number,
    readonly payloadM: number,
    readonly blocks: readonly LinkBlockEntry[],
    readonly members: Uint32Array,
    readonly lists: Uint32Array,
  ) {
    this.stride = 1 + degree;
    let top = 0;
    for (let i = 0; i < members.length; i++) top = Math.max(top, members[i]! + 1);
    const from = new Uint32Array(top + 1);
    for (let i = 0; i < members.length; i++) from[members[i]! + 1]!++;
    for (let c = 0; c < top; c++) from[c + 1]! += from[c]!;
    const fill = from.slice(0, top);
    this.memberBlock = new Uint32Array(members.length);
    this.memberList = new Uint32Array(members.length);
    // Blocks in order, so each node's memberships come out ascending by block.
    blocks.forEach((e, b) => {
      for (let i = e.from; i < e.from + e.count; i++) {
        const at = fill[members[i]!]!++;
        this.memberBlock[at] = b;
        this.memberList[at] = i * this.stride;
      }
    });
    this.nodeFrom = from;
    let most = 0;
    for (let c = 0; c < top; c++) most = Math.max(most, from[c + 1]! - from[c]!);
    this.maxMemberships = most;
  }

  /** The word offset of node's list in block b's records, or -1 when node is not in the block. */
  listOf(b: number, node: number): number {
    if (node + 1 >= this.nodeFrom.length) return -1;
    for (let k = this.nodeFrom[node]!, end = this.nodeFrom[node + 1]!; k < end; k++) if (this.memberBlock[k] === b) return this.memberList[k]!;
    return -1;
  }

  /**
   * Writes the word offsets of node's lists in the blocks of `cover` (ascending block ids) to out,
   * from `at`; how many it wrote. out must hold the node's memberships (at most one per block field).
   */
  listsIn(cover: Uint32Array, node: number, out: Int32Array, at = 0): number {
    if (node + 1 >= this.nodeFrom.length) return 0;
    let n = 0;
    for (let k = this.nodeFrom[node]!, end = this.nodeFrom[node + 1]!; k < end; k++) {
      if (hasBlock(cover, this.memberBlock[k]!)) out[at + n++] = this.memberList[k]!;
    }
    return n;
  }

  /** DRAM (the members and their inversion, searched per expansion) and CXL (the lists) bytes. */
  bytes(): { dram: number; cxl: number } {
    return {
      dram: this.members.byteLength + this.nodeFrom.byteLength + this.memberBlock.byteLength + this.memberList.byteLength,
      cxl: this.lists.byteLength,
    };
  }
}

/** Whether the ascending ids hold b. */
function hasBlock(ids: Uint32Array, b: number): boolean {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === b) return true;
    if (v < b) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
