// The fused region's ranges against transparent huge pages: a huge page is aligned in the address
// space, so ranges aligned only within the region (a WebAssembly.Memory starts on one of its own
// pages) would share huge pages across tiers, and binding the CXL range would have to split one
// the DRAM range had already faulted in.
import { describe, expect, it } from 'vitest';
import { allocateFused, type FusedPlan, HUGE_PAGE, planFused } from '../../../index/tiered/fused-region.js';
import type { SegmentShape } from '../../../index/tiered/segment.js';
import { segmentLayout } from '../../../index/tiered/segment.js';
import { addressesReadable, viewAddress } from '../../../tiers/numa.js';
import { buildSmallIndex } from '../../helpers/small-index.js';

/** Fails unless each range starts on a huge page and no huge page holds bytes of two tiers. */
function expectOwnHugePages(ranges: Array<{ tier: number; start: number; bytes: number }>): void {
  const owner = new Map<number, number>();
  for (const r of ranges) {
    expect(r.start % HUGE_PAGE, `tier ${r.tier} range at ${r.start.toString(16)}`).toBe(0);
    for (let page = Math.floor(r.start / HUGE_PAGE); page * HUGE_PAGE < r.start + r.bytes; page++) {
      expect(owner.get(page) ?? r.tier, `huge page ${page}`).toBe(r.tier);
      owner.set(page, r.tier);
    }
  }
}

const count = 20_000;
const codes: SegmentShape = { kind: 'codes', stride: 40, headBytes: 256, queryBytes: 512, batchMax: 64, slots: 8 };
const lists: SegmentShape = { kind: 'adjacency', stride: 132, headBytes: 0, queryBytes: 0, batchMax: 0, slots: 0 };
const stores = [
  { name: 'adjacency', shape: lists, layout: { split: 2_000, perDram: count, perCxl: count } },
  { name: 'codes', shape: codes, layout: { split: count, perDram: count, perCxl: count } },
];
const upper = { ids: new Int32Array(50), levels: new Uint8Array(50), offsets: new Int32Array(50), links: new Uint32Array(50 * 17) };
const replan = (base: number): FusedPlan | null => planFused(stores, count, 32, 2, upper, null, base);

/** Each planned range, at the address the region is said to start at. */
function rangesOf(plan: FusedPlan, regionAt: number): Array<{ tier: number; start: number; bytes: number }> {
  return stores.flatMap((s) => {
    const bases = plan.bases.get(s.name)!;
    const tiers = s.layout.split === 0 ? [1] : s.layout.split === count ? [0] : [0, 1];
    return tiers.map((tier, i) => {
      const nodes = tier === 0 ? s.layout.split : count - s.layout.split;
      return { tier, start: regionAt + bases[i]!, bytes: segmentLayout(s.shape, nodes).bytes };
    });
  });
}

describe('the fused region in the address space', () => {
  it('shifts its ranges by the region misalignment, so that each tier range has huge pages of its own', () => {
    for (const at of [0x7f00_001b_0000, 0x7f00_0001_0000, 0x7f00_0020_0000]) {
      const placed = allocateFused(replan, () => at)!;
      expect(placed.plan.bytes).toBeLessThanOrEqual(placed.region.bytes);
      expectOwnHugePages(rangesOf(placed.plan, at));
      expect(placed.plan.lanes.laneBase).toBeGreaterThanOrEqual(placed.plan.upperAt);
    }
  });

  it("gives the filter links' cold part whole huge pages of the CXL tier, apart from the DRAM lanes and entries", () => {
    const links = { dram: 192, cold: 300_001 };
    const withLinks = (base: number): FusedPlan | null => planFused(stores, count, 32, 2, upper, null, base, 0, links);
    for (const at of [0x7f00_001b_0000, 0x7f00_0020_0000]) {
      const placed = allocateFused(withLinks, () => at)!;
      const l = placed.plan.links;
      expect(l.bytes).toBe(links.dram);
      expect(l.coldBytes).toBeGreaterThanOrEqual(links.cold);
      expect(l.coldBytes % 4096).toBe(0);
      expect(placed.plan.bytes).toBeLessThanOrEqual(placed.region.bytes);
      const lanes = placed.plan.lanes.laneBase;
      expectOwnHugePages([
        ...rangesOf(placed.plan, at),
        { tier: 0, start: at + lanes, bytes: l.at + l.bytes - lanes },
        { tier: 1, start: at + l.coldAt, bytes: l.coldBytes },
      ]);
    }
  });

  it('plans from offset 0 where addresses cannot be read (nothing is bound there)', () => {
    const placed = allocateFused(replan, null)!;
    expect(placed.plan.bases.get('adjacency')![0]).toBe(0);
    expect(placed.region.bytes).toBeLessThan(placed.plan.bytes + HUGE_PAGE);
  });

  it.skipIf(!addressesReadable())('gives every tier range of a real index huge pages of its own, at its real addresses', () => {
    const { index } = buildSmallIndex({ count: 3000, codes: 'auto', dramShare: 0.1 });
    const ranges = index.tiers.flatMap((t) =>
      t.segments
        .filter((s) => s.sharesRegion)
        .map((s) => ({ tier: t.index, start: viewAddress(new Uint8Array(s.region.buffer, s.base, 1))!, bytes: s.layout.bytes })),
    );
    expect(new Set(ranges.map((r) => r.tier))).toEqual(new Set([0, 1]));
    expectOwnHugePages(ranges);
  });
});
