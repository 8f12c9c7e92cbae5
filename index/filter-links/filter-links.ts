// A base's filter links: for each block of a payload index (blocks.ts), a neighbour list per point
// of the block, linking it to its nearest points within the block (level 0 of an HNSW graph built on
// the block alone, build-links.ts). A filter the blocks cover is walked on its matches only, through
// these lists and the matching part of the base's own lists (index/search/traversal.ts LINKED): the
// block's links keep the matches connected where the base graph reaches them only through
// non-matching points. Only linked walks read them, so the lists and the lookup (each node's
// memberships) are cold, priced as CXL reads; the blocks' entries, which seed a walk, stay in DRAM.
import { StrataError } from '../../common/errors.js';
import { lowerBound } from '../../common/lower-bound.js';
import { STEP_BYTES, stepsInOneTurn } from '../../common/turns.js';
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
    this.lookup = lookup ?? stepsInOneTurn(invertSteps(blocks, members!, this.stride));
    const from = this.lookup.nodeFrom;
    let most = 0;
    for (let c = 0; c + 1 < from.length; c++) most = Math.max(most, from[c + 1]! - from[c]!);
    this.maxMemberships = most;
  }

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

  /**
   * Bytes placeIn takes, each array on a cache line: in DRAM the blocks' entries (a walk's seeds),
   * and cold the lists and the lookup (a range of their own, which a CXL host binds to its node).
   */
  regionBytes(): { dram: number; cold: number } {
    const k = this.lookup;
    return { dram: align64(k.entries.byteLength), cold: [this.lists, k.nodeFrom, k.memberBlock, k.memberList].reduce((a, x) => a + align64(x.byteLength), 0) };
  }

  /**
   * The same links copied into `buffer` (regionBytes of room at each offset): the entries from byte
   * `at`, the lists and the lookup from `coldAt`. That is the fused region, where the WASM traversal
   * reads them (index/kernels/traverse.as.ts). The members stay behind: the lookup holds them.
   */
  placeIn(buffer: ArrayBufferLike, at: number, coldAt: number): FilterLinks {
    return stepsInOneTurn(this.placeInSteps(buffer, at, coldAt));
  }

  /** placeIn, yielding after every STEP_BYTES copied (a base opened over turns of the event loop). */
  *placeInSteps(buffer: ArrayBufferLike, at: number, coldAt: number): Generator<void, FilterLinks, void> {
    let next = coldAt;
    function* place(a: Uint32Array): Generator<void, Uint32Array, void> {
      const out = new Uint32Array(buffer, next, a.length);
      const step = STEP_BYTES >>> 2;
      for (let from = 0; from < a.length; from += step) {
        out.set(a.subarray(from, from + step), from);
        yield;
      }
      next += align64(a.byteLength);
      return out;
    }
    const lists = yield* place(this.lists);
    const k = this.lookup;
    const nodeFrom = yield* place(k.nodeFrom);
    const memberBlock = yield* place(k.memberBlock);
    const memberList = yield* place(k.memberList);
    next = at;
    const lookup = { nodeFrom, memberBlock, memberList, entries: yield* place(k.entries) };
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

  /**
   * Bytes a linked hop reads of node's lookup: its two bounds, then its memberships (traverse.as.ts's
   * lookupBytesOf is the twin); 0 for a node the links do not reach.
   */
  lookupBytes(node: number): number {
    const from = this.lookup.nodeFrom;
    if (node + 1 >= from.length) return 0;
    return 8 + 8 * (from[node + 1]! - from[node]!);
  }

  /**
   * DRAM (the blocks' entries) and CXL (the lists, and the lookup a linked hop reads with them) bytes,
   * as a base read from its directory holds them. Only linked walks read either, so both are cold: the
   * DRAM budget keeps its room for what every search reads. The members a builder still holds are
   * apart (`heldBytes`): the directory's reader never has them, so a manifest must not count them.
   */
  bytes(): { dram: number; cxl: number } {
    const k = this.lookup;
    return {
      dram: k.entries.byteLength,
      cxl: this.lists.byteLength + k.nodeFrom.byteLength + k.memberBlock.byteLength + k.memberList.byteLength,
    };
  }

  /** Bytes of the members held beside the lookup (a base built in this process and not placed). */
  get heldBytes(): number {
    return this.heldMembers?.byteLength ?? 0;
  }
}

const align64 = (x: number): number => Math.ceil(x / 64) * 64;

/** The members inverted (LinkLookup), each node's memberships ascending by block. */
/** The members' inversion (LinkLookup), yielding between blocks of about STEP_BYTES of members. */
export function* invertSteps(blocks: readonly LinkBlockEntry[], members: Uint32Array, stride: number): Generator<void, LinkLookup, void> {
  const step = STEP_BYTES >>> 2;
  let top = 0;
  for (let i = 0; i < members.length; i++) top = Math.max(top, members[i]! + 1);
  const nodeFrom = new Uint32Array(top + 1);
  for (let i = 0; i < members.length; i++) nodeFrom[members[i]! + 1]!++;
  for (let c = 0; c < top; c++) nodeFrom[c + 1]! += nodeFrom[c]!;
  yield;
  const fill = nodeFrom.slice(0, top);
  const memberBlock = new Uint32Array(members.length);
  const memberList = new Uint32Array(members.length);
  let done = 0;
  for (let b = 0; b < blocks.length; b++) {
    const e = blocks[b]!;
    for (let i = e.from; i < e.from + e.count; i++) {
      const at = fill[members[i]!]!++;
      memberBlock[at] = b;
      memberList[at] = i * stride;
    }
    done += e.count;
    if (done >= step) {
      done = 0;
      yield;
    }
  }
  return { nodeFrom, memberBlock, memberList, entries: Uint32Array.from(blocks, (e) => e.entry) };
}

/** Whether the ascending ids hold b. */
function hasBlock(ids: Uint32Array, b: number): boolean {
  const i = lowerBound(ids.length, (j) => ids[j]!, b);
  return i < ids.length && ids[i] === b;
}
