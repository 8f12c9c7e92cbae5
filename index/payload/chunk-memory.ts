// The memory a payload store's values live in: slabs that its chunks are carved from. Values are
// cold data (a point's are read when it is an answer, or when a filter condition no index answers
// checks it; never in a search's inner loop), so they go to the CXL tier: on a host whose memory plan
// binds that tier to a NUMA node, every slab is bound to the node before its first write and its pages
// are verified, as the index's tiers are; elsewhere the slabs are local memory, reported as the
// emulated CXL tier (the cost model prices the index's accesses, not these).
import { bindToNode, checkBindPolicy, numaSupport, touchPages, verifyPlacement } from '../../tiers/numa.js';
import { PAYLOAD_LIMITS } from './limits.js';

/** Where the values are, as verified (not as asked). */
export interface ValuesPlacement {
  tier: 'cxl';
  /** numa: slabs bound to `node`; emulated: local memory standing for the CXL tier. */
  mode: 'numa' | 'emulated';
  node: number | null;
  /** Slabs and their bytes (what the values take in memory, chunks and their slack). */
  slabs: number;
  bytes: number;
  /** numa: pages carrying MPOL_BIND to the node, pages found on it and elsewhere (counted by verify()). */
  pages: number | null;
  pagesOnNode: number | null;
  pagesElsewhere: number | null;
}

const align = (x: number, a: number): number => Math.ceil(x / a) * a;

export class ChunkMemory {
  private readonly slabList: Uint8Array[] = [];
  /** The slab small chunks are carved from, and its bytes used. */
  private current: Uint8Array | null = null;
  private used = 0;
  private verified: Pick<ValuesPlacement, 'pages' | 'pagesOnNode' | 'pagesElsewhere'> = { pages: null, pagesOnNode: null, pagesElsewhere: null };

  /** node: the NUMA node every slab is bound to, or null (local memory, the emulated CXL tier). */
  constructor(readonly node: number | null = null) {
    // A bound slab is bound whole, before anything is written to it: binding one at creation makes a
    // plan that cannot be honoured fail when the collection opens, not at a later write.
    if (node !== null) this.grow(0);
  }

  /**
   * `bytes` fresh zeroed bytes, 8-byte aligned, for one chunk: the slab and where in it. A chunk of a
   * quarter of the largest slab or more gets a slab of its own, so that the current slab's free
   * space is not left behind for it.
   */
  take(bytes: number): { buffer: ArrayBuffer; byteOffset: number } {
    const need = align(bytes, 8);
    if (need >= PAYLOAD_LIMITS.largestSlab / 4) {
      const own = this.slab(need);
      return { buffer: own.buffer as ArrayBuffer, byteOffset: own.byteOffset };
    }
    let slab = this.current;
    if (slab === null || this.used + need > slab.byteLength) {
      slab = this.grow(need);
    }
    const byteOffset = slab.byteOffset + this.used;
    this.used += need;
    return { buffer: slab.buffer as ArrayBuffer, byteOffset };
  }

  /** Bytes the slabs hold. */
  bytes(): number {
    let n = 0;
    for (const s of this.slabList) n += s.byteLength;
    return n;
  }

  /** The slabs, for checks. */
  slabs(): readonly Uint8Array[] {
    return this.slabList;
  }

  /**
   * On a bound store, proves every page of every slab carries MPOL_BIND to the node, then counts
   * where the pages are (touched first, so that none is left unallocated); the counts go to placement().
   */
  verify(): void {
    if (this.node === null) return;
    let pages = 0;
    let on = 0;
    let elsewhere = 0;
    for (const s of this.slabList) {
      const policy = checkBindPolicy(s, this.node);
      pages += policy.pages - policy.mismatched;
      touchPages(s);
      const p = verifyPlacement(s);
      for (const [node, count] of Object.entries(p.byNode)) {
        if (Number(node) === this.node) on += count;
        else elsewhere += count;
      }
    }
    this.verified = { pages, pagesOnNode: on, pagesElsewhere: elsewhere };
  }

  placement(): ValuesPlacement {
    return {
      tier: 'cxl',
      mode: this.node === null ? 'emulated' : 'numa',
      node: this.node,
      slabs: this.slabList.length,
      bytes: this.bytes(),
      ...this.verified,
    };
  }

  /**
   * A new current slab for a chunk of `need` bytes: each twice the last, from the first size up to
   * the largest (a bound store takes the largest at once).
   */
  private grow(need: number): Uint8Array {
    const last = this.current?.byteLength ?? PAYLOAD_LIMITS.firstSlab / 2;
    const size = Math.max(need, this.node === null ? Math.min(PAYLOAD_LIMITS.largestSlab, 2 * last) : PAYLOAD_LIMITS.largestSlab);
    this.current = this.slab(size);
    this.used = 0;
    return this.current;
  }

  /**
   * A slab of `size` bytes. A bound one is cut from a buffer a page larger at each end, bound before
   * its first write: the binding covers whole pages, and the slab is exactly those (bindToNode says
   * where the first one starts).
   */
  private slab(size: number): Uint8Array {
    let slab: Uint8Array;
    if (this.node === null) slab = new Uint8Array(size);
    else {
      const support = numaSupport();
      const page = support.available ? support.pageSize : 4096;
      const whole = align(size, page);
      const raw = new Uint8Array(whole + 2 * page);
      const bound = bindToNode(raw, this.node, { strict: true, move: true });
      slab = raw.subarray(bound.offset, bound.offset + whole);
    }
    this.slabList.push(slab);
    return slab;
  }
}
