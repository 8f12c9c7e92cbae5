// A base's filter links: for each block of a payload index (blocks.ts), a neighbour list per point
// of the block, linking it to its nearest points within the block (level 0 of an HNSW graph built on
// the block alone, build-links.ts). A filter the blocks cover is walked on its matches only, through
// these lists and the matching part of the base's own lists (index/search/traversal.ts LINKED): the
// block's links keep the matches connected where the base graph reaches them only through
// non-matching points. Members are DRAM (the lookup); the lists are cold and priced as CXL reads.
import { StrataError } from '../../common/errors.js';
import type { LinkBlock } from './blocks.js';

export interface LinkBlockEntry {
  readonly block: LinkBlock;
  /** The block graph's entry point (a base node). */
  readonly entry: number;
  /** The block's members are members[from, from + count), ascending; its lists the same records of `lists`. */
  readonly from: number;
  readonly count: number;
}

/**
 * Each node's memberships, the members inverted: node c's are [nodeFrom[c], nodeFrom[c + 1]) of
 * memberBlock (ascending) and memberList (the list's word offset); and each block's entry node. A
 * walk finds a node's lists in the covering blocks from its few memberships, not by a search of
 * every covering block.
 */
export interface LinkLookup {
  readonly nodeFrom: Uint32Array;
  readonly memberBlock: Uint32Array;
  readonly memberList: Uint32Array;
  readonly entries: Uint32Array;
}

export class FilterLinks {
  /** u32 words per list record: the degree, then `degree` base node ids. */
  readonly stride: number;
  readonly lookup: LinkLookup;
  /** The most blocks one node is a member of (what listsIn may write). */
  readonly maxMemberships: number;

  /** The members as built or read; null once placed (membersOf derives them from the lookup). */
  readonly heldMembers: Uint32Array | null;

  constructor(
    /** Links each list can hold (2 × payload_m). */
    readonly degree: number,
    readonly payloadM: number,
    readonly blocks: readonly LinkBlockEntry[],
    /** Every block's members, ascending per block; null where the lookup is given (they follow from it). */
    members: Uint32Array | null,
    readonly lists: Uint32Array,
    /** The members' inversion, where it was made already (placeIn, or another thread's). */
    lookup?: LinkLookup,
  ) {
    this.stride = 1 + degree;
    this.heldMembers = members;
    if (lookup === undefined && members === null) throw new StrataError('STRATA_INTERNAL', 'filter links need their members or their lookup', {});
    this.lookup = lookup ?? invert(blocks, members!, this.stride);
    const from = this.lookup.nodeFrom;
    let most = 0;
    for (let c = 0; c + 1 < from.length; c++) most = Math.max(most, from[c + 1]! - from[c]!);
    this.maxMemberships = most;
  }

  /** Bytes placeIn takes: the lists and the lookup, each on a cache line. */
  /** How many memberships the blocks hold in all. */
  get memberCount(): number {
    return this.lookup.memberBlock.length;
  }

  /**
   * Every block's members, ascending per block (what links.bin stores): the held array, else made
   * afresh from the lookup (for writing and checking, never on a search's path).
   */
  get members(): Uint32Array {
    if (this.heldMembers !== null) return this.heldMembers;
    const { nodeFrom, memberList } = this.lookup;
    const out = new Uint32Array(this.memberCount);
    for (let c = 0; c + 1 < nodeFrom.length; c++) for (let k = nodeFrom[c]!; k < nodeFrom[c + 1]!; k++) out[memberList[k]! / this.stride] = c;
    return out;
  }

  regionBytes(): number {
    const k = this.lookup;
    return [this.lists, k.nodeFrom, k.memberBlock, k.memberList, k.entries].reduce((a, x) => a + align64(x.byteLength), 0);
  }

  /**
   * The same links with their lists and lookup copied into `buffer` from byte `at` (regionBytes of
   * room): the fused region, where the WASM traversal reads them (index/kernels/traverse.as.ts).
   * The members stay behind: the lookup holds them.
   */
  placeIn(buffer: ArrayBufferLike, at: number): FilterLinks {
    let next = at;
    const place = (a: Uint32Array): Uint32Array => {
      const out = new Uint32Array(buffer, next, a.length);
      out.set(a);
      next += align64(a.byteLength);
      return out;
    };
    const lists = place(this.lists);
    const k = this.lookup;
    const lookup = { nodeFrom: place(k.nodeFrom), memberBlock: place(k.memberBlock), memberList: place(k.memberList), entries: place(k.entries) };
    return new FilterLinks(this.degree, this.payloadM, this.blocks, null, lists, lookup);
  }

  /** The word offset of node's list in block b's records, or -1 when node is not in the block. */
  listOf(b: number, node: number): number {
    const out = new Int32Array(1);
    return this.listsIn(Uint32Array.of(b), node, out) > 0 ? out[0]! : -1;
  }

  /**
   * Writes the word offsets of node's lists in the blocks of `cover` (ascending block ids) to out,
   * from `at`; how many it wrote. out must hold the node's memberships (at most one per block field).
   */
  listsIn(cover: Uint32Array, node: number, out: Int32Array, at = 0): number {
    const { nodeFrom, memberBlock, memberList } = this.lookup;
    if (node + 1 >= nodeFrom.length) return 0;
    let n = 0;
    for (let k = nodeFrom[node]!, end = nodeFrom[node + 1]!; k < end; k++) {
      if (hasBlock(cover, memberBlock[k]!)) out[at + n++] = memberList[k]!;
    }
    return n;
  }

  /** DRAM (the lookup, searched per expansion, and the members where held) and CXL (the lists) bytes. */
  bytes(): { dram: number; cxl: number } {
    const k = this.lookup;
    return {
      dram: (this.heldMembers?.byteLength ?? 0) + k.nodeFrom.byteLength + k.memberBlock.byteLength + k.memberList.byteLength + k.entries.byteLength,
      cxl: this.lists.byteLength,
    };
  }
}

const align64 = (x: number): number => Math.ceil(x / 64) * 64;

/** The members inverted (LinkLookup), each node's memberships ascending by block. */
function invert(blocks: readonly LinkBlockEntry[], members: Uint32Array, stride: number): LinkLookup {
  let top = 0;
  for (let i = 0; i < members.length; i++) top = Math.max(top, members[i]! + 1);
  const nodeFrom = new Uint32Array(top + 1);
  for (let i = 0; i < members.length; i++) nodeFrom[members[i]! + 1]!++;
  for (let c = 0; c < top; c++) nodeFrom[c + 1]! += nodeFrom[c]!;
  const fill = nodeFrom.slice(0, top);
  const memberBlock = new Uint32Array(members.length);
  const memberList = new Uint32Array(members.length);
  blocks.forEach((e, b) => {
    for (let i = e.from; i < e.from + e.count; i++) {
      const at = fill[members[i]!]!++;
      memberBlock[at] = b;
      memberList[at] = i * stride;
    }
  });
  return { nodeFrom, memberBlock, memberList, entries: Uint32Array.from(blocks, (e) => e.entry) };
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
