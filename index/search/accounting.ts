// The one place where memory accesses are counted and priced, for the local searcher and the
// near-data runner alike. Every method records the access in the query's counters and returns the
// modelled CXL extra (ns over the same access served from DRAM) that the calling thread owes, which
// an injecting driver then stalls for. Accesses made on the caller's behalf by a tier worker are
// priced with the near-data model and owed by the worker, so they return 0 here.
import { batchCostNs, type NearDataModel, type TierCosts } from '../../tiers/cost-model.js';
import { STAT } from './stats.js';

/** Which records a read touches: full vectors or compact codes. */
export type RecordClass = 'vector' | 'code';

const READS = { vector: [STAT.vecReadsDram, STAT.vecReadsCxl], code: [STAT.codeReadsDram, STAT.codeReadsCxl] } as const;
const BYTES = { vector: [STAT.vecBytesDram, STAT.vecBytesCxl], code: [STAT.codeBytesDram, STAT.codeBytesCxl] } as const;

export class Accountant {
  constructor(readonly costs: TierCosts) {}

  /** Bytes moved from a tier whose latency is hidden (a prefetch that was not used): bandwidth only. */
  bytesOnly(st: Float64Array, tier: number, bytes: number): number {
    const c = this.costs;
    const dramNs = bytes * c.nsPerByte[0]!;
    const ns = tier === 0 ? dramNs : bytes * c.nsPerByte[tier]!;
    st[STAT.modelledNs]! += ns;
    st[STAT.modelledDramOnlyNs]! += dramNs;
    return ns - dramNs;
  }

  /** One neighbour-list read: a dependent access (the next step needs it), unless it was foreseen. */
  adjacency(st: Float64Array, tier: number, bytes: number, latencyHidden: boolean): number {
    return this.adjacencyMany(st, tier, 1, bytes, latencyHidden);
  }

  /**
   * `reads` neighbour-list reads of one tier, `bytes` in all: what as many adjacency() calls would
   * record and return (the fused beam counts in WASM and prices here, once per beam).
   */
  adjacencyMany(st: Float64Array, tier: number, reads: number, bytes: number, latencyHidden: boolean): number {
    if (reads === 0) return 0;
    st[tier === 0 ? STAT.adjReadsDram : STAT.adjReadsCxl]! += reads;
    st[tier === 0 ? STAT.adjBytesDram : STAT.adjBytesCxl]! += bytes;
    if (latencyHidden) return this.bytesOnly(st, tier, bytes);
    return this.latencies(st, tier, reads, bytes);
  }

  /**
   * One list of the filter links (index/filter-links/): cold, read from the CXL tier, a dependent
   * access unless it was foreseen with its node.
   */
  filterLinks(st: Float64Array, bytes: number, latencyHidden = false): number {
    return this.filterLinksMany(st, 1, bytes, latencyHidden);
  }

  /** `reads` link-list reads, `bytes` in all: what as many filterLinks() calls would record and return (the fused walk's). */
  filterLinksMany(st: Float64Array, reads: number, bytes: number, latencyHidden: boolean): number {
    if (reads === 0) return 0;
    st[STAT.filterLinkReads]! += reads;
    st[STAT.filterLinkBytes]! += bytes;
    return latencyHidden ? this.bytesOnly(st, 1, bytes) : this.latencies(st, 1, reads, bytes);
  }

  /**
   * `reads` list-code blocks (index/tiered/list-code-store.ts), `bytes` in all: cold, read from the
   * CXL tier with their lists, so a dependent access unless the list was foreseen.
   */
  listCodesMany(st: Float64Array, reads: number, bytes: number, latencyHidden: boolean): number {
    if (reads === 0) return 0;
    st[STAT.listCodeReads]! += reads;
    st[STAT.listCodeBytes]! += bytes;
    return latencyHidden ? this.bytesOnly(st, 1, bytes) : this.latencies(st, 1, reads, bytes);
  }

  /**
   * `count` record reads of one tier made in batches, where `groups` is the sum over the batches of
   * ceil(batch / mlp): what as many reads() calls would record and return.
   */
  readsMany(st: Float64Array, what: RecordClass, tier: number, count: number, groups: number, bytesEach: number): number {
    if (count === 0) return 0;
    const bytes = count * bytesEach;
    st[READS[what][tier]!]! += count;
    st[BYTES[what][tier]!]! += bytes;
    st[STAT.distances]! += count;
    return this.latencies(st, tier, groups, bytes);
  }

  /** `latencies` serial latencies and `bytes` moved on a tier, recorded; returns the CXL extra. */
  private latencies(st: Float64Array, tier: number, latencies: number, bytes: number): number {
    const c = this.costs;
    const dramNs = latencies * c.latencyNs[0]! + bytes * c.nsPerByte[0]!;
    const ns = tier === 0 ? dramNs : latencies * c.latencyNs[tier]! + bytes * c.nsPerByte[tier]!;
    st[STAT.modelledNs]! += ns;
    st[STAT.modelledDramOnlyNs]! += dramNs;
    return ns - dramNs;
  }

  /** `count` independent record reads on one tier by the calling thread (they overlap, mlp at a time). */
  reads(st: Float64Array, what: RecordClass, tier: number, count: number, bytesEach: number): number {
    return this.readsMany(st, what, tier, count, Math.ceil(count / this.costs.mlp), bytesEach);
  }

  /**
   * Reads a tier worker makes for this query. They are counted on their tier, but priced as the
   * near-data model says (host workers still read at CXL cost; a device reads its own DRAM) and paid
   * by the worker, once per message: see message().
   */
  remoteReads(st: Float64Array, what: RecordClass, tier: number, count: number, bytesEach: number): void {
    st[READS[what][tier]!]! += count;
    st[BYTES[what][tier]!]! += count * bytesEach;
    st[STAT.distances]! += count;
  }

  /**
   * One near-data message this query waited on: the worker's modelled time for the whole message
   * (every query in it waits for all of it, so each is charged in full) and the ids and distances it
   * moved for this query.
   */
  message(st: Float64Array, messageNs: number, dramOnlyNs: number, bytes: number): void {
    st[STAT.modelledNs]! += messageNs;
    st[STAT.modelledDramOnlyNs]! += dramOnlyNs;
    st[STAT.linkMessages]! += 1;
    st[STAT.linkBytes]! += bytes;
  }
}

/**
 * Modelled time a tier worker spends on one message carrying `reads` record reads of `bytesEach`
 * bytes in total, and the `linkBytes` of ids and distances that cross: what it stalls for when
 * injecting. Host workers sit beside the socket and read the expander over CXL; a device worker is
 * the expander's own compute and reads its DRAM, but its answer crosses the link.
 */
export function messageCost(costs: TierCosts, model: NearDataModel, reads: number, bytesEach: number, linkBytes: number): { ns: number; dramOnlyNs: number } {
  const bytes = reads * bytesEach;
  const dramOnlyNs = batchCostNs(costs, 0, reads, bytes);
  if (model === 'host') {
    // A cross-core hand-off is real here (threads, shared memory), so it is measured, not modelled.
    return { ns: batchCostNs(costs, 1, reads, bytes), dramOnlyNs };
  }
  // The device reads at its own DRAM's speed; the request and its answer cross the link once.
  return { ns: dramOnlyNs + costs.latencyNs[1]! + linkBytes * costs.nsPerByte[1]!, dramOnlyNs };
}
